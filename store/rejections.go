package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"hindsight/markdown"
)

// A suggestion rejected on a saved postmortem stays rejected on its later
// edits while the classifier shows it with the same sentences: the
// rejection keeps them (rejected_suggestions.evidence, migration 0300),
// and a suggestion all of whose evidence is among a rejection's sentences
// is the one rejected. Once a sentence of its evidence is edited, or other
// text shows the pattern, the writer sees it again.

// EvidenceSentence is an evidence sentence as it is kept and compared: the
// text a reader sees (Markdown rendered), its spaces collapsed.
func EvidenceSentence(sentence string) string {
	return strings.Join(strings.Fields(markdown.Text(sentence)), " ")
}

// evidenceLines is how evidence is stored: one sentence a line.
func evidenceLines(sentences []string) string {
	var lines []string
	for _, s := range sentences {
		if s = EvidenceSentence(s); s != "" {
			lines = append(lines, s)
		}
	}
	return strings.Join(lines, "\n")
}

// RejectedEvidence returns, by pattern, the evidence of each suggestion
// rejected on the postmortem at slug (one list of sentences per rejection;
// rejections recorded without their sentences are left out). A postmortem
// ctx's reader may not see has none.
func (s *Store) RejectedEvidence(ctx context.Context, slug string) (map[string][][]string, error) {
	out := map[string][][]string{}
	err := scanRows(ctx, s.db, `SELECT r.pattern_slug, r.evidence FROM rejected_suggestions r JOIN postmortems p ON p.id = r.postmortem_id
		WHERE p.slug = ? AND r.evidence != '' AND `+visibleSQL(ctx, "p")+` ORDER BY r.id`, []any{slug}, func(rows *sql.Rows) error {
		var pattern, evidence string
		if err := rows.Scan(&pattern, &evidence); err != nil {
			return err
		}
		out[pattern] = append(out[pattern], strings.Split(evidence, "\n"))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("rejections of %q: %w", slug, err)
	}
	return out, nil
}
