package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"hindsight/postmortem"
)

// GeneralCriteria are asked of every postmortem in review, whatever its
// patterns: their keys name them in answers.
var GeneralCriteria = []ReviewQuestion{
	{Key: "impact", Text: "Is the impact stated: who was affected, how, for how long and how many?"},
	{Key: "causes", Text: "Do the causes go deep enough: past the trigger to why the system let it do harm?"},
	{Key: "action-items", Text: "Does every action item have an owner and a priority?"},
	{Key: "detection", Text: "Is detection examined: how the problem was noticed, and how it could have been noticed sooner?"},
}

// ReviewQuestion is one question a postmortem's review asks: a general
// criterion, or a question of one of its patterns (Pattern set), and its
// answer when it has one.
type ReviewQuestion struct {
	// Key names it in answers: a general criterion's key, or "q" and the
	// pattern question's id.
	Key         string
	Text        string
	Pattern     string
	PatternName string
	Answer      *ReviewAnswer
}

// ReviewAnswer answers a review question with a comment, a section of the
// postmortem it points to, or a reason to waive it.
type ReviewAnswer struct {
	CommentID int64
	Section   string
	Waived    string
	By        string
	At        time.Time
}

// ReviewQuestions returns the questions the review of the postmortem slug
// asks, with their answers: the general criteria, then the questions of
// its confirmed and suggested patterns.
func (s *Store) ReviewQuestions(ctx context.Context, slug string) ([]ReviewQuestion, error) {
	tx, err := s.db.beginRead(ctx)
	if err != nil {
		return nil, fmt.Errorf("review questions %q: %w", slug, err)
	}
	defer tx.Rollback()
	_, id, err := readReview(ctx, tx, slug)
	if err != nil {
		return nil, fmt.Errorf("review questions %q: %w", slug, err)
	}
	qs, err := reviewQuestions(ctx, tx, id)
	if err != nil {
		return nil, fmt.Errorf("review questions %q: %w", slug, err)
	}
	return qs, nil
}

func reviewQuestions(ctx context.Context, q querier, id int64) ([]ReviewQuestion, error) {
	out := slices.Clone(GeneralCriteria)
	rows, err := q.QueryContext(ctx, `SELECT rq.id, rq.text, pa.slug, pa.name FROM review_questions rq
		JOIN patterns pa ON pa.slug = rq.pattern_slug
		WHERE rq.removed_at = '' AND rq.pattern_slug IN (
			SELECT pattern_slug FROM tags WHERE postmortem_id = ?
			UNION SELECT pattern_slug FROM suggested_tags WHERE postmortem_id = ? AND status = 'suggested')
		ORDER BY pa.position, rq.position, rq.id`, id, id)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var rq ReviewQuestion
		var qid int64
		if err := rows.Scan(&qid, &rq.Text, &rq.Pattern, &rq.PatternName); err != nil {
			rows.Close()
			return nil, err
		}
		rq.Key = "q" + strconv.FormatInt(qid, 10)
		out = append(out, rq)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows, err = q.QueryContext(ctx, `SELECT question, coalesce(comment_id, 0), section, waived, by, at FROM review_answers WHERE postmortem_id = ?`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var key, at string
		var a ReviewAnswer
		if err := rows.Scan(&key, &a.CommentID, &a.Section, &a.Waived, &a.By, &at); err != nil {
			return nil, err
		}
		a.At = parseTime(at)
		if i := slices.IndexFunc(out, func(q ReviewQuestion) bool { return q.Key == key }); i >= 0 {
			out[i].Answer = &a
		}
	}
	return out, rows.Err()
}

// AnswerReviewQuestion records the answer to the review question key of
// the postmortem slug: exactly one of a comment of its own (CommentID), a
// section it points to, or a reason to waive the question. A second
// answer replaces the first.
func (s *Store) AnswerReviewQuestion(ctx context.Context, slug, key string, a ReviewAnswer) error {
	a.By, a.Waived, a.Section = strings.TrimSpace(a.By), strings.TrimSpace(a.Waived), strings.TrimSpace(a.Section)
	given := 0
	for _, set := range []bool{a.CommentID != 0, a.Section != "", a.Waived != ""} {
		if set {
			given++
		}
	}
	switch {
	case given != 1:
		return FieldErrors{"answer": "Answer with one of: a comment, the section that answers it, or a reason to waive it."}
	case a.By == "":
		return FieldErrors{"author": "Sign with your name: an answer says who gave it."}
	case a.Section != "" && !slices.Contains(CommentSections, a.Section):
		return FieldErrors{"section": "Point to one of the postmortem's sections: " + strings.Join(CommentSections[1:], ", ") + "."}
	}
	if msg := postmortem.CheckText(a.Waived, "The reason", true, MaxReviewComment); msg != "" {
		return FieldErrors{"waived": msg}
	}
	err := s.inTx(ctx, func(tx *writeTx) error {
		r, id, err := readReview(ctx, tx, slug)
		if err != nil {
			return err
		}
		qs, err := reviewQuestions(ctx, tx, id)
		if err != nil {
			return err
		}
		i := slices.IndexFunc(qs, func(q ReviewQuestion) bool { return q.Key == key })
		if i < 0 {
			return fmt.Errorf("review question %q: %w", key, ErrNotFound)
		}
		if a.CommentID != 0 {
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM review_comments WHERE id = ? AND postmortem_id = ? AND deleted_at = ''`,
				a.CommentID, id).Scan(&n); err != nil {
				return err
			}
			if n == 0 {
				return FieldErrors{"comment": "Answer with a comment on this postmortem."}
			}
		}
		var comment any
		if a.CommentID != 0 {
			comment = a.CommentID
		}
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO review_answers (postmortem_id, question, comment_id, section, waived, by, at)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, id, key, comment, a.Section, a.Waived, a.By, s.now()); err != nil {
			return err
		}
		what := "answered"
		if a.Waived != "" {
			what = "waived"
		}
		tx.audit(auditNote{kind: "review.answer", postmortemID: id, signer: a.By,
			what: what + " the review question “" + qs[i].Text + "” of “" + r.Title + "”"})
		return nil
	})
	if err != nil && !errors.As(err, new(FieldErrors)) {
		return fmt.Errorf("answer review question %q of %q: %w", key, slug, err)
	}
	return err
}
