package handlers_test

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"hindsight/postmortem"
	"hindsight/store"
)

// TestMetricsCollection checks the collection's metrics in /metrics as a
// scraper reads them, help and type lines included: the seeds (five
// postmortems in three variant groups, four open action items, none
// overdue), then a postmortem with an overdue item, an open one and a
// finished one.
func TestMetricsCollection(t *testing.T) {
	t.Parallel()
	h, st, _, _ := newOpsApp(t)
	srv := httptest.NewServer(h)
	defer srv.Close()
	names := []string{"hindsight_postmortems", "hindsight_incidents", "hindsight_action_items_open", "hindsight_action_items_overdue"}
	want := func(postmortems, incidents, open, overdue string) *strings.Reader {
		return strings.NewReader(`# HELP hindsight_action_items_open Action items of live postmortems that are open or in progress.
# TYPE hindsight_action_items_open gauge
hindsight_action_items_open ` + open + `
# HELP hindsight_action_items_overdue Open or in-progress action items of live postmortems past their due date in the postmortem's time zone.
# TYPE hindsight_action_items_overdue gauge
hindsight_action_items_overdue ` + overdue + `
# HELP hindsight_incidents Live incidents: variant groups of postmortems, as lists show them.
# TYPE hindsight_incidents gauge
hindsight_incidents ` + incidents + `
# HELP hindsight_postmortems Live (not archived) postmortems, counting every language version and copy.
# TYPE hindsight_postmortems gauge
hindsight_postmortems ` + postmortems + `
`)
	}
	if err := testutil.ScrapeAndCompare(srv.URL+"/metrics", want("5", "3", "4", "0"), names...); err != nil {
		t.Error(err)
	}
	yesterday := time.Now().UTC().AddDate(0, 0, -2).Format(time.DateOnly)
	p := store.Postmortem{
		Content: postmortem.Content{
			Title:   "Metrics move",
			Summary: "Metrics move",
		},
		ActionItems: []store.ActionItem{
			{Title: "Add a limit", Kind: postmortem.KindPrevent, DueDate: yesterday},
			{Title: "Add an alert", Kind: postmortem.KindPrevent},
			{Title: "Already done", Kind: postmortem.KindMitigate, Status: postmortem.StatusDone, DueDate: yesterday},
		},
	}
	if err := st.CreatePostmortem(t.Context(), &p); err != nil {
		t.Fatal(err)
	}
	if err := testutil.ScrapeAndCompare(srv.URL+"/metrics", want("6", "4", "6", "1"), names...); err != nil {
		t.Error(err)
	}
}
