package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"hindsight/postmortem"
)

// SuggestedTag is a pattern the classifier found in an imported postmortem:
// a machine tag, kept apart from the tags people gave until someone
// confirms or dismisses it.
type SuggestedTag struct {
	PostmortemID int64
	PatternSlug  string
	PatternName  string
	Role         string
	Confidence   float64 // calibrated, from 0 to 1
	Reason       string
	Evidence     string // the sentence that supports it best
	Phrases      []string
	Status       string
	SuggestedAt  string
	ReviewedAt   string
	ReviewedBy   string
}

// ReviewItem is a postmortem with unreviewed suggestions, for the review
// queue.
type ReviewItem struct {
	Slug, Title, Organization, IncidentDate string
	Suggestions                             []SuggestedTag
}

// Document is the text of p a classifier reads: its title, and its
// summary and write-up as one body.
func (p *Postmortem) Document() (title, body string) {
	return p.Title, strings.Join(append([]string{p.Summary}, p.writeUp()...), "\n\n")
}

// Derivation is what a classifier derives from a postmortem's text, by
// pattern: the suggestion it makes, and every sentence of its evidence
// (EvidenceSentence).
type Derivation map[string]DerivedSuggestion

// DerivedSuggestion is one pattern of a Derivation.
type DerivedSuggestion struct {
	Tag       SuggestedTag
	Sentences []string
}

// opens reports whether a change of restriction from before to after lets
// someone read a postmortem who could not: it was restricted, and now is
// open to everyone or to a group it was not.
func opens(before, after []string) bool {
	if len(before) == 0 {
		return false
	}
	if len(after) == 0 {
		return true
	}
	for _, g := range after {
		if !slices.Contains(before, g) {
			return true
		}
	}
	return false
}

// jsonKeys is m's keys as a JSON array, for json_each.
func jsonKeys[V any](m map[string]V) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	b, _ := json.Marshal(keys)
	return string(b)
}

// rederiveEvidence gives what was derived from the text of postmortem p
// (read inside tx, as it is now) afresh from that text: its unreviewed
// suggestions (those the text no longer supports go), the reasons,
// evidence sentences and phrases of its suggestions, reviewed or not, and
// of its dismissed ones (with its title now), and the evidence of its tags
// where the text no longer holds it. A change that opens a postmortem
// calls it: what was derived while it was restricted may quote a text a
// redaction took out (written restricted, redacted, opened), and the new
// readers may read only the text as it is.
//
// derive gives the derivation from the text (PostmortemUpdate.Derive); nil
// derives nothing.
func rederiveEvidence(ctx context.Context, tx *writeTx, derive func(*Postmortem) Derivation, p Postmortem) error {
	found := map[string]SuggestedTag{}
	sentences := map[string][]string{} // every evidence sentence, by pattern
	title, body := p.Document()
	if derive != nil {
		for slug, d := range derive(&p) {
			found[slug], sentences[slug] = d.Tag, d.Sentences
		}
	}
	// An unreviewed suggestion the opened text no longer supports goes: it
	// was derived from text its new readers may not read.
	if _, err := tx.ExecContext(ctx, `DELETE FROM suggested_tags WHERE postmortem_id = ? AND status = 'suggested'
		AND pattern_slug NOT IN (SELECT value FROM json_each(?))`, p.ID, jsonKeys(found)); err != nil {
		return err
	}
	patterns, err := queryColumn[string](ctx, tx, `SELECT pattern_slug FROM suggested_tags WHERE postmortem_id = ?`, p.ID)
	if err != nil {
		return err
	}
	for _, slug := range patterns {
		t := found[slug]
		if _, err := tx.ExecContext(ctx, `UPDATE suggested_tags SET reason = ?, evidence = ?, phrases = ? WHERE postmortem_id = ? AND pattern_slug = ?`,
			t.Reason, t.Evidence, strings.Join(t.Phrases, "\n"), p.ID, slug); err != nil {
			return err
		}
	}
	rejected, err := queryColumn[string](ctx, tx, `SELECT DISTINCT pattern_slug FROM rejected_suggestions WHERE postmortem_id = ?`, p.ID)
	if err != nil {
		return err
	}
	for _, slug := range rejected {
		if _, err := tx.ExecContext(ctx, `UPDATE rejected_suggestions SET title = ?, phrases = ?, evidence = ? WHERE postmortem_id = ? AND pattern_slug = ?`,
			p.Title, strings.Join(found[slug].Phrases, "\n"), evidenceLines(sentences[slug]), p.ID, slug); err != nil {
			return err
		}
	}
	type tagEvidence struct{ pattern, role, evidence string }
	var tags []tagEvidence
	if err := scanRows(ctx, tx, `SELECT pattern_slug, role, evidence FROM tags WHERE postmortem_id = ? AND evidence != ''`, []any{p.ID},
		func(rs *sql.Rows) error {
			var t tagEvidence
			err := rs.Scan(&t.pattern, &t.role, &t.evidence)
			tags = append(tags, t)
			return err
		}); err != nil {
		return err
	}
	text := strings.Join(strings.Fields(title+"\n"+body), " ")
	for _, t := range tags {
		if strings.Contains(text, strings.Join(strings.Fields(t.evidence), " ")) {
			continue // a sentence the text still holds
		}
		if _, err := tx.ExecContext(ctx, `UPDATE tags SET evidence = ? WHERE postmortem_id = ? AND pattern_slug = ? AND role = ?`,
			found[t.pattern].Evidence, p.ID, t.pattern, t.role); err != nil {
			return err
		}
	}
	return nil
}

