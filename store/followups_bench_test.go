package store_test

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"hindsight/library"
	"hindsight/postmortem"
	"hindsight/seeds"
	"hindsight/store"
)

// learningStore holds n generated postmortems, each with a pattern or two,
// incident times, a time zone and none to three action items.
func learningStore(b *testing.B, n int) *store.Store {
	b.Helper()
	st, err := store.Open(b.Context(), filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	if _, err := seeds.Load(b.Context(), st); err != nil {
		b.Fatal(err)
	}
	_, pats, err := seeds.Catalogue()
	if err != nil {
		b.Fatal(err)
	}
	zones := []string{"", "Europe/Madrid", "America/Los_Angeles", "Pacific/Auckland"}
	statuses := []string{postmortem.StatusOpen, postmortem.StatusInProgress, postmortem.StatusDone, postmortem.StatusWontDo}
	for i := range n {
		start := time.Date(2010+i%15, time.Month(1+i%12), 1+i%28, 10, 0, 0, 0, time.UTC)
		p := store.Postmortem{
			Content: postmortem.Content{
				Title:        fmt.Sprintf("Incident %d", i),
				Summary:      fmt.Sprintf("Incident %d", i),
				Body:         "Text.",
				Organization: fmt.Sprintf("Org %d", i%40),
				IncidentDate: start.Format("2006-01-02"),
				Severity:     fmt.Sprintf("SEV%d", 1+i%5),
				Services:     fmt.Sprintf("svc-%d, api", i%30),
				Tags:         []store.Tag{{PatternSlug: pats[i%len(pats)].Slug, Role: "trigger"}},
				Times: postmortem.Times{
					TimeZone:   zones[i%4],
					StartedAt:  start.Format(time.RFC3339),
					DetectedAt: start.Add(time.Duration(i%120) * time.Minute).Format(time.RFC3339),
					ResolvedAt: start.Add(time.Duration(60+i%900) * time.Minute).Format(time.RFC3339),
				},
			},
		}
		if j := (i*7 + 3) % len(pats); j != i%len(pats) {
			p.Tags = append(p.Tags, store.Tag{PatternSlug: pats[j].Slug, Role: "amplifier"})
		}
		for k := range i % 4 {
			p.ActionItems = append(p.ActionItems, store.ActionItem{Title: fmt.Sprintf("Follow-up %d", k), Kind: postmortem.KindPrevent,
				Owner: fmt.Sprintf("owner-%d", (i+k)%50), Status: statuses[(i+k)%4], DueDate: start.AddDate(0, 0, 30*k).Format("2006-01-02")})
		}
		if err := st.CreatePostmortem(b.Context(), &p); err != nil {
			b.Fatal(err)
		}
	}
	return st
}

// BenchmarkLearning times the follow-ups and insights queries, uncached
// (each iteration writes first, so nothing is kept from the last), over
// doubling collections: the time per postmortem must stay flat.
func BenchmarkLearning(b *testing.B) {
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	for _, n := range []int{250, 500, 1000} {
		st := learningStore(b, n)
		lib := library.New(st)
		p, err := st.GetPostmortem(b.Context(), "incident-1")
		if err != nil {
			b.Fatal(err)
		}
		touch := func() {
			b.StopTimer()
			if _, err := st.UpdateActionItem(b.Context(), p.ActionItems[0].ID, store.ActionItemUpdate{}); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
		for _, f := range []struct {
			name string
			run  func() error
		}{
			{"follow-ups", func() error {
				_, _, err := st.ListActionItems(b.Context(), store.ActionItemFilter{Limit: 50}, now)
				return err
			}},
			{"follow-ups-overdue", func() error {
				_, _, err := st.ListActionItems(b.Context(), store.ActionItemFilter{Overdue: true, Limit: 50}, now)
				return err
			}},
			{"insights", func() error {
				_, err := lib.Insights(b.Context(), store.InsightFilter{})
				return err
			}},
		} {
			b.Run(fmt.Sprintf("%s/n=%d", f.name, n), func(b *testing.B) {
				for b.Loop() {
					touch()
					if err := f.run(); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/float64(n), "µs/postmortem")
			})
		}
	}
}
