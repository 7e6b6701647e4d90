package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"hindsight/postmortem"
)

// ErrStaleVersion is returned when a save is based on a version of the
// postmortem that someone else has replaced in the meantime. It is an
// ErrConflict; the writer's text is in their request, not lost.
var ErrStaleVersion = fmt.Errorf("saved meanwhile by someone else: %w", ErrConflict)

// PostmortemUpdate is one save of a postmortem through the edit form. It
// replaces all the editable fields at once (a save is a whole snapshot, as a
// revision is), rather than patching some of them.
type PostmortemUpdate struct {
	Fields PostmortemFields
	// VariantOf, when set on a postmortem that is alone in its group, makes
	// it a variant (VariantKind: translation or rewrite) of that postmortem.
	VariantOf   string
	VariantKind string
	// Author and Note go into the revision.
	Author string
	Note   string
	// RestrictedTo, when not nil, replaces the groups it is restricted
	// to (see Postmortem.RestrictedTo). Changing them makes a new version
	// (a restrict revision when the text stays as it is), so that a write
	// based on the version before, which may send the groups it read, is
	// stale. It is not part of the revisions' text: restoring an old
	// version never opens a restricted postmortem.
	RestrictedTo *[]string
	// Derive, when the update opens the postmortem to readers who could
	// not read it, gives what is derived from its text as it then is
	// (rederiveEvidence); nil derives nothing, as with no classifier.
	Derive func(*Postmortem) Derivation
}

// UpdatePostmortem saves upd over the postmortem at slug, provided its
// version is still expectedVersion, and records the save as a revision, in
// one transaction. A change of who may read it is a save too, with its own
// version and revision. A save identical to the current content and
// restriction changes nothing, whatever its version: a repeated submission
// of a save that already went through is not a conflict. Otherwise a stale
// version fails with ErrStaleVersion and nothing is written; so do fields
// that postmortem.Validate refuses, as FieldErrors.
func (s *Store) UpdatePostmortem(ctx context.Context, slug string, expectedVersion int, upd PostmortemUpdate) (Postmortem, error) {
	var edited Postmortem
	edited.SetFields(upd.Fields)
	edited.VariantOf, edited.VariantKind = upd.VariantOf, upd.VariantKind
	if errs := ValidatePostmortem(&edited); errs != nil {
		return Postmortem{}, fmt.Errorf("update postmortem %q: %w", slug, errs)
	}
	// A change of who may read may open it: what was derived from its text
	// is then derived again (rederiveEvidence), with upd.Derive.
	err := s.inTx(ctx, func(tx *writeTx) error {
		opened := false
		if err := s.saveUpdate(ctx, tx, slug, expectedVersion, upd, &opened); err != nil || !opened {
			return err
		}
		p, err := postmortemForUpdate(ctx, tx, slug)
		if err != nil {
			return err
		}
		return rederiveEvidence(ctx, tx, upd.Derive, p)
	})
	if err != nil {
		return Postmortem{}, fmt.Errorf("update postmortem %q: %w", slug, err)
	}
	return s.GetPostmortem(ctx, slug)
}

// saveUpdate is UpdatePostmortem's write, inside tx; opened is set
// when it opens the postmortem to readers who could not read it.
func (s *Store) saveUpdate(ctx context.Context, tx *writeTx, slug string, expectedVersion int, upd PostmortemUpdate, opened *bool) error {
	cur, err := postmortemForUpdate(ctx, tx, slug)
	if err != nil {
		return err
	}
	join, err := variantGroupToJoin(ctx, tx, cur, upd.VariantOf)
	if err != nil {
		return err
	}
	restrict := upd.RestrictedTo != nil && encodeRestriction(*upd.RestrictedTo) != encodeRestriction(cur.RestrictedTo)
	if cur.Fields().Equal(upd.Fields) && join == 0 && !restrict {
		return nil
	}
	if cur.Version != expectedVersion {
		return fmt.Errorf("at version %d, edit based on %d: %w", cur.Version, expectedVersion, ErrStaleVersion)
	}
	saves := !cur.Fields().Equal(upd.Fields) || join != 0
	what := fmt.Sprintf("saved version %d of “%s”", cur.Version+1, upd.Fields.Title)
	if !saves {
		what = fmt.Sprintf("changed who may read “%s” (version %d)", cur.Title, cur.Version+1)
	}
	if restrict {
		to := "everyone"
		if g := encodeRestriction(*upd.RestrictedTo); g != "" {
			to = "the groups " + strings.Join(decodeRestriction(g), ", ")
		}
		what += ", now open to " + to
	}
	tx.audit(auditNote{kind: "postmortem.edit", postmortem: slug, signer: upd.Author, what: what})
	if restrict {
		// The state before goes into the history first, with who could
		// read it then.
		if err := ensureBaseline(ctx, tx, cur); err != nil {
			return err
		}
		*opened = opens(cur.RestrictedTo, decodeRestriction(encodeRestriction(*upd.RestrictedTo)))
		if _, err := tx.ExecContext(ctx, `UPDATE postmortems SET restricted_to = ? WHERE id = ?`,
			encodeRestriction(*upd.RestrictedTo), cur.ID); err != nil {
			return err
		}
		cur.RestrictedTo = decodeRestriction(encodeRestriction(*upd.RestrictedTo))
	}
	if !saves {
		return restrictPostmortem(ctx, tx, cur, revisionMeta{Action: ActionRestrict, Author: upd.Author, Note: upd.Note}, s.Now())
	}
	next, err := s.savePostmortem(ctx, tx, cur, upd.Fields, revisionMeta{Action: ActionEdit, Author: upd.Author, Note: upd.Note})
	if err != nil {
		return err
	}
	if join != 0 {
		return joinVariantGroup(ctx, tx, next, join, upd.VariantKind)
	}
	return nil
}

