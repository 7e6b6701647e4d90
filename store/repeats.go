package store

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
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
// offered through its first live version the reader can see. Shared
// patterns are named in the order of p's tags.
//
// A group offered through a version of p's organization shares the
// patterns of all its live versions; one offered through a version of
// another organization shares those of its versions on p's services.
func (s *Store) EarlierTwins(ctx context.Context, p Postmortem, limit int) ([]Twin, error) {
	if len(p.Tags) == 0 || limit <= 0 {
		return nil, nil
	}
	var slugs []string
	mine := map[string]bool{}
	for _, t := range p.Tags {
		if !mine[t.PatternSlug] {
			mine[t.PatternSlug] = true
			slugs = append(slugs, t.PatternSlug)
		}
	}
	services := Services(p.Services)
	if p.Organization == "" && len(services) == 0 {
		return nil, nil
	}
	earlier := func(date string, id int64) bool {
		if p.IncidentDate != "" {
			return date != "" && date < p.IncidentDate
		}
		return id < p.ID
	}
	var picks []twinPick
	if p.Organization != "" {
		groups, err := s.organizationGroups(ctx, p.Organization)
		if err != nil {
			return nil, fmt.Errorf("earlier twins of %q: %w", p.Slug, err)
		}
		sharedOf := map[string][]string{} // by the groups' slugs: few sets recur
		for _, g := range groups {
			if g.group == p.GroupID || !earlier(g.date, g.id) {
				continue
			}
			shared, ok := sharedOf[g.slugs]
			if !ok {
				shared = sharedSlugs(slugs, strings.Split(g.slugs, ","))
				sharedOf[g.slugs] = shared
			}
			if len(shared) > 0 {
				picks = append(picks, twinPick{g.id, g.date, shared})
			}
		}
	}
	if len(services) > 0 {
		more, err := s.serviceTwins(ctx, p, slugs, services, limit)
		if err != nil {
			return nil, fmt.Errorf("earlier twins of %q: %w", p.Slug, err)
		}
		picks = append(picks, more...)
	}
	slices.SortFunc(picks, func(a, b twinPick) int {
		return cmp.Or(cmp.Compare(len(b.shared), len(a.shared)), strings.Compare(b.date, a.date), cmp.Compare(b.id, a.id))
	})
	picks = picks[:min(limit, len(picks))]
	if len(picks) == 0 {
		return nil, nil
	}
	return s.twinsOf(ctx, p.Slug, picks, services)
}

// twinPick is a group chosen as an earlier twin: the version offered, its
// incident date and the slugs it shares, in the order of p's tags.
type twinPick struct {
	id     int64
	date   string
	shared []string
}

// sharedSlugs returns the slugs of mine (in their order) that are in theirs.
func sharedSlugs(mine, theirs []string) []string {
	var shared []string
	for _, m := range mine {
		if slices.Contains(theirs, m) {
			shared = append(shared, m)
		}
	}
	return shared
}

// organizationGroup is a live group offered, for a reader, through a
// version of one organization: that version, its incident date, and the
// pattern slugs of the group's live versions the reader can see,
// comma-separated. Dates and slug lists recur, and are shared: the groups
// of every organization a crawler visits are kept at once.
type organizationGroup struct {
	id, group   int64
	date, slugs string
}

// organizationGroups returns the live groups offered through a version of
// organization (as SQLite's NOCASE compares it), once per data generation
// and set of reader groups: every postmortem page of a large organization
// walked all of its postmortems and their tags (0.15 to 0.25 s for one of
// 11,558 at 100,000 postmortems), where a page now looks through this list.
// The version offered is the member the reader is shown (shownMemberSQL);
// a group whose version offered is archived is left out.
func (s *Store) organizationGroups(ctx context.Context, organization string) ([]organizationGroup, error) {
	return cached(ctx, s, "organization-groups\x00"+organization, func() ([]organizationGroup, error) {
		var out []organizationGroup
		shared := interned{}
		err := scanRows(ctx, s.db, `SELECT cx.id, cx.group_id, cx.incident_date, group_concat(DISTINCT t.pattern_slug)
			FROM postmortems cx INDEXED BY postmortems_org_nocase
				JOIN variant_groups g ON g.id = cx.group_id
				JOIN postmortems m INDEXED BY postmortems_group ON m.group_id = g.id AND m.archived_at = '' AND `+visibleSQL(ctx, "m")+`
				JOIN tags t ON t.postmortem_id = m.id
			WHERE cx.organization = ? COLLATE NOCASE AND cx.archived_at = '' AND `+visibleSQL(ctx, "cx")+`
				AND cx.id = `+shownMemberSQL(ctx, "g")+`
			GROUP BY cx.id`, []any{organization}, func(rs *sql.Rows) error {
			var g organizationGroup
			var date, slugs sql.RawBytes
			if err := rs.Scan(&g.id, &g.group, &date, &slugs); err != nil {
				return err
			}
			g.date, g.slugs = shared.of(date), shared.of(slugs)
			out = append(out, g)
			return nil
		})
		return slices.Clip(out), err
	})
}

// interned hands out one string for equal texts.
type interned map[string]string

