package store

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"hindsight/internal/parallel"
	"hindsight/postmortem"
	"hindsight/search"
)

// flushSearchIndex reindexes the postmortems written outside s.inTx (by a
// migration, or by another program behind the store's back). Open runs it;
// every commit of the store indexes what it and any earlier writer marked
// (indexStale). A search only reads: it never starts a write, which would
// wait behind any other writer.
func (s *Store) flushSearchIndex(ctx context.Context) error {
	var stale bool
	if err := s.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM search_stale)`).Scan(&stale); err != nil {
		return fmt.Errorf("check search index: %w", err)
	}
	if !stale {
		return nil
	}
	return s.inTx(ctx, func(*writeTx) error { return nil })
}

// indexStale reindexes the postmortems the triggers marked in tx.
func indexStale(ctx context.Context, tx *writeTx) error {
	var stale bool
	if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM search_stale)`).Scan(&stale); err != nil || !stale {
		return err
	}
	docs, err := loadIndexDocs(ctx, tx, `p.id IN (SELECT postmortem_id FROM search_stale)`)
	if err != nil {
		return err
	}
	// A marked postmortem that no longer exists leaves the index.
	for _, table := range indexTables {
		if _, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE rowid IN
			(SELECT postmortem_id FROM search_stale WHERE postmortem_id NOT IN (SELECT id FROM postmortems))`); err != nil {
			return fmt.Errorf("update search index: %w", err)
		}
	}
	if err := writeIndexDocs(ctx, tx, docs); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM search_stale`); err != nil {
		return fmt.Errorf("update search index: %w", err)
	}
	return nil
}

// RebuildSearchIndex rebuilds the whole full-text index from the postmortems.
// Open calls it when the index was built by another definition.
func (s *Store) RebuildSearchIndex(ctx context.Context) error {
	err := s.inTx(ctx, func(tx *writeTx) error {
		for _, table := range indexTables {
			if _, err := tx.ExecContext(ctx, `INSERT INTO `+table+` (`+table+`) VALUES ('delete-all')`); err != nil {
				return err
			}
		}
		// In batches, to bound memory on large collections.
		var last int64
		for {
			docs, err := loadIndexDocs(ctx, tx, `p.id > ? ORDER BY p.id LIMIT 500`, last)
			if err != nil {
				return err
			}
			if len(docs) == 0 {
				break
			}
			if err := writeIndexDocs(ctx, tx, docs); err != nil {
				return err
			}
			last = docs[len(docs)-1].id
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM search_stale`); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO search_meta (key, value) VALUES ('version', ?)
			ON CONFLICT (key) DO UPDATE SET value = excluded.value`, searchIndexVersion)
		return err
	})
	if err != nil {
		return fmt.Errorf("rebuild search index: %w", err)
	}
	return nil
}

// openSearchIndex brings the index up to date when the store opens: a full
// rebuild if its definition changed, else the rows marked during migrations.
func (s *Store) openSearchIndex(ctx context.Context) error {
	var version string
	err := s.db.QueryRowContext(ctx, `SELECT value FROM search_meta WHERE key = 'version'`).Scan(&version)
	if err != nil && err != sql.ErrNoRows {
		return fmt.Errorf("open search index: %w", err)
	}
	if version != searchIndexVersion {
		if err := s.RebuildSearchIndex(ctx); err != nil {
			return err
		}
	}
	s.indexing = true
	return s.flushSearchIndex(ctx)
}

// indexDoc is one postmortem's text as the index takes it.
type indexDoc struct {
	id                                int64
	lang, title, summary, body, extra string
	patterns                          []string
	suggested                         []string // patterns the classifier suggested, unreviewed
	restricted                        bool     // indexed in search_index_restricted
}

