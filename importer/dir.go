package importer

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"hindsight/library"
	"hindsight/store"
)

// importExts are the files a folder import reads; anything else is skipped.
var importExts = map[string]bool{".md": true, ".markdown": true, ".txt": true, ".text": true, ".html": true, ".htm": true}

// Result is what happened to one file of a folder import.
type Result struct {
	File   string
	Status string // created, linked, skipped or failed
	Detail string
}

// importBatch is how many files are read ahead, and the most one
// transaction imports (a pace sizes them by time). Each postmortem
// adds rows all over some large indexes (fingerprint bands, facts, search
// terms), so a commit writes most of their pages whatever the batch size:
// large batches write each page once for many postmortems. It stays small
// enough that memory is flat whatever the size of the folder (a few tens
// of megabytes of text).
const importBatch = 2048

// importFile is one file of a folder import: read and cleaned (read, nil
// until then), then checked and ready to import (p). A file refused only
// because the postmortem its variant_of names is not imported yet is
// checked again from read, not read again.
type importFile struct {
	res  *Result
	read *store.Postmortem
	p    store.Postmortem
}

// Dir imports every postmortem file of dir (not its subfolders), read
// through the pipeline and signed by author, and returns what happened to each file, in name
// order. Re-running it skips the files already imported. Files whose front
// matter names a variant_of are linked to that postmortem, once it exists:
// files are retried until no more can be imported, so a translation may
// come before its original in name order. Files are read and cleaned on
// every core, at most a batch ahead of the writer, which imports them as
// they are read, in transactions of about a second (importFiles). The error is a
// folder that cannot be read, a failed write, or ctx's end; what was
// imported before it stays, counted. A file that cannot be imported is a
// failed result.
func (pl *Pipeline) Dir(ctx context.Context, dir, author string) (_ []Result, err error) {
	defer func() {
		if err != nil {
			// Stopped (SIGTERM, a failed write): the transactions committed
			// may have left their counts to a later fold (importFiles).
			// Fold them now rather than at the next write or start.
			err = errors.Join(err, pl.store.FoldCounts(context.WithoutCancel(ctx)))
		}
	}()
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	// Files are read through root, which refuses any path, symbolic links
	// included, that leads out of the folder.
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	defer root.Close()
	var results []*Result
	var todo []importFile
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || strings.HasPrefix(name, ".") {
			continue
		}
		mode := e.Type()
		if mode&fs.ModeSymlink != 0 {
			info, err := root.Stat(name)
			if err != nil {
				results = append(results, &Result{File: name, Status: "skipped", Detail: "a symbolic link that leads out of the folder"})
				continue
			}
			if info.IsDir() {
				continue
			}
			mode = info.Mode()
		}
		res := &Result{File: name}
		results = append(results, res)
		if !mode.IsRegular() {
			// Reading a named pipe waits for a writer, for good; a
			// device may never end.
			res.Status, res.Detail = "skipped", notRegular(mode)
			continue
		}
		if !importExts[strings.ToLower(filepath.Ext(name))] {
			res.Status, res.Detail = "skipped", "not a .md, .txt or .html file"
			continue
		}
		todo = append(todo, importFile{res: res})
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cpu := newCores()
	pc := newPace()
	// The writer imports a batch's files as they are read, in order: it
	// no longer waits for the first 2,048 to be read (a tenth of a
	// 10,000-file import), and the readers stay a batch ahead of it.
	batches := make(chan *readingBatch, 1)
	// A file refused only because its original is not imported yet is
	// checked again with a later batch, once the import of its own may
	// have brought the original (a translation mostly follows it in the
	// folder), while the batch before is being written: all of them
	// checked at the end overlapped no write, a tenth of a 10,000-file
	// import. Each is checked again that way once (retriedWith); the rest
	// wait for the end, so a folder of variants whose originals are
	// missing is not checked again with every batch.
	var pendingMu sync.Mutex
	var pending []importFile
	go func() {
		defer close(batches)
		for start := 0; start < len(todo); start += pl.batch {
			files := todo[start:min(start+pl.batch, len(todo))]
			pendingMu.Lock()
			files, pending = append(pending, files...), nil
			pendingMu.Unlock()
			b := newReadingBatch(files)
			select {
			case batches <- b:
			case <-ctx.Done():
				return
			}
			pl.readBatch(ctx, cpu, author, root, b)
		}
	}()
	var retry []importFile
	retriedWith := map[*Result]bool{}
	for b := range batches {
		if err := stopped(ctx); err != nil {
			return nil, err
		}
		again, err := pl.importFiles(ctx, cpu, pc, b)
		if err != nil {
			return nil, err
		}
		pendingMu.Lock()
		for _, f := range append(b.waitingFiles(), again...) {
			if retriedWith[f.res] {
				retry = append(retry, f)
			} else {
				retriedWith[f.res] = true
				pending = append(pending, f)
			}
		}
		pendingMu.Unlock()
	}
	// The reader is done: what it did not take waits for the end too.
	retry = append(retry, pending...)
	for len(retry) > 0 {
		// Check them again: the pipeline checks variant_of against what
		// is imported now.
		b := newReadingBatch(retry)
		go pl.readBatch(ctx, cpu, author, root, b)
		again, err := pl.importFiles(ctx, cpu, pc, b)
		if err != nil {
			return nil, err
		}
		again = append(again, b.waitingFiles()...)
		if len(again) == len(retry) {
			break // no progress: their originals are not in the folder
		}
		retry = again
	}
	if err := stopped(ctx); err != nil {
		return nil, err
	}

	out := make([]Result, len(results))
	for i, res := range results {
		out[i] = *res
	}
	return out, nil
}

