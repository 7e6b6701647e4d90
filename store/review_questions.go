package store

import (
	"context"
	"database/sql"
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
	case a.Section != "" && !postmortem.IsPart(a.Section):
		return FieldErrors{"section": "Point to one of the postmortem's sections: " + postmortem.PartNames() + "."}
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

// PatternQuestion is one of a pattern's review questions, edited as its
// checklist items are: a version per change, removed ones kept.
type PatternQuestion struct {
	ID          int64
	PatternSlug string
	Position    int
	Text        string
	Version     int
	Removed     bool
}

// maxQuestionRunes bounds a review question's text.
const maxQuestionRunes = 500

// LoadReviewQuestions gives each pattern that never had review questions
// the ones given (by slug): run at every start, it leaves questions that
// were edited, removed or added alone.
func (s *Store) LoadReviewQuestions(ctx context.Context, qs map[string][]string) error {
	err := s.inTx(ctx, func(tx *writeTx) error {
		for slug, texts := range qs {
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM review_questions WHERE pattern_slug = ?) + (SELECT count(*) = 0 FROM patterns WHERE slug = ?)`,
				slug, slug).Scan(&n); err != nil {
				return err
			}
			if n > 0 {
				continue // has questions, or is not in the catalogue
			}
			for i, text := range texts {
				if _, err := tx.ExecContext(ctx, `INSERT INTO review_questions (pattern_slug, position, text) VALUES (?, ?, ?)`, slug, i+1, text); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("load review questions: %w", err)
	}
	return nil
}

// PatternReviewQuestions returns a pattern's review questions in order,
// the removed ones too (Removed) when withRemoved.
func (s *Store) PatternReviewQuestions(ctx context.Context, slug string, withRemoved bool) ([]PatternQuestion, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, pattern_slug, position, text, version, removed_at != '' FROM review_questions
		WHERE pattern_slug = ? AND (? OR removed_at = '') ORDER BY position, id`, slug, withRemoved)
	if err != nil {
		return nil, fmt.Errorf("review questions of %q: %w", slug, err)
	}
	defer rows.Close()
	var out []PatternQuestion
	for rows.Next() {
		var q PatternQuestion
		if err := rows.Scan(&q.ID, &q.PatternSlug, &q.Position, &q.Text, &q.Version, &q.Removed); err != nil {
			return nil, fmt.Errorf("review questions of %q: %w", slug, err)
		}
		out = append(out, q)
	}
	return out, rows.Err()
}

// GetPatternQuestion returns one review question, removed or not.
func (s *Store) GetPatternQuestion(ctx context.Context, id int64) (PatternQuestion, error) {
	var q PatternQuestion
	err := s.db.QueryRowContext(ctx, `SELECT id, pattern_slug, position, text, version, removed_at != '' FROM review_questions WHERE id = ?`, id).
		Scan(&q.ID, &q.PatternSlug, &q.Position, &q.Text, &q.Version, &q.Removed)
	if errors.Is(err, sql.ErrNoRows) {
		return q, fmt.Errorf("review question %d: %w", id, ErrNotFound)
	}
	return q, err
}

func checkQuestion(text string) error {
	if strings.TrimSpace(text) == "" {
		return FieldErrors{"text": "Write the question."}
	}
	if msg := postmortem.CheckText(text, "The question", false, maxQuestionRunes); msg != "" {
		return FieldErrors{"text": msg}
	}
	return nil
}

// AddPatternQuestion appends a review question to a pattern.
func (s *Store) AddPatternQuestion(ctx context.Context, slug, text string) (PatternQuestion, error) {
	text = strings.TrimSpace(text)
	q := PatternQuestion{PatternSlug: slug, Text: text, Version: 1}
	if err := checkQuestion(text); err != nil {
		return q, err
	}
	err := s.inTx(ctx, func(tx *writeTx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM patterns WHERE slug = ?`, slug).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("pattern %q: %w", slug, ErrNotFound)
		}
		if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(position), 0) + 1 FROM review_questions WHERE pattern_slug = ?`, slug).Scan(&q.Position); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO review_questions (pattern_slug, position, text) VALUES (?, ?, ?)`, slug, q.Position, text)
		if err != nil {
			return err
		}
		q.ID, _ = res.LastInsertId()
		tx.audit(auditNote{kind: "review-question.add", what: fmt.Sprintf("added review question %d to %s: “%s”", q.ID, slug, text)})
		return nil
	})
	if err != nil {
		return q, fmt.Errorf("add review question to %q: %w", slug, err)
	}
	return q, nil
}

// UpdatePatternQuestion rewords a review question. version, when not 0,
// is the version the change was based on: if the question changed since,
// it is refused with ErrStaleVersion, as a checklist item's is.
func (s *Store) UpdatePatternQuestion(ctx context.Context, id int64, version int, text string) error {
	text = strings.TrimSpace(text)
	if err := checkQuestion(text); err != nil {
		return err
	}
	err := s.inTx(ctx, func(tx *writeTx) error {
		var cur int
		err := tx.QueryRowContext(ctx, `SELECT version FROM review_questions WHERE id = ?`, id).Scan(&cur)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		if version != 0 && version != cur {
			return ErrStaleVersion
		}
		tx.audit(auditNote{kind: "review-question.edit", what: fmt.Sprintf("reworded review question %d: “%s”", id, text)})
		_, err = tx.ExecContext(ctx, `UPDATE review_questions SET text = ?, version = version + 1 WHERE id = ?`, text, id)
		return err
	})
	if err != nil {
		return fmt.Errorf("change review question %d: %w", id, err)
	}
	return nil
}

// RemovePatternQuestion takes a question off its pattern (it can be put
// back); RestorePatternQuestion puts it back.
func (s *Store) RemovePatternQuestion(ctx context.Context, id int64) error {
	return s.setQuestionRemoved(ctx, id, s.now(), "removed")
}

func (s *Store) RestorePatternQuestion(ctx context.Context, id int64) error {
	return s.setQuestionRemoved(ctx, id, "", "put back")
}

func (s *Store) setQuestionRemoved(ctx context.Context, id int64, at, what string) error {
	err := s.inTx(ctx, func(tx *writeTx) error {
		res, err := tx.ExecContext(ctx, `UPDATE review_questions SET removed_at = ?, version = version + 1 WHERE id = ?`, at, id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		kind := "review-question.remove"
		if at == "" {
			kind = "review-question.restore"
		}
		tx.audit(auditNote{kind: kind, what: fmt.Sprintf("%s review question %d", what, id)})
		return nil
	})
	if err != nil {
		return fmt.Errorf("change review question %d: %w", id, err)
	}
	return nil
}
