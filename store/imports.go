package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"hindsight/internal/parallel"
	"hindsight/postmortem"
)

// DuplicateError is returned when the text being imported is already held:
// Slug names the postmortem imported from it. It is an ErrConflict.
type DuplicateError struct{ Slug string }

func (e *DuplicateError) Error() string {
	return fmt.Sprintf("this text was already imported as %q", e.Slug)
}
func (e *DuplicateError) Unwrap() error { return ErrConflict }

// SlugTakenError is returned when an import asks for a slug (an export's
// file does) that a postmortem with other content holds: nothing is
// overwritten. It is an ErrConflict.
type SlugTakenError struct{ Slug string }

func (e *SlugTakenError) Error() string {
	return fmt.Sprintf("the slug %q is taken here by another postmortem; nothing was overwritten", e.Slug)
}
func (e *SlugTakenError) Unwrap() error { return ErrConflict }

// FieldErrors says, per field (named as in the JSON mirror and the forms),
// what is wrong with a postmortem. It is an ErrInvalid.
type FieldErrors map[string]string

// Error lists the fields and their messages, as postmortem.Errors does.
func (e FieldErrors) Error() string { return postmortem.Errors(e).Error() }

func (e FieldErrors) Unwrap() error { return ErrInvalid }

// ValidatePostmortem checks the fields a writer, an import or an API client
// sets with postmortem.Validate, and returns nil when they are all
// acceptable. Checks that need the database (do the patterns and
// variant_of exist?) are made by ImportPostmortem.
func ValidatePostmortem(p *Postmortem) FieldErrors {
	r := p.Record()
	if r.VariantOf != "" && (r.VariantKind == "" || r.VariantKind == postmortem.KindOriginal) {
		// An import without the kind gets one from the languages (see
		// checkReferences); a writer's input names it.
		r.VariantKind = postmortem.KindRewrite
	}
	return FieldErrors(r.Validate(time.Time{}))
}

// Record is p as the domain holds it.
func (p *Postmortem) Record() postmortem.Postmortem {
	r := postmortem.Postmortem{Content: p.Fields(), PublishedDate: p.PublishedDate, DurationMinutes: p.DurationMinutes,
		VariantOf: p.VariantOf, VariantKind: p.VariantKind, RestrictedTo: p.RestrictedTo}
	for _, t := range p.Suggested {
		r.Suggested = append(r.Suggested, postmortem.Suggestion{Pattern: t.PatternSlug, Role: t.Role, Confidence: t.Confidence, Status: t.Status})
	}
	for _, a := range p.ActionItems {
		r.ActionItems = append(r.ActionItems, postmortem.ActionItem{Title: a.Title, Kind: a.Kind, Priority: a.Priority,
			Status: a.Status, DueDate: a.DueDate, TicketURL: a.TicketURL})
	}
	return r
}

// hashSource identifies a verbatim source text.
func hashSource(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])
}

// FindImported returns the slug of the postmortem, visible to ctx's reader,
// imported from exactly this text, or ErrNotFound.
func (s *Store) FindImported(ctx context.Context, source string) (string, error) {
	return findImported(ctx, s.db, source)
}

func findImported(ctx context.Context, q queryRower, source string) (string, error) {
	var slug string
	// The condition repeats the partial index's (source_hash != ''), so
	// that SQLite can use it: with a bound value alone it cannot tell. The
	// index is named: left to choose, the planner also weighs
	// postmortems_unhashed, whose condition (source_hash = '') it compares
	// with the value bound, and so prepares the statement again for every
	// new value (49 µs a lookup at 10,000 postmortems; 7 µs named).
	// Only a postmortem the reader can see makes the text a duplicate: to
	// the others a restricted one does not exist, not even by its text.
	// Nor by a text imported while restricted to groups the reader is not
	// in, once the postmortem is opened: the text is not theirs to match.
	err := q.QueryRowContext(ctx, `SELECT slug FROM postmortems INDEXED BY postmortems_source_hash
		WHERE source_hash != '' AND source_hash = ? AND `+visibleSQL(ctx, "postmortems")+`
		AND `+restrictionVisibleSQL(ctx, "postmortems.source_restricted_to")+`
		ORDER BY id LIMIT 1`, hashSource(source)).Scan(&slug)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("find imported text: %w", ErrNotFound)
	}
	if err != nil {
		return "", fmt.Errorf("find imported text: %w", err)
	}
	return slug, nil
}

