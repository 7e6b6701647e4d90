package store

import (
	"cmp"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"hindsight/postmortem"
	"hindsight/textnorm"
)

// Postmortem is one incident write-up: its content (postmortem.Content,
// what its writers edit) and what the store keeps beside it.
type Postmortem struct {
	ID   int64
	Slug string
	postmortem.Content
	PublishedDate   string // YYYY-MM-DD, "" when unknown
	DurationMinutes int    // 0 when unknown

	SourceText string // verbatim text when imported
	// SourceRestrictedTo is who could read the postmortem when its source
	// text and Comments came with it (its import): they belong to that
	// version, as a revision's text does, whoever may read it now. For
	// other readers GetPostmortem leaves them out and sets SourceWithheld.
	SourceRestrictedTo []string
	SourceWithheld     bool

	GroupID     int64
	VariantKind string
	Canonical   bool
	// VariantOf, on create, names (by slug) a postmortem whose variant group
	// the new one joins.
	VariantOf string

	// SavedBy and SaveNote, on create, are recorded in the first revision.
	SavedBy  string
	SaveNote string

	Version    int
	ArchivedAt string
	// Example marks a public postmortem loaded so a new instance is not
	// empty (the seeds): follow-ups and insights leave it out unless asked.
	Example bool
	// Status is where it is in its review: StatusDraft, StatusInReview or
	// StatusPublished. On create, empty is published (an import, a seed).
	Status string
	// ReviewDue is the day its review is due (YYYY-MM-DD) and Overdue says
	// it has passed unpublished; the handlers set both from the review
	// policy, the store neither.
	ReviewDue string
	Overdue   bool
	// RestrictedTo names the groups that may read it; empty, anyone may.
	// To everyone else it does not exist (see visibleSQL).
	RestrictedTo []string
	CreatedAt    time.Time
	UpdatedAt    time.Time

	// Suggested are the classifier's unreviewed suggestions (machine tags),
	// apart from Tags. An import fills them for a postmortem that comes
	// with no tags; GetPostmortem reads them back.
	Suggested   []SuggestedTag
	Variants    []Variant // the other members of the group
	Languages   []string  // languages of the whole group, sorted
	ActionItems []ActionItem
	Comments    []Comment
	// Checklist are the ticks an import brings (GetPostmortem leaves it
	// empty: see ListCheckedItems).
	Checklist []CheckedItem

	// Print is the text's fingerprint when it was computed ahead (a batch
	// import does, on every core); otherwise the write computes it with
	// the store's printer. GetPostmortem leaves it nil.
	Print *Print `json:"-"`
	// prepared is what a batch import computed ahead (PrepareImport);
	// otherwise the write does it.
	prepared *preparedImport
}

// preparedImport is the part of importing a postmortem that needs no
// database.
type preparedImport struct {
	indexed indexRow    // the text folded and stemmed for the search index
	invalid FieldErrors // what ValidatePostmortem found, nil when nothing
}

// Tag says that a postmortem shows a pattern, and in which role.
type Tag = postmortem.Tag

// Variant is another member of a postmortem's variant group.
type Variant struct {
	Slug      string
	Title     string
	Language  string
	Kind      string
	Canonical bool
}

// Comment is a reader comment found in an imported page.
type Comment struct {
	Author string
	Posted string
	Text   string
}

// PostmortemRef is a short reference to a postmortem, with the role a
// pattern played in it.
type PostmortemRef struct {
	Slug         string
	Title        string
	Organization string
	IncidentDate string
	Role         string
}

// writeUp is the postmortem's Markdown write-up: the body, then the
// template's sections, in the order they are shown.
func (p *Postmortem) writeUp() []string {
	fields := p.writeUpFields()
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = *f
	}
	return out
}

// writeUpFields points at the fields writeUp lists.
func (p *Postmortem) writeUpFields() []*string {
	return []*string{&p.Body, &p.Impact, &p.Trigger, &p.Contributing, &p.Detection, &p.Resolution,
		&p.Timeline, &p.WentWell, &p.WentWrong, &p.GotLucky}
}

// Archived reports whether the postmortem is hidden from lists.
func (p Postmortem) Archived() bool { return p.ArchivedAt != "" }

// Year is the incident's year, or "" when the date is unknown.
func (p Postmortem) Year() string {
	if len(p.IncidentDate) >= 4 {
		return p.IncidentDate[:4]
	}
	return ""
}

