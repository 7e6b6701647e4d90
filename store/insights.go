package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// InsightFilter selects the incidents insights are drawn from. Empty
// fields match all; From and To bound the incident date (YYYY-MM-DD,
// inclusive).
type InsightFilter struct {
	Org      string
	Service  string
	Severity string
	From, To string
}

// Insights are what a collection of incidents shows together.
type Insights struct {
	Incidents int
	// BySeverity counts incidents per year and severity ("" for none).
	Years      []string
	BySeverity map[string]map[string]int // year -> severity -> incidents
	ByFamily   map[string]map[string]int // year -> family slug -> incidents
	// Roles counts, per pattern, the SEV1 and SEV2 incidents it played
	// each role in.
	Roles []PatternRoles
	// Pairs are the patterns seen together most often.
	Pairs []PatternPair
	// Durations are the minutes to detect, mitigate and resolve, from the
	// start, of the incidents that record both times.
	Detect, Mitigate, Resolve []int
	// FollowThrough is, per pattern, what was done after its incidents.
	FollowThrough []FollowThrough
}

// PatternRoles counts the severe incidents a pattern played each role in.
type PatternRoles struct {
	Slug, Name string
	Roles      map[string]int
	Total      int // incidents, whatever the roles
}

// PatternPair is two patterns tagged on the same incidents.
type PatternPair struct {
	A, B      string // slugs
	NameA     string
	NameB     string
	Incidents int
}

// FollowThrough is what the teams did after the incidents of a pattern.
type FollowThrough struct {
	Slug, Name string
	Incidents  int
	// Checklisted incidents ticked at least one step of the pattern's
	// checklist.
	Checklisted int
	ItemsDone   int
	Items       int
}

// insightBase is the incidents a filter selects: the canonical member of
// each live variant group the reader may see (or, when they cannot see
// that one, the group's first live member they can), read from the index
// that holds every column insights need.
func insightBase(ctx context.Context, f InsightFilter) (string, []any) {
	conds := []string{`p.archived_at = ''`, visibleSQL(ctx, "p")}
	var args []any
	if f.Org != "" {
		conds = append(conds, `p.organization = ? COLLATE NOCASE`)
		args = append(args, f.Org)
	}
	if f.Severity != "" {
		conds = append(conds, `p.severity = ?`)
		args = append(args, f.Severity)
	}
	if f.Service != "" {
		conds = append(conds, `p.group_id IN (SELECT m.group_id FROM postmortem_services s JOIN postmortems m ON m.id = s.postmortem_id WHERE s.service = ?)`)
		args = append(args, strings.TrimSpace(f.Service))
	}
	if f.From != "" {
		conds = append(conds, `p.incident_date >= ?`)
		args = append(args, f.From)
	}
	if f.To != "" {
		conds = append(conds, `p.incident_date != '' AND p.incident_date <= ?`)
		args = append(args, f.To)
	}
	return `SELECT p.id, p.incident_date, p.severity, p.started_at, p.detected_at, p.mitigated_at, p.resolved_at
		FROM variant_groups g CROSS JOIN postmortems p INDEXED BY postmortems_insights ON p.id = coalesce(
			(SELECT v.id FROM postmortems v INDEXED BY postmortems_insights WHERE v.id = g.canonical_id AND ` + visibleSQL(ctx, "v") + `),
			(SELECT v.id FROM postmortems v WHERE v.group_id = g.id AND v.archived_at = '' AND ` + visibleSQL(ctx, "v") + ` ORDER BY v.id LIMIT 1))
		WHERE ` + strings.Join(conds, " AND "), args
}

// Insights computes what the incidents f selects show together. Each
// figure is one aggregate query over all of them; the result is kept until
// the data changes.
func (s *Store) Insights(ctx context.Context, f InsightFilter) (Insights, error) {
	key := strings.Join([]string{"insights", f.Org, strings.ToLower(strings.TrimSpace(f.Service)), f.Severity, f.From, f.To}, "\x00")
	return cached(ctx, s, key, func() (Insights, error) {
		in, err := s.insights(ctx, f)
		if err != nil {
			return in, fmt.Errorf("insights: %w", err)
		}
		return in, nil
	})
}

