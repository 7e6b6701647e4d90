package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Attachments are files uploaded into a postmortem: graphs and screenshots
// shown inline, logs and documents offered as downloads. Their bytes live
// in the database file (attachment_blobs and attachment_chunks, one copy
// per content), so backup, replication and restore carry them. An
// attachment is read with its postmortem: whoever cannot read the
// postmortem, or the versions that reference it (restricted_to), does not
// find it.

// AttachmentChunk is the size of the pieces an attachment's bytes are
// stored and served in: what one read or write holds in memory.
const AttachmentChunk = 256 << 10

// Attachment is one uploaded file.
type Attachment struct {
	ID int64
	// PostmortemID is 0 and Slug "" while the attachment waits for the
	// first save of the postmortem it was uploaded from (pending).
	PostmortemID int64
	Slug         string
	SHA256       string
	Name, Alt    string
	ContentType  string
	Size         int64
	// Width and Height are an image's, in pixels; 0 for other files.
	Width, Height int
	UploadedBy    string
	CreatedAt     time.Time
	RestrictedTo  []string
	Referenced    bool
}

// Image reports whether a is an image, shown inline.
func (a Attachment) Image() bool { return strings.HasPrefix(a.ContentType, "image/") }

// URL is where a is served.
func (a Attachment) URL() string {
	return "/attachments/" + strconv.FormatInt(a.ID, 10) + "/" + url.PathEscape(a.Name)
}

// Markdown is what a writer puts in a postmortem to show a: an image for
// an image, a link for any other file.
func (a Attachment) Markdown() string {
	text := a.Alt
	if !a.Image() && text == "" {
		text = a.Name
	}
	text = markdownLabel.Replace(text)
	if a.Image() {
		return "![" + text + "](" + a.URL() + ")"
	}
	return "[" + text + "](" + a.URL() + ")"
}