const postmortemColumns = `p.id, p.slug, p.title, p.organization, p.incident_date, p.published_date,
	coalesce(p.duration_minutes, 0), p.severity, p.language, p.summary, p.body,
	p.impact, p.trigger_text, p.contributing, p.detection, p.resolution, p.timeline,
	p.went_well, p.went_wrong, p.got_lucky, p.services, p.authors,
	p.started_at, p.detected_at, p.mitigated_at, p.resolved_at, p.time_zone,
	p.source_url, p.source_text, p.group_id, p.variant_kind, g.canonical_id = p.id,
	p.version, p.archived_at, p.created_at, p.updated_at, p.restricted_to, p.example, p.source_restricted_to`

type scanner interface{ Scan(...any) error }

func scanPostmortem(row scanner) (Postmortem, error) {
	var p Postmortem
	var created, updated, restricted, sourceRestricted string
	err := row.Scan(&p.ID, &p.Slug, &p.Title, &p.Organization, &p.IncidentDate, &p.PublishedDate,
		&p.DurationMinutes, &p.Severity, &p.Language, &p.Summary, &p.Body,
		&p.Impact, &p.Trigger, &p.Contributing, &p.Detection, &p.Resolution, &p.Timeline,
		&p.WentWell, &p.WentWrong, &p.GotLucky, &p.Services, &p.Authors,
		&p.StartedAt, &p.DetectedAt, &p.MitigatedAt, &p.ResolvedAt, &p.TimeZone,
		&p.SourceURL, &p.SourceText, &p.GroupID, &p.VariantKind, &p.Canonical,
		&p.Version, &p.ArchivedAt, &created, &updated, &restricted, &p.Example, &sourceRestricted)
	p.CreatedAt, p.UpdatedAt = parseTime(created), parseTime(updated)
	p.RestrictedTo = decodeRestriction(restricted)
	p.SourceRestrictedTo = decodeRestriction(sourceRestricted)
	return p, err
}

// GetPostmortem returns a postmortem by slug with its tags, variants,
// action items and comments.
func (s *Store) GetPostmortem(ctx context.Context, slug string) (Postmortem, error) {
	// One read transaction: the postmortem, its tags, versions, action
	// items, comments and suggestions as of one moment, even while a save
	// replaces them.
	tx, err := s.db.beginRead(ctx)
	if err != nil {
		return Postmortem{}, fmt.Errorf("get postmortem %q: %w", slug, err)
	}
	defer tx.Rollback()
	p, err := scanPostmortem(tx.QueryRowContext(ctx, `SELECT `+postmortemColumns+`
		FROM postmortems p JOIN variant_groups g ON g.id = p.group_id WHERE p.slug = ?`, slug))
	if errors.Is(err, sql.ErrNoRows) {
		return Postmortem{}, fmt.Errorf("get postmortem %q: %w", slug, ErrNotFound)
	}
	if err != nil {
		return Postmortem{}, fmt.Errorf("get postmortem %q: %w", slug, err)
	}
	if !CanSee(ctx, p.RestrictedTo) {
		// For a reader outside its groups it does not exist.
		return Postmortem{}, fmt.Errorf("get postmortem %q: %w", slug, ErrNotFound)
	}
	one := []*Postmortem{&p}
	if err := attachTags(ctx, tx, one); err != nil {
		return Postmortem{}, err
	}
	if err := attachVariants(ctx, tx, &p); err != nil {
		return Postmortem{}, err
	}
	if p.ActionItems, err = listActionItems(ctx, tx, p.ID); err != nil {
		return Postmortem{}, err
	}
	if p.Comments, err = listComments(ctx, tx, p.ID); err != nil {
		return Postmortem{}, err
	}
	if !CanSee(ctx, p.SourceRestrictedTo) {
		// Imported while restricted to groups the reader is not in: the
		// verbatim text and its comments may hold what a redaction took
		// out before the postmortem was opened.
		p.SourceWithheld = p.SourceText != "" || len(p.Comments) > 0
		p.SourceText, p.Comments = "", nil
	}
	if p.Suggested, err = listSuggestedTags(ctx, tx, p.ID); err != nil {
		return Postmortem{}, err
	}
	if err := attachStatus(ctx, tx, one); err != nil {
		return Postmortem{}, err
	}
	return p, nil
}

// PostmortemFilter selects postmortems for lists. Empty fields match all.
type PostmortemFilter struct {
	Pattern  string
	Org      string
	Year     string
	Language string
	Severity string // SEV1..SEV5
	Service  string // one of the services it names, ignoring case
	Status   string // draft, in_review or published
	Limit    int
	Offset   int
}

