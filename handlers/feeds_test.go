package handlers_test

import (
	"encoding/xml"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"hindsight/postmortem"
	"hindsight/store"
)

// atom is what a feed reader needs of an Atom document (RFC 4287).
type atom struct {
	XMLName xml.Name `xml:"http://www.w3.org/2005/Atom feed"`
	ID      string   `xml:"http://www.w3.org/2005/Atom id"`
	Title   string   `xml:"http://www.w3.org/2005/Atom title"`
	Updated string   `xml:"http://www.w3.org/2005/Atom updated"`
	Authors []struct {
		Name string `xml:"http://www.w3.org/2005/Atom name"`
	} `xml:"http://www.w3.org/2005/Atom author"`
	Links   []atomLinkT `xml:"http://www.w3.org/2005/Atom link"`
	Entries []struct {
		ID        string      `xml:"http://www.w3.org/2005/Atom id"`
		Title     string      `xml:"http://www.w3.org/2005/Atom title"`
		Updated   string      `xml:"http://www.w3.org/2005/Atom updated"`
		Published string      `xml:"http://www.w3.org/2005/Atom published"`
		Links     []atomLinkT `xml:"http://www.w3.org/2005/Atom link"`
		Summary   string      `xml:"http://www.w3.org/2005/Atom summary"`
		Category  []struct {
			Term string `xml:"term,attr"`
		} `xml:"http://www.w3.org/2005/Atom category"`
	} `xml:"http://www.w3.org/2005/Atom entry"`
}

type atomLinkT struct {
	Rel  string `xml:"rel,attr"`
	Href string `xml:"href,attr"`
}

// fetchAtom gets path and checks what RFC 4287 requires of a feed: an id,
// a title and an updated time on the feed and on every entry (times in
// RFC 3339), an author for the feed, a self link, unique entry ids, an
// alternate link on each entry that answers 200, entries newest first.
func fetchAtom(t *testing.T, h http.Handler, path string) atom {
	t.Helper()
	rec := get(t, h, path)
	if rec.Code != http.StatusOK {
		t.Fatalf("GET %s: %d", path, rec.Code)
	}
	if ct := rec.Header().Get("Content-Type"); ct != "application/atom+xml; charset=utf-8" {
		t.Errorf("GET %s: Content-Type %q", path, ct)
	}
	var f atom
	if err := xml.Unmarshal(rec.Body.Bytes(), &f); err != nil {
		t.Fatalf("GET %s: not Atom: %v", path, err)
	}
	checkTime := func(what, v string) time.Time {
		tm, err := time.Parse(time.RFC3339, v)
		if err != nil {
			t.Errorf("%s: %s %q is not RFC 3339", path, what, v)
		}
		return tm
	}
	if f.ID == "" || f.Title == "" || len(f.Authors) == 0 || f.Authors[0].Name == "" {
		t.Errorf("%s: feed id %q, title %q, authors %v", path, f.ID, f.Title, f.Authors)
	}
	if _, err := url.ParseRequestURI(f.ID); err != nil {
		t.Errorf("%s: feed id %q is not an IRI", path, f.ID)
	}
	feedUpdated := checkTime("feed updated", f.Updated)
	self := false
	for _, l := range f.Links {
		self = self || l.Rel == "self" && strings.HasSuffix(l.Href, path)
	}
	if !self {
		t.Errorf("%s: no self link in %v", path, f.Links)
	}
	ids := map[string]bool{}
	var prev time.Time
	for i, e := range f.Entries {
		if e.ID == "" || e.Title == "" || ids[e.ID] {
			t.Errorf("%s: entry %d has id %q (repeated: %v), title %q", path, i, e.ID, ids[e.ID], e.Title)
		}
		ids[e.ID] = true
		up := checkTime("entry updated", e.Updated)
		if e.Published != "" {
			checkTime("entry published", e.Published)
		}
		if up.After(feedUpdated) {
			t.Errorf("%s: entry %d updated %s after the feed %s", path, i, e.Updated, f.Updated)
		}
		if i > 0 && up.After(prev) {
			t.Errorf("%s: entry %d updated %s after the entry before it (%s)", path, i, e.Updated, prev)
		}
		prev = up
		alt := ""
		for _, l := range e.Links {
			if l.Rel == "alternate" {
				alt = l.Href
			}
		}
		u, err := url.Parse(alt)
		if alt == "" || err != nil {
			t.Errorf("%s: entry %d has no alternate link", path, i)
			continue
		}
		if i < 5 { // the links lead somewhere
			if rec := get(t, h, u.Path); rec.Code != http.StatusOK {
				t.Errorf("%s: entry %d links %s, which answers %d", path, i, u.Path, rec.Code)
			}
		}
	}
	return f
}

