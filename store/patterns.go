package store

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Family is one of the five browse groups of the catalogue.
type Family struct {
	Slug     string
	Name     string
	Patterns []Pattern // filled by ListFamilies
}

// Checklist phases: whether an item is done while the incident is live or afterwards.
const (
	PhaseDuring = "during"
	PhaseAfter  = "after"
)

// ChecklistItem is one remediation step of a pattern's checklist.
type ChecklistItem struct {
	ID          int64
	PatternSlug string
	Position    int
	Text        string
	Phase       string
	RemovedAt   string // set when the item was removed from the checklist
	// Version counts its changes: a rewording based on an older one is
	// refused.
	Version int
}

// ExampleIncident is a public incident that shows a pattern.
type ExampleIncident struct {
	Description string
	URL         string
}

// Pattern is a failure pattern of the catalogue.
type Pattern struct {
	Slug       string
	Name       string
	Headline   string
	Family     string
	FamilyName string
	Position   int
	Definition string
	Mechanism  string
	Signals    string
	Related    string // prose, Markdown
	RelatedTo  []string
	PhrasesEN  []string
	PhrasesES  []string
	WeakWords  string
	Checklist  []ChecklistItem
	Incidents  []ExampleIncident

	// Count is the number of incidents (variant groups) tagged with the
	// pattern; filled by ListPatterns and ListFamilies.
	Count int
}

// countsSQL counts, per pattern, the live variant groups with a member
// tagged with it. It walks the postmortems in id order through an index
// that holds group_id and archived_at (the rows are wide: reading them
// means reading their text), and each one's tags by primary key: in order,
// not a lookup at random per tag (4 s at 100,000 postmortems, then 1 s).
func countsSQL(ctx context.Context) string {
	return `SELECT t.pattern_slug, count(DISTINCT p.group_id)
	FROM postmortems p INDEXED BY postmortems_search CROSS JOIN tags t ON t.postmortem_id = p.id
	WHERE p.archived_at = '' AND ` + visibleSQL(ctx, "p") + `
	GROUP BY t.pattern_slug`
}