// ListPostmortems returns one entry per variant group (its canonical member,
// with the group's languages and tags, without its Markdown or source),
// newest incident first, and the total number of matching groups. A group
// matches a filter when any of its live members does. The matching groups
// are found once per filter and kept until the data changes; the page's
// rows are read fresh.
func (s *Store) ListPostmortems(ctx context.Context, f PostmortemFilter) ([]Postmortem, int, error) {
	limit := f.Limit
	if limit <= 0 {
		limit = 20
	}
	key := fmt.Sprintf("list\x00%s\x00%s\x00%s\x00%s\x00%s\x00%s\x00%s\x00%d\x00%d", f.Pattern, f.Org, f.Year, f.Language,
		f.Severity, strings.ToLower(strings.TrimSpace(f.Service)), f.Status, limit, f.Offset)
	page, err := cached(ctx, s, key, func() (listPage, error) { return s.listPage(ctx, f, limit) })
	if err != nil {
		return nil, 0, err
	}
	if len(page.ids) == 0 {
		return nil, page.total, nil
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+listColumns+`
		FROM postmortems p JOIN variant_groups g ON g.id = p.group_id
		WHERE p.id IN (`+placeholders(len(page.ids))+`)`, anys(page.ids)...)
	if err != nil {
		return nil, 0, fmt.Errorf("list postmortems: %w", err)
	}
	defer rows.Close()
	byID := map[int64]Postmortem{}
	for rows.Next() {
		p, err := scanPostmortem(rows)
		if err != nil {
			return nil, 0, fmt.Errorf("list postmortems: %w", err)
		}
		byID[p.ID] = p
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("list postmortems: %w", err)
	}
	out := make([]Postmortem, 0, len(page.ids))
	for _, id := range page.ids {
		if p, ok := byID[id]; ok {
			out = append(out, p)
		}
	}
	ptrs := make([]*Postmortem, len(out))
	for i := range out {
		ptrs[i] = &out[i]
	}
	if err := attachTags(ctx, s.db, ptrs); err != nil {
		return nil, 0, err
	}
	if err := s.attachLanguages(ctx, ptrs); err != nil {
		return nil, 0, err
	}
	if err := attachStatus(ctx, s.db, ptrs); err != nil {
		return nil, 0, err
	}
	return out, page.total, nil
}

// listColumns are what lists show: postmortemColumns without the Markdown
// sections and the source text, which lists never show.
var listColumns = strings.NewReplacer("p.body,", "'',", "p.impact,", "'',", "p.trigger_text,", "'',",
	"p.contributing,", "'',", "p.detection,", "'',", "p.resolution,", "'',", "p.timeline,", "'',",
	"p.went_well,", "'',", "p.went_wrong,", "'',", "p.got_lucky,", "'',", "p.source_text,", "'',").Replace(postmortemColumns)

// listPage is one page of a list: the canonical members' ids in order, and
// how many groups match in all.
type listPage struct {
	ids   []int64
	total int
}

var fourDigits = regexp.MustCompile(`^[0-9]{4}$`)

