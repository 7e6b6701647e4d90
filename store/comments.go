package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"hindsight/postmortem"
)

// ReviewComment is a comment of a postmortem's review: on the whole
// postmortem (Section "") or on one section, a thread of its own or a
// reply (ReplyTo, the thread's first comment). Version is the version it
// was made on: it belongs to that version, and is read by whoever could
// read the postmortem then and can now.
type ReviewComment struct {
	ID         int64
	ReplyTo    int64
	Section    string
	Author     string
	Body       string // Markdown; "" once deleted
	Version    int
	Resolved   bool
	ResolvedBy string
	CreatedAt  time.Time
	EditedAt   time.Time
	Deleted    bool
	// Replies are a thread's replies, in order (ListReviewComments'
	// threads only).
	Replies []ReviewComment
}

// maxCommentsPerPostmortem bounds a postmortem's comments, so that one
// client cannot grow a page without end.
const maxCommentsPerPostmortem = 2000

// mention is an @name: letters, digits and . _ - after an @ that does not
// follow a word character (an e-mail address is not a mention).
var mention = regexp.MustCompile(`(?:^|[^\p{L}\p{N}_.@])@([\p{L}\p{N}][\p{L}\p{N}._-]{0,99})`)

func checkCommentBody(body string) error {
	if strings.TrimSpace(body) == "" {
		return FieldErrors{"body": "Write the comment."}
	}
	if msg := postmortem.CheckText(body, "The comment", true, MaxReviewComment); msg != "" {
		return FieldErrors{"body": msg}
	}
	return nil
}