func TestFeeds(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 10, 11, 30, 0, 0, time.UTC)
	c := newCollection(t, 300, now)

	// An edit, after the postmortems were created, puts one first.
	later := time.Now().Add(time.Hour)
	c.st.Now = func() time.Time { return later }
	edited := c.pms[40]
	f := edited.Fields()
	f.Summary = "Edited after the review."
	if _, err := c.st.UpdatePostmortem(t.Context(), edited.Slug, edited.Version, store.PostmortemUpdate{Fields: f}); err != nil {
		t.Fatal(err)
	}

	all := fetchAtom(t, c.h, "/feed.atom")
	if len(all.Entries) != 50 {
		t.Errorf("/feed.atom has %d entries, want 50", len(all.Entries))
	}
	if len(all.Entries) > 0 && (!strings.HasSuffix(all.Entries[0].ID, "/postmortems/"+edited.Slug) || all.Entries[0].Summary != "Edited after the review.") {
		t.Errorf("/feed.atom starts with %s (%q), want the edited %s", all.Entries[0].ID, all.Entries[0].Summary, edited.Slug)
	}
	for _, e := range all.Entries {
		for _, archived := range []string{"facebook-2010-09-23-outage", "generated-incident-300"} {
			if strings.HasSuffix(e.ID, "/postmortems/"+archived) {
				t.Errorf("/feed.atom lists the archived %s", archived)
			}
		}
	}

	pattern := c.pms[7].Tags[0].PatternSlug
	tagged := 0
	for _, p := range c.pms {
		for _, tg := range p.Tags {
			if tg.PatternSlug == pattern {
				tagged++
				break
			}
		}
	}
	pf := fetchAtom(t, c.h, "/patterns/"+pattern+"/feed.atom")
	if len(pf.Entries) != min(tagged, 50) {
		t.Errorf("pattern feed has %d entries, want %d", len(pf.Entries), min(tagged, 50))
	}
	for _, e := range pf.Entries {
		ok := false
		for _, cat := range e.Category {
			ok = ok || cat.Term == pattern
		}
		if !ok {
			t.Errorf("pattern feed entry %s lacks the category %s", e.ID, pattern)
		}
	}
	if rec := get(t, c.h, "/patterns/no-such-pattern/feed.atom"); rec.Code != http.StatusNotFound {
		t.Errorf("feed of an unknown pattern: %d", rec.Code)
	}

	overdue := map[string]bool{}
	for _, it := range c.items {
		if overdueAt(it, now) {
			overdue[strconv.FormatInt(it.ID, 10)] = true
		}
	}
	of := fetchAtom(t, c.h, "/action-items/feed.atom?overdue=1")
	if len(of.Entries) != min(len(overdue), 50) || len(overdue) == 0 {
		t.Errorf("overdue feed has %d entries, want %d", len(of.Entries), min(len(overdue), 50))
	}
	for _, e := range of.Entries {
		id := e.ID[strings.LastIndexByte(e.ID, '/')+1:]
		if !overdue[id] || !strings.HasPrefix(e.Title, "Overdue: ") {
			t.Errorf("overdue feed lists %s %q, which is not overdue", e.ID, e.Title)
		}
	}
	// Everything else is in the unfiltered feed's reach too.
	fetchAtom(t, c.h, "/action-items/feed.atom")

	// Each page names its feeds in <head>.
	for _, tt := range []struct{ path, feed string }{
		{"/", "/feed.atom"},
		{"/postmortems", "/feed.atom"},
		{"/patterns/" + pattern, "/patterns/" + pattern + "/feed.atom"},
		{"/action-items", "/action-items/feed.atom?overdue=1"},
	} {
		body := get(t, c.h, tt.path).Body.String()
		head := body[:max(strings.Index(body, "</head>"), 0)]
		want := `<link rel="alternate" type="application/atom+xml"`
		if !strings.Contains(head, want) || !strings.Contains(head, `href="`+strings.ReplaceAll(tt.feed, "&", "&amp;")+`"`) {
			t.Errorf("%s does not name %s in its head", tt.path, tt.feed)
		}
	}
}