func (s *Store) listPage(ctx context.Context, f PostmortemFilter, limit int) (listPage, error) {
	from, args := listFrom(ctx, f)
	var page listPage
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) `+from, args...).Scan(&page.total); err != nil {
		return page, fmt.Errorf("list postmortems: %w", err)
	}
	ids, err := queryColumn[int64](ctx, s.db, `SELECT p.id `+from+`
		ORDER BY p.incident_date DESC, p.id DESC LIMIT ? OFFSET ?`, append(args, limit, f.Offset)...)
	page.ids = ids
	if err != nil {
		return page, fmt.Errorf("list postmortems: %w", err)
	}
	return page, nil
}

// listFrom is the FROM and WHERE of a list: the canonical member of each
// live group the reader may see that matches f (or, when the reader cannot
// see the canonical one, the group's first live member they can see).
func listFrom(ctx context.Context, f PostmortemFilter) (string, []any) {
	var conds []string
	var args []any
	if f.Pattern != "" {
		conds = append(conds, `m.id IN (SELECT postmortem_id FROM tags WHERE pattern_slug = ?)`)
		args = append(args, f.Pattern)
	}
	if f.Org != "" {
		conds = append(conds, `m.organization = ? COLLATE NOCASE`)
		args = append(args, f.Org)
	}
	switch {
	case fourDigits.MatchString(f.Year):
		// A range, unlike substr(), can use an index on the date.
		y, _ := strconv.Atoi(f.Year)
		conds = append(conds, `m.incident_date >= ? AND m.incident_date < ?`)
		args = append(args, f.Year, strconv.Itoa(y+1))
	case f.Year != "":
		conds = append(conds, `substr(m.incident_date, 1, 4) = ?`)
		args = append(args, f.Year)
	}
	if f.Language != "" {
		conds = append(conds, `m.language = ?`)
		args = append(args, f.Language)
	}
	if f.Severity != "" {
		conds = append(conds, `m.severity = ?`)
		args = append(args, f.Severity)
	}
	if f.Service != "" {
		conds = append(conds, `m.id IN (SELECT postmortem_id FROM postmortem_services WHERE service = ?)`)
		args = append(args, strings.TrimSpace(f.Service))
	}
	switch f.Status {
	case "":
	case StatusPublished:
		conds = append(conds, publishedSQL("m"))
	default:
		// The partial index holds the few not published.
		conds = append(conds, `m.id IN (SELECT postmortem_id FROM review_status WHERE status = ? AND status != 'published')`)
		args = append(args, f.Status)
	}
	where := `p.archived_at = '' AND ` + visibleSQL(ctx, "p")
	if len(conds) > 0 {
		// The matching groups are collected once, from an index that holds
		// every column the filters read (the rows themselves are wide), and
		// then their canonical members are looked up: an EXISTS per
		// candidate group would run the filters once per group.
		where += ` AND p.group_id IN (SELECT m.group_id FROM postmortems m INDEXED BY postmortems_search
			WHERE m.archived_at = '' AND ` + visibleSQL(ctx, "m") + ` AND ` + strings.Join(conds, " AND ") + `)`
	}
	// A group is listed through the member the reader is shown.
	where += ` AND (g.canonical_id = p.id OR ` + shownInsteadOfMainSQL(ctx, "p", "g") + `)`
	return `FROM postmortems p JOIN variant_groups g ON g.id = p.group_id WHERE ` + where, args
}

// FilterOptions lists the values the postmortem list can be filtered by.
type FilterOptions struct {
	Organizations []string
	Years         []string
	Languages     []string
}

// ListFilterOptions returns the organizations, years and languages present
// among live postmortems. They are read from every postmortem, so the result
// is kept until the data changes; callers must not modify it.
func (s *Store) ListFilterOptions(ctx context.Context) (FilterOptions, error) {
	return cached(ctx, s, "filter-options", func() (FilterOptions, error) { return s.listFilterOptions(ctx) })
}

func (s *Store) listFilterOptions(ctx context.Context) (FilterOptions, error) {
	var o FilterOptions
	for _, q := range []struct {
		sql string
		dst *[]string
	}{
		// Along postmortems_search, which holds every column they read:
		// left to choose, SQLite took the organization's or the language's
		// own index and read each row for archived_at and restricted_to,
		// which sit after the texts (0.7 s at 100,000 postmortems).
		{`SELECT DISTINCT organization FROM postmortems INDEXED BY postmortems_search WHERE archived_at = '' AND ` + visibleSQL(ctx, "postmortems") + ` AND organization != '' ORDER BY organization COLLATE NOCASE`, &o.Organizations},
		{`SELECT DISTINCT substr(incident_date, 1, 4) y FROM postmortems INDEXED BY postmortems_search WHERE archived_at = '' AND ` + visibleSQL(ctx, "postmortems") + ` AND incident_date != '' ORDER BY y DESC`, &o.Years},
		{`SELECT DISTINCT language FROM postmortems INDEXED BY postmortems_search WHERE archived_at = '' AND ` + visibleSQL(ctx, "postmortems") + ` ORDER BY language`, &o.Languages},
	} {
		values, err := queryColumn[string](ctx, s.db, q.sql)
		if err != nil {
			return o, fmt.Errorf("list filter options: %w", err)
		}
		*q.dst = values
	}
	return o, nil
}

// CountPostmortems returns the number of live incidents (variant groups) and
// of live postmortems.
func (s *Store) CountPostmortems(ctx context.Context) (incidents, documents int, err error) {
	n, err := cached(ctx, s, "counts", func() ([2]int, error) {
		var n [2]int
		return n, s.countPostmortems(ctx, &n[0], &n[1])
	})
	return n[0], n[1], err
}

func (s *Store) countPostmortems(ctx context.Context, incidents, documents *int) error {
	err := s.db.QueryRowContext(ctx, `SELECT count(DISTINCT group_id), count(*) FROM postmortems WHERE archived_at = '' AND `+visibleSQL(ctx, "postmortems")).Scan(incidents, documents)
	if err != nil {
		return fmt.Errorf("count postmortems: %w", err)
	}
	return nil
}

// attachTags fills the postmortems' Tags, read through q.
func attachTags(ctx context.Context, q querier, ps []*Postmortem) error {
	if len(ps) == 0 {
		return nil
	}
	byID := map[int64]*Postmortem{}
	args := make([]any, len(ps))
	for i, p := range ps {
		byID[p.ID] = p
		args[i] = p.ID
	}
	rows, err := q.QueryContext(ctx, `SELECT t.postmortem_id, t.pattern_slug, pa.name, t.role, t.evidence
		FROM tags t JOIN patterns pa ON pa.slug = t.pattern_slug
		WHERE t.postmortem_id IN (`+placeholders(len(ps))+`)
		ORDER BY t.postmortem_id, CASE t.role WHEN 'trigger' THEN 0 WHEN 'amplifier' THEN 1 WHEN 'contributing' THEN 2
			WHEN 'missing-defence' THEN 3 ELSE 4 END, pa.position`, args...)
	if err != nil {
		return fmt.Errorf("list tags: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var t Tag
		if err := rows.Scan(&id, &t.PatternSlug, &t.PatternName, &t.Role, &t.Evidence); err != nil {
			return fmt.Errorf("list tags: %w", err)
		}
		byID[id].Tags = append(byID[id].Tags, t)
	}
	return rows.Err()
}

func (s *Store) attachLanguages(ctx context.Context, ps []*Postmortem) error {
	if len(ps) == 0 {
		return nil
	}
	byGroup := map[int64]*Postmortem{}
	args := make([]any, len(ps))
	for i, p := range ps {
		byGroup[p.GroupID] = p
		args[i] = p.GroupID
	}
	rows, err := s.db.QueryContext(ctx, `SELECT DISTINCT group_id, language FROM postmortems
		WHERE archived_at = '' AND `+visibleSQL(ctx, "postmortems")+` AND group_id IN (`+placeholders(len(ps))+`) ORDER BY group_id, language`, args...)
	if err != nil {
		return fmt.Errorf("list group languages: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var g int64
		var lang string
		if err := rows.Scan(&g, &lang); err != nil {
			return fmt.Errorf("list group languages: %w", err)
		}
		byGroup[g].Languages = append(byGroup[g].Languages, lang)
	}
	return rows.Err()
}

func attachVariants(ctx context.Context, q querier, p *Postmortem) error {
	rows, err := q.QueryContext(ctx, `SELECT m.slug, m.title, m.language, m.variant_kind, g.canonical_id = m.id
		FROM postmortems m JOIN variant_groups g ON g.id = m.group_id
		WHERE m.group_id = ? AND m.id != ? AND m.archived_at = '' AND `+visibleSQL(ctx, "m")+`
		ORDER BY g.canonical_id = m.id DESC, m.language, m.id`, p.GroupID, p.ID)
	if err != nil {
		return fmt.Errorf("list variants: %w", err)
	}
	defer rows.Close()
	langs := map[string]bool{p.Language: true}
	for rows.Next() {
		var v Variant
		if err := rows.Scan(&v.Slug, &v.Title, &v.Language, &v.Kind, &v.Canonical); err != nil {
			return fmt.Errorf("list variants: %w", err)
		}
		p.Variants = append(p.Variants, v)
		langs[v.Language] = true
	}
	for l := range langs {
		p.Languages = append(p.Languages, l)
	}
	slices.Sort(p.Languages)
	return rows.Err()
}

func listComments(ctx context.Context, q querier, id int64) ([]Comment, error) {
	rows, err := q.QueryContext(ctx, `SELECT author, posted, text FROM source_comments WHERE postmortem_id = ? ORDER BY position`, id)
	if err != nil {
		return nil, fmt.Errorf("list comments: %w", err)
	}
	defer rows.Close()
	var out []Comment
	for rows.Next() {
		var c Comment
		if err := rows.Scan(&c.Author, &c.Posted, &c.Text); err != nil {
			return nil, fmt.Errorf("list comments: %w", err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// CreatePostmortem stores p with its tags, action items, comments, first
// revision and fingerprint, in one transaction. It fills ID, Slug (from the title when empty), GroupID,
// Version and the timestamps. When p.VariantOf names a postmortem, p joins
// its variant group; otherwise p starts a group of its own. Fields that
// postmortem.Validate refuses are FieldErrors, and nothing is written.
func (s *Store) CreatePostmortem(ctx context.Context, p *Postmortem) error {
	if errs := ValidatePostmortem(p); errs != nil {
		return fmt.Errorf("create postmortem: %w", errs)
	}
	err := s.inTx(ctx, func(tx *writeTx) error { return s.createAudited(ctx, tx, p) })
	if err != nil {
		return fmt.Errorf("create postmortem %q: %w", p.Title, err)
	}
	return nil
}

// createAudited creates p with its audit entry and fingerprint.
func (s *Store) createAudited(ctx context.Context, tx *writeTx, p *Postmortem) error {
	if err := s.createPostmortem(ctx, tx, p); err != nil {
		return err
	}
	tx.audit(auditNote{kind: "postmortem.create", postmortem: p.Slug, what: "created “" + p.Title + "”", signer: p.SavedBy})
	return insertPrints(ctx, tx, p)
}

// CreatePostmortemOnce creates p as CreatePostmortem does, unless the same
// writer (p.SavedBy) created a postmortem with the same fields, in the same
// variant group and restricted to the same groups, within the last
// `within`, and it is still so: that is the same form sent again (a double
// click on Save, or a resend after a lost answer). Then nothing is written,
// p.ID and p.Slug name the one already there, and created is false.
func (s *Store) CreatePostmortemOnce(ctx context.Context, p *Postmortem, within time.Duration) (created bool, err error) {
	if errs := ValidatePostmortem(p); errs != nil {
		return false, fmt.Errorf("create postmortem: %w", errs)
	}
	err = s.inTx(ctx, func(tx *writeTx) error {
		twin, err := recentlyCreated(ctx, tx, p, s.Now().Add(-within))
		if err == nil {
			p.ID, p.Slug = twin.ID, twin.Slug
			return nil
		}
		if !errors.Is(err, ErrNotFound) {
			return err
		}
		created = true
		return s.createAudited(ctx, tx, p)
	})
	if err != nil {
		return false, fmt.Errorf("create postmortem %q: %w", p.Title, err)
	}
	return created, nil
}

// recentlyCreated finds a postmortem that p's writer created since `since`
// and that still holds p's fields, group and restriction.
func recentlyCreated(ctx context.Context, tx *writeTx, p *Postmortem, since time.Time) (Postmortem, error) {
	// The hundred newest rows only, found in rowid order without a scan:
	// a resent form follows its first within seconds or minutes. (Should a
	// bulk import push its twin out of them, it is created again, as any
	// form was before.)
	rows, err := tx.QueryContext(ctx, `SELECT p.slug FROM postmortems p
		JOIN revisions r ON r.postmortem_id = p.id AND r.version = 1 AND r.action = 'create'
		WHERE p.id IN (SELECT id FROM postmortems ORDER BY id DESC LIMIT 100)
			AND p.created_at >= ? AND p.title = ? AND r.author = ? AND p.restricted_to = ? AND p.archived_at = ''
		ORDER BY p.id DESC`,
		formatTime(since), p.Title, p.SavedBy, encodeRestriction(p.RestrictedTo))
	if err != nil {
		return Postmortem{}, err
	}
	var slugs []string
	for rows.Next() {
		var slug string
		if err := rows.Scan(&slug); err != nil {
			rows.Close()
			return Postmortem{}, err
		}
		slugs = append(slugs, slug)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return Postmortem{}, err
	}
	want := p.Fields()
	want.Language = cmp.Or(want.Language, "en") // as createPostmortem stores it
	for _, slug := range slugs {
		cur, err := postmortemForUpdate(ctx, tx, slug)
		if errors.Is(err, ErrNotFound) {
			continue // restricted to groups the writer is not in
		}
		if err != nil {
			return Postmortem{}, err
		}
		if !cur.Fields().Equal(want) {
			continue
		}
		if p.VariantOf == "" {
			if cur.Canonical {
				return cur, nil
			}
			continue
		}
		var group int64
		err = tx.QueryRowContext(ctx, `SELECT group_id FROM postmortems WHERE slug = ? AND `+visibleSQL(ctx, "postmortems"), p.VariantOf).Scan(&group)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return Postmortem{}, err
		}
		if err == nil && group == cur.GroupID {
			return cur, nil
		}
	}
	return Postmortem{}, fmt.Errorf("postmortem %q created since %s: %w", p.Title, formatTime(since), ErrNotFound)
}

func (s *Store) createPostmortem(ctx context.Context, tx *writeTx, p *Postmortem) error {
	now := s.Now().UTC().Truncate(time.Second)
	p.CreatedAt, p.UpdatedAt, p.Version = now, now, 1
	if p.Language == "" {
		p.Language = "en"
	}
	if p.VariantKind == "" {
		p.VariantKind = postmortem.KindOriginal
	}
	if p.DurationMinutes == 0 {
		setDuration(p)
	}
	slug, err := uniqueSlug(ctx, tx, p.Slug, slugTitle(p), len(p.RestrictedTo) > 0)
	if err != nil {
		return err
	}
	p.Slug = slug

	if p.VariantOf != "" {
		err := tx.QueryRowContext(ctx, `SELECT group_id FROM postmortems WHERE slug = ? AND `+visibleSQL(ctx, "postmortems"), p.VariantOf).Scan(&p.GroupID)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("variant of %q: %w", p.VariantOf, ErrNotFound)
		}
		if err != nil {
			return err
		}
	} else {
		res, err := tx.ExecContext(ctx, `INSERT INTO variant_groups (canonical_id) VALUES (NULL)`)
		if err != nil {
			return err
		}
		p.GroupID, _ = res.LastInsertId()
	}

	// An imported text is found again by its hash (FindImported).
	var sourceHash string
	if p.SourceText != "" {
		sourceHash = hashSource(p.SourceText)
	}
	var duration any
	if p.DurationMinutes > 0 {
		duration = p.DurationMinutes
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO postmortems (slug, title, organization, incident_date, published_date,
			duration_minutes, severity, language, summary, body,
			impact, trigger_text, contributing, detection, resolution, timeline, went_well, went_wrong, got_lucky,
			services, authors, started_at, detected_at, mitigated_at, resolved_at, time_zone,
			source_url, source_text, source_hash, group_id, variant_kind, version, archived_at, created_at, updated_at, restricted_to, example,
			source_restricted_to)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?)`,
		p.Slug, p.Title, p.Organization, p.IncidentDate, p.PublishedDate,
		duration, p.Severity, p.Language, p.Summary, p.Body,
		p.Impact, p.Trigger, p.Contributing, p.Detection, p.Resolution, p.Timeline, p.WentWell, p.WentWrong, p.GotLucky,
		p.Services, p.Authors, p.StartedAt, p.DetectedAt, p.MitigatedAt, p.ResolvedAt, p.TimeZone,
		p.SourceURL, p.SourceText, sourceHash, p.GroupID, p.VariantKind, p.ArchivedAt, formatTime(now), formatTime(now),
		encodeRestriction(p.RestrictedTo), p.Example, encodeRestriction(p.RestrictedTo))
	if err != nil {
		return err
	}
	p.ID, _ = res.LastInsertId()
	if p.VariantOf == "" {
		if _, err := tx.ExecContext(ctx, `UPDATE variant_groups SET canonical_id = ? WHERE id = ?`, p.ID, p.GroupID); err != nil {
			return err
		}
		p.Canonical = true
	}
	if err := insertTags(ctx, tx, p.ID, p.Tags); err != nil {
		return err
	}
	if err := replaceServices(ctx, tx, p.ID, p.Services); err != nil {
		return err
	}
	for i := range p.ActionItems {
		p.ActionItems[i].PostmortemID = p.ID
		if err := insertActionItem(ctx, tx, &p.ActionItems[i], now); err != nil {
			return err
		}
	}
	for i, c := range p.Comments {
		if _, err := tx.ExecContext(ctx, `INSERT INTO source_comments (postmortem_id, position, author, posted, text) VALUES (?, ?, ?, ?, ?)`,
			p.ID, i+1, c.Author, c.Posted, c.Text); err != nil {
			return err
		}
	}
	if err := insertCheckedItems(ctx, tx, p, now); err != nil {
		return err
	}
	if err := insertReviewStatus(ctx, tx, p, now); err != nil {
		return err
	}
	tx.notifyCreated(p)
	return insertRevision(ctx, tx, *p, revisionMeta{Action: ActionCreate, Author: p.SavedBy, Note: p.SaveNote}, now)
}