// restrictPostmortem records a change of who may read p (already written
// to p and its row), its text unchanged, as a new version: every write
// based on the version before is now stale. It is a change like an edit:
// updated_at moves, so a postmortem just opened to everyone comes first
// in the feeds, as fresh to its new readers as it is.
func restrictPostmortem(ctx context.Context, tx *writeTx, p Postmortem, m revisionMeta, now time.Time) error {
	now = now.UTC().Truncate(time.Second)
	res, err := tx.ExecContext(ctx, `UPDATE postmortems SET version = version + 1, updated_at = ? WHERE id = ? AND version = ?`,
		formatTime(now), p.ID, p.Version)
	if err := bumped(res, err, &p, now); err != nil {
		return err
	}
	return insertRevision(ctx, tx, p, m, now)
}

// bumped checks that an UPDATE moving p's row on from p.Version (res, err)
// found it still there, and moves p on with it: version and updated_at.
// A row left at another version is ErrStaleVersion.
func bumped(res sql.Result, err error, p *Postmortem, now time.Time) error {
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return fmt.Errorf("postmortem %d left version %d: %w", p.ID, p.Version, ErrStaleVersion)
	}
	p.Version++
	p.UpdatedAt = now
	return nil
}

// RestoreRevision brings back the content of an earlier version of the
// postmortem at slug as a new revision, provided the postmortem is still at
// expectedVersion. Restoring content identical to the current one does
// nothing, and is not stale whatever version it was based on.
func (s *Store) RestoreRevision(ctx context.Context, slug string, version, expectedVersion int, author, note string) (Postmortem, error) {
	err := s.inTx(ctx, func(tx *writeTx) error {
		cur, err := postmortemForUpdate(ctx, tx, slug)
		if err != nil {
			return err
		}
		rev, err := getRevision(ctx, tx, cur.ID, version)
		if err != nil {
			return err
		}
		// A text saved before one-line fields refused text-direction
		// controls comes back without them.
		withoutDirectionControls(&rev.Fields)
		// A text already as restored needs nothing, whatever version the
		// restore was based on: sent twice (a double click), it is not
		// stale, as the same edit sent twice is not.
		if cur.Fields().Equal(rev.Fields) {
			return nil
		}
		if cur.Version != expectedVersion {
			return fmt.Errorf("at version %d, restore based on %d: %w", cur.Version, expectedVersion, ErrStaleVersion)
		}
		tx.audit(auditNote{kind: "postmortem.restore", postmortem: slug, signer: author,
			what: fmt.Sprintf("restored version %d of “%s” as version %d", version, cur.Title, cur.Version+1)})
		_, err = s.savePostmortem(ctx, tx, cur, rev.Fields, revisionMeta{Action: ActionRestore, RestoredFrom: version, Author: author, Note: note})
		return err
	})
	if err != nil {
		return Postmortem{}, fmt.Errorf("restore version %d of postmortem %q: %w", version, slug, err)
	}
	return s.GetPostmortem(ctx, slug)
}

