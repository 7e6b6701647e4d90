package storetest_test

import (
	"slices"
	"testing"

	"hindsight/postmortem"
	"hindsight/store"
	"hindsight/store/storetest"
)

// ExportDiffs names each carried field that differs, through embedded
// records and slices, and ignores what an export does not carry.
func TestExportDiffs(t *testing.T) {
	want := storetest.Exported{Postmortem: store.Postmortem{Content: postmortem.Content{Title: "A"}, ID: 1, ActionItems: []store.ActionItem{{ID: 1, Owner: "ada"}}}}
	got := storetest.Exported{Postmortem: store.Postmortem{Content: postmortem.Content{Title: "B"}, ID: 2, ActionItems: []store.ActionItem{{ID: 9, Owner: "bob"}}}}
	d := storetest.ExportDiffs(want, got)
	if len(d) != 2 || !slices.ContainsFunc(d, func(s string) bool { return s == `Title = "B", want "A"` }) ||
		!slices.ContainsFunc(d, func(s string) bool { return s == `ActionItems[0].Owner = "bob", want "ada"` }) {
		t.Errorf("ExportDiffs = %q", d)
	}
	if d := storetest.ExportDiffs(want, want); d != nil {
		t.Errorf("a record against itself: %q", d)
	}
}
