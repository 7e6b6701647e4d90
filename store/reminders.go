package store

import (
	"context"
	"fmt"
	"time"
)

// What the reminder scheduler (notify/remind.go) and the digest read.
// The scheduler reads every postmortem (restricted ones too: their
// reminders go only to their readers); the digest reads as its person.

// DatedItem is an unfinished action item with a due date, with what a
// reminder needs of its postmortem.
type DatedItem struct {
	ActionItem
	PostmortemSlug string
	TimeZone       string
}

// DatedActionItems returns the unfinished action items of live, non-example
// postmortems due on or before until (YYYY-MM-DD) and on or after from,
// oldest due first, at most limit.
func (s *Store) DatedActionItems(ctx context.Context, from, until string, limit int) ([]DatedItem, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT a.id, a.postmortem_id, a.title, a.owner, a.kind, a.priority, a.status, a.due_date, a.ticket_url,
		coalesce(a.checklist_item_id, 0), a.created_at, a.updated_at, a.version, p.slug, p.time_zone
		FROM action_items a JOIN postmortems p ON p.id = a.postmortem_id
		WHERE a.status IN ('open', 'in-progress') AND a.due_date != '' AND a.due_date BETWEEN ? AND ?
			AND p.archived_at = '' AND p.example = 0
		ORDER BY a.due_date, a.id LIMIT ?`, from, until, limit)
	if err != nil {
		return nil, fmt.Errorf("dated action items: %w", err)
	}
	defer rows.Close()
	var out []DatedItem
	for rows.Next() {
		var d DatedItem
		var created, updated string
		a := &d.ActionItem
		if err := rows.Scan(&a.ID, &a.PostmortemID, &a.Title, &a.Owner, &a.Kind, &a.Priority, &a.Status, &a.DueDate, &a.TicketURL,
			&a.ChecklistItemID, &created, &updated, &a.Version, &d.PostmortemSlug, &d.TimeZone); err != nil {
			return nil, fmt.Errorf("dated action items: %w", err)
		}
		a.CreatedAt, a.UpdatedAt = parseTime(created), parseTime(updated)
		out = append(out, d)
	}
	return out, rows.Err()
}

// UnpublishedForReminders returns the live, non-example postmortems not
// yet published, with what their review due date is computed from (ID,
// Slug, Title, CreatedAt, IncidentDate, ResolvedAt, Status), at most
// limit, oldest first.
func (s *Store) UnpublishedForReminders(ctx context.Context, limit int) ([]Postmortem, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT p.id, p.slug, p.title, p.created_at, p.incident_date, p.resolved_at, rs.status
		FROM review_status rs JOIN postmortems p ON p.id = rs.postmortem_id
		WHERE rs.status != 'published' AND p.archived_at = '' AND p.example = 0
		ORDER BY p.id LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("unpublished for reminders: %w", err)
	}
	defer rows.Close()
	var out []Postmortem
	for rows.Next() {
		var p Postmortem
		var created string
		if err := rows.Scan(&p.ID, &p.Slug, &p.Title, &created, &p.IncidentDate, &p.ResolvedAt, &p.Status); err != nil {
			return nil, fmt.Errorf("unpublished for reminders: %w", err)
		}
		p.CreatedAt = parseTime(created)
		out = append(out, p)
	}
	return out, rows.Err()
}

// EventKeysTaken returns which of keys name events in the outbox already,
// so that the scheduler enqueues only the new ones.
func (s *Store) EventKeysTaken(ctx context.Context, keys []string) (map[string]bool, error) {
	taken := map[string]bool{}
	for len(keys) > 0 {
		n := min(len(keys), 500)
		got, err := queryColumn[string](ctx, s.db, `SELECT dedupe_key FROM outbox WHERE dedupe_key IN (`+placeholders(n)+`)`, anys(keys[:n])...)
		if err != nil {
			return nil, fmt.Errorf("event keys: %w", err)
		}
		for _, k := range got {
			taken[k] = true
		}
		keys = keys[n:]
	}
	return taken, nil
}

// Digest is what one reader hears of a period: what was published in it,
// what is overdue at its end, and the patterns that recurred.
type Digest struct {
	Since, Until time.Time
	Published    []PostmortemRef
	// OverdueItems are the unfinished action items past their due date
	// (at most digestLimit; OverdueItemCount counts them all).
	OverdueItems     []ActionItemEntry
	OverdueItemCount int
	// Unpublished are the postmortems not yet published, for the caller
	// to keep those past their review due date.
	Unpublished []Postmortem
	Recurred    []RecurredPattern
}

// RecurredPattern is a pattern shown by postmortems published in the
// period that earlier postmortems showed too.
type RecurredPattern struct {
	Slug, Name string
	// InPeriod counts the period's postmortems that show it, Before the
	// earlier ones.
	InPeriod, Before int
}

// Empty reports whether the digest has nothing to say.
func (d Digest) Empty() bool {
	return len(d.Published) == 0 && d.OverdueItemCount == 0 && len(d.Unpublished) == 0 && len(d.Recurred) == 0
}

// digestLimit bounds each list of a digest.
const digestLimit = 20

// DigestFor returns the digest of [since, until) as ctx's reader may
// read it: restricted postmortems only when their groups let them.
func (s *Store) DigestFor(ctx context.Context, since, until time.Time) (Digest, error) {
	d := Digest{Since: since, Until: until}
	from, to := formatTime(since), formatTime(until)
	rows, err := s.db.QueryContext(ctx, `SELECT p.slug, p.title, p.organization, p.incident_date
		FROM review_status rs JOIN postmortems p ON p.id = rs.postmortem_id
		WHERE rs.status = 'published' AND rs.published_at >= ? AND rs.published_at < ?
			AND p.archived_at = '' AND p.example = 0 AND `+visibleSQL(ctx, "p")+`
		ORDER BY rs.published_at, p.id LIMIT ?`, from, to, digestLimit)
	if err != nil {
		return d, fmt.Errorf("digest: published: %w", err)
	}
	for rows.Next() {
		var r PostmortemRef
		if err := rows.Scan(&r.Slug, &r.Title, &r.Organization, &r.IncidentDate); err != nil {
			rows.Close()
			return d, fmt.Errorf("digest: published: %w", err)
		}
		d.Published = append(d.Published, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return d, fmt.Errorf("digest: published: %w", err)
	}

	items, totals, err := s.ListActionItems(ctx, ActionItemFilter{Status: StatusUnfinished, Overdue: true, Limit: digestLimit}, until)
	if err != nil {
		return d, fmt.Errorf("digest: overdue items: %w", err)
	}
	d.OverdueItems, d.OverdueItemCount = items, totals.Matching

	rows, err = s.db.QueryContext(ctx, `SELECT p.id, p.slug, p.title, p.created_at, p.incident_date, p.resolved_at, rs.status
		FROM review_status rs JOIN postmortems p ON p.id = rs.postmortem_id
		WHERE rs.status != 'published' AND p.archived_at = '' AND p.example = 0 AND `+visibleSQL(ctx, "p")+`
		ORDER BY p.id LIMIT 500`)
	if err != nil {
		return d, fmt.Errorf("digest: unpublished: %w", err)
	}
	for rows.Next() {
		var p Postmortem
		var created string
		if err := rows.Scan(&p.ID, &p.Slug, &p.Title, &created, &p.IncidentDate, &p.ResolvedAt, &p.Status); err != nil {
			rows.Close()
			return d, fmt.Errorf("digest: unpublished: %w", err)
		}
		p.CreatedAt = parseTime(created)
		d.Unpublished = append(d.Unpublished, p)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return d, fmt.Errorf("digest: unpublished: %w", err)
	}

	// A pattern recurred when a postmortem published in the period shows
	// it and one published (or imported) before the period did too.
	rows, err = s.db.QueryContext(ctx, `WITH seen AS (
			SELECT DISTINCT t.pattern_slug, p.group_id, rs.published_at >= ? AS recent
			FROM tags t JOIN postmortems p ON p.id = t.postmortem_id JOIN review_status rs ON rs.postmortem_id = p.id
			WHERE rs.status = 'published' AND rs.published_at < ? AND p.archived_at = '' AND p.example = 0 AND `+visibleSQL(ctx, "p")+`)
		SELECT s.pattern_slug, pt.name, count(DISTINCT CASE WHEN s.recent THEN s.group_id END) AS n,
			count(DISTINCT CASE WHEN NOT s.recent THEN s.group_id END) AS before
		FROM seen s JOIN patterns pt ON pt.slug = s.pattern_slug
		GROUP BY s.pattern_slug HAVING n > 0 AND before > 0
		ORDER BY n DESC, before DESC, pt.name LIMIT ?`, from, to, digestLimit)
	if err != nil {
		return d, fmt.Errorf("digest: patterns: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var r RecurredPattern
		if err := rows.Scan(&r.Slug, &r.Name, &r.InPeriod, &r.Before); err != nil {
			return d, fmt.Errorf("digest: patterns: %w", err)
		}
		d.Recurred = append(d.Recurred, r)
	}
	return d, rows.Err()
}