// postmortemForUpdate reads a postmortem's row and tags inside tx.
func postmortemForUpdate(ctx context.Context, tx *writeTx, slug string) (Postmortem, error) {
	p, err := scanPostmortem(tx.QueryRowContext(ctx, `SELECT `+postmortemColumns+`
		FROM postmortems p JOIN variant_groups g ON g.id = p.group_id WHERE p.slug = ? AND `+visibleSQL(ctx, "p"), slug))
	if errors.Is(err, sql.ErrNoRows) {
		return p, fmt.Errorf("postmortem %q: %w", slug, ErrNotFound)
	}
	if err != nil {
		return p, err
	}
	rows, err := tx.QueryContext(ctx, `SELECT pattern_slug, role FROM tags WHERE postmortem_id = ?`, p.ID)
	if err != nil {
		return p, err
	}
	defer rows.Close()
	for rows.Next() {
		var t Tag
		if err := rows.Scan(&t.PatternSlug, &t.Role); err != nil {
			return p, err
		}
		p.Tags = append(p.Tags, t)
	}
	return p, rows.Err()
}

// savePostmortem writes f over cur and records the revision. The state
// before the save must be in the history first, so it is recorded too when
// it was saved before revisions were kept.
func (s *Store) savePostmortem(ctx context.Context, tx *writeTx, cur Postmortem, f PostmortemFields, m revisionMeta) (Postmortem, error) {
	if err := ensureBaseline(ctx, tx, cur); err != nil {
		return cur, err
	}
	now := s.Now().UTC().Truncate(time.Second)
	next := cur
	next.SetFields(f)
	setDuration(&next)
	if err := updatePostmortem(ctx, tx, &next, now); err != nil {
		return cur, err
	}
	return next, insertRevision(ctx, tx, next, m, now)
}

// updatePostmortem writes p's editable columns and tags and bumps its
// version, provided the row is still at p.Version. It is the one write path
// of a postmortem's content after creation.
func updatePostmortem(ctx context.Context, tx *writeTx, p *Postmortem, now time.Time) error {
	var duration any
	if p.DurationMinutes > 0 {
		duration = p.DurationMinutes
	}
	res, err := tx.ExecContext(ctx, `UPDATE postmortems SET title = ?, organization = ?, incident_date = ?,
			duration_minutes = ?, severity = ?, language = ?, summary = ?, body = ?,
			impact = ?, trigger_text = ?, contributing = ?, detection = ?, resolution = ?, timeline = ?,
			went_well = ?, went_wrong = ?, got_lucky = ?, services = ?, authors = ?,
			started_at = ?, detected_at = ?, mitigated_at = ?, resolved_at = ?, time_zone = ?, source_url = ?,
			version = version + 1, updated_at = ?
		WHERE id = ? AND version = ?`,
		p.Title, p.Organization, p.IncidentDate, duration, p.Severity, p.Language, p.Summary, p.Body,
		p.Impact, p.Trigger, p.Contributing, p.Detection, p.Resolution, p.Timeline,
		p.WentWell, p.WentWrong, p.GotLucky, p.Services, p.Authors,
		p.StartedAt, p.DetectedAt, p.MitigatedAt, p.ResolvedAt, p.TimeZone, p.SourceURL,
		formatTime(now), p.ID, p.Version)
	if err := bumped(res, err, p, now); err != nil {
		return err
	}
	if err := replaceTags(ctx, tx, p.ID, p.Tags); err != nil {
		return err
	}
	if err := replaceServices(ctx, tx, p.ID, p.Services); err != nil {
		return err
	}
	return saveFingerprint(ctx, tx, p)
}

// setDuration derives the incident's duration from its start and
// resolution times when both are known; otherwise it keeps what p has.
func setDuration(p *Postmortem) {
	start, err1 := time.Parse(time.RFC3339, p.StartedAt)
	end, err2 := time.Parse(time.RFC3339, p.ResolvedAt)
	if err1 == nil && err2 == nil && end.After(start) {
		p.DurationMinutes = int(end.Sub(start).Round(time.Minute) / time.Minute)
	}
}

// variantGroupToJoin returns the group p should join to become a variant of
// the postmortem named by of, or 0 when there is nothing to change. Only a
// postmortem alone in its group can join another: moving one member out of
// a group is not something the edit form offers.
func variantGroupToJoin(ctx context.Context, tx *writeTx, p Postmortem, of string) (int64, error) {
	if of == "" {
		return 0, nil
	}
	var group int64
	err := tx.QueryRowContext(ctx, `SELECT group_id FROM postmortems WHERE slug = ? AND `+visibleSQL(ctx, "postmortems"), of).Scan(&group)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("variant of %q: %w", of, ErrNotFound)
	}
	if err != nil || group == p.GroupID {
		return 0, err
	}
	var members int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM postmortems WHERE group_id = ?`, p.GroupID).Scan(&members); err != nil {
		return 0, err
	}
	if members > 1 {
		return 0, fmt.Errorf("%q already has variants of its own: %w", p.Slug, ErrInvalid)
	}
	return group, nil
}

// joinVariantGroup moves p, alone in its group, into group as a variant of
// kind, and drops its old, now empty group.
func joinVariantGroup(ctx context.Context, tx *writeTx, p Postmortem, group int64, kind string) error {
	if kind != postmortem.KindTranslation && kind != postmortem.KindRewrite {
		return fmt.Errorf("variant kind %q: %w", kind, ErrInvalid)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE variant_groups SET canonical_id = NULL WHERE id = ?`, p.GroupID); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE postmortems SET group_id = ?, variant_kind = ? WHERE id = ?`, group, kind, p.ID); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM variant_groups WHERE id = ?`, p.GroupID); err != nil {
		return err
	}
	return fixCanonical(ctx, tx, group)
}

