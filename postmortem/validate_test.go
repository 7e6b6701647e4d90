package postmortem_test

import (
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"hindsight/postmortem"
)

func TestValidate(t *testing.T) {
	t.Parallel()
	valid := func() postmortem.Postmortem {
		return postmortem.Postmortem{Content: postmortem.Content{Title: "Routers overloaded", Summary: "The request routers were overloaded."}}
	}
	for _, tt := range []struct {
		name   string
		change func(f *postmortem.Postmortem)
		want   map[string]string // field -> a part of its message
	}{
		{"Minimal", func(f *postmortem.Postmortem) {}, nil},
		{"Full", func(f *postmortem.Postmortem) {
			f.Organization, f.Severity, f.Language, f.SourceURL = "Google", "SEV2", "es", "https://example.com/pm"
			f.IncidentDate, f.PublishedDate, f.DurationMinutes = "2009-09-01", "2009-09-02", 100
			f.StartedAt, f.DetectedAt = "2009-09-01T16:30:00Z", "2009-09-01T16:35:00Z"
			f.MitigatedAt, f.ResolvedAt = "2009-09-01T17:00:00+00:00", "2009-09-01T18:10:00Z"
			f.VariantOf, f.VariantKind = "gmail-2009", postmortem.KindTranslation
			f.Tags = []postmortem.Tag{{PatternSlug: "cascading-overload", Role: postmortem.RoleAmplifier}}
			f.ActionItems = []postmortem.ActionItem{{Title: "Add routers", Kind: postmortem.KindMitigate, Priority: "P1", DueDate: "2009-10-01"}}
			f.Body, f.Impact = "## What happened\n\nThe routers fell over.", "Gmail was down."
		}, nil},
		{"TitleRequired", func(f *postmortem.Postmortem) { f.Title = "  " }, map[string]string{"title": "Title is required."}},
		{"TitleAtTheLimit", func(f *postmortem.Postmortem) { f.Title = strings.Repeat("é", postmortem.MaxTitleRunes) }, nil},
		{"TitleTooLong", func(f *postmortem.Postmortem) { f.Title = strings.Repeat("é", postmortem.MaxTitleRunes+1) },
			map[string]string{"title": "Title is too long: 201 characters, at most 200."}},
		{"TitleOneLine", func(f *postmortem.Postmortem) { f.Title = "two\nlines" }, map[string]string{"title": "Title must be a single line of text."}},
		{"TitleBidiOverride", func(f *postmortem.Postmortem) { f.Title = "Invoice \u202Efdp.exe" },
			map[string]string{"title": "Title contains an invisible text-direction control (U+202E), which can make it show in another order than it reads; remove it."}},
		{"OrganizationBidiIsolate", func(f *postmortem.Postmortem) { f.Organization = "\u2067Acme" },
			map[string]string{"organization": "(U+2067)"}},
		{"TitleRightToLeftMark", func(f *postmortem.Postmortem) { f.Title = "\u05e9\u05dc\u05d5\u05dd\u200f 5" }, nil},
		{"BodyMayHoldDirectionControls", func(f *postmortem.Postmortem) { f.Body = "quoted \u202Eexample\u202C here" }, nil},
		{"TitleNotUTF8", func(f *postmortem.Postmortem) { f.Title = "bad \xff" }, map[string]string{"title": "not valid UTF-8"}},
		{"SummaryRequired", func(f *postmortem.Postmortem) { f.Summary = "" }, map[string]string{"summary": "Summary is required."}},
		{"WriteUpOptional", func(f *postmortem.Postmortem) { f.Body = "" }, nil},
		{"OrganizationTooLong", func(f *postmortem.Postmortem) {
			f.Organization = strings.Repeat("x", postmortem.MaxOrganizationRunes+1)
		},
			map[string]string{"organization": "Organization is too long"}},
		{"SectionTooLong", func(f *postmortem.Postmortem) { f.Impact = strings.Repeat("x", postmortem.MaxSectionRunes+1) },
			map[string]string{"impact": "Impact is too long: 100001 characters"}},
		{"SectionControlChars", func(f *postmortem.Postmortem) { f.Body = "nul \x00 here" }, map[string]string{"body": "contains control characters"}},
		{"MarkdownTooDeep", func(f *postmortem.Postmortem) { f.Body = strings.Repeat(">", 2000) + " deep" },
			map[string]string{"body": "cannot be shown as a page"}},
		{"Severity", func(f *postmortem.Postmortem) { f.Severity = "SEV9" }, map[string]string{"severity": "Choose a severity from SEV1 to SEV5"}},
		{"Language", func(f *postmortem.Postmortem) { f.Language = "english" }, map[string]string{"language": "Choose the language"}},
		{"SourceURL", func(f *postmortem.Postmortem) { f.SourceURL = "javascript:alert(1)" }, map[string]string{"source_url": "must be a web address"}},
		{"Dates", func(f *postmortem.Postmortem) { f.IncidentDate, f.PublishedDate = "01/09/2009", "2009-02-30" },
			map[string]string{"incident_date": "The incident date must be a date like 2024-03-05.", "published_date": "The date of the write-up must be"}},
		{"TimeNotRFC3339", func(f *postmortem.Postmortem) { f.StartedAt = "yesterday" }, map[string]string{"started_at": "Started must be a date and time"}},
		{"DetectedBeforeStarted", func(f *postmortem.Postmortem) {
			f.StartedAt, f.DetectedAt = "2024-03-05T14:00:00Z", "2024-03-05T13:59:00Z"
		},
			map[string]string{"detected_at": "Detected cannot be before the incident started."}},
		{"ResolvedBeforeMitigatedAcrossZones", func(f *postmortem.Postmortem) {
			f.MitigatedAt, f.ResolvedAt = "2024-03-05T14:45:00-05:00", "2024-03-05T19:30:00Z"
		}, map[string]string{"resolved_at": "Resolved cannot be before the incident was mitigated."}},
		{"Duration", func(f *postmortem.Postmortem) { f.DurationMinutes = -5 }, map[string]string{"duration_minutes": "whole number of minutes"}},
		{"VariantKind", func(f *postmortem.Postmortem) { f.VariantKind = "copy" }, map[string]string{"variant_kind": "translation or a copy"}},
		{"VariantKindOriginal", func(f *postmortem.Postmortem) { f.VariantKind = postmortem.KindOriginal }, nil},
		{"VariantOf", func(f *postmortem.Postmortem) { f.VariantOf = "Not A Slug" }, map[string]string{"variant_of": "by its slug"}},
		{"Role", func(f *postmortem.Postmortem) {
			f.Tags = []postmortem.Tag{{PatternSlug: "retry-storm", Role: "villain"}}
		},
			map[string]string{"patterns": "Choose patterns and roles from the list. The role of retry-storm is one of trigger"}},
		{"ActionItem", func(f *postmortem.Postmortem) {
			f.ActionItems = []postmortem.ActionItem{{Title: "ok", Kind: postmortem.KindPrevent}, {Title: "x", Kind: "fix"}}
		}, map[string]string{"action_items": "Action item 2: its type is mitigate, prevent or process."}},
		{"SuggestedStatus", func(f *postmortem.Postmortem) {
			f.Suggested = []postmortem.Suggestion{{Pattern: "retry-storm", Role: postmortem.RoleTrigger, Confidence: 0.5, Status: "maybe"}}
		}, map[string]string{"suggested": "The suggestion of retry-storm needs"}},
		{"SuggestedConfidence", func(f *postmortem.Postmortem) {
			f.Suggested = []postmortem.Suggestion{{Pattern: "retry-storm", Role: postmortem.RoleTrigger, Confidence: 1.5, Status: postmortem.SuggestionPending}}
		}, map[string]string{"suggested": "a confidence from 0 to 1"}},
		{"ActionItemStatus", func(f *postmortem.Postmortem) {
			f.ActionItems = []postmortem.ActionItem{{Title: "x", Kind: postmortem.KindPrevent, Status: "finished"}}
		}, map[string]string{"action_items": "its status is open, in-progress, done or wont-do."}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := valid()
			tt.change(&f)
			errs := f.Validate(time.Time{})
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

// The rules that once only the form made hold for every way in.
func TestValidateWithClock(t *testing.T) {
	t.Parallel()
	now := time.Date(2024, 3, 5, 12, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name   string
		change func(p *postmortem.Postmortem)
		want   map[string]string
	}{
		{"IncidentDateTomorrow", func(p *postmortem.Postmortem) { p.IncidentDate = "2024-03-06" }, nil},
		{"IncidentDateFuture", func(p *postmortem.Postmortem) { p.IncidentDate = "2024-03-07" },
			map[string]string{"incident_date": "The incident date is in the future."}},
		{"StartedFuture", func(p *postmortem.Postmortem) { p.StartedAt = "2024-03-07T12:00:00Z" },
			map[string]string{"started_at": "Started is in the future."}},
		{"WallClockInZone", func(p *postmortem.Postmortem) {
			p.StartedAt, p.ResolvedAt, p.TimeZone = "2024-03-04T09:00", "2024-03-04T10:00:30", "Europe/Madrid"
		}, nil},
		{"TimeZoneUnknown", func(p *postmortem.Postmortem) { p.TimeZone = "Mars/Olympus_Mons" },
			map[string]string{"time_zone": "Choose a time zone from the list."}},
		{"TimeZoneLocal", func(p *postmortem.Postmortem) { p.TimeZone = "Local" },
			map[string]string{"time_zone": "Choose a time zone from the list."}},
		{"VariantOfWithoutKind", func(p *postmortem.Postmortem) { p.VariantOf = "gmail-2009" },
			map[string]string{"variant_kind": "Say whether it is a translation or a copy."}},
		{"VariantOfOriginal", func(p *postmortem.Postmortem) { p.VariantOf, p.VariantKind = "gmail-2009", postmortem.KindOriginal },
			map[string]string{"variant_kind": "Say whether it is a translation or a copy."}},
		{"TimelineRows", func(p *postmortem.Postmortem) { p.Timeline = "14:02 deploy\n14:09 alert" }, nil},
		{"TimelineRowTooLong", func(p *postmortem.Postmortem) {
			p.Timeline = "14:02 " + strings.Repeat("x", postmortem.MaxTimelineRowRunes+1)
		}, map[string]string{"timeline": "An event of the timeline is longer than 2000 characters."}},
		{"TimelineTooManyRows", func(p *postmortem.Postmortem) {
			p.Timeline = strings.Repeat("14:02 again\n", postmortem.MaxTimelineRows+1)
		}, map[string]string{"timeline": "The timeline has more than 1000 rows."}},
		{"TimelineFreeFormLongLine", func(p *postmortem.Postmortem) {
			p.Timeline = "All day: " + strings.Repeat("x", postmortem.MaxTimelineRowRunes+1)
		}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := postmortem.Postmortem{Content: postmortem.Content{Title: "Routers overloaded", Summary: "Overloaded."}}
			tt.change(&p)
			errs := p.Validate(now)
			if got, want := slices.Sorted(maps.Keys(errs)), slices.Sorted(maps.Keys(tt.want)); !slices.Equal(got, want) {
				t.Fatalf("fields = %v, want %v (%v)", got, want, errs)
			}
			for field, msg := range tt.want {
				if errs[field] != msg {
					t.Errorf("%s: %q, want %q", field, errs[field], msg)
				}
			}
		})
	}
}

func TestCheckTimelineRow(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ clock, text, part, msg string }{
		{"14:02", "deploy", "", ""},
		{"2024-03-05 14:02", "deploy", "", ""},
		{"", "deploy", "time", "Give each event of the timeline its time, like 14:02."},
		{"14:02", "", "text", "Say what happened at 14:02 in the timeline."},
		{"soon", "deploy", "time", "Write the times of the timeline like 14:02, or 2024-03-05 14:02 when it spans days."},
		{"14:02", strings.Repeat("é", postmortem.MaxTimelineRowRunes+1), "text", "An event of the timeline is longer than 2000 characters."},
	} {
		if got := postmortem.CheckTimelineRow(tt.clock, tt.text); got != (postmortem.RowProblem{Part: tt.part, Text: tt.msg}) {
			t.Errorf("CheckTimelineRow(%q, %.20q) = %+v, want %s %q", tt.clock, tt.text, got, tt.part, tt.msg)
		}
	}
}

func TestNormalize(t *testing.T) {
	t.Parallel()
	now := time.Date(2024, 3, 5, 12, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name     string
		in, want postmortem.Content
	}{
		{"Text", postmortem.Content{Title: "  Outage \n", Summary: "\n\nSaw it.\r\nFixed it.  \n"},
			postmortem.Content{Title: "Outage", Summary: "Saw it.\nFixed it."}},
		{"WallClockInZone",
			postmortem.Content{Times: postmortem.Times{StartedAt: "2024-03-04T23:30", ResolvedAt: "2024-03-05T01:00:15Z", TimeZone: "Europe/Madrid"}},
			postmortem.Content{IncidentDate: "2024-03-04", Times: postmortem.Times{StartedAt: "2024-03-04T23:30:00+01:00", ResolvedAt: "2024-03-05T02:00:15+01:00", TimeZone: "Europe/Madrid"}}},
		{"ZoneDefaultsToUTC", postmortem.Content{Times: postmortem.Times{DetectedAt: "2024-03-04T10:00"}},
			postmortem.Content{Times: postmortem.Times{DetectedAt: "2024-03-04T10:00:00Z", TimeZone: "UTC"}}},
		{"ZoneWithoutTimes", postmortem.Content{Times: postmortem.Times{TimeZone: "Asia/Tokyo"}}, postmortem.Content{}},
		{"BadZoneKept", postmortem.Content{Times: postmortem.Times{TimeZone: "Mars/Base"}}, postmortem.Content{Times: postmortem.Times{TimeZone: "Mars/Base"}}},
		{"FutureStartGivesNoDate", postmortem.Content{Times: postmortem.Times{StartedAt: "2030-01-01T00:00:00Z"}},
			postmortem.Content{Times: postmortem.Times{StartedAt: "2030-01-01T00:00:00Z", TimeZone: "UTC"}}},
		{"TimelineLines", postmortem.Content{Sections: postmortem.Sections{Timeline: "- **9:15** deploy   starts\n14:02 UTC – alert"}},
			postmortem.Content{Sections: postmortem.Sections{Timeline: "09:15 deploy starts\n14:02 alert"}}},
		{"TimelineFreeForm", postmortem.Content{Sections: postmortem.Sections{Timeline: "It was a long day.\n"}},
			postmortem.Content{Sections: postmortem.Sections{Timeline: "It was a long day."}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := postmortem.Postmortem{Content: tt.in}
			p.Normalize(now)
			if !reflect.DeepEqual(p.Content, tt.want) {
				t.Errorf("Normalize =\n%+v, want\n%+v", p.Content, tt.want)
			}
		})
	}
}

func TestRestriction(t *testing.T) {
	t.Parallel()
	r := postmortem.ParseRestriction(" security, ops,,security ")
	if !slices.Equal(r, postmortem.Restriction{"security", "ops"}) {
		t.Fatalf("ParseRestriction = %q", r)
	}
	if !r.Same(postmortem.Restriction{"ops", "security"}) || r.Same(postmortem.Restriction{"ops"}) || postmortem.Restriction(nil).Same(r) {
		t.Error("Same")
	}
}