// AddReviewComment adds c to the postmortem slug, signed by c.Author, on
// its current version; a reply joins the thread of the comment it answers
// and its section. It fills ID, Version and CreatedAt, and records the
// @name mentions of known users (people who have written to Hindsight).
func (s *Store) AddReviewComment(ctx context.Context, slug string, c *ReviewComment) error {
	c.Author, c.Section = strings.TrimSpace(c.Author), strings.TrimSpace(c.Section)
	if err := checkCommentBody(c.Body); err != nil {
		return err
	}
	if c.Author == "" {
		return FieldErrors{"author": "Sign with your name: a comment says who wrote it."}
	}
	if msg := postmortem.CheckText(c.Author, "Your name", false, postmortem.MaxAuthorRunes); msg != "" {
		return FieldErrors{"author": msg}
	}
	if !postmortem.IsPart(c.Section) {
		return FieldErrors{"section": "A comment is on the whole postmortem or on one of its sections: " + postmortem.PartNames() + "."}
	}
	err := s.inTx(ctx, func(tx *writeTx) error {
		var id int64
		var restricted, title string
		err := tx.QueryRowContext(ctx, `SELECT id, version, restricted_to, title FROM postmortems WHERE slug = ? AND `+visibleSQL(ctx, "postmortems"),
			slug).Scan(&id, &c.Version, &restricted, &title)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("postmortem %q: %w", slug, ErrNotFound)
		}
		if err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM review_comments WHERE postmortem_id = ?`, id).Scan(&n); err != nil {
			return err
		}
		if n >= maxCommentsPerPostmortem {
			return refuse(ErrConflict, "“%s” has %d comments, the most one postmortem holds; resolve and summarise a thread instead.", title, n)
		}
		if c.ReplyTo != 0 {
			parent, err := commentOf(ctx, tx, id, c.ReplyTo)
			if errors.Is(err, ErrNotFound) {
				return FieldErrors{"reply_to": "Reply to a comment of this postmortem."}
			}
			if err != nil {
				return err
			}
			c.ReplyTo = parent.ReplyTo
			if c.ReplyTo == 0 {
				c.ReplyTo = parent.ID
			}
			c.Section = parent.Section
		}
		now := s.Now().UTC().Truncate(time.Second)
		var replyTo any
		if c.ReplyTo != 0 {
			replyTo = c.ReplyTo
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO review_comments (postmortem_id, reply_to, section, author, body, version, restricted_to, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, id, replyTo, c.Section, c.Author, c.Body, c.Version, restricted, formatTime(now))
		if err != nil {
			return err
		}
		c.ID, _ = res.LastInsertId()
		c.CreatedAt = now
		mentioned, err := recordMentions(ctx, tx, c.ID, c.Body)
		if err != nil {
			return err
		}
		tx.notifyComment(id, *c, title, mentioned, nil, false)
		on := ""
		if c.Section != "" {
			on = " on its " + c.Section
		}
		tx.audit(auditNote{kind: "comment.create", postmortemID: id, signer: c.Author,
			what: fmt.Sprintf("commented (#%d) on “%s”%s", c.ID, title, on)})
		return nil
	})
	if err != nil && !errors.As(err, new(FieldErrors)) {
		return fmt.Errorf("comment on %q: %w", slug, err)
	}
	return err
}

// recordMentions keeps the @names of body that name known users: people
// who have written to Hindsight (the audit trail's actors, as spelt there),
// been asked to review, or signed in through the proxy (people).
func recordMentions(ctx context.Context, tx *writeTx, commentID int64, body string) ([]string, error) {
	if _, err := tx.ExecContext(ctx, `DELETE FROM comment_mentions WHERE comment_id = ?`, commentID); err != nil {
		return nil, err
	}
	var names []string
	seen := map[string]bool{}
	for _, m := range mention.FindAllStringSubmatch(body, 50) {
		name := strings.TrimRight(m[1], "._-")
		if seen[strings.ToLower(name)] {
			continue
		}
		seen[strings.ToLower(name)] = true
		// Each lookup is one index probe (audit_log_actor, the reviewers'
		// NOCASE index): a comment's mentions cost what its length does.
		var known string
		err := tx.QueryRowContext(ctx, `SELECT name FROM (
				SELECT actor AS name FROM audit_log WHERE actor = ?
				UNION ALL SELECT reviewer FROM review_reviewers WHERE reviewer = ?
				UNION ALL SELECT name FROM people WHERE name = ?)
			LIMIT 1`, name, name, name).Scan(&known)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return nil, err
		}
		res, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO comment_mentions (comment_id, name) VALUES (?, ?)`, commentID, known)
		if err != nil {
			return nil, err
		}
		if n, _ := res.RowsAffected(); n == 1 {
			names = append(names, known)
		}
	}
	return names, nil
}

// CommentMentions returns the known users comment id mentions.
func (s *Store) CommentMentions(ctx context.Context, id int64) ([]string, error) {
	names, err := queryColumn[string](ctx, s.db, `SELECT name FROM comment_mentions WHERE comment_id = ? ORDER BY name`, id)
	if err != nil {
		return nil, fmt.Errorf("comment %d mentions: %w", id, err)
	}
	return names, nil
}

const commentColumns = `id, coalesce(reply_to, 0), section, author, body, version, resolved, resolved_by, created_at, edited_at, deleted_at, restricted_to`

func scanComment(row scanner) (ReviewComment, string, error) {
	var c ReviewComment
	var created, edited, deleted, restricted string
	err := row.Scan(&c.ID, &c.ReplyTo, &c.Section, &c.Author, &c.Body, &c.Version, &c.Resolved, &c.ResolvedBy,
		&created, &edited, &deleted, &restricted)
	c.CreatedAt, c.EditedAt, c.Deleted = parseTime(created), parseTime(edited), deleted != ""
	return c, restricted, err
}

// commentOf reads comment id of postmortem pmID, if its reader may read it.
func commentOf(ctx context.Context, tx *writeTx, pmID, id int64) (ReviewComment, error) {
	c, restricted, err := scanComment(tx.QueryRowContext(ctx, `SELECT `+commentColumns+` FROM review_comments WHERE id = ? AND postmortem_id = ?`, id, pmID))
	if errors.Is(err, sql.ErrNoRows) || (err == nil && !CanSee(ctx, decodeRestriction(restricted))) {
		return c, fmt.Errorf("comment %d: %w", id, ErrNotFound)
	}
	return c, err
}