// ArchivePostmortem hides a postmortem from lists; its page stays reachable.
func (s *Store) ArchivePostmortem(ctx context.Context, slug string) error {
	return s.setArchived(ctx, slug, s.now())
}

// UnarchivePostmortem brings an archived postmortem back into lists.
func (s *Store) UnarchivePostmortem(ctx context.Context, slug string) error {
	return s.setArchived(ctx, slug, "")
}

func (s *Store) setArchived(ctx context.Context, slug, at string) error {
	err := s.inTx(ctx, func(tx *writeTx) error {
		var id, group int64
		var was string
		err := tx.QueryRowContext(ctx, `SELECT id, group_id, archived_at FROM postmortems WHERE slug = ? AND `+visibleSQL(ctx, "postmortems"), slug).Scan(&id, &group, &was)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil || (was == "") == (at == "") {
			return err
		}
		if at != "" {
			tx.audit(auditNote{kind: "postmortem.archive", postmortem: slug, what: "archived " + slug})
		} else {
			tx.audit(auditNote{kind: "postmortem.unarchive", postmortem: slug, what: "brought " + slug + " back into lists"})
		}
		return archivePostmortem(ctx, tx, id, group, at)
	})
	if err != nil {
		return fmt.Errorf("archive postmortem %q: %w", slug, err)
	}
	return nil
}

// archivePostmortem sets (at != "") or clears the archive mark of a
// postmortem and keeps its group visible in lists.
func archivePostmortem(ctx context.Context, tx *writeTx, id, group int64, at string) error {
	if _, err := tx.ExecContext(ctx, `UPDATE postmortems SET archived_at = ? WHERE id = ?`, at, id); err != nil {
		return err
	}
	return fixCanonical(ctx, tx, group)
}

// fixCanonical makes sure a group's canonical member, the one lists show,
// is a live member whenever the group has one: an original first, else the
// current canonical member, else the oldest. A group whose members are all
// archived keeps its canonical member and stays hidden.
func fixCanonical(ctx context.Context, tx *writeTx, group int64) error {
	var best int64
	err := tx.QueryRowContext(ctx, `SELECT p.id FROM postmortems p JOIN variant_groups g ON g.id = p.group_id
		WHERE p.group_id = ? AND p.archived_at = ''
		ORDER BY p.variant_kind = 'original' DESC, p.id IS g.canonical_id DESC, p.id LIMIT 1`, group).Scan(&best)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `UPDATE variant_groups SET canonical_id = ? WHERE id = ? AND canonical_id IS NOT ?`, best, group, best)
	return err
}

// VariantChoices lists the live postmortems a postmortem can be declared a
// variant of (one per group, its canonical member), by title: the limit
// changed most recently. The form offers them as suggestions and takes any
// other's slug: every canonical postmortem, 90,000 at 100,000, made the
// new-postmortem form a page of megabytes that took seconds.
func (s *Store) VariantChoices(ctx context.Context, limit int) ([]Variant, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT slug, title, language, variant_kind FROM (
			SELECT p.id, p.slug, p.title, p.language, p.variant_kind
			FROM postmortems p INDEXED BY postmortems_updated JOIN variant_groups g ON g.canonical_id = p.id
			WHERE p.archived_at = '' AND `+visibleSQL(ctx, "p")+` ORDER BY p.updated_at DESC, p.id DESC LIMIT ?)
		ORDER BY title COLLATE NOCASE, id`, limit)
	if err != nil {
		return nil, fmt.Errorf("list variant choices: %w", err)
	}
	defer rows.Close()
	var out []Variant
	for rows.Next() {
		v := Variant{Canonical: true}
		if err := rows.Scan(&v.Slug, &v.Title, &v.Language, &v.Kind); err != nil {
			return nil, fmt.Errorf("list variant choices: %w", err)
		}
		out = append(out, v)
	}
	return out, rows.Err()
}
