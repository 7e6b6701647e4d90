package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"hindsight/handlers"
	"hindsight/importer"
	"hindsight/store"
)

// importExts are the files a folder import reads; anything else is skipped.
var importExts = map[string]bool{".md": true, ".markdown": true, ".txt": true, ".text": true, ".html": true, ".htm": true}

// importResult is what happened to one file.
type importResult struct {
	file   string
	status string // created, linked, skipped or failed
	detail string
}

// importBatch is how many files one transaction imports. Each postmortem
// adds rows all over some large indexes (fingerprint bands, facts, search
// terms), so a commit writes most of their pages whatever the batch size:
// large batches write each page once for many postmortems. It stays small
// enough that memory is flat whatever the size of the folder (a few tens
// of megabytes of text).
const importBatch = 2048

// importFile is one file read and cleaned, ready to import.
type importFile struct {
	res *importResult
	p   store.Postmortem
}

// importDir imports every postmortem file of dir (not its subfolders) and
// writes one line per file to out. Re-running it skips the files already
// imported. Files whose front matter names a variant_of are linked to that
// postmortem, once it exists: files are retried until no more can be
// imported, so a translation may come before its original in name order.
// Files are read and cleaned on every core, a batch ahead of the batch
// being imported, and each batch is imported in one transaction.
// It fails only when some file could not be imported.
func importDir(ctx context.Context, st *store.Store, dir string, out io.Writer) error {
	// The administrator's command: a variant_of or slug of the folder may
	// name a postmortem restricted to some groups.
	ctx = store.WithEveryGroup(ctx)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	// Files are read through root, which refuses any path, symbolic links
	// included, that leads out of the folder.
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	defer root.Close()
	var results []*importResult
	var todo []*importResult
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || strings.HasPrefix(name, ".") {
			continue
		}
		if e.Type()&fs.ModeSymlink != 0 {
			info, err := root.Stat(name)
			if err != nil {
				results = append(results, &importResult{file: name, status: "skipped", detail: "a symbolic link that leads out of the folder"})
				continue
			}
			if info.IsDir() {
				continue
			}
		}
		res := &importResult{file: name}
		results = append(results, res)
		if !importExts[strings.ToLower(filepath.Ext(name))] {
			res.status, res.detail = "skipped", "not a .md, .txt or .html file"
			continue
		}
		todo = append(todo, res)
	}

	im, err := handlers.NewImporter(ctx, st, time.Now())
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type batch struct {
		files   []importFile
		waiting []*importResult
	}
	batches := make(chan batch, 1)
	go func() {
		defer close(batches)
		for start := 0; start < len(todo); start += importBatch {
			files, waiting := readBatch(ctx, im, root, todo[start:min(start+importBatch, len(todo))])
			select {
			case batches <- batch{files, waiting}:
			case <-ctx.Done():
				return
			}
		}
	}()
	var retry []*importResult
	for b := range batches {
		again, err := importFiles(ctx, st, b.files)
		if err != nil {
			return err
		}
		retry = append(retry, b.waiting...)
		retry = append(retry, again...)
	}
	for len(retry) > 0 {
		// Read them again: the pipeline checks variant_of against what is
		// imported now.
		files, waiting := readBatch(ctx, im, root, retry)
		again, err := importFiles(ctx, st, files)
		if err != nil {
			return err
		}
		again = append(again, waiting...)
		if len(again) == len(retry) {
			break // no progress: their originals are not in the folder
		}
		retry = again
	}

	counts := map[string]int{}
	for _, res := range results {
		counts[res.status]++
		fmt.Fprintf(out, "%-8s %s: %s\n", res.status, res.file, res.detail)
	}
	fmt.Fprintf(out, "%d created, %d linked, %d skipped, %d failed\n", counts["created"], counts["linked"], counts["skipped"], counts["failed"])
	if counts["failed"] > 0 {
		return fmt.Errorf("import: %d of %d files failed", counts["failed"], len(results))
	}
	return nil
}

// readBatch reads files through the import pipeline and prepares them, on
// every core. A file that cannot be read or that the pipeline refuses is
// marked failed and left out; one refused only because the postmortem its
// variant_of names is not imported yet is also returned as waiting, to be
// read again once more of the folder is imported.
func readBatch(ctx context.Context, im *handlers.Importer, root *os.Root, files []*importResult) (ready []importFile, waiting []*importResult) {
	out := make([]importFile, len(files))
	wait := make([]bool, len(files))
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				p, err := readImport(ctx, im, root, files[i].file)
				if err != nil {
					files[i].status, files[i].detail = "failed", err.Error()
					var fields store.FieldErrors
					wait[i] = errors.As(err, &fields) && len(fields) == 1 && fields["variant_of"] != ""
					continue
				}
				p.PrepareImport()
				out[i] = importFile{res: files[i], p: p}
			}
		}()
	}
	for i := range files {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, w := range wait {
		if w {
			waiting = append(waiting, files[i])
		}
	}
	return slices.DeleteFunc(out, func(f importFile) bool { return f.res == nil }), waiting
}

// importFiles imports files in one transaction and records each outcome.
// It returns the files to try again: variants whose original is not
// imported yet.
func importFiles(ctx context.Context, st *store.Store, files []importFile) ([]*importResult, error) {
	ps := make([]*store.Postmortem, len(files))
	for i := range files {
		p := files[i].p
		ps[i] = &p
	}
	errs, err := st.ImportPostmortems(ctx, ps)
	if err != nil {
		return nil, err
	}
	var retry []*importResult
	for i, err := range errs {
		res, p := files[i].res, ps[i]
		var fields store.FieldErrors
		var dup *store.DuplicateError
		switch {
		case err == nil && p.VariantOf != "":
			res.status, res.detail = "linked", fmt.Sprintf("%s, %s of %s", p.Slug, p.VariantKind, p.VariantOf)
		case err == nil:
			res.status, res.detail = "created", p.Slug
		case errors.As(err, &dup):
			res.status, res.detail = "skipped", "already imported as "+dup.Slug
		case errors.As(err, &fields) && len(fields) == 1 && fields["variant_of"] != "":
			// Its original may be a file not imported yet: retry it later.
			res.status, res.detail = "failed", fields["variant_of"]
			retry = append(retry, res)
		case errors.As(err, &fields):
			res.status, res.detail = "failed", fields.Error()
		default:
			res.status, res.detail = "failed", err.Error()
		}
	}
	return retry, nil
}

// readImport reads the file name of root through the import pipeline.
func readImport(ctx context.Context, im *handlers.Importer, root *os.Root, name string) (store.Postmortem, error) {
	info, err := root.Stat(name)
	if err != nil {
		return store.Postmortem{}, err
	}
	if info.Size() > importer.MaxSize {
		return store.Postmortem{}, &importer.InputError{Err: importer.ErrTooLarge, Detail: fmt.Sprintf("it has %d bytes", info.Size())}
	}
	raw, err := root.ReadFile(name)
	if err != nil {
		return store.Postmortem{}, err
	}
	return im.Read(ctx, raw, name, "server import", "Imported from "+name)
}
