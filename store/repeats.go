package store

import (
	"context"
	"fmt"
	"strings"
)

// Twin is an earlier incident that looks like p again: it shows some of
// the same patterns, in the same organization or on the same services.
type Twin struct {
	Slug, Title, Organization, IncidentDate string
	// SharedPatterns and SharedServices are what it has in common.
	SharedPatterns []string // names
	SharedServices []string
	// OpenItems are its action items not yet done (open or in progress).
	OpenItems []ActionItem
}

// EarlierTwins answers "has this happened before?" for p: up to limit
// earlier incidents (by incident date, or written earlier when p has no
// date) of other variant groups that share a pattern with p and its
// organization or one of its services, most patterns in common first,
// with their unfinished action items. Restricted postmortems the reader
// may not see are left out; a group whose main version is one of them is
// offered through its first live version the reader can see.
func (s *Store) EarlierTwins(ctx context.Context, p Postmortem, limit int) ([]Twin, error) {
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