// insertSuggestedTags stores p.Suggested for the postmortem just created.
func (s *Store) insertSuggestedTags(ctx context.Context, tx *writeTx, p *Postmortem) error {
	now := s.now()
	for i := range p.Suggested {
		t := &p.Suggested[i]
		// An export's suggestions keep what became of them.
		t.PostmortemID = p.ID
		if t.Status == "" {
			t.Status = postmortem.SuggestionPending
		}
		if t.SuggestedAt == "" {
			t.SuggestedAt = now
		}
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO suggested_tags
				(postmortem_id, pattern_slug, role, confidence, reason, evidence, phrases, status, suggested_at, reviewed_at, reviewed_by)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			p.ID, t.PatternSlug, t.Role, t.Confidence, t.Reason, t.Evidence, strings.Join(t.Phrases, "\n"), t.Status, t.SuggestedAt,
			t.ReviewedAt, t.ReviewedBy); err != nil {
			return fmt.Errorf("suggested tag %s: %w", t.PatternSlug, err)
		}
	}
	return nil
}

const suggestedColumns = `st.postmortem_id, st.pattern_slug, pa.name, st.role, st.confidence, st.reason, st.evidence,
	st.phrases, st.status, st.suggested_at, st.reviewed_at, st.reviewed_by`

func scanSuggestedTag(row scanner) (SuggestedTag, error) {
	var t SuggestedTag
	var phrases string
	err := row.Scan(&t.PostmortemID, &t.PatternSlug, &t.PatternName, &t.Role, &t.Confidence, &t.Reason, &t.Evidence,
		&phrases, &t.Status, &t.SuggestedAt, &t.ReviewedAt, &t.ReviewedBy)
	if phrases != "" {
		t.Phrases = strings.Split(phrases, "\n")
	}
	return t, err
}

// ListSuggestedTags returns the unreviewed suggestions of a postmortem, most
// confident first.
func (s *Store) ListSuggestedTags(ctx context.Context, postmortemID int64) ([]SuggestedTag, error) {
	return listSuggestedTags(ctx, s.db, postmortemID)
}

