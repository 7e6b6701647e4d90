package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"hindsight/postmortem"
)

// A postmortem is a draft, in review or published (issue 29). Written
// through the form or the API it starts a draft; imported, or seeded, it
// is published. Review actions move it: request (draft → in review),
// approve (a version, in review), request_changes (in review → draft),
// publish (→ published) and reopen (→ draft).
const (
	StatusDraft     = "draft"
	StatusInReview  = "in_review"
	StatusPublished = "published"
)

// Statuses lists the review statuses in their order.
var Statuses = []string{StatusDraft, StatusInReview, StatusPublished}

// Review actions.
const (
	ReviewRequest        = "request"
	ReviewApprove        = "approve"
	ReviewRequestChanges = "request_changes"
	ReviewPublish        = "publish"
	ReviewReopen         = "reopen"
)

// ReviewActions lists the review actions.
var ReviewActions = []string{ReviewRequest, ReviewApprove, ReviewRequestChanges, ReviewPublish, ReviewReopen}

// ErrForbidden is a write refused for who asks, not for their role: an
// author approving their own postmortem, an edit of someone else's comment.
var ErrForbidden = errors.New("not allowed")

// ReviewRefusal is a review action or comment refused, with the reason in
// words for the person who asked; Kind is ErrConflict (the state does not
// allow it), ErrForbidden (not theirs to do) or ErrInvalid.
type ReviewRefusal struct {
	Kind   error
	Reason string
}

func (e *ReviewRefusal) Error() string { return e.Reason }
func (e *ReviewRefusal) Unwrap() error { return e.Kind }

func refuse(kind error, format string, args ...any) error {
	return &ReviewRefusal{Kind: kind, Reason: fmt.Sprintf(format, args...)}
}

// publishedSQL is the condition that the postmortem aliased alias is
// published (the partial index holds those that are not).
func publishedSQL(alias string) string {
	return `NOT EXISTS (SELECT 1 FROM review_status rs WHERE rs.postmortem_id = ` + alias + `.id AND rs.status != 'published')`
}

