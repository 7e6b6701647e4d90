package postmortem_test

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"hindsight/postmortem"
)

func TestValidate(t *testing.T) {
	t.Parallel()
	valid := func() postmortem.Fields {
		return postmortem.Fields{Title: "Routers overloaded", Summary: "The request routers were overloaded."}
	}
	for _, tt := range []struct {
		name   string
		change func(f *postmortem.Fields)
		want   map[string]string // field -> a part of its message
	}{
		{"Minimal", func(f *postmortem.Fields) {}, nil},
		{"Full", func(f *postmortem.Fields) {
			f.Organization, f.Severity, f.Language, f.SourceURL = "Google", "SEV2", "es", "https://example.com/pm"
			f.IncidentDate, f.PublishedDate, f.DurationMinutes = "2009-09-01", "2009-09-02", 100
			f.StartedAt, f.DetectedAt = "2009-09-01T16:30:00Z", "2009-09-01T16:35:00Z"
			f.MitigatedAt, f.ResolvedAt = "2009-09-01T17:00:00+00:00", "2009-09-01T18:10:00Z"
			f.VariantOf, f.VariantKind = "gmail-2009", postmortem.KindTranslation
			f.Tags = []postmortem.Tag{{Pattern: "cascading-overload", Role: postmortem.RoleAmplifier}}
			f.ActionItems = []postmortem.ActionItem{{Title: "Add routers", Kind: postmortem.KindMitigate, Priority: "P1", DueDate: "2009-10-01"}}
			f.Body, f.Impact = "## What happened\n\nThe routers fell over.", "Gmail was down."
		}, nil},
		{"TitleRequired", func(f *postmortem.Fields) { f.Title = "  " }, map[string]string{"title": "Title is required."}},
		{"TitleAtTheLimit", func(f *postmortem.Fields) { f.Title = strings.Repeat("é", postmortem.MaxTitleRunes) }, nil},
		{"TitleTooLong", func(f *postmortem.Fields) { f.Title = strings.Repeat("é", postmortem.MaxTitleRunes+1) },
			map[string]string{"title": "Title is too long: 201 characters, at most 200."}},
		{"TitleOneLine", func(f *postmortem.Fields) { f.Title = "two\nlines" }, map[string]string{"title": "Title must be a single line of text."}},
		{"TitleBidiOverride", func(f *postmortem.Fields) { f.Title = "Invoice \u202Efdp.exe" },
			map[string]string{"title": "Title contains an invisible text-direction control (U+202E), which can make it show in another order than it reads; remove it."}},
		{"OrganizationBidiIsolate", func(f *postmortem.Fields) { f.Organization = "\u2067Acme" },
			map[string]string{"organization": "(U+2067)"}},
		{"TitleRightToLeftMark", func(f *postmortem.Fields) { f.Title = "\u05e9\u05dc\u05d5\u05dd\u200f 5" }, nil},
		{"BodyMayHoldDirectionControls", func(f *postmortem.Fields) { f.Body = "quoted \u202Eexample\u202C here" }, nil},
		{"TitleNotUTF8", func(f *postmortem.Fields) { f.Title = "bad \xff" }, map[string]string{"title": "not valid UTF-8"}},
		{"SummaryRequired", func(f *postmortem.Fields) { f.Summary = "" }, map[string]string{"summary": "Summary is required."}},
		{"WriteUpOptional", func(f *postmortem.Fields) { f.Body = "" }, nil},
		{"OrganizationTooLong", func(f *postmortem.Fields) { f.Organization = strings.Repeat("x", postmortem.MaxOrganizationRunes+1) },
			map[string]string{"organization": "Organization is too long"}},
		{"SectionTooLong", func(f *postmortem.Fields) { f.Impact = strings.Repeat("x", postmortem.MaxSectionRunes+1) },
			map[string]string{"impact": "Impact is too long: 100001 characters"}},
		{"SectionControlChars", func(f *postmortem.Fields) { f.Body = "nul \x00 here" }, map[string]string{"body": "contains control characters"}},
		{"MarkdownTooDeep", func(f *postmortem.Fields) { f.Body = strings.Repeat(">", 2000) + " deep" },
			map[string]string{"body": "cannot be shown as a page"}},
		{"Severity", func(f *postmortem.Fields) { f.Severity = "SEV9" }, map[string]string{"severity": "Choose a severity from SEV1 to SEV5"}},
		{"Language", func(f *postmortem.Fields) { f.Language = "english" }, map[string]string{"language": "Choose the language"}},
		{"SourceURL", func(f *postmortem.Fields) { f.SourceURL = "javascript:alert(1)" }, map[string]string{"source_url": "must be a web address"}},
		{"Dates", func(f *postmortem.Fields) { f.IncidentDate, f.PublishedDate = "01/09/2009", "2009-02-30" },
			map[string]string{"incident_date": "The incident date must be a date like 2024-03-05.", "published_date": "The date of the write-up must be"}},
		{"TimeNotRFC3339", func(f *postmortem.Fields) { f.StartedAt = "yesterday" }, map[string]string{"started_at": "Started must be a date and time"}},
		{"DetectedBeforeStarted", func(f *postmortem.Fields) { f.StartedAt, f.DetectedAt = "2024-03-05T14:00:00Z", "2024-03-05T13:59:00Z" },
			map[string]string{"detected_at": "Detected cannot be before the incident started."}},
		{"ResolvedBeforeMitigatedAcrossZones", func(f *postmortem.Fields) {
			f.MitigatedAt, f.ResolvedAt = "2024-03-05T14:45:00-05:00", "2024-03-05T19:30:00Z"
		}, map[string]string{"resolved_at": "Resolved cannot be before the incident was mitigated."}},
		{"Duration", func(f *postmortem.Fields) { f.DurationMinutes = -5 }, map[string]string{"duration_minutes": "whole number of minutes"}},
		{"VariantKind", func(f *postmortem.Fields) { f.VariantKind = "copy" }, map[string]string{"variant_kind": "translation or a copy"}},
		{"VariantKindOriginal", func(f *postmortem.Fields) { f.VariantKind = postmortem.KindOriginal }, nil},
		{"VariantOf", func(f *postmortem.Fields) { f.VariantOf = "Not A Slug" }, map[string]string{"variant_of": "by its slug"}},
		{"Role", func(f *postmortem.Fields) { f.Tags = []postmortem.Tag{{Pattern: "retry-storm", Role: "villain"}} },
			map[string]string{"patterns": "Choose patterns and roles from the list. The role of retry-storm is one of trigger"}},
		{"ActionItem", func(f *postmortem.Fields) {
			f.ActionItems = []postmortem.ActionItem{{Title: "ok", Kind: postmortem.KindPrevent}, {Title: "x", Kind: "fix"}}
		}, map[string]string{"action_items": "Action item 2: its type is mitigate, prevent or process."}},
		{"SuggestedStatus", func(f *postmortem.Fields) {
			f.Suggested = []postmortem.Suggestion{{Pattern: "retry-storm", Role: postmortem.RoleTrigger, Confidence: 0.5, Status: "maybe"}}
		}, map[string]string{"suggested": "The suggestion of retry-storm needs"}},
		{"SuggestedConfidence", func(f *postmortem.Fields) {
			f.Suggested = []postmortem.Suggestion{{Pattern: "retry-storm", Role: postmortem.RoleTrigger, Confidence: 1.5, Status: postmortem.SuggestionPending}}
		}, map[string]string{"suggested": "a confidence from 0 to 1"}},
		{"ActionItemStatus", func(f *postmortem.Fields) {
			f.ActionItems = []postmortem.ActionItem{{Title: "x", Kind: postmortem.KindPrevent, Status: "finished"}}
		}, map[string]string{"action_items": "its status is open, in-progress, done or wont-do."}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := valid()
			tt.change(&f)
			errs := postmortem.Validate(f)
			if got, want := slices.Sorted(maps.Keys(errs)), slices.Sorted(maps.Keys(tt.want)); !slices.Equal(got, want) {
				t.Fatalf("fields = %v, want %v (%v)", got, want, errs)
			}
			for field, part := range tt.want {
				if !strings.Contains(errs[field], part) {
					t.Errorf("%s: %q, want it to say %q", field, errs[field], part)
				}
			}
		})
	}
}

// Every vocabulary has its values once, each with a label.
func TestVocabularies(t *testing.T) {
	t.Parallel()
	for name, choices := range map[string][]postmortem.Choice{
		"roles": postmortem.RoleChoices, "severities": postmortem.Severities, "variant kinds": postmortem.VariantKinds,
		"action kinds": postmortem.ActionKinds, "priorities": postmortem.ActionPriorities, "statuses": postmortem.ActionStatuses,
		"suggestion statuses": postmortem.SuggestionStatuses,
	} {
		seen := map[string]bool{}
		for _, c := range choices {
			if c.Value == "" || c.Label == "" || seen[c.Value] {
				t.Errorf("%s: %+v is empty, unlabelled or repeated", name, c)
			}
			seen[c.Value] = true
		}
	}
	if !slices.Equal(postmortem.Roles, []string{"trigger", "amplifier", "contributing", "missing-defence", "mitigation"}) {
		t.Errorf("Roles = %v", postmortem.Roles)
	}
	if postmortem.RoleLabel(postmortem.RoleMissingDefence) != "Missing defence / lesson" || postmortem.RoleLabel("other") != "other" {
		t.Error("RoleLabel")
	}
}