// ListReviewComments returns the comments of the postmortem slug its
// reader may read, in the order they were made: those made while it was
// restricted to groups the reader is not in are left out.
func (s *Store) ListReviewComments(ctx context.Context, slug string) ([]ReviewComment, error) {
	tx, err := s.db.beginRead(ctx)
	if err != nil {
		return nil, fmt.Errorf("list comments of %q: %w", slug, err)
	}
	defer tx.Rollback()
	var id int64
	err = tx.QueryRowContext(ctx, `SELECT id FROM postmortems WHERE slug = ? AND `+visibleSQL(ctx, "postmortems"), slug).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("list comments of %q: %w", slug, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("list comments of %q: %w", slug, err)
	}
	rows, err := tx.QueryContext(ctx, `SELECT `+commentColumns+` FROM review_comments WHERE postmortem_id = ? ORDER BY id`, id)
	if err != nil {
		return nil, fmt.Errorf("list comments of %q: %w", slug, err)
	}
	defer rows.Close()
	var out []ReviewComment
	for rows.Next() {
		c, restricted, err := scanComment(rows)
		if err != nil {
			return nil, fmt.Errorf("list comments of %q: %w", slug, err)
		}
		if CanSee(ctx, decodeRestriction(restricted)) {
			out = append(out, c)
		}
	}
	return out, rows.Err()
}

// CommentThreads groups comments (as ListReviewComments returns them)
// into threads: each first comment with its replies.
func CommentThreads(cs []ReviewComment) []ReviewComment {
	var out []ReviewComment
	at := map[int64]int{}
	for _, c := range cs {
		if c.ReplyTo == 0 {
			at[c.ID] = len(out)
			out = append(out, c)
		}
	}
	for _, c := range cs {
		if i, ok := at[c.ReplyTo]; ok && c.ReplyTo != 0 {
			out[i].Replies = append(out[i].Replies, c)
		}
	}
	return out
}

// ResolveReviewComment resolves (or, with resolved false, reopens) the
// thread comment id starts or belongs to, signed by by.
func (s *Store) ResolveReviewComment(ctx context.Context, slug string, id int64, resolved bool, by string) (ReviewComment, error) {
	return s.changeComment(ctx, slug, id, by, func(tx *writeTx, c *commentRow, title string) error {
		if c.ReplyTo != 0 {
			root, err := commentOf(ctx, tx, c.postmortemID, c.ReplyTo)
			if err != nil {
				return err
			}
			c.ReviewComment = root
		}
		if c.Resolved == resolved {
			return nil
		}
		c.Resolved, c.ResolvedBy = resolved, ""
		if resolved {
			c.ResolvedBy = by
		}
		if _, err := tx.ExecContext(ctx, `UPDATE review_comments SET resolved = ?, resolved_by = ? WHERE id = ?`, resolved, c.ResolvedBy, c.ID); err != nil {
			return err
		}
		what := "resolved"
		if !resolved {
			what = "reopened"
		}
		tx.audit(auditNote{kind: "comment." + strings.TrimSuffix(what, "d"), postmortemID: c.postmortemID, signer: by,
			what: fmt.Sprintf("%s the thread #%d on “%s”", what, c.ID, title)})
		return nil
	})
}