// markdownLabel escapes what would end or break a Markdown link's text.
var markdownLabel = strings.NewReplacer(`\`, `\\`, "[", `\[`, "]", `\]`, "\r", " ", "\n", " ")

// NewAttachment is an upload checked by its content (the handlers check
// it): Content holds exactly Size bytes whose sha256 is SHA256.
type NewAttachment struct {
	Name, Alt, ContentType string
	SHA256                 string
	Size                   int64
	Width, Height          int
	UploadedBy             string
	Content                io.Reader
}

// AttachmentQuota bounds what attachments may hold: PerPostmortem bytes
// for one postmortem (or for one writer's pending uploads), Total bytes
// in all. Zero is no bound.
type AttachmentQuota struct {
	PerPostmortem, Total int64
}

// QuotaError is an upload refused because a quota is full.
type QuotaError struct {
	Message string
}

func (e *QuotaError) Error() string { return e.Message }

const attachmentColumns = `a.id, coalesce(a.postmortem_id, 0), coalesce(p.slug, ''), a.sha256, a.name, a.alt, a.content_type,
	a.size, a.width, a.height, a.uploaded_by, a.created_at, a.restricted_to, a.referenced`

func scanAttachment(row scanner) (Attachment, error) {
	var a Attachment
	var created, restricted string
	err := row.Scan(&a.ID, &a.PostmortemID, &a.Slug, &a.SHA256, &a.Name, &a.Alt, &a.ContentType, &a.Size, &a.Width, &a.Height,
		&a.UploadedBy, &created, &restricted, &a.Referenced)
	a.CreatedAt, a.RestrictedTo = parseTime(created), decodeRestriction(restricted)
	return a, err
}

// CreateAttachment stores an upload as an attachment of the postmortem at
// slug, or as a pending one when slug is "" (the form of a postmortem not
// saved yet): it is kept once a saved version references it. The same
// bytes are stored once, however many attachments show them; the same
// bytes uploaded again to the same postmortem under the same name and alt
// text give the attachment already there.
func (s *Store) CreateAttachment(ctx context.Context, slug string, n NewAttachment, q AttachmentQuota) (Attachment, error) {
	var out Attachment
	err := s.inTx(ctx, func(tx *writeTx) error {
		var pmID any
		var restricted, title string
		if slug != "" {
			p, err := postmortemForUpdate(ctx, tx, slug)
			if err != nil {
				return err
			}
			pmID, restricted, title = p.ID, encodeRestriction(p.RestrictedTo), p.Title
		}
		var existing int64
		err := tx.QueryRowContext(ctx, `SELECT id FROM attachments WHERE postmortem_id IS ? AND sha256 = ? AND name = ? AND alt = ?
			AND (postmortem_id IS NOT NULL OR uploaded_by = ?)`, pmID, n.SHA256, n.Name, n.Alt, n.UploadedBy).Scan(&existing)
		switch {
		case err == nil:
			a, err := getAttachment(ctx, tx, existing)
			out = a
			return err
		case !errors.Is(err, sql.ErrNoRows):
			return fmt.Errorf("create attachment: %w", err)
		}
		if err := checkQuota(ctx, tx, pmID, n, q); err != nil {
			return err
		}
		now := s.now()
		if err := storeBlob(ctx, tx, n, now); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO attachments (postmortem_id, sha256, name, alt, content_type, size, width, height,
			uploaded_by, created_at, restricted_to) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			pmID, n.SHA256, n.Name, n.Alt, n.ContentType, n.Size, n.Width, n.Height, n.UploadedBy, now, restricted)
		if err != nil {
			return fmt.Errorf("create attachment: %w", err)
		}
		id, _ := res.LastInsertId()
		if out, err = getAttachment(ctx, tx, id); err != nil {
			return err
		}
		what := fmt.Sprintf("uploaded %s (%s, %d bytes)", out.Name, out.ContentType, out.Size)
		if slug != "" {
			what += " to “" + title + "”"
		} else {
			what += " for a postmortem not saved yet"
		}
		tx.audit(auditNote{kind: "attachment.upload", postmortem: slug, what: what, signer: n.UploadedBy})
		return nil
	})
	return out, err
}

// checkQuota refuses an upload that would fill a quota. Bytes already
// stored count once per attachment, as a writer sees them.
func checkQuota(ctx context.Context, tx *writeTx, pmID any, n NewAttachment, q AttachmentQuota) error {
	if q.PerPostmortem > 0 {
		var used int64
		err := tx.QueryRowContext(ctx, `SELECT coalesce(sum(size), 0) FROM attachments WHERE postmortem_id IS ?
			AND (postmortem_id IS NOT NULL OR uploaded_by = ?)`, pmID, n.UploadedBy).Scan(&used)
		if err != nil {
			return fmt.Errorf("check attachment quota: %w", err)
		}
		if used+n.Size > q.PerPostmortem {
			return &QuotaError{fmt.Sprintf("This postmortem's attachments would take %s, more than its quota of %s (%s used). Remove unused files from its text, or ask an admin to raise the quota.",
				byteSize(used+n.Size), byteSize(q.PerPostmortem), byteSize(used))}
		}
	}
	if q.Total > 0 {
		var used int64
		if err := tx.QueryRowContext(ctx, `SELECT coalesce(sum(size), 0) FROM attachment_blobs`).Scan(&used); err != nil {
			return fmt.Errorf("check attachment quota: %w", err)
		}
		if used+n.Size > q.Total {
			return &QuotaError{fmt.Sprintf("Hindsight's attachments would take %s, more than the quota of %s for all of them. Ask an admin to raise it.",
				byteSize(used+n.Size), byteSize(q.Total))}
		}
	}
	return nil
}

func byteSize(n int64) string {
	switch {
	case n >= 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB"
	case n >= 1<<10:
		return strconv.FormatFloat(float64(n)/(1<<10), 'f', 1, 64) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// storeBlob stores n's bytes unless the same bytes are stored already,
// one chunk at a time.
func storeBlob(ctx context.Context, tx *writeTx, n NewAttachment, now string) error {
	var one int
	err := tx.QueryRowContext(ctx, `SELECT 1 FROM attachment_blobs WHERE sha256 = ?`, n.SHA256).Scan(&one)
	if err == nil {
		return nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("store attachment: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO attachment_blobs (sha256, size, created_at) VALUES (?, ?, ?)`, n.SHA256, n.Size, now); err != nil {
		return fmt.Errorf("store attachment: %w", err)
	}
	buf := make([]byte, AttachmentChunk)
	var total int64
	for seq := 0; ; seq++ {
		m, err := io.ReadFull(n.Content, buf)
		if m > 0 {
			total += int64(m)
			if _, err := tx.ExecContext(ctx, `INSERT INTO attachment_chunks (sha256, seq, data) VALUES (?, ?, ?)`, n.SHA256, seq, buf[:m]); err != nil {
				return fmt.Errorf("store attachment: %w", err)
			}
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return fmt.Errorf("store attachment: %w", err)
		}
	}
	if total != n.Size {
		return fmt.Errorf("store attachment: read %d bytes of %d: %w", total, n.Size, ErrInvalid)
	}
	return nil
}