// stopped is the error of an import whose context was cancelled (main
// cancels it on SIGTERM).
func stopped(ctx context.Context) error {
	if ctx.Err() == nil {
		return nil
	}
	return fmt.Errorf("import: stopped before the end (the batches imported so far are kept; run it again to go on): %w", ctx.Err())
}

// cores hands out the machine's cores between the one writer and the
// readers a batch ahead of it: one a file read, one a transaction. Without
// it the writer got about two thirds of a core while every core read (the
// scheduler shares them out evenly), and it was still writing the last
// batches, alone, for a third of the import after the reading was done.
type cores chan struct{}

func newCores() cores { return make(cores, runtime.GOMAXPROCS(0)) }

// do runs fn on one of the cores, waiting for one to be free (callers
// waiting are served in turn).
func (c cores) do(fn func()) {
	c <- struct{}{}
	defer func() { <-c }()
	fn()
}

// readingBatch is a batch of files being read (readBatch), which the
// writer takes in order as they are ready (take).
type readingBatch struct {
	files []importFile
	mu    sync.Mutex
	more  *sync.Cond // signalled as files are done
	done  []bool
	// ready is how many files, from the first, are done; taken how many
	// of them the writer has taken.
	ready, taken int
	// waiting holds, at a file's index, the file refused only because
	// the postmortem its variant_of names is not imported yet.
	waiting []importFile
}

func newReadingBatch(files []importFile) *readingBatch {
	b := &readingBatch{files: slices.Clone(files), done: make([]bool, len(files)), waiting: make([]importFile, len(files))}
	b.more = sync.NewCond(&b.mu)
	return b
}

// finish records that file i is done: ready to import, or left out (the
// zero importFile), and waiting for its original if waiting.res is set.
func (b *readingBatch) finish(i int, ready, waiting importFile) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.files[i], b.waiting[i], b.done[i] = ready, waiting, true
	for b.ready < len(b.files) && b.done[b.ready] {
		b.ready++
	}
	b.more.Broadcast()
}

// take waits until n more files are done (fewer at the batch's end) and
// returns those ready to import; false once every file is taken.
func (b *readingBatch) take(n int) ([]importFile, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.taken == len(b.files) {
		return nil, false
	}
	want := min(b.taken+n, len(b.files))
	for b.ready < want {
		b.more.Wait()
	}
	var out []importFile
	for j := b.taken; j < want; j++ {
		if b.files[j].res != nil {
			out = append(out, b.files[j])
		}
		b.files[j] = importFile{} // the batch keeps no text it handed on
	}
	b.taken = want
	return out, true
}

