package handlers_test

import (
	"strings"
	"testing"

	"hindsight/postmortem"
	"hindsight/store"
)

// A write-up's own headings sit under the page's "The write-up" h2 whatever
// level the writer chose, carry ids no other section can take, and are
// listed in the table of contents.
func TestPostmortemTableOfContents(t *testing.T) {
	t.Parallel()
	h, st := newApp(t)
	p := store.Postmortem{
		Content: postmortem.Content{
			Title:    "TOC probe",
			Summary:  "TOC probe",
			Language: "en",
			Body:     "# What happened\n\nText.\n\n## Detail\n\nMore.\n\n# What we *changed*\n\nEnd.",
			Sections: postmortem.Sections{
				Timeline: "# What happened\n\n- 10:00 page",
			},
		},
		Slug: "toc-probe",
	}
	if err := st.CreatePostmortem(t.Context(), &p); err != nil {
		t.Fatal(err)
	}
	rec := get(t, h, "/postmortems/toc-probe")
	if rec.Code != 200 {
		t.Fatalf("status %d", rec.Code)
	}
	body := rec.Body.String()
	for _, want := range []string{
		`<h3 id="writeup-what-happened">What happened</h3>`,
		`<h4 id="writeup-detail">Detail</h4>`,
		`<h3 id="writeup-what-we-changed">What we <em>changed</em></h3>`,
		`<h3 id="timeline-what-happened">What happened</h3>`,
		`<a href="#writeup-what-happened">What happened</a>`,
		`<a href="#writeup-what-we-changed">What we changed</a>`,
		`<a href="#section-timeline">Timeline</a>`,
		`<a href="#actions-heading">Action items</a>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	for _, bad := range []string{"<h1 id=\"what-happened\"", `href="#writeup-detail"`} {
		if strings.Contains(body, bad) {
			t.Errorf("page has %s", bad)
		}
	}
}

// Link previews get a page's description as short plain text: no Markdown
// syntax, cut at a word.
func TestDescriptionIsShortPlainText(t *testing.T) {
	t.Parallel()
	h, _ := newApp(t)
	for _, path := range []string{"/patterns/feedback-loop", "/postmortems/facebook-2010-09-23-outage"} {
		body := get(t, h, path).Body.String()
		_, rest, ok := strings.Cut(body, `<meta name="description" content="`)
		if !ok {
			t.Fatalf("%s has no description", path)
		}
		desc, _, _ := strings.Cut(rest, `"`)
		if n := len([]rune(desc)); n > 210 || n < 80 {
			t.Errorf("%s: description is %d characters: %q", path, n, desc)
		}
		if strings.ContainsAny(desc, "*[]") || strings.Contains(desc, "](") {
			t.Errorf("%s: description has Markdown in it: %q", path, desc)
		}
		if !strings.HasSuffix(desc, "…") {
			t.Errorf("%s: a cut description should end with …: %q", path, desc)
		}
	}
}
