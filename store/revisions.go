package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"hindsight/postmortem"
)

// PostmortemFields are the parts of a postmortem its writers edit
// (postmortem.Content): a revision is a snapshot of them.
type PostmortemFields = postmortem.Content

// Fields returns the editable part of p, with its tags in a stable order.
func (p Postmortem) Fields() PostmortemFields {
	f := p.Content
	f.Tags = slices.Clone(p.Tags)
	sortTags(f.Tags)
	return f
}

// SetFields copies f onto p.
func (p *Postmortem) SetFields(f PostmortemFields) {
	p.Content = f
	p.Tags = slices.Clone(f.Tags)
}

func sortTags(ts []Tag) { postmortem.SortTags(ts) }

// Revision actions: what a save did.
const (
	ActionCreate   = "create"
	ActionEdit     = "edit"
	ActionRestore  = "restore"
	ActionBaseline = "baseline" // the state found before history was kept
	// ActionRestrict changed who may read the postmortem, not its text: a
	// version of its own, so that edits based on the one before are stale.
	ActionRestrict = "restrict"
)

// Revision is one saved state of a postmortem.
type Revision struct {
	ID           int64
	PostmortemID int64
	Version      int // the postmortem's version this save produced
	Action       string
	RestoredFrom int // for a restore: the version brought back
	Author       string
	Note         string
	CreatedAt    time.Time
	Fields       PostmortemFields
	// RestrictedTo is who could read the postmortem at this version: the
	// groups it was restricted to, nil for everyone. RestrictionKnown is
	// false for a revision saved before that was recorded.
	RestrictedTo     []string
	RestrictionKnown bool
	// RestrictionChanged: this save changed who may read it (a restrict,
	// or an edit that also did; known only when both it and the revision
	// before record the restriction).
	RestrictionChanged bool
	// Hidden: the reader may not read this version. It was saved while the
	// postmortem was restricted to groups the reader is not in, so it is
	// readable only as a postmortem restricted to them would be, whoever
	// may read the postmortem now. A hidden revision keeps its version,
	// action, author and time; its text (Fields), note and groups are left
	// out, and GetRevision does not find it. A revision whose restriction
	// was not recorded (RestrictionKnown false) is never hidden.
	Hidden bool
}

// withhold hides r from ctx's reader when they may not read it.
func withhold(ctx context.Context, r *Revision) {
	if !r.RestrictionKnown || CanSee(ctx, r.RestrictedTo) {
		return
	}
	*r = Revision{ID: r.ID, PostmortemID: r.PostmortemID, Version: r.Version, Action: r.Action, RestoredFrom: r.RestoredFrom,
		Author: r.Author, CreatedAt: r.CreatedAt, RestrictionKnown: true, Hidden: true}
}

type revisionMeta struct {
	Action       string
	RestoredFrom int
	Author, Note string
}

func insertRevision(ctx context.Context, tx *writeTx, p Postmortem, m revisionMeta, now time.Time) error {
	snap, err := json.Marshal(p.Fields())
	if err != nil {
		return fmt.Errorf("record revision: %w", err)
	}
	var from any
	if m.RestoredFrom > 0 {
		from = m.RestoredFrom
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO revisions (postmortem_id, version, action, restored_from, author, note, fields, created_at, restricted_to)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, p.ID, p.Version, m.Action, from, m.Author, m.Note, string(snap), formatTime(now),
		encodeRestriction(p.RestrictedTo))
	if err != nil {
		return fmt.Errorf("record revision %d of postmortem %d: %w", p.Version, p.ID, err)
	}
	return claimAttachments(ctx, tx, p, string(snap))
}

const revisionColumns = `id, postmortem_id, version, action, coalesce(restored_from, 0), author, note, fields, created_at, restricted_to`

func scanRevision(row scanner) (Revision, error) {
	var r Revision
	var fields, created string
	var restricted sql.NullString
	if err := row.Scan(&r.ID, &r.PostmortemID, &r.Version, &r.Action, &r.RestoredFrom, &r.Author, &r.Note, &fields, &created, &restricted); err != nil {
		return r, err
	}
	r.CreatedAt = parseTime(created)
	r.RestrictedTo, r.RestrictionKnown = decodeRestriction(restricted.String), restricted.Valid
	r.RestrictionChanged = r.Action == ActionRestrict
	if err := json.Unmarshal([]byte(fields), &r.Fields); err != nil {
		return r, fmt.Errorf("revision %d: %w", r.ID, err)
	}
	return r, nil
}

// ListRevisions returns a postmortem's revisions, newest first; those
// saved while it was restricted to groups ctx's reader is not in are
// Hidden.
func (s *Store) ListRevisions(ctx context.Context, postmortemID int64) ([]Revision, error) {
	out, err := queryRows(ctx, s.db, "list revisions", scanRevision, `SELECT `+revisionColumns+` FROM revisions WHERE postmortem_id = ? ORDER BY version DESC`, postmortemID)
	if err != nil {
		return nil, err
	}
	// Newest first: each revision against the one before it.
	for i := 0; i+1 < len(out); i++ {
		if r, before := &out[i], out[i+1]; r.RestrictionKnown && before.RestrictionKnown &&
			encodeRestriction(r.RestrictedTo) != encodeRestriction(before.RestrictedTo) {
			r.RestrictionChanged = true
		}
	}
	for i := range out {
		withhold(ctx, &out[i])
	}
	return out, nil
}

// GetRevision returns the revision that produced a postmortem's version.
// One ctx's reader may not read (see Revision.Hidden) is not found, as a
// postmortem they may not read is not.
func (s *Store) GetRevision(ctx context.Context, postmortemID int64, version int) (Revision, error) {
	return getRevision(ctx, s.db, postmortemID, version)
}

func getRevision(ctx context.Context, q queryRower, postmortemID int64, version int) (Revision, error) {
	r, err := scanRevision(q.QueryRowContext(ctx, `SELECT `+revisionColumns+` FROM revisions WHERE postmortem_id = ? AND version = ?`, postmortemID, version))
	if errors.Is(err, sql.ErrNoRows) {
		return r, fmt.Errorf("get revision %d of postmortem %d: %w", version, postmortemID, ErrNotFound)
	}
	if err != nil {
		return r, fmt.Errorf("get revision %d of postmortem %d: %w", version, postmortemID, err)
	}
	if withhold(ctx, &r); r.Hidden {
		return Revision{}, fmt.Errorf("get revision %d of postmortem %d: saved while restricted: %w", version, postmortemID, ErrNotFound)
	}
	return r, nil
}

// ensureBaseline records p's current state as a revision if its version has
// none: postmortems saved before history was kept get their old text into
// the history before their first edit replaces it.
func ensureBaseline(ctx context.Context, tx *writeTx, p Postmortem) error {
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM revisions WHERE postmortem_id = ? AND version = ?`, p.ID, p.Version).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	return insertRevision(ctx, tx, p, revisionMeta{Action: ActionBaseline}, p.UpdatedAt)
}