// waitingFiles are b's waiting files, in b's order, once every file is
// taken.
func (b *readingBatch) waitingFiles() []importFile {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.DeleteFunc(slices.Clone(b.waiting), func(f importFile) bool { return f.res == nil })
}

// readBatch reads b's files through the import pipeline (those not read
// yet), checks and prepares them, on every core that cpu hands out. A file
// that cannot be read or that the pipeline refuses is marked failed and
// left out; one refused only because the postmortem its variant_of names
// is not imported yet is also kept (waitingFiles), to be checked again
// once more of the folder is imported.
func (pl *Pipeline) readBatch(ctx context.Context, cpu cores, author string, root *os.Root, b *readingBatch) {
	files := b.files
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if ctx.Err() != nil {
					b.finish(i, importFile{}, importFile{})
					continue // stopping (SIGTERM): Dir returns the error
				}
				cpu.do(func() { pl.readOne(ctx, author, root, b, i) })
			}
		}()
	}
	for i := range files {
		next <- i
	}
	close(next)
	wg.Wait()
}

// readOne reads, checks and prepares b's file i.
func (pl *Pipeline) readOne(ctx context.Context, author string, root *os.Root, b *readingBatch, i int) {
	f := b.files[i] // the readers own b.files[i] until finish(i)
	res, read := f.res, f.read
	if read == nil {
		p, err := pl.readFile(root, author, res.File)
		if err != nil {
			res.Status, res.Detail = "failed", err.Error()
			b.finish(i, importFile{}, importFile{})
			return
		}
		read = &p
	}
	p, err := pl.checkFile(ctx, root, res.File, *read)
	if err != nil {
		res.Status, res.Detail = "failed", err.Error()
		var waiting importFile
		var fields store.FieldErrors
		if errors.As(err, &fields) && len(fields) == 1 && fields["variant_of"] != "" {
			// What it read is kept for the next check (files itself keeps
			// nothing: the folder's list lives as long as the import).
			waiting = importFile{res: res, read: read}
		}
		b.finish(i, importFile{}, waiting)
		return
	}
	library.PrepareImport(&p)
	b.finish(i, importFile{res: res, read: read, p: p}, importFile{})
}

// importFiles imports b's files as they are read, in transactions sized
// by pc, pausing between them, and records each outcome. Each transaction
// leaves the insight and follow-up counts to a fold of b's own once its
// files are all imported (store.FoldCountsLater): they are behind for at
// most a batch, and a save in another process folds at most that many.
// The fold is a transaction of its own (about a second for 2,048 files),
// so that no transaction holds the lock for two, and the pace is not set
// by it. It returns the files to try again: variants whose original is
// not imported yet. An error stops it, with the transactions before it
// committed (and their counts folded by the next write).
func (pl *Pipeline) importFiles(ctx context.Context, cpu cores, pc *pace, b *readingBatch) ([]importFile, error) {
	var retry []importFile
	for {
		files, ok := b.take(pc.size)
		if !ok {
			break
		}
		if len(files) == 0 {
			continue
		}
		if err := pc.wait(ctx); err != nil {
			return nil, err
		}
		ps := make([]*store.Postmortem, len(files))
		for i := range files {
			p := files[i].p
			ps[i] = &p
		}
		var errs []error
		var err error
		var took time.Duration
		cpu.do(func() {
			began := time.Now()
			errs, err = pl.lib.ImportPostmortems(ctx, ps, store.FoldCountsLater)
			took = time.Since(began)
		})
		if err != nil {
			return nil, err
		}
		pc.done(len(ps), took)
		for i, err := range errs {
			if again := record(files[i], ps[i], err); again {
				retry = append(retry, importFile{res: files[i].res, read: files[i].read})
			}
		}
	}
	if err := pc.wait(ctx); err != nil {
		return nil, err
	}
	var err error
	cpu.do(func() { err = pl.store.FoldCounts(ctx) })
	pc.committed = time.Now()
	return retry, err
}