// hashSourceTexts hashes the texts imported before source_hash existed
// (migration 0030), so that findImported looks every text up by its hash
// alone. Open runs it once (runOnce). Rows with the same text each get its
// hash (a text is a duplicate only for readers who see one of them).
func (s *Store) hashSourceTexts(ctx context.Context) error {
	return s.inTx(ctx, func(tx *writeTx) error {
		rows, err := tx.QueryContext(ctx, `SELECT id, source_text FROM postmortems INDEXED BY postmortems_unhashed
			WHERE source_hash = '' AND source_text != '' ORDER BY id`)
		if err != nil {
			return err
		}
		type unhashed struct {
			id   int64
			hash string
		}
		var todo []unhashed
		for rows.Next() {
			var u unhashed
			var text string
			if err := rows.Scan(&u.id, &text); err != nil {
				rows.Close()
				return err
			}
			u.hash = hashSource(text)
			todo = append(todo, u)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, u := range todo {
			if _, err := tx.ExecContext(ctx, `UPDATE OR IGNORE postmortems SET source_hash = ? WHERE id = ?`, u.hash, u.id); err != nil {
				return err
			}
		}
		return nil
	})
}

// ImportPostmortem validates p and creates it like CreatePostmortem, in one
// transaction. A postmortem with a source text is refused with a
// *DuplicateError when that exact text is already held, so importing a file
// twice creates it once. Unknown patterns or an unknown variant_of are
// FieldErrors. A variant with no kind becomes a translation when its
// language differs from the postmortem it joins, a rewrite otherwise.
// p.Suggested is stored as it is: library.ImportPostmortem fills it.
func (s *Store) ImportPostmortem(ctx context.Context, p *Postmortem) error {
	if errs := ValidatePostmortem(p); errs != nil {
		return fmt.Errorf("import postmortem: %w", errs)
	}
	err := s.inTx(ctx, func(tx *writeTx) error {
		if err := s.importPostmortem(ctx, tx, p); err != nil {
			return err
		}
		// Written from fields (the JSON API) it is created; converted
		// from a document, imported.
		n := auditNote{kind: "postmortem.create", postmortem: p.Slug, what: "created “" + p.Title + "”", signer: p.SavedBy}
		if p.SourceText != "" {
			n.kind, n.what = "postmortem.import", "imported “"+p.Title+"”"
		}
		tx.audit(n)
		return nil
	})
	if err != nil {
		return fmt.Errorf("import postmortem %q: %w", p.Title, err)
	}
	return nil
}

// ImportOption changes how ImportPostmortems writes a batch.
type ImportOption int

// FoldCountsLater leaves the batch's share of the insight and follow-up
// counts to the next write that folds them, or to FoldCounts. Every fold
// rewrites pages all over the counts: a long import that folds every few
// batches, and at its end, spends a third less time (importer.Dir). Until
// then the counts, and the pages that read them, leave the batch out.
const FoldCountsLater ImportOption = 1

// ImportPostmortems imports a batch, each postmortem as ImportPostmortem
// would, in one transaction: a folder import then commits, and syncs the
// disk, once per batch rather than once per file. errs[i] says why ps[i]
// was not imported; err is for the batch as a whole, and then none was.
func (s *Store) ImportPostmortems(ctx context.Context, ps []*Postmortem, opts ...ImportOption) (errs []error, err error) {
	errs = make([]error, len(ps))
	before := make([]Postmortem, len(ps))
	for i, p := range ps {
		before[i] = *p
		before[i].ActionItems = slices.Clone(p.ActionItems)
	}
	// Folding for search and validating need no database: do them
	// on every core first, outside the one writer's transaction (validation
	// parses every section's Markdown: a third of the transaction's time),
	// unless the caller did them ahead.
	parallel.For(len(ps), func(i int) {
		ps[i].PrepareImport()
		if fe := ps[i].prepared.invalid; fe != nil {
			errs[i] = fmt.Errorf("import postmortem: %w", fe)
		}
	})
	failed := -1
	err = s.inTx(ctx, func(tx *writeTx) error {
		tx.foldCountsLater = slices.Contains(opts, FoldCountsLater)
		var written []*Postmortem
		// The batch touches pages all over the fingerprint and search
		// indexes: a larger cache for this connection (256 MB; the default
		// is 2 MB) keeps them from being read again and again, and
		// statement journals in memory spare a temporary file write per
		// page. Only batch imports use it: the server's requests do not.
		for _, q := range []string{`PRAGMA cache_size = -262144`, `PRAGMA temp_store = MEMORY`} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		catalogue, err := patternSlugs(ctx, tx)
		if err != nil {
			return err
		}
		for i, p := range ps {
			if errs[i] != nil {
				continue
			}
			// An import is refused, when it is, by checks made before
			// anything is written, so none needs a savepoint (which would
			// copy every page it changes).
			if err := checkImport(ctx, tx, p, catalogue); err != nil {
				errs[i] = fmt.Errorf("import postmortem %q: %w", p.Title, err)
				continue
			}
			if err := s.createPostmortem(ctx, tx, p); err != nil {
				failed = i
				return err
			}
			if err := s.insertSuggestedTags(ctx, tx, p); err != nil {
				failed = i
				return err
			}
			written = append(written, p)
		}
		switch len(written) {
		case 0:
		case 1:
			tx.audit(auditNote{kind: "postmortem.import", postmortem: written[0].Slug, what: "imported “" + written[0].Title + "”"})
		default:
			tx.audit(auditNote{kind: "postmortem.import", what: fmt.Sprintf("imported %d postmortems, from “%s” to “%s”",
				len(written), written[0].Title, written[len(written)-1].Title)})
		}
		// Their fingerprints and search index rows go in last, all
		// together (see insertPrints and indexImported).
		if err := insertPrints(ctx, tx, written...); err != nil {
			return err
		}
		return s.indexImported(ctx, tx, written)
	})
	if err != nil && failed >= 0 {
		// A write failed half-way: import them one by one, so that only
		// that one fails.
		for i, p := range ps {
			*p = before[i]
			errs[i] = s.ImportPostmortem(ctx, p)
		}
		return errs, nil
	}
	if err != nil {
		return nil, fmt.Errorf("import %d postmortems: %w", len(ps), err)
	}
	return errs, nil
}

// PrepareImport does ahead the part of importing p that needs no database
// (validating it, folding and stemming its text for search), so that a
// batch import can do it for the next batch while the store writes this
// one. ImportPostmortems does it for the postmortems not prepared yet; p
// must not change afterwards.
func (p *Postmortem) PrepareImport() {
	if p.prepared == nil {
		p.prepared = &preparedImport{indexed: indexDocOf(p).row(), invalid: ValidatePostmortem(p)}
	}
}

func (s *Store) importPostmortem(ctx context.Context, tx *writeTx, p *Postmortem) error {
	catalogue, err := patternSlugs(ctx, tx)
	if err != nil {
		return err
	}
	if err := checkImport(ctx, tx, p, catalogue); err != nil {
		return err
	}
	if err := s.createPostmortem(ctx, tx, p); err != nil {
		return err
	}
	if err := s.insertSuggestedTags(ctx, tx, p); err != nil {
		return err
	}
	return insertPrints(ctx, tx, p)
}

// checkImport refuses a text already imported, and checks the references.
// A postmortem that asks for a slug already taken is a duplicate when the
// one there has the same content (an export imported where it came from,
// or twice), and refused otherwise.
func checkImport(ctx context.Context, tx *writeTx, p *Postmortem, catalogue map[string]bool) error {
	if p.Slug != "" {
		cur, err := postmortemForUpdate(ctx, tx, p.Slug)
		switch {
		case err == nil && cur.Fields().Equal(p.Fields()):
			return &DuplicateError{Slug: p.Slug}
		case err == nil:
			return &SlugTakenError{Slug: p.Slug}
		case !errors.Is(err, ErrNotFound):
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM postmortems WHERE slug = ?`, p.Slug).Scan(&n); err != nil {
			return err
		}
		if n > 0 || reservedSlugs[p.Slug] {
			return &SlugTakenError{Slug: p.Slug} // by one the importer may not see
		}
	}
	if p.SourceText != "" {
		slug, err := findImported(ctx, tx, p.SourceText)
		if err == nil {
			return &DuplicateError{Slug: slug}
		}
		if !errors.Is(err, ErrNotFound) {
			return err
		}
	}
	return checkReferences(ctx, tx, p, catalogue)
}

// indexImported writes the search index rows that PrepareImport made for
// the postmortems just written (all of them prepared), so that the commit
// need not read them back to index them. They go in last, one after
// another: FTS5 keeps new rows in memory but writes them out at the start
// of every statement that may need undoing (most of an import's writes),
// so interleaved with the other writes each row would become an index
// segment of its own, merged again and again.
func (s *Store) indexImported(ctx context.Context, tx *writeTx, ps []*Postmortem) error {
	if !s.indexing {
		return nil // Open builds the whole index
	}
	ids := make([]int64, len(ps))
	for i, p := range ps {
		ids[i] = p.ID
	}
	idList, err := json.Marshal(ids)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM search_stale WHERE postmortem_id IN (SELECT value FROM json_each(?))`, string(idList)); err != nil {
		return err
	}
	for _, p := range ps {
		r := p.prepared.indexed
		r.body = withSuggestedTokens(r.body, p.Suggested)
		if err := insertIndexRow(ctx, tx, p.ID, r, len(p.RestrictedTo) > 0); err != nil {
			return err
		}
	}
	return nil
}

// patternSlugs is the catalogue's patterns, which an import checks each
// postmortem's tags against: read once a transaction, not once a
// postmortem.
func patternSlugs(ctx context.Context, tx *writeTx) (map[string]bool, error) {
	slugs, err := queryColumn[string](ctx, tx, `SELECT slug FROM patterns`)
	if err != nil {
		return nil, err
	}
	catalogue := make(map[string]bool, len(slugs))
	for _, slug := range slugs {
		catalogue[slug] = true
	}
	return catalogue, nil
}

// checkReferences checks that the patterns (of catalogue, patternSlugs)
// and the variant p names exist, and picks the variant kind when none was
// given.
func checkReferences(ctx context.Context, tx *writeTx, p *Postmortem, catalogue map[string]bool) error {
	errs := FieldErrors{}
	var slugs []string
	for _, t := range p.Tags {
		slugs = append(slugs, t.PatternSlug)
	}
	for _, t := range p.Suggested {
		slugs = append(slugs, t.PatternSlug)
	}
	if i := slices.IndexFunc(slugs, func(slug string) bool { return !catalogue[slug] }); i >= 0 {
		errs["patterns"] = fmt.Sprintf("There is no pattern %q in the catalogue.", slugs[i])
	}
	if p.VariantOf != "" {
		var lang string
		err := tx.QueryRowContext(ctx, `SELECT language FROM postmortems WHERE slug = ? AND `+visibleSQL(ctx, "postmortems"), p.VariantOf).Scan(&lang)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			errs["variant_of"] = fmt.Sprintf("There is no postmortem %q to be a version of.", p.VariantOf)
		case err != nil:
			return err
		case p.VariantKind == "" || p.VariantKind == postmortem.KindOriginal:
			p.VariantKind = postmortem.KindRewrite
			if p.Language != "" && p.Language != lang {
				p.VariantKind = postmortem.KindTranslation
			}
		}
	}
	for _, a := range p.ActionItems {
		if a.FromChecklist.Pattern == "" {
			continue
		}
		_, err := checklistItemID(ctx, tx, a.FromChecklist.Pattern, a.FromChecklist.Item)
		if errors.Is(err, ErrNotFound) {
			errs["action_items"] = fmt.Sprintf("The checklist of %q has no item %q for the action item %q to come from.", a.FromChecklist.Pattern, a.FromChecklist.Item, a.Title)
			break
		}
		if err != nil {
			return err
		}
	}
	for _, c := range p.Checklist {
		_, err := checklistItemID(ctx, tx, c.Pattern, c.Item)
		if errors.Is(err, ErrNotFound) {
			errs["checklist"] = fmt.Sprintf("The checklist of %q has no item %q.", c.Pattern, c.Item)
			break
		}
		if err != nil {
			return err
		}
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

// NormalizeSeverity reads "sev1", "SEV-1" or "1" as SEV1.
func NormalizeSeverity(s string) string {
	v := strings.ToUpper(strings.NewReplacer("-", "", " ", "").Replace(strings.TrimSpace(s)))
	if len(v) == 1 && v[0] >= '1' && v[0] <= '5' {
		v = "SEV" + v
	}
	if postmortem.Has(postmortem.Severities, v) {
		return v
	}
	return strings.TrimSpace(s)
}
