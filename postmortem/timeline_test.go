package postmortem_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"hindsight/postmortem"
)

func TestParseTimeline(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		text string
		want []postmortem.TimelineEntry
		ok   bool
	}{
		{"Plain", "14:02 deploy of v42 starts\n14:09 first alert", []postmortem.TimelineEntry{{Time: "14:02", Text: "deploy of v42 starts"}, {Time: "14:09", Text: "first alert"}}, true},
		{"ListAndZone", "- 9:15 UTC – pages fire\n* **09:20** rollback", []postmortem.TimelineEntry{{Time: "09:15", Text: "pages fire"}, {Time: "09:20", Text: "rollback"}}, true},
		{"DatesAndSeconds", "2024-03-05 23:58:10 queue grows\n2024-03-06T00:03 disk full", []postmortem.TimelineEntry{{Date: "2024-03-05", Time: "23:58:10", Text: "queue grows"}, {Date: "2024-03-06", Time: "00:03", Text: "disk full"}}, true},
		{"Separators", "10:00: start\n10:01 | next\n1. 10:02 - third", []postmortem.TimelineEntry{{Time: "10:00", Text: "start"}, {Time: "10:01", Text: "next"}, {Time: "10:02", Text: "third"}}, true},
		{"Continuation", "10:00 start\n  and more\n\n10:05 end", []postmortem.TimelineEntry{{Time: "10:00", Text: "start and more"}, {Time: "10:05", Text: "end"}}, true},
		{"Prose", "All times UTC.\n10:00 start", []postmortem.TimelineEntry{{Time: "10:00", Text: "start"}}, false},
		{"NotATime", "25:00 nothing\n10:7 no\n10:075 no", nil, false},
		{"TimeAlone", "10:00", nil, false},
		{"Empty", "\n \n", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := postmortem.ParseTimeline(tt.text)
			if !reflect.DeepEqual(got, tt.want) || ok != tt.ok {
				t.Errorf("ParseTimeline(%q) = %+v, %v; want %+v, %v", tt.text, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestFormatTimelineRoundTrips(t *testing.T) {
	t.Parallel()
	entries := []postmortem.TimelineEntry{{Time: "14:02", Text: "deploy  starts"}, {}, {Date: "2024-03-06", Time: "00:03", Text: "disk **full**"}}
	text := postmortem.FormatTimeline(entries)
	if want := "14:02 deploy starts\n2024-03-06 00:03 disk **full**"; text != want {
		t.Fatalf("FormatTimeline = %q, want %q", text, want)
	}
	back, ok := postmortem.ParseTimeline(text)
	if !ok || postmortem.FormatTimeline(back) != text {
		t.Errorf("round trip: %+v, %v", back, ok)
	}
}

// The parser is linear: doubling the timeline doubles the time per run.
func BenchmarkParseTimeline(b *testing.B) {
	for _, n := range []int{1000, 2000, 4000, 8000} {
		var sb strings.Builder
		for i := range n {
			fmt.Fprintf(&sb, "- %02d:%02d UTC – event number %d happened **here**\n", i/60%24, i%60, i)
		}
		text := sb.String()
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				postmortem.ParseTimeline(text)
			}
		})
	}
}