// ListFamilies returns the catalogue's families in order, each with its
// patterns (without checklists) and their incident counts.
func (s *Store) ListFamilies(ctx context.Context) ([]Family, error) {
	pats, err := s.ListPatterns(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT slug, name FROM families ORDER BY position`)
	if err != nil {
		return nil, fmt.Errorf("list families: %w", err)
	}
	defer rows.Close()
	var fams []Family
	for rows.Next() {
		var f Family
		if err := rows.Scan(&f.Slug, &f.Name); err != nil {
			return nil, fmt.Errorf("list families: %w", err)
		}
		for _, p := range pats {
			if p.Family == f.Slug {
				f.Patterns = append(f.Patterns, p)
			}
		}
		fams = append(fams, f)
	}
	return fams, rows.Err()
}

// FamilyCatalogue returns the catalogue's families in order, without their
// patterns: what a page that names them needs, without counting tags.
func (s *Store) FamilyCatalogue(ctx context.Context) ([]Family, error) {
	var fams []Family
	err := scanRows(ctx, s.db, `SELECT slug, name FROM families ORDER BY position`, nil, func(rs *sql.Rows) error {
		var f Family
		err := rs.Scan(&f.Slug, &f.Name)
		fams = append(fams, f)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list families: %w", err)
	}
	return fams, nil
}

// ListPatterns returns every pattern in catalogue order with its incident
// count, without checklists, phrases or incidents. Counting reads every tag,
// so the result is kept until the data changes.
func (s *Store) ListPatterns(ctx context.Context) ([]Pattern, error) {
	pats, err := cached(ctx, s, "patterns", func() ([]Pattern, error) { return s.listPatterns(ctx) })
	return slices.Clone(pats), err
}

func (s *Store) listPatterns(ctx context.Context) ([]Pattern, error) {
	counts := map[string]int{}
	rows, err := s.db.QueryContext(ctx, countsSQL(ctx))
	if err != nil {
		return nil, fmt.Errorf("list patterns: %w", err)
	}
	for rows.Next() {
		var slug string
		var n int
		if err := rows.Scan(&slug, &n); err != nil {
			rows.Close()
			return nil, fmt.Errorf("list patterns: %w", err)
		}
		counts[slug] = n
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list patterns: %w", err)
	}
	pats, err := s.PatternCatalogue(ctx)
	for i := range pats {
		pats[i].Count = counts[pats[i].Slug]
	}
	return pats, err
}

// PatternCatalogue returns every pattern in catalogue order, without
// counts (nor checklists, phrases or incidents): what pages need to name
// and order patterns, without reading every tag as ListPatterns does.
func (s *Store) PatternCatalogue(ctx context.Context) ([]Pattern, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT p.slug, p.name, p.headline, p.family, f.name, p.position, p.definition
		FROM patterns p JOIN families f ON f.slug = p.family
		ORDER BY f.position, p.position`)
	if err != nil {
		return nil, fmt.Errorf("list patterns: %w", err)
	}
	defer rows.Close()
	var out []Pattern
	for rows.Next() {
		var p Pattern
		if err := rows.Scan(&p.Slug, &p.Name, &p.Headline, &p.Family, &p.FamilyName, &p.Position, &p.Definition); err != nil {
			return nil, fmt.Errorf("list patterns: %w", err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// GetPattern returns one pattern with everything the catalogue holds on it.
func (s *Store) GetPattern(ctx context.Context, slug string) (Pattern, error) {
	var p Pattern
	err := s.db.QueryRowContext(ctx, `SELECT p.slug, p.name, p.headline, p.family, f.name, p.position,
			p.definition, p.mechanism, p.signals, p.related, p.weak_words
		FROM patterns p JOIN families f ON f.slug = p.family WHERE p.slug = ?`, slug).
		Scan(&p.Slug, &p.Name, &p.Headline, &p.Family, &p.FamilyName, &p.Position,
			&p.Definition, &p.Mechanism, &p.Signals, &p.Related, &p.WeakWords)
	if err == sql.ErrNoRows {
		return Pattern{}, fmt.Errorf("get pattern %q: %w", slug, ErrNotFound)
	}
	if err != nil {
		return Pattern{}, fmt.Errorf("get pattern %q: %w", slug, err)
	}
	if p.Checklist, err = s.Checklist(ctx, slug); err != nil {
		return Pattern{}, err
	}
	if err := s.loadPatternDetails(ctx, &p); err != nil {
		return Pattern{}, fmt.Errorf("get pattern %q: %w", slug, err)
	}
	return p, nil
}

func (s *Store) loadPatternDetails(ctx context.Context, p *Pattern) error {
	related, err := queryColumn[string](ctx, s.db, `SELECT related_slug FROM pattern_relations r
		JOIN patterns p ON p.slug = r.related_slug
		WHERE r.pattern_slug = ? ORDER BY p.position`, p.Slug)
	if err != nil {
		return err
	}
	p.RelatedTo = append(p.RelatedTo, related...)
	rows, err := s.db.QueryContext(ctx, `SELECT language, phrase FROM pattern_phrases WHERE pattern_slug = ? ORDER BY rowid`, p.Slug)
	if err != nil {
		return err
	}
	for rows.Next() {
		var lang, phrase string
		if err := rows.Scan(&lang, &phrase); err != nil {
			rows.Close()
			return err
		}
		if lang == "es" {
			p.PhrasesES = append(p.PhrasesES, phrase)
		} else {
			p.PhrasesEN = append(p.PhrasesEN, phrase)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	rows, err = s.db.QueryContext(ctx, `SELECT description, url FROM pattern_incidents WHERE pattern_slug = ? ORDER BY position`, p.Slug)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var in ExampleIncident
		if err := rows.Scan(&in.Description, &in.URL); err != nil {
			return err
		}
		p.Incidents = append(p.Incidents, in)
	}
	return rows.Err()
}

// Checklist returns a pattern's remediation checklist in order.
func (s *Store) Checklist(ctx context.Context, patternSlug string) ([]ChecklistItem, error) {
	return s.checklists(ctx, `WHERE removed_at = '' AND pattern_slug = ?`, patternSlug)
}

// Checklists returns the checklists of several patterns, keyed by pattern.
func (s *Store) Checklists(ctx context.Context, slugs []string) (map[string][]ChecklistItem, error) {
	out := map[string][]ChecklistItem{}
	if len(slugs) == 0 {
		return out, nil
	}
	items, err := s.checklists(ctx, `WHERE removed_at = '' AND pattern_slug IN (`+placeholders(len(slugs))+`)`, anys(slugs)...)
	if err != nil {
		return nil, err
	}
	for _, it := range items {
		out[it.PatternSlug] = append(out[it.PatternSlug], it)
	}
	return out, nil
}

// ChecklistSteps returns every pattern's checklist in order, with the
// steps removed since, which incidents may have ticked, keyed by pattern.
func (s *Store) ChecklistSteps(ctx context.Context) (map[string][]ChecklistItem, error) {
	items, err := s.checklists(ctx, ``)
	if err != nil {
		return nil, err
	}
	out := map[string][]ChecklistItem{}
	for _, it := range items {
		out[it.PatternSlug] = append(out[it.PatternSlug], it)
	}
	return out, nil
}

func (s *Store) checklists(ctx context.Context, where string, args ...any) ([]ChecklistItem, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, pattern_slug, position, text, phase, removed_at, version FROM checklist_items `+where+` ORDER BY pattern_slug, position, id`, args...)
	if err != nil {
		return nil, fmt.Errorf("list checklist items: %w", err)
	}
	defer rows.Close()
	var out []ChecklistItem
	for rows.Next() {
		var it ChecklistItem
		if err := rows.Scan(&it.ID, &it.PatternSlug, &it.Position, &it.Text, &it.Phase, &it.RemovedAt, &it.Version); err != nil {
			return nil, fmt.Errorf("list checklist items: %w", err)
		}
		out = append(out, it)
	}
	return out, rows.Err()
}

// PatternPostmortems returns, for a pattern, the incidents tagged with it:
// one entry per variant group (its canonical member, or when the reader
// cannot see that one, the group's first live member they can) per role,
// newest first, at most perRole of them per role when perRole > 0; and how
// many there are per role in all. It reads every tag of the pattern, so the result is kept
// until the data changes; callers must not modify it.
func (s *Store) PatternPostmortems(ctx context.Context, slug string, perRole int) ([]PostmortemRef, map[string]int, error) {
	type result struct {
		refs   []PostmortemRef
		counts map[string]int
	}
	r, err := cached(ctx, s, fmt.Sprintf("pattern-refs\x00%s\x00%d", slug, perRole), func() (result, error) {
		refs, counts, err := s.patternPostmortems(ctx, slug, perRole)
		return result{refs, counts}, err
	})
	return r.refs, r.counts, err
}

func (s *Store) patternPostmortems(ctx context.Context, slug string, perRole int) ([]PostmortemRef, map[string]int, error) {
	if perRole <= 0 {
		refs, counts, err := s.patternGroups(ctx, slug, "", 0)
		return refRows(refs), counts, err
	}
	// The few newest of a role are found fastest two ways: a role of many
	// incidents by walking the incidents newest first until enough are
	// tagged (about perRole × 90,000 / n rows at 100,000 postmortems), a
	// role of few by collecting all of its groups. Either gives what
	// patternGroups gives for the role: counting every group of a pattern
	// and ranking them took a pattern page's first request 0.1 to 0.3 s.
	counts, err := s.patternRoleCounts(ctx, slug)
	if err != nil {
		return nil, nil, err
	}
	var rows []patternRef
	for _, role := range slices.Sorted(maps.Keys(counts)) {
		var some []patternRef
		if counts[role] >= s.newestFirstFrom {
			some, err = s.newestPatternGroups(ctx, slug, role, perRole)
		} else {
			some, _, err = s.patternGroups(ctx, slug, role, perRole)
		}
		if err != nil {
			return nil, nil, err
		}
		rows = append(rows, some...)
	}
	slices.SortStableFunc(rows, func(a, b patternRef) int {
		return cmp.Or(strings.Compare(b.IncidentDate, a.IncidentDate), cmp.Compare(b.id, a.id))
	})
	return refRows(rows), counts, nil
}

// newestFirstFrom is the number of a role's incidents from which its
// newest are found by walking every incident newest first.
const newestFirstFrom = 1000

// patternRef is a PostmortemRef with the id it is ordered by.
type patternRef struct {
	PostmortemRef
	id int64
}

func refRows(rows []patternRef) []PostmortemRef {
	out := make([]PostmortemRef, len(rows))
	for i, r := range rows {
		out[i] = r.PostmortemRef
	}
	return out
}

// patternRoleCounts counts, per role, the variant groups with a live
// member the reader may see tagged with the pattern in that role: each
// has one member shown (patternGroups), so these are its counts.
func (s *Store) patternRoleCounts(ctx context.Context, slug string) (map[string]int, error) {
	counts := map[string]int{}
	err := scanRows(ctx, s.db, `SELECT t.role, count(DISTINCT m.group_id) FROM tags t
		JOIN postmortems m INDEXED BY postmortems_search ON m.id = t.postmortem_id AND m.archived_at = ''
		WHERE t.pattern_slug = ? AND `+visibleSQL(ctx, "m")+` GROUP BY t.role`, []any{slug}, func(rs *sql.Rows) error {
		var role string
		var n int
		err := rs.Scan(&role, &n)
		counts[role] = n
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("count postmortems of pattern %q: %w", slug, err)
	}
	return counts, nil
}

// patternGroups is every variant group with a live member the reader may
// see tagged with the pattern (in role, unless role is ""), through its
// member shown: its canonical one, or when the reader cannot see that
// one, its first live member they can; newest first, at most perRole a
// role when perRole > 0; and how many groups there are per role.
func (s *Store) patternGroups(ctx context.Context, slug, role string, perRole int) ([]patternRef, map[string]int, error) {
	// Every check and the ordering read covering indexes: restricted_to
	// and archived_at sit after the texts in a row, and reading them from
	// the rows of 15,000 tagged groups took 0.3 s at 100,000 postmortems
	// (0.17 s this way). Only the rows shown are read from the table; the
	// members chosen are visible, so they need no second check.
	rows, err := s.db.QueryContext(ctx, `SELECT c.id, c.slug, c.title, c.organization, c.incident_date, r.role, r.n FROM (
			SELECT r.cid, r.role, d.incident_date,
				row_number() OVER (PARTITION BY r.role ORDER BY d.incident_date DESC, r.cid DESC) AS k,
				count(*) OVER (PARTITION BY r.role) AS n
			FROM (SELECT DISTINCT t.role, `+shownMemberSQL(ctx, "g")+` AS cid
				FROM tags t
				JOIN postmortems m INDEXED BY postmortems_search ON m.id = t.postmortem_id AND m.archived_at = ''
				JOIN variant_groups g ON g.id = m.group_id
				WHERE t.pattern_slug = ? AND (? = '' OR t.role = ?) AND `+visibleSQL(ctx, "m")+`) r
			JOIN postmortems d INDEXED BY postmortems_search ON d.id = r.cid) r
		JOIN postmortems c ON c.id = r.cid
		WHERE ? <= 0 OR r.k <= ?
		ORDER BY r.incident_date DESC, r.cid DESC`, slug, role, role, perRole, perRole)
	if err != nil {
		return nil, nil, fmt.Errorf("list postmortems of pattern %q: %w", slug, err)
	}
	defer rows.Close()
	var out []patternRef
	counts := map[string]int{}
	for rows.Next() {
		var r patternRef
		var n int
		if err := rows.Scan(&r.id, &r.Slug, &r.Title, &r.Organization, &r.IncidentDate, &r.Role, &n); err != nil {
			return nil, nil, fmt.Errorf("list postmortems of pattern %q: %w", slug, err)
		}
		out = append(out, r)
		counts[r.Role] = n
	}
	return out, counts, rows.Err()
}

// newestPatternGroups is patternGroups for one role, at most limit of
// them, found by walking every postmortem newest first (along an index
// holding what it checks) and keeping each that is its group's member
// shown and whose group has a member tagged so.
func (s *Store) newestPatternGroups(ctx context.Context, slug, role string, limit int) ([]patternRef, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT c.id, c.slug, c.title, c.organization, c.incident_date FROM (
			SELECT w.id FROM postmortems w INDEXED BY postmortems_incident
			JOIN variant_groups g ON g.id = w.group_id
			WHERE ((g.canonical_id = w.id AND `+visibleSQL(ctx, "w")+`) OR `+shownInsteadOfMainSQL(ctx, "w", "g")+`)
				AND EXISTS (SELECT 1 FROM postmortems m INDEXED BY postmortems_group JOIN tags t ON t.postmortem_id = m.id AND t.pattern_slug = ? AND t.role = ?
					WHERE m.group_id = w.group_id AND m.archived_at = '' AND `+visibleSQL(ctx, "m")+`)
			ORDER BY w.incident_date DESC, w.id DESC LIMIT ?) n
		JOIN postmortems c ON c.id = n.id
		ORDER BY c.incident_date DESC, c.id DESC`, slug, role, limit)
	if err != nil {
		return nil, fmt.Errorf("list postmortems of pattern %q: %w", slug, err)
	}
	defer rows.Close()
	var out []patternRef
	for rows.Next() {
		r := patternRef{PostmortemRef: PostmortemRef{Role: role}}
		if err := rows.Scan(&r.id, &r.Slug, &r.Title, &r.Organization, &r.IncidentDate); err != nil {
			return nil, fmt.Errorf("list postmortems of pattern %q: %w", slug, err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// PatternPhrases returns every pattern's detection phrases (English and
// Spanish) and weak words, in catalogue order: the input of suggestions and
// search synonyms.
func (s *Store) PatternPhrases(ctx context.Context) ([]Pattern, error) {
	// Not ListPatterns: counting reads every tag, and start-up compiles
	// the classifier from these phrases.
	pats, err := s.PatternCatalogue(ctx)
	if err != nil {
		return nil, err
	}
	idx := map[string]int{}
	for i, p := range pats {
		idx[p.Slug] = i
	}
	rows, err := s.db.QueryContext(ctx, `SELECT pattern_slug, language, phrase FROM pattern_phrases ORDER BY rowid`)
	if err != nil {
		return nil, fmt.Errorf("list pattern phrases: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var slug, lang, phrase string
		if err := rows.Scan(&slug, &lang, &phrase); err != nil {
			return nil, fmt.Errorf("list pattern phrases: %w", err)
		}
		p := &pats[idx[slug]]
		if lang == "es" {
			p.PhrasesES = append(p.PhrasesES, phrase)
		} else {
			p.PhrasesEN = append(p.PhrasesEN, phrase)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list pattern phrases: %w", err)
	}
	weak, err := s.db.QueryContext(ctx, `SELECT slug, weak_words FROM patterns`)
	if err != nil {
		return nil, fmt.Errorf("list weak words: %w", err)
	}
	defer weak.Close()
	for weak.Next() {
		var slug, words string
		if err := weak.Scan(&slug, &words); err != nil {
			return nil, fmt.Errorf("list weak words: %w", err)
		}
		pats[idx[slug]].WeakWords = words
	}
	return pats, weak.Err()
}

// LoadCatalogue inserts the families and patterns that are not in the
// database yet, with their phrases, checklists and example incidents. Patterns
// already present are left alone: their checklists may have been edited.
func (s *Store) LoadCatalogue(ctx context.Context, fams []Family, pats []Pattern) (added int, err error) {
	err = s.inTx(ctx, func(tx *writeTx) error {
		for i, f := range fams {
			if _, err := tx.ExecContext(ctx, `INSERT INTO families (slug, name, position) VALUES (?, ?, ?)
				ON CONFLICT (slug) DO NOTHING`, f.Slug, f.Name, i); err != nil {
				return err
			}
		}
		var fresh []Pattern
		for _, p := range pats {
			res, err := tx.ExecContext(ctx, `INSERT INTO patterns
				(slug, name, headline, family, position, definition, mechanism, signals, related, weak_words)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (slug) DO NOTHING`,
				p.Slug, p.Name, p.Headline, p.Family, p.Position, p.Definition, p.Mechanism, p.Signals, p.Related, p.WeakWords)
			if err != nil {
				return fmt.Errorf("insert pattern %s: %w", p.Slug, err)
			}
			if n, _ := res.RowsAffected(); n == 0 {
				continue
			}
			fresh = append(fresh, p)
			for _, ph := range p.PhrasesEN {
				if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO pattern_phrases (pattern_slug, language, phrase) VALUES (?, 'en', ?)`, p.Slug, ph); err != nil {
					return err
				}
			}
			for _, ph := range p.PhrasesES {
				if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO pattern_phrases (pattern_slug, language, phrase) VALUES (?, 'es', ?)`, p.Slug, ph); err != nil {
					return err
				}
			}
			for i, it := range p.Checklist {
				if _, err := tx.ExecContext(ctx, `INSERT INTO checklist_items (pattern_slug, position, text, phase) VALUES (?, ?, ?, ?)`,
					p.Slug, i+1, it.Text, it.Phase); err != nil {
					return err
				}
			}
			for i, in := range p.Incidents {
				if _, err := tx.ExecContext(ctx, `INSERT INTO pattern_incidents (pattern_slug, position, description, url) VALUES (?, ?, ?, ?)`,
					p.Slug, i+1, in.Description, in.URL); err != nil {
					return err
				}
			}
		}
		// Relations go in once every pattern exists, since they reference each other.
		for _, p := range fresh {
			for _, r := range p.RelatedTo {
				if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO pattern_relations (pattern_slug, related_slug) VALUES (?, ?)`, p.Slug, r); err != nil {
					return fmt.Errorf("relate %s to %s: %w", p.Slug, r, err)
				}
			}
		}
		added = len(fresh)
		if added > 0 {
			tx.audit(auditNote{kind: "catalogue.load", what: fmt.Sprintf("added %d patterns to the catalogue", added)})
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("load catalogue: %w", err)
	}
	return added, nil
}