// record sets f's result from the import of p (err), and reports whether
// to try it again: a variant whose original may be a file not imported
// yet.
func record(f importFile, p *store.Postmortem, err error) (again bool) {
	res := f.res
	var fields store.FieldErrors
	var dup *store.DuplicateError
	switch {
	case err == nil && p.VariantOf != "":
		res.Status, res.Detail = "linked", fmt.Sprintf("%s, %s of %s", p.Slug, p.VariantKind, p.VariantOf)
	case err == nil:
		res.Status, res.Detail = "created", p.Slug
	case errors.As(err, &dup):
		res.Status, res.Detail = "skipped", "already imported as "+dup.Slug
	case errors.As(err, &fields) && len(fields) == 1 && fields["variant_of"] != "":
		res.Status, res.Detail = "failed", fields["variant_of"]
		return true
	case errors.As(err, &fields):
		res.Status, res.Detail = "failed", fields.Error()
	default:
		res.Status, res.Detail = "failed", err.Error()
	}
	return false
}

// A server writing to the same database waits for the write lock while an
// import's transaction holds it (SQLite has one writer): an import commits
// in transactions of about importTxTime, and pauses importPause between
// them, ten times as long as a waiting write takes to try again
// (store.writeRetry, 2 ms), so that a save waiting in another process
// finds the lock free and goes first. Users' saves then wait about a
// second at most. The pause was 120 ms while a waiting write slept as
// SQLite's busy handler does (up to 100 ms): a sixth of an import's time.
const (
	importTxTime = time.Second
	importPause  = 20 * time.Millisecond
)

// pace sizes an import's transactions to last about importTxTime each:
// the first few files, then as many as the last transaction's pace fits
// (at most twice as many, and importBatch). It lasts the whole import, so
// that each read batch does not start again from a few files (a 10,000-file
// import committed 40 times, not 16, and paused after each).
type pace struct {
	size      int       // files in the next transaction
	committed time.Time // when the last transaction ended; zero before the first
}

func newPace() *pace { return &pace{size: 32} }

// wait pauses until importPause has passed since the last commit (not at
// all if the import waited that long for its readers), or ctx ends.
func (pc *pace) wait(ctx context.Context) error {
	if pc.committed.IsZero() {
		return nil
	}
	select {
	case <-time.After(importPause - time.Since(pc.committed)):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// done records that a transaction of n files took took.
func (pc *pace) done(n int, took time.Duration) {
	pc.committed = time.Now()
	took = max(took, time.Millisecond)
	pc.size = max(1, min(2*n, importBatch, int(int64(n)*int64(importTxTime)/int64(took))))
}

// readFile reads and cleans the file name of root (readSigned), signed by
// author; checkFile checks it.
func (pl *Pipeline) readFile(root *os.Root, author, name string) (store.Postmortem, error) {
	info, err := root.Stat(name)
	if err != nil {
		return store.Postmortem{}, err
	}
	if !info.Mode().IsRegular() { // replaced since the folder was listed
		return store.Postmortem{}, errors.New(notRegular(info.Mode()))
	}
	if info.Size() > MaxSize {
		return store.Postmortem{}, &InputError{Err: ErrTooLarge, Detail: fmt.Sprintf("it has %d bytes", info.Size())}
	}
	raw, err := root.ReadFile(name)
	if err != nil {
		return store.Postmortem{}, err
	}
	_, p, err := readSigned(raw, name, author, "Imported from "+name)
	return p, err
}

// checkFile checks the postmortem read from the file name of root
// (Pipeline.Read's checks) and adds the files beside it.
func (pl *Pipeline) checkFile(ctx context.Context, root *os.Root, name string, read store.Postmortem) (store.Postmortem, error) {
	p, err := pl.checkRead(ctx, read)
	if err != nil {
		return p, err
	}
	return p, pl.attachBeside(ctx, root, name, &p)
}

// notRegular says what a file that is not a regular one is.
func notRegular(mode fs.FileMode) string {
	kind := ""
	switch {
	case mode&fs.ModeNamedPipe != 0:
		kind = " (a named pipe)"
	case mode&fs.ModeSocket != 0:
		kind = " (a socket)"
	case mode&fs.ModeDevice != 0:
		kind = " (a device)"
	}
	return "not a regular file" + kind
}