func (s *Store) insights(ctx context.Context, f InsightFilter) (Insights, error) {
	base, args := insightBase(ctx, f)
	with := `WITH base AS MATERIALIZED (` + base + `) `
	in := Insights{BySeverity: map[string]map[string]int{}, ByFamily: map[string]map[string]int{}}
	names := map[string]string{}
	pats, err := s.PatternCatalogue(ctx)
	if err != nil {
		return in, err
	}
	for _, p := range pats {
		names[p.Slug] = p.Name
	}

	// Incidents per year and severity; the total.
	rows, err := s.db.QueryContext(ctx, with+`SELECT substr(incident_date, 1, 4), severity, count(*) FROM base GROUP BY 1, 2`, args...)
	if err != nil {
		return in, err
	}
	years := map[string]bool{}
	for rows.Next() {
		var y, sev string
		var n int
		if err := rows.Scan(&y, &sev, &n); err != nil {
			rows.Close()
			return in, err
		}
		in.Incidents += n
		if y == "" {
			continue // no date: counted, not placed in time
		}
		years[y] = true
		if in.BySeverity[y] == nil {
			in.BySeverity[y] = map[string]int{}
		}
		in.BySeverity[y][sev] += n
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return in, err
	}
	in.Years = sortedKeys(years)

	// Incidents per year and family (an incident counts once per family).
	rows, err = s.db.QueryContext(ctx, with+`SELECT substr(b.incident_date, 1, 4), pa.family, count(DISTINCT b.id)
		FROM base b JOIN tags t ON t.postmortem_id = b.id JOIN patterns pa ON pa.slug = t.pattern_slug
		WHERE b.incident_date != '' GROUP BY 1, 2`, args...)
	if err != nil {
		return in, err
	}
	for rows.Next() {
		var y, fam string
		var n int
		if err := rows.Scan(&y, &fam, &n); err != nil {
			rows.Close()
			return in, err
		}
		if in.ByFamily[y] == nil {
			in.ByFamily[y] = map[string]int{}
		}
		in.ByFamily[y][fam] = n
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return in, err
	}

	// Roles of patterns in SEV1 and SEV2 incidents.
	// (A role per row, then the pattern's incidents whatever the roles,
	// role '': one pass over the severe incidents' tags.)
	rows, err = s.db.QueryContext(ctx, with+`, severe AS MATERIALIZED (SELECT t.pattern_slug, t.role, b.id
			FROM base b JOIN tags t ON t.postmortem_id = b.id WHERE b.severity IN ('SEV1', 'SEV2'))
		SELECT pattern_slug, role, count(*) FROM severe GROUP BY 1, 2
		UNION ALL
		SELECT pattern_slug, '', count(DISTINCT id) FROM severe GROUP BY 1`, args...)
	if err != nil {
		return in, err
	}
	roles := map[string]*PatternRoles{}
	for rows.Next() {
		var slug, role string
		var n int
		if err := rows.Scan(&slug, &role, &n); err != nil {
			rows.Close()
			return in, err
		}
		pr := roles[slug]
		if pr == nil {
			pr = &PatternRoles{Slug: slug, Name: names[slug], Roles: map[string]int{}}
			roles[slug] = pr
		}
		if role == "" {
			pr.Total = n
		} else {
			pr.Roles[role] = n
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return in, err
	}
	for _, pr := range roles {
		in.Roles = append(in.Roles, *pr)
	}
	slices.SortFunc(in.Roles, func(a, b PatternRoles) int {
		if a.Total != b.Total {
			return b.Total - a.Total
		}
		return strings.Compare(a.Slug, b.Slug)
	})

	// Patterns that occur together.
	rows, err = s.db.QueryContext(ctx, with+`SELECT a.pattern_slug, b.pattern_slug, count(DISTINCT a.postmortem_id) n
		FROM base x JOIN tags a ON a.postmortem_id = x.id JOIN tags b ON b.postmortem_id = x.id AND a.pattern_slug < b.pattern_slug
		GROUP BY 1, 2 ORDER BY n DESC, 1, 2 LIMIT 10`, args...)
	if err != nil {
		return in, err
	}
	for rows.Next() {
		var p PatternPair
		if err := rows.Scan(&p.A, &p.B, &p.Incidents); err != nil {
			rows.Close()
			return in, err
		}
		p.NameA, p.NameB = names[p.A], names[p.B]
		in.Pairs = append(in.Pairs, p)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return in, err
	}

	// Minutes from the start to detection, mitigation and resolution.
	rows, err = s.db.QueryContext(ctx, with+`SELECT
			CASE WHEN started_at != '' AND detected_at != '' THEN (unixepoch(detected_at) - unixepoch(started_at)) / 60 END,
			CASE WHEN started_at != '' AND mitigated_at != '' THEN (unixepoch(mitigated_at) - unixepoch(started_at)) / 60 END,
			CASE WHEN started_at != '' AND resolved_at != '' THEN (unixepoch(resolved_at) - unixepoch(started_at)) / 60 END
		FROM base WHERE started_at != ''`, args...)
	if err != nil {
		return in, err
	}
	for rows.Next() {
		var d, m, r *int
		if err := rows.Scan(&d, &m, &r); err != nil {
			rows.Close()
			return in, err
		}
		for _, x := range []struct {
			v   *int
			dst *[]int
		}{{d, &in.Detect}, {m, &in.Mitigate}, {r, &in.Resolve}} {
			if x.v != nil && *x.v >= 0 {
				*x.dst = append(*x.dst, *x.v)
			}
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return in, err
	}
	slices.Sort(in.Detect)
	slices.Sort(in.Mitigate)
	slices.Sort(in.Resolve)

	// Follow-through per pattern: incidents, incidents with a ticked step
	// of the pattern's checklist, action items done of all.
	rows, err = s.db.QueryContext(ctx, with+`, tagged AS (SELECT DISTINCT t.pattern_slug, b.id FROM base b JOIN tags t ON t.postmortem_id = b.id)
		SELECT x.pattern_slug, count(*),
			sum(EXISTS (SELECT 1 FROM checklist_ticks k JOIN checklist_items ci ON ci.id = k.item_id
				WHERE k.postmortem_id = x.id AND k.done = 1 AND ci.pattern_slug = x.pattern_slug)),
			coalesce(sum((SELECT count(*) FROM action_items a WHERE a.postmortem_id = x.id AND a.status = 'done')), 0),
			coalesce(sum((SELECT count(*) FROM action_items a WHERE a.postmortem_id = x.id)), 0)
		FROM tagged x GROUP BY 1 ORDER BY 2 DESC, 1`, args...)
	if err != nil {
		return in, err
	}
	for rows.Next() {
		var ft FollowThrough
		if err := rows.Scan(&ft.Slug, &ft.Incidents, &ft.Checklisted, &ft.ItemsDone, &ft.Items); err != nil {
			rows.Close()
			return in, err
		}
		ft.Name = names[ft.Slug]
		in.FollowThrough = append(in.FollowThrough, ft)
	}
	rows.Close()
	return in, rows.Err()
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