// An empty feed is still a valid feed.
func TestFeedsEmpty(t *testing.T) {
	t.Parallel()
	c := newCollection(t, 0, time.Date(2026, 3, 10, 11, 30, 0, 0, time.UTC))
	for _, path := range []string{"/feed.atom", "/action-items/feed.atom?overdue=1", "/patterns/dns-failure/feed.atom"} {
		if f := fetchAtom(t, c.h, path); len(f.Entries) != 0 {
			t.Errorf("%s has %d entries, want none", path, len(f.Entries))
		}
	}
}

// A feed reader that sends back the ETag it has gets 304 and no body while
// the feed is unchanged, and the new feed once a postmortem changes it.
func TestFeedsAnswerConditionalGets(t *testing.T) {
	t.Parallel()
	h, st := newApp(t)
	conditional := func(path, etag string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		r := httptest.NewRequest(http.MethodGet, path, nil)
		r.Header.Set("If-None-Match", etag)
		h.ServeHTTP(rec, r)
		return rec
	}
	for _, path := range []string{"/feed.atom", "/patterns/feedback-loop/feed.atom", "/action-items/feed.atom"} {
		first := get(t, h, path)
		etag := first.Header().Get("ETag")
		if first.Code != http.StatusOK || etag == "" {
			t.Fatalf("GET %s: %d with ETag %q, want 200 with one", path, first.Code, etag)
		}
		if again := get(t, h, path); again.Header().Get("ETag") != etag || again.Body.String() != first.Body.String() {
			t.Errorf("GET %s twice: ETag %q then %q", path, etag, again.Header().Get("ETag"))
		}
		if rec := conditional(path, etag); rec.Code != http.StatusNotModified || rec.Body.Len() != 0 {
			t.Errorf("GET %s with its ETag: %d with %d bytes, want 304 and none", path, rec.Code, rec.Body.Len())
		}
		if rec := conditional(path, `"something-else"`); rec.Code != http.StatusOK || rec.Body.String() != first.Body.String() {
			t.Errorf("GET %s with another ETag: %d, want 200 and the feed", path, rec.Code)
		}
	}

	etag := get(t, h, "/feed.atom").Header().Get("ETag")
	p := store.Postmortem{
		Content: postmortem.Content{
			Title:        "Feedback loop in the cache fill",
			Summary:      "A cache fill retried into itself.",
			Organization: "Acme",
			Tags:         []store.Tag{{PatternSlug: "feedback-loop", Role: "amplifier"}},
		},
	}
	if err := st.CreatePostmortem(t.Context(), &p); err != nil {
		t.Fatal(err)
	}
	rec := conditional("/feed.atom", etag)
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "Feedback loop in the cache fill") {
		t.Errorf("after a new postmortem, GET /feed.atom with the old ETag: %d, want 200 with the new entry", rec.Code)
	}
	if rec.Header().Get("ETag") == etag {
		t.Error("the feed changed and kept its ETag")
	}
}

// The feeds are linked where a reader sees them, not only in <head>: the
// home page, the lists and a pattern's page.
func TestFeedsLinkedFromPages(t *testing.T) {
	t.Parallel()
	h, _ := newApp(t)
	for path, feed := range map[string]string{
		"/":                     "/feed.atom",
		"/postmortems":          "/feed.atom",
		"/action-items":         "/action-items/feed.atom?overdue=1",
		"/patterns/retry-storm": "/patterns/retry-storm/feed.atom",
	} {
		body := get(t, h, path).Body.String()
		head, main, _ := strings.Cut(body, "<main")
		if !strings.Contains(head, `<link rel="alternate" type="application/atom+xml"`) || !strings.Contains(head, `href="`+feed+`"`) {
			t.Errorf("%s does not name %s in its head", path, feed)
		}
		if !strings.Contains(main, `<a href="`+feed+`"`) {
			t.Errorf("%s shows no link to %s", path, feed)
		}
	}
}