func getAttachment(ctx context.Context, q queryRower, id int64) (Attachment, error) {
	a, err := scanAttachment(q.QueryRowContext(ctx, `SELECT `+attachmentColumns+`
		FROM attachments a LEFT JOIN postmortems p ON p.id = a.postmortem_id WHERE a.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return a, fmt.Errorf("get attachment %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return a, fmt.Errorf("get attachment %d: %w", id, err)
	}
	return a, nil
}

// attachmentVisibleSQL is the condition that ctx's reader, named viewer,
// may read the attachment aliased a of the postmortem aliased p (LEFT
// JOINed): they may read the postmortem and the versions that reference
// it; a pending attachment only its uploader may read.
func attachmentVisibleSQL(ctx context.Context, viewer string) string {
	return "(a.postmortem_id IS NULL AND a.uploaded_by = '" + strings.ReplaceAll(viewer, "'", "''") + "' OR p.id IS NOT NULL AND " +
		visibleSQL(ctx, "p") + " AND " + restrictionVisibleSQL(ctx, "a.restricted_to") + ")"
}

// GetAttachment returns the attachment id if ctx's reader (named viewer)
// may read it, else ErrNotFound, as if it did not exist.
func (s *Store) GetAttachment(ctx context.Context, id int64, viewer string) (Attachment, error) {
	a, err := scanAttachment(s.db.QueryRowContext(ctx, `SELECT `+attachmentColumns+`
		FROM attachments a LEFT JOIN postmortems p ON p.id = a.postmortem_id
		WHERE a.id = ? AND `+attachmentVisibleSQL(ctx, viewer), id))
	if errors.Is(err, sql.ErrNoRows) {
		return a, fmt.Errorf("get attachment %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return a, fmt.Errorf("get attachment %d: %w", id, err)
	}
	return a, nil
}

// ListAttachments returns the attachments of the postmortem at slug that
// ctx's reader may read, oldest first; ErrNotFound when they may not read
// the postmortem.
func (s *Store) ListAttachments(ctx context.Context, slug string) ([]Attachment, error) {
	if _, err := s.GetPostmortem(ctx, slug); err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+attachmentColumns+`
		FROM attachments a JOIN postmortems p ON p.id = a.postmortem_id
		WHERE p.slug = ? AND `+visibleSQL(ctx, "p")+` AND `+restrictionVisibleSQL(ctx, "a.restricted_to")+` ORDER BY a.id`, slug)
	if err != nil {
		return nil, fmt.Errorf("list attachments of %s: %w", slug, err)
	}
	defer rows.Close()
	var out []Attachment
	for rows.Next() {
		a, err := scanAttachment(rows)
		if err != nil {
			return nil, fmt.Errorf("list attachments of %s: %w", slug, err)
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// WriteAttachment writes the bytes of a (found by GetAttachment or
// ListAttachments) to w, one chunk at a time.
func (s *Store) WriteAttachment(ctx context.Context, a Attachment, w io.Writer) error {
	var data []byte
	for seq := 0; ; seq++ {
		err := s.db.QueryRowContext(ctx, `SELECT data FROM attachment_chunks WHERE sha256 = ? AND seq = ?`, a.SHA256, seq).Scan(&data)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read attachment %d: %w", a.ID, err)
		}
		if _, err := w.Write(data); err != nil {
			return err
		}
	}
}

// ImageSize returns the width and height of the image attachment id named
// name, for
// rendering it without the page jumping; ok is false for anything else.
// Sizes are no secret of a restricted postmortem: the page that asks has
// the attachment's URL in text its reader may read.
func (s *Store) ImageSize(ctx context.Context, id int64, name string) (width, height int, ok bool) {
	err := s.db.QueryRowContext(ctx, `SELECT width, height FROM attachments WHERE id = ? AND name = ? AND width > 0`, id, name).Scan(&width, &height)
	return width, height, err == nil
}

// attachmentRef finds the attachments a text references by URL.
var attachmentRef = regexp.MustCompile(`/attachments/([0-9]{1,18})/`)

// AttachmentIDs lists the attachments text references, in order, once
// each.
func AttachmentIDs(text string) []int64 {
	var out []int64
	for _, m := range attachmentRef.FindAllStringSubmatch(text, -1) {
		if id, err := strconv.ParseInt(m[1], 10, 64); err == nil && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// claimAttachments runs with every saved version of p (snapshot is its
// text): the attachments it references are kept from now on; pending ones
// it references, uploaded by the same writer (ctx's actor) or by no one
// known, become p's,
// with its restriction; p's own widen to p's
// restriction when this version is readable by more (a version saved
// while restricted keeps its attachments with it, as its text).
func claimAttachments(ctx context.Context, tx *writeTx, p Postmortem, snapshot string) error {
	ids := AttachmentIDs(snapshot)
	if len(ids) == 0 {
		return nil
	}
	restricted := encodeRestriction(p.RestrictedTo)
	for _, id := range ids {
		var pm sql.NullInt64
		var was string
		err := tx.QueryRowContext(ctx, `SELECT postmortem_id, restricted_to FROM attachments WHERE id = ?`, id).Scan(&pm, &was)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return fmt.Errorf("claim attachment %d: %w", id, err)
		}
		switch {
		case !pm.Valid:
			// Only its uploader's save takes a pending upload: another
			// writer guessing its address must not make it readable. One
			// uploaded by no one known (-auth none: one person) is
			// anyone's.
			_, err = tx.ExecContext(ctx, `UPDATE attachments SET postmortem_id = ?, restricted_to = ?, referenced = 1
				WHERE id = ? AND uploaded_by IN ('', ?)`, p.ID, restricted, id, ActorName(ctx))
		case pm.Int64 == p.ID:
			_, err = tx.ExecContext(ctx, `UPDATE attachments SET restricted_to = ?, referenced = 1 WHERE id = ?`, widerRestriction(was, restricted), id)
		default:
			// Another postmortem's: shown to whoever may read it there.
			_, err = tx.ExecContext(ctx, `UPDATE attachments SET referenced = 1 WHERE id = ?`, id)
		}
		if err != nil {
			return fmt.Errorf("claim attachment %d: %w", id, err)
		}
	}
	return nil
}

// widerRestriction is who may read what two restrictions cover together.
func widerRestriction(a, b string) string {
	if a == "" || b == "" {
		return ""
	}
	return encodeRestriction(append(decodeRestriction(a), decodeRestriction(b)...))
}

// CollectAttachments removes the attachments no saved version references
// that were uploaded before now minus grace, and the bytes no attachment
// shows any more; it returns how many attachments it removed. Each removal
// is recorded in the audit trail when ctx names an actor.
func (s *Store) CollectAttachments(ctx context.Context, now time.Time, grace time.Duration) (int, error) {
	cutoff := formatTime(now.Add(-grace))
	rows, err := s.db.QueryContext(ctx, `SELECT id FROM attachments WHERE referenced = 0 AND created_at < ? ORDER BY id`, cutoff)
	if err != nil {
		return 0, fmt.Errorf("collect attachments: %w", err)
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return 0, fmt.Errorf("collect attachments: %w", err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	removed := 0
	for _, id := range ids {
		err := s.inTx(ctx, func(tx *writeTx) error {
			a, err := getAttachment(ctx, tx, id)
			if err != nil {
				return err
			}
			res, err := tx.ExecContext(ctx, `DELETE FROM attachments WHERE id = ? AND referenced = 0`, id)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n == 0 {
				return nil
			}
			if _, err := tx.ExecContext(ctx, `DELETE FROM attachment_blobs WHERE sha256 = ?
				AND NOT EXISTS (SELECT 1 FROM attachments WHERE sha256 = ?)`, a.SHA256, a.SHA256); err != nil {
				return err
			}
			removed++
			tx.audit(auditNote{kind: "attachment.remove", postmortemID: a.PostmortemID,
				what: fmt.Sprintf("removed %s (%d bytes), referenced by no saved version", a.Name, a.Size)})
			return nil
		})
		if err != nil && !errors.Is(err, ErrNotFound) {
			return removed, fmt.Errorf("collect attachment %d: %w", id, err)
		}
	}
	return removed, nil
}

// AttachmentBytes is what the stored attachments take: their bytes, each
// content once.
func (s *Store) AttachmentBytes(ctx context.Context) (int64, error) {
	var n int64
	err := s.db.QueryRowContext(ctx, `SELECT coalesce(sum(length(data)), 0) FROM attachment_chunks`).Scan(&n)
	return n, err
}

// WriteUpFields points at p's Markdown fields that may show attachments
// (the write-up), for importers that rewrite their links.
func (p *Postmortem) WriteUpFields() []*string { return p.writeUpFields() }

// ActorName is the name of the writer ctx carries (WithActor), "" for
// none.
func ActorName(ctx context.Context) string {
	a, _ := ctx.Value(actorKey{}).(Actor)
	return a.Name
}
