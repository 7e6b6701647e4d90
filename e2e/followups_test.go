package e2e_test

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// followUps are action items added to a server's seeded postmortems, so
// that the follow-ups page has overdue, future, undated and finished items
// to show.
var followUps = []struct {
	slug                                          string
	title, owner, kind, priority, status, dueDate string
}{
	{"dreamwidth-2020-05-25-site-interruptions", "Alert when Apache workers stay busy for five minutes", "Dana", "prevent", "P1", "open", "2024-01-15"},
	{"dreamwidth-2020-05-25-site-interruptions", "Write the keep-alive runbook", "Sam", "process", "P2", "in-progress", "2099-06-30"},
	{"gmail-2009-09-01-request-router-overload", "Load-test the request routers at twice the peak", "Dana", "mitigate", "P0", "in-progress", "2023-11-02"},
	{"facebook-2010-09-23-outage", "Rate-limit configuration reloads", "Priya", "prevent", "P1", "done", "2023-03-01"},
}

// addFollowUps posts followUps through the action item form.
func addFollowUps(srv *server) error {
	for _, f := range followUps {
		res, err := http.PostForm(srv.url+"/postmortems/"+f.slug+"/action-items", url.Values{
			"title": {f.title}, "owner": {f.owner}, "kind": {f.kind}, "priority": {f.priority},
			"status": {f.status}, "due_date": {f.dueDate}, "ticket_url": {""},
		})
		if err != nil {
			return err
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK { // after the redirect
			return fmt.Errorf("add action item %q: status %d", f.title, res.StatusCode)
		}
	}
	return nil
}

// An SRE checks the follow-ups: overdue ones stand out, the filter form
// narrows them (a plain GET form, with JavaScript on and off), each links
// to its postmortem, and the CSV link keeps the filters.
func TestJourneyFollowUps(t *testing.T) {
	t.Parallel()
	bothWays(t, func(t *testing.T, p *page, js bool) {
		if err := addFollowUps(p.srv); err != nil {
			t.Fatal(err)
		}
		p.open("/", 200)
		p.follow(`.site-nav a[href="/action-items"]`)
		p.see("h1", "Follow-ups")
		// The seeds are examples, left out until the switch puts them back.
		p.see(".result-count", "0 action items")
		p.run("include the examples", chromedp.Click(chromedp.CSS("#f-examples"), chromedp.NodeVisible))
		p.follow(`.filters button[type="submit"]`)
		p.see(".result-count", "2 overdue")
		if n := p.count("tr.overdue"); n != 2 {
			t.Errorf("%d rows marked overdue, want 2", n)
		}
		p.see("tr.overdue", "overdue")
		// Overdue rows look different from the others.
		same := eval[bool](p, `getComputedStyle(document.querySelector("tr.overdue td")).backgroundColor ===
			getComputedStyle(document.querySelector(".follow-ups tbody tr:not(.overdue) td")).backgroundColor`)
		if same {
			t.Error("overdue rows have the same background as the others")
		}

		p.run("ask for Dana's overdue items", chromedp.Click(chromedp.CSS("#f-overdue"), chromedp.NodeVisible), typeInto("#f-owner", "dana"))
		p.follow(`.filters button[type="submit"]`)
		if got := p.path(); !strings.Contains(got, "overdue=1") || !strings.Contains(got, "owner=dana") {
			t.Errorf("filtering led to %s", got)
		}
		p.see(".result-count", "2 action items", "2 overdue")
		p.see(".follow-ups tbody", "Alert when Apache workers", "Load-test the request routers")
		csv := eval[string](p, `document.querySelector("a[download]").getAttribute("href")`)
		if !strings.HasPrefix(csv, "/action-items.csv?") || !strings.Contains(csv, "owner=dana") {
			t.Errorf("the CSV link is %q", csv)
		}

		p.run("narrow to one type and sort latest first", setSelect("#f-type", "mitigate"), setSelect("#f-sort", "-due"))
		p.follow(`.filters button[type="submit"]`)
		p.see(".result-count", "1 action item")
		p.follow(`.follow-ups a[href="/postmortems/gmail-2009-09-01-request-router-overload#actions-heading"]`)
		p.see("h1", "Gmail")
		p.see(".action-items", "Load-test the request routers", "overdue")

		p.open("/action-items?status=done&examples=1", 200)
		p.see(".result-count", "4 action items") // three of the seeds' and one of ours
		if n := p.count("tr.overdue"); n != 0 {
			t.Errorf("a done item is marked overdue")
		}
		p.follow(`.filters a[href="/action-items"]`)
		p.see(".result-count", "action items")
	})
}

// Insights narrow with their filter form (a plain GET form, with
// JavaScript on and off); every chart has its table.
func TestJourneyInsights(t *testing.T) {
	t.Parallel()
	readBothWays(t, func(t *testing.T, p *page, js bool) {
		p.open("/", 200)
		p.follow(`.site-nav a[href="/insights"]`)
		p.see("h1", "Insights")
		// The seeds are examples, left out until the switch puts them back.
		p.see(".result-count", "0 incidents")
		p.run("include the examples", chromedp.Click(chromedp.CSS("#f-examples"), chromedp.NodeVisible))
		p.follow(`.filters button[type="submit"]`)
		p.see(".result-count", "3 incidents")
		charts := p.count(".insight svg[role=img]")
		tables := p.count(".insight table.data")
		if charts < 4 || charts != tables {
			t.Errorf("%d charts and %d tables, want at least 4 of each, one table per chart", charts, tables)
		}
		p.run("choose SEV1 and a start date", setSelect("#f-severity", "SEV1"), chromedp.SetValue(chromedp.CSS("#f-from"), "2010-01-01"))
		p.follow(`.filters button[type="submit"]`)
		if got := p.path(); !strings.Contains(got, "severity=SEV1") || !strings.Contains(got, "from=2010-01-01") {
			t.Errorf("filtering led to %s", got)
		}
		p.see(".result-count", "1 incident")
		p.see("#c-by-severity", "Incidents per year by severity")
		p.see(".insight", "2010")
		p.follow(`.filters a[href="/insights"]`)
		p.see(".result-count", "0 incidents")
	})
}

// A new Gmail incident with the same pattern as the 2009 one, whose
// follow-ups are still open, says so at the top, lists it under "Has this
// happened before?", and passes axe and the Nu HTML Checker.
func TestRepeatIncidentPage(t *testing.T) {
	t.Parallel()
	srv := freshServer(t)
	slug := createPostmortem(t, srv, `{"title": "Request routers overloaded again", "organization": "Google (Gmail)",
		"severity": "SEV2", "language": "en", "incident_date": "2011-02-27", "summary": "Routers overloaded after a capacity change.",
		"body": "The request routers ran out of capacity again.",
		"patterns": [{"slug": "cascading-overload", "role": "amplifier"}], "author": "Dana"}`)
	p := newPageOn(t, srv)
	p.open("/postmortems/"+slug, 200)
	p.see(".repeat-warning", "has happened before", "More on today's Gmail issue", "open follow-up")
	p.see("#repeats-heading", "Has this happened before?")
	p.see(".repeats", "Give request routers failure isolation between datacenters")
	p.accessible()

	java, err := exec.LookPath("java")
	need(t, "Java (for the Nu HTML Checker)", err)
	res, err := http.Get(srv.url + "/postmortems/" + slug)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "repeat.html"), body, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, m := range runVNU(t, java, dir) {
		if m.Type == "error" || m.Type == "non-document-error" {
			t.Errorf("Nu HTML Checker: line %d: %s", m.LastLine, m.Message)
		}
	}
}