func listSuggestedTags(ctx context.Context, q querier, postmortemID int64) ([]SuggestedTag, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+suggestedColumns+`
		FROM suggested_tags st JOIN patterns pa ON pa.slug = st.pattern_slug
		WHERE st.postmortem_id = ? AND st.status = 'suggested'
		ORDER BY st.confidence DESC, pa.position`, postmortemID)
	if err != nil {
		return nil, fmt.Errorf("list suggested tags of postmortem %d: %w", postmortemID, err)
	}
	defer rows.Close()
	var out []SuggestedTag
	for rows.Next() {
		t, err := scanSuggestedTag(rows)
		if err != nil {
			return nil, fmt.Errorf("list suggested tags of postmortem %d: %w", postmortemID, err)
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// ListReviewedSuggestions returns the suggestions of a postmortem that
// someone confirmed or dismissed, in the order they were reviewed.
func (s *Store) ListReviewedSuggestions(ctx context.Context, postmortemID int64) ([]SuggestedTag, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+suggestedColumns+`
		FROM suggested_tags st JOIN patterns pa ON pa.slug = st.pattern_slug
		WHERE st.postmortem_id = ? AND st.status != 'suggested'
		ORDER BY st.reviewed_at, st.pattern_slug`, postmortemID)
	if err != nil {
		return nil, fmt.Errorf("list reviewed suggestions of postmortem %d: %w", postmortemID, err)
	}
	defer rows.Close()
	var out []SuggestedTag
	for rows.Next() {
		t, err := scanSuggestedTag(rows)
		if err != nil {
			return nil, fmt.Errorf("list reviewed suggestions of postmortem %d: %w", postmortemID, err)
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// ExportExtras is what an export writes of a postmortem beside what
// GetPostmortem reads: its checklist ticks, its reviewed suggestions, and
// the checklist items its action items were made from.
type ExportExtras struct {
	Ticks    []CheckedItem
	Reviewed []SuggestedTag
	// ActionItemSources are, in the order of p.ActionItems, the checklist
	// item each was made from (zero when none).
	ActionItemSources []ChecklistRef
}

// GetExportExtras reads p's ExportExtras.
func (s *Store) GetExportExtras(ctx context.Context, p Postmortem) (ExportExtras, error) {
	var x ExportExtras
	var err error
	if x.Ticks, err = s.ListCheckedItems(ctx, p.ID); err != nil {
		return x, err
	}
	if x.Reviewed, err = s.ListReviewedSuggestions(ctx, p.ID); err != nil {
		return x, err
	}
	for _, a := range p.ActionItems {
		var ref ChecklistRef
		if a.ChecklistItemID != 0 {
			it, err := s.GetChecklistItem(ctx, a.ChecklistItemID)
			if err != nil {
				return x, err
			}
			ref = ChecklistRef{Pattern: it.PatternSlug, Item: it.Text}
		}
		x.ActionItemSources = append(x.ActionItemSources, ref)
	}
	return x, nil
}

// reviewQueueMax bounds the review queue's page: the oldest suggestions
// first, the rest on the next visit once these are reviewed.
const reviewQueueMax = 100

// ReviewQueue lists the live postmortems with unreviewed suggestions, those
// suggested longest ago first (at most reviewQueueMax), and how many there
// are in all; with a pattern, only its suggestions.
func (s *Store) ReviewQueue(ctx context.Context, pattern string) ([]ReviewItem, int, error) {
	total, err := s.PendingSuggestions(ctx, pattern)
	if err != nil {
		return nil, 0, err
	}
	rows, err := s.db.QueryContext(ctx, `WITH queue AS (
			SELECT st.postmortem_id AS id, min(st.suggested_at) AS since
			FROM suggested_tags st JOIN postmortems p ON p.id = st.postmortem_id
			WHERE st.status = 'suggested' AND (?1 = '' OR st.pattern_slug = ?1) AND p.archived_at = '' AND `+visibleSQL(ctx, "p")+`
			GROUP BY st.postmortem_id ORDER BY since, st.postmortem_id LIMIT ?2)
		SELECT p.slug, p.title, p.organization, p.incident_date, `+suggestedColumns+`
		FROM queue q JOIN postmortems p ON p.id = q.id
		JOIN suggested_tags st ON st.postmortem_id = q.id AND st.status = 'suggested' AND (?1 = '' OR st.pattern_slug = ?1)
		JOIN patterns pa ON pa.slug = st.pattern_slug
		ORDER BY q.since, q.id, st.confidence DESC, pa.position`, pattern, reviewQueueMax)
	if err != nil {
		return nil, 0, fmt.Errorf("review queue: %w", err)
	}
	defer rows.Close()
	var out []ReviewItem
	for rows.Next() {
		var it ReviewItem
		var t SuggestedTag
		var phrases string
		if err := rows.Scan(&it.Slug, &it.Title, &it.Organization, &it.IncidentDate,
			&t.PostmortemID, &t.PatternSlug, &t.PatternName, &t.Role, &t.Confidence, &t.Reason, &t.Evidence,
			&phrases, &t.Status, &t.SuggestedAt, &t.ReviewedAt, &t.ReviewedBy); err != nil {
			return nil, 0, fmt.Errorf("review queue: %w", err)
		}
		if phrases != "" {
			t.Phrases = strings.Split(phrases, "\n")
		}
		if n := len(out); n == 0 || out[n-1].Slug != it.Slug {
			out = append(out, it)
		}
		out[len(out)-1].Suggestions = append(out[len(out)-1].Suggestions, t)
	}
	return out, total, rows.Err()
}

// PendingSuggestions counts the live postmortems with unreviewed
// suggestions (those the review queue lists), of pattern when it is not "".
func (s *Store) PendingSuggestions(ctx context.Context, pattern string) (int, error) {
	var total int
	if err := s.db.QueryRowContext(ctx, `SELECT count(DISTINCT st.postmortem_id)
		FROM suggested_tags st JOIN postmortems p ON p.id = st.postmortem_id
		WHERE st.status = 'suggested' AND (?1 = '' OR st.pattern_slug = ?1) AND p.archived_at = '' AND `+visibleSQL(ctx, "p"), pattern).Scan(&total); err != nil {
		return 0, fmt.Errorf("review queue: %w", err)
	}
	return total, nil
}

// pendingSuggestion reads an unreviewed suggestion for update.
func pendingSuggestion(ctx context.Context, tx *writeTx, postmortemID int64, pattern string) (SuggestedTag, error) {
	t, err := scanSuggestedTag(tx.QueryRowContext(ctx, `SELECT `+suggestedColumns+`
		FROM suggested_tags st JOIN patterns pa ON pa.slug = st.pattern_slug
		WHERE st.postmortem_id = ? AND st.pattern_slug = ? AND st.status = 'suggested'`, postmortemID, pattern))
	if errors.Is(err, sql.ErrNoRows) {
		return t, fmt.Errorf("no unreviewed suggestion of %q: %w", pattern, ErrNotFound)
	}
	return t, err
}

func markReviewed(ctx context.Context, tx *writeTx, t SuggestedTag, status, by, at string) error {
	_, err := tx.ExecContext(ctx, `UPDATE suggested_tags SET status = ?, reviewed_at = ?, reviewed_by = ?
		WHERE postmortem_id = ? AND pattern_slug = ?`, status, at, by, t.PostmortemID, t.PatternSlug)
	return err
}

// ConfirmSuggestedTag makes the classifier's suggestion of pattern a tag of
// the postmortem at slug, in the role it suggested. It is a save like an
// edit (a new version and revision, by), so an edit form opened before it
// is refused as stale rather than dropping the tag. Confirming a
// suggestion no longer pending is ErrNotFound.
func (s *Store) ConfirmSuggestedTag(ctx context.Context, slug, pattern, by string) error {
	return s.ConfirmSuggestedTagAs(ctx, slug, pattern, "", by)
}

// ConfirmSuggestedTagAs is ConfirmSuggestedTag in role, which the reviewer
// may choose other than the suggested one ("" for the suggested one); a
// role that is none is ErrInvalid.
func (s *Store) ConfirmSuggestedTagAs(ctx context.Context, slug, pattern, role, by string) error {
	if role != "" && !postmortem.ValidRole(role) {
		return fmt.Errorf("confirm suggested tag %s of %q: role %q: %w", pattern, slug, role, ErrInvalid)
	}
	err := s.inTx(ctx, func(tx *writeTx) error {
		cur, err := postmortemForUpdate(ctx, tx, slug)
		if err != nil {
			return err
		}
		t, err := pendingSuggestion(ctx, tx, cur.ID, pattern)
		if err != nil {
			return err
		}
		if err := markReviewed(ctx, tx, t, postmortem.SuggestionConfirmed, by, s.now()); err != nil {
			return err
		}
		as, other := postmortem.RoleLabel(t.Role), ""
		if role != "" && role != t.Role {
			as, other = postmortem.RoleLabel(role), ", suggested as "+strings.ToLower(postmortem.RoleLabel(t.Role))
			t.Role = role
		}
		tx.audit(auditNote{kind: "tags.confirm", postmortem: slug, signer: by,
			what: fmt.Sprintf("confirmed the suggested pattern %s (%s%s) for “%s”", t.PatternSlug, as, other, cur.Title)})
		f := cur.Fields()
		for _, have := range f.Tags {
			if have.PatternSlug == t.PatternSlug && have.Role == t.Role {
				return nil // tagged meanwhile by hand
			}
		}
		f.Tags = append(f.Tags, Tag{PatternSlug: t.PatternSlug, Role: t.Role, Evidence: t.Evidence})
		_, err = s.savePostmortem(ctx, tx, cur, f, revisionMeta{Action: ActionEdit, Author: by,
			Note: fmt.Sprintf("Confirmed the classifier's suggestion: %s (%s%s)", t.PatternName, as, other)})
		return err
	})
	if err != nil {
		return fmt.Errorf("confirm suggested tag %s of %q: %w", pattern, slug, err)
	}
	return nil
}

// DismissSuggestedTag turns down the classifier's suggestion of pattern for
// the postmortem at slug and records it with the rejected suggestions (see
// RecordRejection), with its phrases, so detection can be tuned. A
// postmortem ctx's reader may not see is ErrNotFound, as one that does not
// exist.
func (s *Store) DismissSuggestedTag(ctx context.Context, slug, pattern, by string) error {
	err := s.inTx(ctx, func(tx *writeTx) error {
		var id int64
		var title string
		err := tx.QueryRowContext(ctx, `SELECT id, title FROM postmortems WHERE slug = ? AND `+visibleSQL(ctx, "postmortems"), slug).Scan(&id, &title)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("postmortem %q: %w", slug, ErrNotFound)
		}
		if err != nil {
			return err
		}
		t, err := pendingSuggestion(ctx, tx, id, pattern)
		if err != nil {
			return err
		}
		now := s.now()
		if err := markReviewed(ctx, tx, t, postmortem.SuggestionDismissed, by, now); err != nil {
			return err
		}
		tx.audit(auditNote{kind: "tags.dismiss", postmortem: slug, signer: by,
			what: fmt.Sprintf("dismissed the suggested pattern %s (%s) for “%s”", t.PatternSlug, postmortem.RoleLabel(t.Role), title)})
		_, err = tx.ExecContext(ctx, `INSERT INTO rejected_suggestions (postmortem_id, title, pattern_slug, phrases, score, rejected_at, evidence)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, id, title, t.PatternSlug, strings.Join(t.Phrases, "\n"), t.Confidence, now, evidenceLines([]string{t.Evidence}))
		return err
	})
	if err != nil {
		return fmt.Errorf("dismiss suggested tag %s of %q: %w", pattern, slug, err)
	}
	return nil
}

// PatternSuggestions returns the live postmortems with an unreviewed
// suggestion of pattern slug, most confident first (at most limit), and
// how many there are, for the pattern's page.
func (s *Store) PatternSuggestions(ctx context.Context, slug string, limit int) ([]PostmortemRef, int, error) {
	var total int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM suggested_tags st JOIN postmortems p ON p.id = st.postmortem_id
		WHERE st.pattern_slug = ? AND st.status = 'suggested' AND p.archived_at = '' AND `+visibleSQL(ctx, "p"), slug).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("suggestions of pattern %q: %w", slug, err)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT p.slug, p.title, p.organization, p.incident_date, st.role
		FROM suggested_tags st JOIN postmortems p ON p.id = st.postmortem_id
		WHERE st.pattern_slug = ? AND st.status = 'suggested' AND p.archived_at = '' AND `+visibleSQL(ctx, "p")+`
		ORDER BY st.confidence DESC, p.incident_date DESC, p.id LIMIT ?`, slug, limit)
	if err != nil {
		return nil, 0, fmt.Errorf("suggestions of pattern %q: %w", slug, err)
	}
	defer rows.Close()
	var out []PostmortemRef
	for rows.Next() {
		var r PostmortemRef
		if err := rows.Scan(&r.Slug, &r.Title, &r.Organization, &r.IncidentDate, &r.Role); err != nil {
			return nil, 0, fmt.Errorf("suggestions of pattern %q: %w", slug, err)
		}
		out = append(out, r)
	}
	return out, total, rows.Err()
}

// PatternSuggestionCounts counts, per pattern, the live postmortems the
// reader may see with an unreviewed suggestion of it: PatternSuggestions'
// total, for every pattern at once (a pattern with none is absent). It
// reads every pending suggestion, so the result is kept until the data
// changes; callers must not modify it.
func (s *Store) PatternSuggestionCounts(ctx context.Context) (map[string]int, error) {
	return cached(ctx, s, "pattern-suggestion-counts", func() (map[string]int, error) {
		counts := map[string]int{}
		err := scanRows(ctx, s.db, `SELECT st.pattern_slug, count(*) FROM suggested_tags st JOIN postmortems p ON p.id = st.postmortem_id
			WHERE st.status = 'suggested' AND p.archived_at = '' AND `+visibleSQL(ctx, "p")+`
			GROUP BY st.pattern_slug`, nil, func(rs *sql.Rows) error {
			var slug string
			var n int
			err := rs.Scan(&slug, &n)
			counts[slug] = n
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("count suggestions by pattern: %w", err)
		}
		return counts, nil
	})
}

// ReviseCuratedTags gives the postmortem at slug the tags given, with their
// evidence, provided its text was never edited (still at version 1, or
// every version since a change of who may read it) and its tags differ:
// the seeds use it to bring curated tags reviewed since they were loaded
// into a database. The change is saved like an edit (a revision with note,
// by Hindsight), so it shows in the history and runs once. It reports
// whether it changed anything.
func (s *Store) ReviseCuratedTags(ctx context.Context, slug string, tags []Tag, note string) (bool, error) {
	revised := false
	err := s.inTx(ctx, func(tx *writeTx) error {
		cur, err := postmortemForUpdate(ctx, tx, slug)
		if err != nil {
			return err
		}
		var restrictions int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM revisions WHERE postmortem_id = ? AND version > 1 AND action = ?`,
			cur.ID, ActionRestrict).Scan(&restrictions); err != nil || cur.Version != 1+restrictions {
			return err
		}
		have := map[[3]string]bool{}
		rows, err := tx.QueryContext(ctx, `SELECT pattern_slug, role, evidence FROM tags WHERE postmortem_id = ?`, cur.ID)
		if err != nil {
			return err
		}
		for rows.Next() {
			var k [3]string
			if err := rows.Scan(&k[0], &k[1], &k[2]); err != nil {
				rows.Close()
				return err
			}
			have[k] = true
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		same := len(have) == len(tags)
		for _, t := range tags {
			same = same && have[[3]string{t.PatternSlug, t.Role, t.Evidence}]
		}
		if same {
			return nil
		}
		f := cur.Fields()
		f.Tags = tags
		tx.audit(auditNote{kind: "tags.revise", postmortem: slug, what: note})
		if _, err := s.savePostmortem(ctx, tx, cur, f, revisionMeta{Action: ActionEdit, Author: "Hindsight", Note: note}); err != nil {
			return err
		}
		revised = true
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("revise the tags of %q: %w", slug, err)
	}
	return revised, nil
}
