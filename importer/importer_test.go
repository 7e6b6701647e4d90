package importer_test

import (
	"reflect"
	"testing"

	"hindsight/importer"
	"hindsight/postmortem"
	"hindsight/store"
)

func TestRead(t *testing.T) {
	t.Parallel()
	raw := "---\ntitle: T\nseverity: sev-1\nincident_date: 2020-05-25\nvariant_of: a-b\nvariant_kind: repost\npatterns: feedback-loop:lesson, retry-storm\n---\nuser1\n\n2021-06-02\n\nBody text.\n\nuser2\n\n2021-06-03\n\nA comment.\n\nuser3\n\nJune 4, 2021 at 9:05am\n\nAnother."
	_, p, err := importer.Read([]byte(raw), "x.txt")
	if err != nil {
		t.Fatal(err)
	}
	want := store.Postmortem{
		Content: postmortem.Content{
			Title:        "T",
			Severity:     "SEV1",
			IncidentDate: "2020-05-25",
			Summary:      "Body text.",
			Body:         "Body text.",
			Tags:         []store.Tag{{PatternSlug: "feedback-loop", Role: postmortem.RoleMissingDefence}, {PatternSlug: "retry-storm", Role: postmortem.RoleContributing}},
		},
		SourceText:  raw,
		VariantOf:   "a-b",
		VariantKind: postmortem.KindRewrite,
		Comments: []store.Comment{
			{Author: "user2", Posted: "3 June 2021", Text: "A comment."},
			{Author: "user3", Posted: "4 June 2021, 09:05", Text: "Another."},
		},
	}
	if !reflect.DeepEqual(p, want) {
		t.Errorf("postmortem =\n%+v\nwant\n%+v", p, want)
	}
	if got := store.NormalizeSeverity("Major"); got != "Major" {
		t.Errorf("NormalizeSeverity(Major) = %q, want it left for validation", got)
	}
}
