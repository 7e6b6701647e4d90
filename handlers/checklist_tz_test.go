package handlers_test

import (
	"fmt"
	"net/url"
	"testing"

	"hindsight/postmortem"
	"hindsight/store"
)

// A tick's time is shown in the incident's time zone, where its team is,
// not in UTC.
func TestTickTimeInTheIncidentsTimeZone(t *testing.T) {
	t.Parallel()
	h, st := newApp(t)
	p := store.Postmortem{Content: postmortem.Content{Title: "Pool ran dry in Tokyo", Organization: "Us", IncidentDate: "2026-03-01", Summary: "The pool ran dry.", Tags: []store.Tag{{PatternSlug: "connection-exhaustion", Role: "trigger"}}, Times: postmortem.Times{StartedAt: "2026-03-01T10:00:00+09:00", TimeZone: "Asia/Tokyo"}}}
	if err := st.CreatePostmortem(t.Context(), &p); err != nil {
		t.Fatal(err)
	}
	items, err := st.Checklist(t.Context(), "connection-exhaustion")
	if err != nil {
		t.Fatal(err)
	}
	a := fmt.Sprint(items[0].ID)
	rec := postForm(t, h, "/postmortems/"+p.Slug+"/checklist", url.Values{"item": {a}, "done": {a}, "author": {"Aiko"}})
	body := follow(t, h, rec).Body.String()
	mustContain(t, body, "ticked by Aiko, <time datetime=", " JST</time>")
	mustNotContain(t, body, " UTC</time>")
}