func loadIndexDocs(ctx context.Context, tx *writeTx, where string, args ...any) ([]indexDoc, error) {
	rows, err := tx.QueryContext(ctx, `SELECT p.id, p.language, p.title, p.summary,
			concat_ws(char(10), p.body, p.impact, p.trigger_text, p.contributing, p.detection, p.resolution,
				p.timeline, p.went_well, p.went_wrong, p.got_lucky),
			concat_ws(char(10), p.organization, p.services,
				(SELECT group_concat(a.title, char(10)) FROM action_items a WHERE a.postmortem_id = p.id)),
			coalesce((SELECT group_concat(DISTINCT t.pattern_slug) FROM tags t WHERE t.postmortem_id = p.id), ''),
			coalesce((SELECT group_concat(st.pattern_slug) FROM suggested_tags st
				WHERE st.postmortem_id = p.id AND st.status = 'suggested'), ''),
			p.restricted_to != ''
		FROM postmortems p WHERE `+where, args...)
	if err != nil {
		return nil, fmt.Errorf("read postmortems to index: %w", err)
	}
	defer rows.Close()
	var docs []indexDoc
	for rows.Next() {
		var d indexDoc
		var patterns, suggested string
		if err := rows.Scan(&d.id, &d.lang, &d.title, &d.summary, &d.body, &d.extra, &patterns, &suggested, &d.restricted); err != nil {
			return nil, fmt.Errorf("read postmortems to index: %w", err)
		}
		if patterns != "" {
			d.patterns = strings.Split(patterns, ",")
			slices.Sort(d.patterns) // group_concat's order is not promised
		}
		if suggested != "" {
			d.suggested = strings.Split(suggested, ",")
			slices.Sort(d.suggested)
		}
		docs = append(docs, d)
	}
	return docs, rows.Err()
}

// indexDocOf is p as loadIndexDocs reads it back once written, so that a
// batch import can fold and stem it ahead, before the write.
func indexDocOf(p *Postmortem) indexDoc {
	d := indexDoc{
		lang:    cmp.Or(p.Language, "en"),
		title:   p.Title,
		summary: p.Summary,
		body:    strings.Join(p.writeUp(), "\n"),
	}
	extra := []string{p.Organization, p.Services}
	for _, a := range p.ActionItems {
		extra = append(extra, a.Title)
	}
	d.extra = strings.Join(extra, "\n")
	for _, t := range p.Tags {
		d.patterns = append(d.patterns, t.PatternSlug)
	}
	slices.Sort(d.patterns)
	d.patterns = slices.Compact(d.patterns)
	return d
}

// withSuggestedTokens adds the pattern tokens of unreviewed suggestions to
// the body column: a query naming the pattern finds the postmortem, ranked
// below those tagged with it (the patterns column weighs 3, the body 1, and
// a long body dilutes a token further).
func withSuggestedTokens(body string, sugs []SuggestedTag) string {
	for _, t := range sugs {
		if t.Status == "" || t.Status == postmortem.SuggestionPending {
			body += " " + search.PatternToken(t.PatternSlug)
		}
	}
	return body
}

// indexRow is an indexDoc folded and stemmed: the index's columns.
type indexRow struct {
	title, summary, body, extra, patterns string
}

func (d indexDoc) row() indexRow {
	tokens := make([]string, len(d.patterns))
	for i, slug := range d.patterns {
		tokens[i] = search.PatternToken(slug)
	}
	var suggested []SuggestedTag
	for _, slug := range d.suggested {
		suggested = append(suggested, SuggestedTag{PatternSlug: slug})
	}
	return indexRow{
		title:    search.IndexColumn(d.title, d.lang),
		summary:  search.IndexColumn(d.summary, d.lang),
		body:     withSuggestedTokens(search.IndexColumn(d.body, d.lang), suggested),
		extra:    search.IndexColumn(d.extra, d.lang),
		patterns: strings.Join(tokens, " "),
	}
}

func writeIndexDocs(ctx context.Context, tx *writeTx, docs []indexDoc) error {
	// Folding and stemming is most of the work, and needs no database: it
	// runs on every core; only the writes are in order.
	rows := make([]indexRow, len(docs))
	parallel.For(len(docs), func(i int) { rows[i] = docs[i].row() })
	for i, d := range docs {
		for _, table := range indexTables {
			if _, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE rowid = ?`, d.id); err != nil {
				return fmt.Errorf("index postmortem %d: %w", d.id, err)
			}
		}
		if err := insertIndexRow(ctx, tx, d.id, rows[i], d.restricted); err != nil {
			return err
		}
	}
	return nil
}

// indexTables are the full-text tables: the postmortems open to everyone,
// and the restricted ones (migrations 0206, 0208, 0310), so that every
// ranking statistic comes only from what everyone may read.
var indexTables = []string{"search_index", "search_index_restricted"}

// insertIndexRow indexes postmortem id, which must not be in the index, in
// the table of the open postmortems or of the restricted ones.
func insertIndexRow(ctx context.Context, tx *writeTx, id int64, r indexRow, restricted bool) error {
	table := "search_index"
	if restricted {
		table = "search_index_restricted"
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO `+table+` (rowid, title, summary, body, extra, patterns)
		VALUES (?, ?, ?, ?, ?, ?)`, id, r.title, r.summary, r.body, r.extra, r.patterns); err != nil {
		return fmt.Errorf("index postmortem %d: %w", id, err)
	}
	return nil
}