func (in interned) of(b []byte) string {
	if v, ok := in[string(b)]; ok {
		return v
	}
	v := string(b)
	in[v] = v
	return v
}

// serviceTwins returns up to limit earlier groups offered through a version
// of another organization than p's that share a pattern with p on one of
// its versions on services.
func (s *Store) serviceTwins(ctx context.Context, p Postmortem, slugs, services []string, limit int) ([]twinPick, error) {
	earlier, earlierArgs := `cx.id < ?`, []any{p.ID}
	if p.IncidentDate != "" {
		earlier, earlierArgs = `cx.incident_date != '' AND cx.incident_date < ?`, []any{p.IncidentDate}
	}
	other, otherArgs := "", []any(nil)
	if p.Organization != "" {
		other, otherArgs = ` AND cx.organization != ? COLLATE NOCASE`, []any{p.Organization}
	}
	args := slices.Concat(anys(services), anys(slugs), []any{p.GroupID}, earlierArgs, otherArgs, []any{limit})
	var out []twinPick
	err := scanRows(ctx, s.db, `SELECT cx.id, cx.incident_date, group_concat(DISTINCT t.pattern_slug)
		FROM (SELECT DISTINCT postmortem_id AS id FROM postmortem_services WHERE service IN (`+placeholders(len(services))+`)) candidates
			CROSS JOIN tags t ON t.postmortem_id = candidates.id JOIN postmortems m INDEXED BY postmortems_search ON m.id = t.postmortem_id
			JOIN variant_groups g ON g.id = m.group_id JOIN postmortems cx INDEXED BY postmortems_search ON cx.id = `+shownMemberSQL(ctx, "g")+`
		WHERE t.pattern_slug IN (`+placeholders(len(slugs))+`) AND m.group_id != ?
			AND m.archived_at = '' AND cx.archived_at = '' AND `+visibleSQL(ctx, "m")+`
			AND `+earlier+other+`
		GROUP BY cx.id ORDER BY count(DISTINCT t.pattern_slug) DESC, cx.incident_date DESC, cx.id DESC LIMIT ?`, args, func(rs *sql.Rows) error {
		var pick twinPick
		var theirs string
		if err := rs.Scan(&pick.id, &pick.date, &theirs); err != nil {
			return err
		}
		pick.shared = sharedSlugs(slugs, strings.Split(theirs, ","))
		out = append(out, pick)
		return nil
	})
	return out, err
}

// twinsOf reads the twins picked, in order, with the names of the patterns
// they share, the services they share and their unfinished action items.
func (s *Store) twinsOf(ctx context.Context, slug string, picks []twinPick, services []string) ([]Twin, error) {
	ids := make([]int64, len(picks))
	byID := map[int64]int{}
	var shared []string
	for i, pk := range picks {
		ids[i], byID[pk.id] = pk.id, i
		shared = append(shared, pk.shared...)
	}
	names := map[string]string{}
	if err := scanRows(ctx, s.db, `SELECT slug, name FROM patterns WHERE slug IN (`+placeholders(len(shared))+`)`, anys(shared), func(rs *sql.Rows) error {
		var slug, name string
		err := rs.Scan(&slug, &name)
		names[slug] = name
		return err
	}); err != nil {
		return nil, fmt.Errorf("earlier twins of %q: %w", slug, err)
	}
	out := make([]Twin, len(picks))
	for i, pk := range picks {
		for _, sl := range pk.shared {
			if n, ok := names[sl]; ok {
				out[i].SharedPatterns = append(out[i].SharedPatterns, n)
			}
		}
	}
	if err := scanRows(ctx, s.db, `SELECT id, slug, title, organization, incident_date, services FROM postmortems
		WHERE id IN (`+placeholders(len(ids))+`)`, anys(ids), func(rs *sql.Rows) error {
		var id int64
		var t Twin
		var svc string
		if err := rs.Scan(&id, &t.Slug, &t.Title, &t.Organization, &t.IncidentDate, &svc); err != nil {
			return err
		}
		for _, a := range Services(svc) {
			for _, b := range services {
				if strings.EqualFold(a, b) {
					t.SharedServices = append(t.SharedServices, a)
				}
			}
		}
		t.SharedPatterns = out[byID[id]].SharedPatterns
		out[byID[id]] = t
		return nil
	}); err != nil {
		return nil, fmt.Errorf("earlier twins of %q: %w", slug, err)
	}
	// Their unfinished action items, in one query.
	items, err := s.db.QueryContext(ctx, `SELECT `+actionItemFields+` FROM action_items
		WHERE postmortem_id IN (`+placeholders(len(ids))+`) AND status IN ('open', 'in-progress')
		ORDER BY priority, due_date = '', due_date, id`, anys(ids)...)
	if err != nil {
		return nil, fmt.Errorf("earlier twins of %q: %w", slug, err)
	}
	defer items.Close()
	for items.Next() {
		a, err := scanActionItem(items)
		if err != nil {
			return nil, fmt.Errorf("earlier twins of %q: %w", slug, err)
		}
		i := byID[a.PostmortemID]
		out[i].OpenItems = append(out[i].OpenItems, a)
	}
	return out, items.Err()
}