// EditReviewComment replaces the body of comment id; only its author may.
// The audit trail keeps the text it had.
func (s *Store) EditReviewComment(ctx context.Context, slug string, id int64, body, by string) (ReviewComment, error) {
	if err := checkCommentBody(body); err != nil {
		return ReviewComment{}, err
	}
	return s.changeComment(ctx, slug, id, by, func(tx *writeTx, c *commentRow, title string) error {
		if err := ownComment(&c.ReviewComment, by); err != nil {
			return err
		}
		old := c.Body
		c.Body, c.EditedAt = body, s.Now().UTC().Truncate(time.Second)
		if _, err := tx.ExecContext(ctx, `UPDATE review_comments SET body = ?, edited_at = ? WHERE id = ?`, body, formatTime(c.EditedAt), c.ID); err != nil {
			return err
		}
		before, err := queryColumn[string](ctx, tx, `SELECT name FROM comment_mentions WHERE comment_id = ?`, c.ID)
		if err != nil {
			return err
		}
		mentioned, err := recordMentions(ctx, tx, c.ID, body)
		if err != nil {
			return err
		}
		tx.notifyComment(c.postmortemID, c.ReviewComment, title, mentioned, before, true)
		tx.audit(auditNote{kind: "comment.edit", postmortemID: c.postmortemID, signer: by,
			what: fmt.Sprintf("edited comment #%d on “%s”; it said: %s", c.ID, title, clipAudit(old))})
		return nil
	})
}

// DeleteReviewComment removes the text of comment id; only its author
// may. Its replies stay; the audit trail keeps the text it had.
func (s *Store) DeleteReviewComment(ctx context.Context, slug string, id int64, by string) error {
	_, err := s.changeComment(ctx, slug, id, by, func(tx *writeTx, c *commentRow, title string) error {
		if err := ownComment(&c.ReviewComment, by); err != nil {
			return err
		}
		old := c.Body
		if _, err := tx.ExecContext(ctx, `UPDATE review_comments SET body = '', deleted_at = ? WHERE id = ?`, s.now(), c.ID); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM comment_mentions WHERE comment_id = ?`, c.ID); err != nil {
			return err
		}
		tx.audit(auditNote{kind: "comment.delete", postmortemID: c.postmortemID, signer: by,
			what: fmt.Sprintf("deleted comment #%d on “%s”; it said: %s", c.ID, title, clipAudit(old))})
		return nil
	})
	return err
}

func ownComment(c *ReviewComment, by string) error {
	if c.Deleted {
		return fmt.Errorf("comment %d: %w", c.ID, ErrNotFound)
	}
	if !strings.EqualFold(strings.TrimSpace(by), c.Author) {
		return refuse(ErrForbidden, "Comment #%d is %s's: only its author may change it.", c.ID, c.Author)
	}
	return nil
}

// clipAudit keeps an audit entry's quote of a comment short.
func clipAudit(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 500 {
		return string(r[:500]) + "…"
	}
	return "“" + s + "”"
}

// changeComment runs change on comment id of the postmortem slug in one
// transaction, and returns the comment after it.
func (s *Store) changeComment(ctx context.Context, slug string, id int64, by string,
	change func(tx *writeTx, c *commentRow, title string) error) (ReviewComment, error) {
	if strings.TrimSpace(by) == "" {
		return ReviewComment{}, FieldErrors{"author": "Sign with your name."}
	}
	var out ReviewComment
	err := s.inTx(ctx, func(tx *writeTx) error {
		var pmID int64
		var title string
		err := tx.QueryRowContext(ctx, `SELECT id, title FROM postmortems WHERE slug = ? AND `+visibleSQL(ctx, "postmortems"), slug).Scan(&pmID, &title)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("postmortem %q: %w", slug, ErrNotFound)
		}
		if err != nil {
			return err
		}
		c, err := commentOf(ctx, tx, pmID, id)
		if err != nil {
			return err
		}
		row := &commentRow{ReviewComment: c, postmortemID: pmID}
		if err := change(tx, row, title); err != nil {
			return err
		}
		out = row.ReviewComment
		return nil
	})
	if err != nil && !errors.As(err, new(FieldErrors)) {
		return ReviewComment{}, fmt.Errorf("change comment %d of %q: %w", id, slug, err)
	}
	return out, err
}

// commentRow is a comment with the postmortem it belongs to.
type commentRow struct {
	ReviewComment
	postmortemID int64
}