// replaceTags sets the tags of postmortem id; a tag kept without evidence
// of its own keeps the evidence it had.
func replaceTags(ctx context.Context, tx *writeTx, id int64, tags []Tag) error {
	rows, err := tx.QueryContext(ctx, `SELECT pattern_slug, role, evidence FROM tags WHERE postmortem_id = ? AND evidence != ''`, id)
	if err != nil {
		return err
	}
	had := map[[2]string]string{}
	for rows.Next() {
		var slug, role, ev string
		if err := rows.Scan(&slug, &role, &ev); err != nil {
			rows.Close()
			return err
		}
		had[[2]string{slug, role}] = ev
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	tags = slices.Clone(tags)
	for i, t := range tags {
		if t.Evidence == "" {
			tags[i].Evidence = had[[2]string{t.PatternSlug, t.Role}]
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM tags WHERE postmortem_id = ?`, id); err != nil {
		return err
	}
	return insertTags(ctx, tx, id, tags)
}

// insertTags tags postmortem id, which has no tags, in one statement.
func insertTags(ctx context.Context, tx *writeTx, id int64, tags []Tag) error {
	if len(tags) == 0 {
		return nil
	}
	rows := make([][3]string, len(tags))
	for i, t := range tags {
		if !postmortem.ValidRole(t.Role) {
			return fmt.Errorf("tag %s: role %q: %w", t.PatternSlug, t.Role, ErrInvalid)
		}
		rows[i] = [3]string{t.PatternSlug, t.Role, t.Evidence}
	}
	list, err := json.Marshal(rows)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO tags (postmortem_id, pattern_slug, role, evidence)
		SELECT ?, value ->> 0, value ->> 1, value ->> 2 FROM json_each(?) ORDER BY key`, id, string(list)); err != nil {
		return fmt.Errorf("tags: %w", err)
	}
	return nil
}

// uniqueSlug returns want when it is free (a caller-chosen slug must be), or
// a slug made from the title: for a postmortem open to everyone, with a
// numeric suffix when needed; for one restricted to groups, always with a
// random part (restrictedSlug), so that no one outside them can find it by
// creating a twin of its title and seeing which slug theirs gets.
func uniqueSlug(ctx context.Context, tx *writeTx, want, title string, restricted bool) (string, error) {
	taken := func(s string) (bool, error) {
		if reservedSlugs[s] {
			return true, nil
		}
		var n int
		err := tx.QueryRowContext(ctx, `SELECT count(*) FROM postmortems WHERE slug = ?`, s).Scan(&n)
		return n > 0, err
	}
	if want != "" {
		t, err := taken(want)
		if err != nil {
			return "", err
		}
		if t {
			return "", fmt.Errorf("slug %q is taken: %w", want, ErrConflict)
		}
		return want, nil
	}
	base := Slugify(title)
	for i := 1; ; i++ {
		cand := base
		switch {
		case restricted:
			cand = restrictedSlug(base)
		case i > 1:
			cand = fmt.Sprintf("%s-%d", base, i)
		}
		t, err := taken(cand)
		if err != nil {
			return "", err
		}
		if !t {
			return cand, nil
		}
	}
}

// restrictedSlug is base with eight random letters and digits (40 bits)
// after it, within Slugify's length: a slug no twin's title can make.
func restrictedSlug(base string) string {
	const random = 8
	if maxLen := 80 - 1 - random; len(base) > maxLen {
		base = strings.TrimRight(base[:maxLen], "-")
	}
	return base + "-" + strings.ToLower(rand.Text()[:random])
}

// slugTitle is what a new postmortem's slug is made from: its title, or,
// when the title has no letter or digit a slug keeps (a Chinese or Korean
// title), its organization and incident date, so that such postmortems are
// not all "postmortem-N".
func slugTitle(p *Postmortem) string {
	if Slugify(p.Title) != Slugify("") || p.Organization == "" && p.IncidentDate == "" {
		return p.Title
	}
	return strings.TrimSpace(p.Organization + " " + p.IncidentDate + " postmortem")
}

// reservedSlugs are path segments under /postmortems/ that name pages, not
// postmortems.
var reservedSlugs = map[string]bool{"new": true}

// Slugify turns a title into a readable URL path segment: folded ASCII
// words joined by hyphens, at most 80 characters (textnorm.Slug).
func Slugify(title string) string { return textnorm.Slug(title) }
