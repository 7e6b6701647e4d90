package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// RecountActionItems counts what f selects from the items, without the
// kept counts.
func (s *Store) RecountActionItems(ctx context.Context, f ActionItemFilter, now time.Time) (ActionItemTotals, error) {
	q, err := s.actionItemQuery(ctx, f, now)
	if err != nil {
		return ActionItemTotals{}, err
	}
	return q.countItems(ctx, s.db, ActionItemFilter{})
}

// RecountInsights counts what f selects from the base tables, whatever the
// filter, without the kept counts: what the kept counts must agree with.
func (s *Store) RecountInsights(ctx context.Context, f InsightFilter) ([]InsightCount, error) {
	f.withoutExamples = !f.Examples
	acc, err := s.countInsights(ctx, s.db, f, "", nil)
	if err != nil {
		return nil, err
	}
	return acc.counts(), nil
}

// CheckInsightCounts compares insight_counts, row by row, with a recount
// of every incident anyone may read, kept in the same places, and
// checks that the write transactions left no variant group marked.
func (s *Store) CheckInsightCounts(ctx context.Context) error {
	var marked int
	if err := s.db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM insight_dirty) + (SELECT count(*) FROM followup_dirty)`).Scan(&marked); err != nil {
		return err
	}
	if marked > 0 {
		return fmt.Errorf("%d variant groups or postmortems left marked after the write transactions", marked)
	}
	acc, err := s.countInsights(WithReaderGroups(ctx, nil), s.db, InsightFilter{}, "", nil)
	if err != nil {
		return err
	}
	want := tally{}
	for k, n := range acc {
		for _, c := range keptCopies(k) {
			want[c] += n
		}
	}
	got := tally{}
	if err := scanRows(ctx, s.db, `SELECT kind, org, year, severity, a, b, n FROM insight_counts`, nil, func(rs *sql.Rows) error {
		var k countKey
		var n int
		err := rs.Scan(&k.kind, &k.org, &k.year, &k.sev, &k.a, &k.b, &n)
		got[k] = n
		return err
	}); err != nil {
		return err
	}
	for k, n := range want {
		if got[k] != n {
			return fmt.Errorf("%+v: kept %d, recounted %d", k, got[k], n)
		}
	}
	for k, n := range got {
		if want[k] != n {
			return fmt.Errorf("%+v: kept %d, recounted %d", k, n, want[k])
		}
	}
	return nil
}

// RanksBothWays ranks the open postmortems expr matches twice: by
// search_index's bm25, and as a restricted postmortem the reader may read
// is ranked (restrictedRanks, which must give the same), beside the
// restricted postmortems there are.
func (s *Store) RanksBothWays(ctx context.Context, expr string) (bm25, asRestricted map[int64]float64, err error) {
	bm25 = map[int64]float64{}
	var ids []int64
	err = scanRows(ctx, s.db, `SELECT rowid, bm25(search_index, `+bm25Weights+`) FROM search_index WHERE search_index MATCH ? ORDER BY rowid`, []any{expr}, func(rows *sql.Rows) error {
		var id int64
		var rank float64
		if err := rows.Scan(&id, &rank); err != nil {
			return err
		}
		bm25[id] = rank
		ids = append(ids, id)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	// Ranked as restricted ones are, from copies of their index rows in
	// search_index_restricted, taken out again after.
	list := int64List(ids)
	copies := func(insert bool) error {
		return s.inTx(ctx, func(tx *writeTx) error {
			if !insert {
				_, err := tx.ExecContext(ctx, `DELETE FROM search_index_restricted WHERE rowid IN (SELECT value FROM json_each(?))`, list)
				return err
			}
			docs, err := loadIndexDocs(ctx, tx, `p.id IN (SELECT value FROM json_each(?))`, list)
			if err != nil {
				return err
			}
			for _, d := range docs {
				if err := insertIndexRow(ctx, tx, d.id, d.row(), true); err != nil {
					return err
				}
			}
			return nil
		})
	}
	if err := copies(true); err != nil {
		return nil, nil, err
	}
	defer func() {
		if e := copies(false); err == nil {
			err = e
		}
	}()
	rs, err := s.restrictedRanks(ctx, ids, expr)
	asRestricted = map[int64]float64{}
	for _, r := range rs {
		asRestricted[r.id] = r.rank
	}
	return bm25, asRestricted, err
}

// FoldInChunksOf has the store fold n marked groups or postmortems at a
// time, so that a test's few make several chunks.
func FoldInChunksOf(n int) OpenOption {
	return func(c *openConfig) { c.foldChunk = n }
}

// NewestFirstFrom has the store find a pattern role's newest incidents by
// walking every incident newest first from n of them (PatternPostmortems).
func NewestFirstFrom(n int) OpenOption {
	return func(c *openConfig) { c.newestFirstFrom = n }
}

// EarlierTwinsInOneQuery is "has this happened before?" as one query
// computed it before the organization's groups were kept per data
// generation (EarlierTwins): the oracle of TestEarlierTwinsBothWays. Its
// shared patterns come in no particular order.
func (s *Store) EarlierTwinsInOneQuery(ctx context.Context, p Postmortem, limit int) ([]Twin, error) {
	if len(p.Tags) == 0 {
		return nil, nil
	}
	var slugs []string
	seen := map[string]bool{}
	for _, t := range p.Tags {
		if !seen[t.PatternSlug] {
			seen[t.PatternSlug] = true
			slugs = append(slugs, t.PatternSlug)
		}
	}
	services := Services(p.Services)
	same := []string{}
	var sameArgs []any
	if p.Organization != "" {
		same = append(same, `cx.organization = ? COLLATE NOCASE`)
		sameArgs = append(sameArgs, p.Organization)
	}
	if len(services) > 0 {
		same = append(same, `m.id IN (SELECT postmortem_id FROM postmortem_services WHERE service IN (`+placeholders(len(services))+`))`)
		sameArgs = append(sameArgs, anys(services)...)
	}
	if len(same) == 0 {
		return nil, nil
	}
	// earlier is the condition that the postmortem alias came before p.
	earlier := func(alias string) string { return alias + `.id < ?` }
	earlierArgs := []any{p.ID}
	if p.IncidentDate != "" {
		earlier = func(alias string) string { return alias + `.incident_date != '' AND ` + alias + `.incident_date < ?` }
		earlierArgs = []any{p.IncidentDate}
	}
	// The postmortems of the organization's groups and those on the
	// services come first, and their tags are looked up: walking every tag
	// of the patterns instead (thousands each at 100,000 postmortems) took
	// a postmortem page 70 to 630 ms. The conditions below still decide.
	var candidates []string
	var candidateArgs []any
	if p.Organization != "" {
		// The groups of the organization's earlier live postmortems (the
		// version offered is one of them).
		candidates = append(candidates, `SELECT m2.id FROM postmortems c2 INDEXED BY postmortems_org_nocase
			JOIN postmortems m2 INDEXED BY postmortems_group ON m2.group_id = c2.group_id
			WHERE c2.organization = ? COLLATE NOCASE AND c2.archived_at = '' AND `+visibleSQL(ctx, "c2")+` AND `+earlier("c2"))
		candidateArgs = append(append(candidateArgs, p.Organization), earlierArgs...)
	}
	if len(services) > 0 {
		candidates = append(candidates, `SELECT postmortem_id FROM postmortem_services WHERE service IN (`+placeholders(len(services))+`)`)
		candidateArgs = append(candidateArgs, anys(services)...)
	}
	args := append(candidateArgs, anys(slugs)...)
	args = append(args, p.GroupID)
	args = append(append(args, earlierArgs...), sameArgs...)
	args = append(args, limit)
	// The checks read covering indexes (cx is the version offered, m the
	// one tagged): archived_at and restricted_to sit after the texts, and
	// reading them from the rows of an organization's 11,558 postmortems
	// took 0.35 s at 100,000 (0.25 s this way). The version offered is
	// visible by construction, and only the rows shown are read whole.
	rows, err := s.db.QueryContext(ctx, `WITH candidates (id) AS (`+strings.Join(candidates, " UNION ")+`)
		SELECT c.id, c.slug, c.title, c.organization, c.incident_date, c.services, r.names FROM (
			SELECT cx.id AS id, cx.incident_date AS incident_date, count(DISTINCT t.pattern_slug) AS shared, group_concat(DISTINCT pa.name) AS names
			FROM candidates CROSS JOIN tags t ON t.postmortem_id = candidates.id JOIN postmortems m INDEXED BY postmortems_search ON m.id = t.postmortem_id
				JOIN variant_groups g ON g.id = m.group_id JOIN postmortems cx INDEXED BY postmortems_search ON cx.id = coalesce(
					(SELECT v.id FROM postmortems v INDEXED BY postmortems_search WHERE v.id = g.canonical_id AND `+visibleSQL(ctx, "v")+`),
					(SELECT v.id FROM postmortems v INDEXED BY postmortems_group WHERE v.group_id = g.id AND v.archived_at = '' AND `+visibleSQL(ctx, "v")+` ORDER BY v.id LIMIT 1))
				JOIN patterns pa ON pa.slug = t.pattern_slug
			WHERE t.pattern_slug IN (`+placeholders(len(slugs))+`) AND m.group_id != ?
				AND m.archived_at = '' AND cx.archived_at = '' AND `+visibleSQL(ctx, "m")+`
				AND `+earlier("cx")+` AND (`+strings.Join(same, " OR ")+`)
			GROUP BY cx.id ORDER BY shared DESC, cx.incident_date DESC, cx.id DESC LIMIT ?) r
		JOIN postmortems c ON c.id = r.id
		ORDER BY r.shared DESC, r.incident_date DESC, r.id DESC`, args...)
	if err != nil {
		return nil, fmt.Errorf("earlier twins of %q: %w", p.Slug, err)
	}
	defer rows.Close()
	var out []Twin
	var ids []int64
	byID := map[int64]int{}
	for rows.Next() {
		var t Twin
		var id int64
		var svc, names string
		if err := rows.Scan(&id, &t.Slug, &t.Title, &t.Organization, &t.IncidentDate, &svc, &names); err != nil {
			return nil, fmt.Errorf("earlier twins of %q: %w", p.Slug, err)
		}
		t.SharedPatterns = strings.Split(names, ",")
		for _, a := range Services(svc) {
			for _, b := range services {
				if strings.EqualFold(a, b) {
					t.SharedServices = append(t.SharedServices, a)
				}
			}
		}
		byID[id] = len(out)
		ids = append(ids, id)
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("earlier twins of %q: %w", p.Slug, err)
	}
	if len(ids) == 0 {
		return nil, nil
	}
	// Their unfinished action items, in one query.
	items, err := s.db.QueryContext(ctx, `SELECT `+actionItemFields+` FROM action_items
		WHERE postmortem_id IN (`+placeholders(len(ids))+`) AND status IN ('open', 'in-progress')
		ORDER BY priority, due_date = '', due_date, id`, anys(ids)...)
	if err != nil {
		return nil, fmt.Errorf("earlier twins of %q: %w", p.Slug, err)
	}
	defer items.Close()
	for items.Next() {
		a, err := scanActionItem(items)
		if err != nil {
			return nil, fmt.Errorf("earlier twins of %q: %w", p.Slug, err)
		}
		i := byID[a.PostmortemID]
		out[i].OpenItems = append(out[i].OpenItems, a)
	}
	return out, items.Err()
}
