package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"hindsight/ingest"
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

// importDir imports every postmortem file of dir (not its subfolders) and
// writes one line per file to out. Re-running it skips the files already
// imported. Files whose front matter names a variant_of are linked to that
// postmortem, once it exists: files are retried until no more can be
// imported, so a translation may come before its original in name order.
// It fails only when some file could not be imported.
func importDir(ctx context.Context, st *store.Store, dir string, out io.Writer) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	results := map[string]*importResult{}
	var order []string
	pending := map[string]store.Postmortem{}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || strings.HasPrefix(name, ".") {
			continue
		}
		order = append(order, name)
		res := &importResult{file: name}
		results[name] = res
		if !importExts[strings.ToLower(filepath.Ext(name))] {
			res.status, res.detail = "skipped", "not a .md, .txt or .html file"
			continue
		}
		p, err := readImport(filepath.Join(dir, name))
		if err != nil {
			res.status, res.detail = "failed", err.Error()
			continue
		}
		pending[name] = p
	}

	for progress := true; progress && len(pending) > 0; {
		progress = false
		for _, name := range order {
			p, ok := pending[name]
			if !ok {
				continue
			}
			res := results[name]
			err := st.ImportPostmortem(ctx, &p)
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
				// Its original may be a file not imported yet: retry next round.
				res.status, res.detail = "failed", fields["variant_of"]
				continue
			case errors.As(err, &fields):
				res.status, res.detail = "failed", fields.Error()
			case ctx.Err() != nil:
				return ctx.Err()
			default:
				res.status, res.detail = "failed", err.Error()
			}
			delete(pending, name)
			progress = true
		}
	}

	counts := map[string]int{}
	for _, name := range order {
		res := results[name]
		counts[res.status]++
		fmt.Fprintf(out, "%-8s %s: %s\n", res.status, res.file, res.detail)
	}
	fmt.Fprintf(out, "%d created, %d linked, %d skipped, %d failed\n", counts["created"], counts["linked"], counts["skipped"], counts["failed"])
	if counts["failed"] > 0 {
		return fmt.Errorf("import: %d of %d files failed", counts["failed"], len(order))
	}
	return nil
}

// readImport reads and cleans one file into a postmortem to import.
func readImport(path string) (store.Postmortem, error) {
	info, err := os.Stat(path)
	if err != nil {
		return store.Postmortem{}, err
	}
	if info.Size() > ingest.MaxSize {
		return store.Postmortem{}, &ingest.InputError{Err: ingest.ErrTooLarge, Detail: fmt.Sprintf("it has %d bytes", info.Size())}
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return store.Postmortem{}, err
	}
	d, err := ingest.Clean(raw, filepath.Base(path))
	if err != nil {
		return store.Postmortem{}, err
	}
	p := store.ImportedPostmortem(d, string(raw))
	p.SavedBy, p.SaveNote = "server import", "Imported from "+filepath.Base(path)
	return p, nil
}