// insertReviewStatus records a new postmortem's status: p.Status, or
// published when empty.
func insertReviewStatus(ctx context.Context, tx *writeTx, p *Postmortem, now time.Time) error {
	p.Status = cmp.Or(p.Status, StatusPublished)
	if !slices.Contains(Statuses, p.Status) {
		return fmt.Errorf("status %q: %w", p.Status, ErrInvalid)
	}
	var published string
	if p.Status == StatusPublished {
		published = formatTime(now)
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO review_status (postmortem_id, status, published_at) VALUES (?, ?, ?)`,
		p.ID, p.Status, published)
	return err
}

// attachStatus fills the postmortems' Status.
func attachStatus(ctx context.Context, q querier, ps []*Postmortem) error {
	if len(ps) == 0 {
		return nil
	}
	byID := map[int64]*Postmortem{}
	args := make([]any, len(ps))
	for i, p := range ps {
		byID[p.ID] = p
		p.Status = StatusPublished
		args[i] = p.ID
	}
	rows, err := q.QueryContext(ctx, `SELECT postmortem_id, status FROM review_status WHERE postmortem_id IN (`+placeholders(len(ps))+`)`, args...)
	if err != nil {
		return fmt.Errorf("read review status: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var status string
		if err := rows.Scan(&id, &status); err != nil {
			return fmt.Errorf("read review status: %w", err)
		}
		byID[id].Status = status
	}
	return rows.Err()
}

// Review is where a postmortem's review stands.
type Review struct {
	Slug        string
	Title       string
	Status      string
	Version     int // the postmortem's current version
	PublishedAt time.Time
	// Writers are who may not approve it: the one who created it and its
	// listed authors.
	Writers   []string
	Reviewers []Reviewer
	Events    []ReviewEvent
}

// Reviewer is someone asked to review a postmortem.
type Reviewer struct {
	Name        string
	RequestedBy string
	RequestedAt time.Time
}

// ReviewEvent is one review action.
type ReviewEvent struct {
	ID      int64
	Action  string
	Actor   string
	Version int
	Comment string
	At      time.Time
}

// Approvals are the approvals given, newest first, one per person (their
// latest), whatever version they were of.
func (r Review) Approvals() []ReviewEvent {
	var out []ReviewEvent
	seen := map[string]bool{}
	for _, e := range slices.Backward(r.Events) {
		if e.Action != ReviewApprove || seen[strings.ToLower(e.Actor)] {
			continue
		}
		seen[strings.ToLower(e.Actor)] = true
		out = append(out, e)
	}
	return out
}

// CurrentApprovals are the approvals of the current version.
func (r Review) CurrentApprovals() []ReviewEvent {
	var out []ReviewEvent
	for _, e := range r.Approvals() {
		if e.Version == r.Version {
			out = append(out, e)
		}
	}
	return out
}

// IsWriter reports whether name created the postmortem or is one of its
// listed authors.
func (r Review) IsWriter(name string) bool {
	return slices.ContainsFunc(r.Writers, func(w string) bool { return strings.EqualFold(w, strings.TrimSpace(name)) })
}

// IsReviewer reports whether name was asked to review it.
func (r Review) IsReviewer(name string) bool {
	return slices.ContainsFunc(r.Reviewers, func(v Reviewer) bool { return strings.EqualFold(v.Name, strings.TrimSpace(name)) })
}

// authorNames splits a postmortem's authors field into names.
func authorNames(authors string) []string {
	var out []string
	for _, part := range strings.FieldsFunc(authors, func(r rune) bool { return r == ',' || r == ';' || r == '\n' }) {
		for name := range strings.SplitSeq(part, " and ") {
			if name = strings.TrimSpace(name); name != "" {
				out = append(out, name)
			}
		}
	}
	return out
}

// GetReview returns where the review of the postmortem slug stands.
func (s *Store) GetReview(ctx context.Context, slug string) (Review, error) {
	tx, err := s.db.beginRead(ctx)
	if err != nil {
		return Review{}, fmt.Errorf("get review %q: %w", slug, err)
	}
	defer tx.Rollback()
	r, _, err := readReview(ctx, tx, slug)
	if err != nil {
		return Review{}, fmt.Errorf("get review %q: %w", slug, err)
	}
	return r, nil
}

type reviewQuerier interface {
	querier
	queryRower
}

// readReview reads the review of a postmortem the reader may see, and its id.
func readReview(ctx context.Context, q reviewQuerier, slug string) (Review, int64, error) {
	r := Review{Slug: slug}
	var id int64
	var authors, published string
	err := q.QueryRowContext(ctx, `SELECT p.id, p.title, p.version, p.authors, coalesce(rs.status, 'published'), coalesce(rs.published_at, '')
		FROM postmortems p LEFT JOIN review_status rs ON rs.postmortem_id = p.id
		WHERE p.slug = ? AND `+visibleSQL(ctx, "p"), slug).Scan(&id, &r.Title, &r.Version, &authors, &r.Status, &published)
	if errors.Is(err, sql.ErrNoRows) {
		return r, 0, fmt.Errorf("postmortem %q: %w", slug, ErrNotFound)
	}
	if err != nil {
		return r, 0, err
	}
	r.PublishedAt = parseTime(published)
	var creator string
	err = q.QueryRowContext(ctx, `SELECT author FROM revisions WHERE postmortem_id = ? AND action = 'create'`, id).Scan(&creator)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return r, 0, err
	}
	for _, w := range append([]string{creator}, authorNames(authors)...) {
		if w != "" && !r.IsWriter(w) {
			r.Writers = append(r.Writers, w)
		}
	}
	rows, err := q.QueryContext(ctx, `SELECT reviewer, requested_by, requested_at FROM review_reviewers
		WHERE postmortem_id = ? ORDER BY requested_at, reviewer`, id)
	if err != nil {
		return r, 0, err
	}
	for rows.Next() {
		var v Reviewer
		var at string
		if err := rows.Scan(&v.Name, &v.RequestedBy, &at); err != nil {
			rows.Close()
			return r, 0, err
		}
		v.RequestedAt = parseTime(at)
		r.Reviewers = append(r.Reviewers, v)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return r, 0, err
	}
	rows, err = q.QueryContext(ctx, `SELECT id, action, actor, version, comment, at FROM review_events
		WHERE postmortem_id = ? ORDER BY id`, id)
	if err != nil {
		return r, 0, err
	}
	defer rows.Close()
	for rows.Next() {
		var e ReviewEvent
		var at string
		if err := rows.Scan(&e.ID, &e.Action, &e.Actor, &e.Version, &e.Comment, &at); err != nil {
			return r, 0, err
		}
		e.At = parseTime(at)
		r.Events = append(r.Events, e)
	}
	return r, id, rows.Err()
}

// ReviewStep is one review action asked for.
type ReviewStep struct {
	Action string
	// By is who acts (signed in, or the name typed in the none mode).
	By string
	// Reviewers, for request, are the people asked to review.
	Reviewers []string
	// Version, when not 0, is the version the action is about; it must
	// be the current one. An approval must name it.
	Version int
	Comment string
	// ApprovalsNeeded is the review policy: approvals of the current
	// version, by others than its writers, before it may be published;
	// with 0 its writer may publish it directly, and the review questions
	// need no answers.
	ApprovalsNeeded int
}

// Review limits.
const (
	maxReviewers       = 20
	MaxReviewComment   = 10000 // runes, in a review action's comment or a comment's body
	maxReviewerNameLen = postmortem.MaxAuthorRunes
)

// TakeReviewStep makes a review action on the postmortem slug, or refuses
// it with a *ReviewRefusal saying why, and returns the review after it.
// Every step is in the audit trail.
func (s *Store) TakeReviewStep(ctx context.Context, slug string, st ReviewStep) (Review, error) {
	st.By = strings.TrimSpace(st.By)
	if msg := postmortem.CheckText(st.Comment, "The comment", true, MaxReviewComment); msg != "" {
		return Review{}, FieldErrors{"comment": msg}
	}
	if !slices.Contains(ReviewActions, st.Action) {
		return Review{}, FieldErrors{"action": "The action must be one of " + strings.Join(ReviewActions, ", ") + "."}
	}
	if st.By == "" {
		return Review{}, FieldErrors{"author": "Sign with your name: a review step says who took it."}
	}
	var out Review
	err := s.inTx(ctx, func(tx *writeTx) error {
		r, id, err := readReview(ctx, tx, slug)
		if err != nil {
			return err
		}
		if st.Version != 0 && st.Version != r.Version {
			return refuse(ErrConflict, "Version %d is not the current one: “%s” is at version %d now. Read what changed (/postmortems/%s/compare?from=%d&to=%d) and try again.",
				st.Version, r.Title, r.Version, slug, st.Version, r.Version)
		}
		now := s.Now().UTC().Truncate(time.Second)
		setStatus := func(status string) error {
			_, err := tx.ExecContext(ctx, `INSERT INTO review_status (postmortem_id, status) VALUES (?, ?)
				ON CONFLICT (postmortem_id) DO UPDATE SET status = excluded.status`, id, status)
			return err
		}
		what := ""
		var asked []string
		switch st.Action {
		case ReviewRequest:
			if r.Status == StatusPublished {
				return refuse(ErrConflict, "“%s” is published; reopen it before asking for a review.", r.Title)
			}
			names, err := reviewerNames(st.Reviewers, r)
			if err != nil {
				return err
			}
			for _, n := range names {
				if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO review_reviewers (postmortem_id, reviewer, requested_by, requested_at)
					VALUES (?, ?, ?, ?)`, id, n, st.By, formatTime(now)); err != nil {
					return err
				}
			}
			if err := setStatus(StatusInReview); err != nil {
				return err
			}
			asked = names
			what = "asked for a review of “" + r.Title + "”"
			if len(names) > 0 {
				what += " from " + strings.Join(names, ", ")
			}
		case ReviewApprove:
			if r.Status != StatusInReview {
				return refuse(ErrConflict, "“%s” is not in review (it is %s): ask for a review first.", r.Title, StatusLabel(r.Status))
			}
			if r.IsWriter(st.By) {
				return refuse(ErrForbidden, "%s wrote “%s” and cannot approve it: approvals come from someone else.", st.By, r.Title)
			}
			if st.Version == 0 {
				return FieldErrors{"version": fmt.Sprintf("Say which version you approve (the current one is %d).", r.Version)}
			}
			what = fmt.Sprintf("approved version %d of “%s”", st.Version, r.Title)
		case ReviewRequestChanges:
			if r.Status != StatusInReview {
				return refuse(ErrConflict, "“%s” is not in review (it is %s).", r.Title, StatusLabel(r.Status))
			}
			if err := setStatus(StatusDraft); err != nil {
				return err
			}
			what = fmt.Sprintf("asked for changes to version %d of “%s”", r.Version, r.Title)
		case ReviewPublish:
			if r.Status == StatusPublished {
				return refuse(ErrConflict, "“%s” is already published.", r.Title)
			}
			if err := publishable(ctx, tx, r, id, st.ApprovalsNeeded); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO review_status (postmortem_id, status, published_at) VALUES (?, 'published', ?)
				ON CONFLICT (postmortem_id) DO UPDATE SET status = 'published',
					published_at = CASE WHEN published_at = '' THEN excluded.published_at ELSE published_at END`, id, formatTime(now)); err != nil {
				return err
			}
			// Feeds list what changed last: publishing is announced.
			if _, err := tx.ExecContext(ctx, `UPDATE postmortems SET updated_at = ? WHERE id = ?`, formatTime(now), id); err != nil {
				return err
			}
			what = fmt.Sprintf("published version %d of “%s”", r.Version, r.Title)
		case ReviewReopen:
			if r.Status == StatusDraft {
				return refuse(ErrConflict, "“%s” is already a draft.", r.Title)
			}
			if err := setStatus(StatusDraft); err != nil {
				return err
			}
			what = "reopened “" + r.Title + "” as a draft"
		}
		version := cmp.Or(st.Version, r.Version)
		if _, err := tx.ExecContext(ctx, `INSERT INTO review_events (postmortem_id, action, actor, version, comment, at)
			VALUES (?, ?, ?, ?, ?, ?)`, id, st.Action, st.By, version, strings.TrimSpace(st.Comment), formatTime(now)); err != nil {
			return err
		}
		tx.audit(auditNote{kind: "review." + st.Action, postmortemID: id, what: what, signer: st.By})
		tx.notifyReviewStep(id, st, version, asked, what)
		out, _, err = readReview(ctx, tx, slug)
		return err
	})
	if err != nil {
		return Review{}, fmt.Errorf("review %s %q: %w", st.Action, slug, err)
	}
	return out, nil
}

// reviewerNames checks and tidies the reviewers asked for.
func reviewerNames(given []string, r Review) ([]string, error) {
	var out []string
	for _, n := range given {
		n = strings.TrimSpace(n)
		if n == "" || slices.ContainsFunc(out, func(o string) bool { return strings.EqualFold(o, n) }) {
			continue
		}
		if msg := postmortem.CheckText(n, "A reviewer's name", false, maxReviewerNameLen); msg != "" {
			return nil, FieldErrors{"reviewers": msg}
		}
		if r.IsWriter(n) {
			return nil, FieldErrors{"reviewers": n + " wrote this postmortem and cannot review it; ask someone else."}
		}
		out = append(out, n)
	}
	if len(out) > maxReviewers {
		return nil, FieldErrors{"reviewers": fmt.Sprintf("Ask at most %d reviewers at once.", maxReviewers)}
	}
	return out, nil
}

// publishable refuses to publish r, saying what is missing, while it has
// fewer approvals of its current version than needed or unanswered
// review questions (when approvals are needed at all).
func publishable(ctx context.Context, tx *writeTx, r Review, id int64, needed int) error {
	if needed <= 0 {
		return nil
	}
	var missing []string
	if r.Status != StatusInReview {
		missing = append(missing, "a review: ask for one first")
	}
	current := r.CurrentApprovals()
	if len(current) < needed {
		m := fmt.Sprintf("%d more approval(s) of version %d (%d needed, %d given)", needed-len(current), r.Version, needed, len(current))
		var stale []string
		for _, a := range r.Approvals() {
			if a.Version != r.Version {
				stale = append(stale, fmt.Sprintf("%s approved version %d", a.Actor, a.Version))
			}
		}
		if len(stale) > 0 {
			m += "; " + strings.Join(stale, ", ") + ", before the last changes"
		}
		missing = append(missing, m)
	}
	qs, err := reviewQuestions(ctx, tx, id)
	if err != nil {
		return err
	}
	var open []string
	for _, q := range qs {
		if q.Answer == nil {
			open = append(open, "“"+q.Text+"”")
		}
	}
	if len(open) > 0 {
		missing = append(missing, fmt.Sprintf("answers to %d review question(s): %s", len(open), strings.Join(open, "; ")))
	}
	if len(missing) > 0 {
		return refuse(ErrConflict, "“%s” cannot be published yet. It needs %s.", r.Title, strings.Join(missing, "; and "))
	}
	return nil
}

// StatusLabel is a status in words.
func StatusLabel(status string) string {
	switch status {
	case StatusDraft:
		return "a draft"
	case StatusInReview:
		return "in review"
	}
	return "published"
}

// Unpublished is a postmortem not yet published, with its review.
type Unpublished struct {
	Postmortem
	Review Review
}

// ListUnpublished returns the live postmortems not yet published that the
// reader may see, with their reviews, the most recently written first, at
// most limit of them.
func (s *Store) ListUnpublished(ctx context.Context, limit int) ([]Unpublished, error) {
	tx, err := s.db.beginRead(ctx)
	if err != nil {
		return nil, fmt.Errorf("list unpublished: %w", err)
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, `SELECT `+listColumns+`, rs.status
		FROM review_status rs JOIN postmortems p ON p.id = rs.postmortem_id JOIN variant_groups g ON g.id = p.group_id
		WHERE rs.status != 'published' AND p.archived_at = '' AND `+visibleSQL(ctx, "p")+`
		ORDER BY p.id DESC LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("list unpublished: %w", err)
	}
	var out []Unpublished
	for rows.Next() {
		var status string
		p, err := scanPostmortem(statusScanner{rows, &status})
		if err != nil {
			rows.Close()
			return nil, fmt.Errorf("list unpublished: %w", err)
		}
		p.Status = status
		out = append(out, Unpublished{Postmortem: p})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list unpublished: %w", err)
	}
	for i := range out {
		if out[i].Review, _, err = readReview(ctx, tx, out[i].Slug); err != nil {
			return nil, fmt.Errorf("list unpublished: %w", err)
		}
	}
	return out, nil
}

// statusScanner scans a postmortem's columns followed by its status.
type statusScanner struct {
	row    scanner
	status *string
}

func (s statusScanner) Scan(dest ...any) error { return s.row.Scan(append(dest, s.status)...) }
