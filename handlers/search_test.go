package handlers_test

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
)

func TestSearchPage(t *testing.T) {
	t.Parallel()
	h, _ := newApp(t)
	for _, tt := range []struct {
		query   string
		want    []string
		notWant []string
	}{
		{"", []string{"How to search", `<details class="search-help" open>`, "Type a few words"}, []string{"incidents for", "Nothing matches"}},
		{"keep-alive", []string{
			"1 incident for", "Tonight&#39;s site interruptions", "<mark>Keep-alive</mark>",
			`href="/search?q=%22keep-alive%22&#43;org%3ADreamwidth"`, `value="keep-alive"`, "How to search",
		}, []string{`<details class="search-help" open>`}},
		{"retry storm", []string{"Failure pattern", `<a href="/patterns/retry-storm">Retry storm</a>`, "More Details on Today&#39;s Outage"}, nil},
		{"bucle de realimentación", []string{"Más detalles sobre la caída de hoy", "Matched version: Español translation", "<mark>realimentación</mark>"}, nil},
		{"health checks failing -gmail", []string{"Tonight&#39;s site interruptions", "<mark>health</mark>"}, []string{`<h2 class="card-title"><a href="/postmortems/gmail-2009-09-01-request-router-overload">`}},
		// Search that forgives: synonyms, the pattern a phrase starts, any word.
		{"connection pool", []string{`<a href="/patterns/connection-exhaustion">Connection exhaustion</a>`, "Tagged with it", "Tonight&#39;s site interruptions"}, []string{"Nothing matches"}},
		// config's synonyms include the Spanish configuración (as words, not
		// stems): the Facebook incident is matched best by its Spanish version.
		{"config", []string{"Más detalles sobre la caída de hoy", "Matched version: Español translation", "<mark>configuración</mark>",
			"<mark>configuration</mark>", "Also searched: <em>config</em> as <em>configuration</em>"}, []string{"Nothing matches"}},
		{"cert", []string{`<a href="/patterns/certificate-expiry">Certificate expiry</a>`}, nil},
		{"postgres", []string{"No incident has all of the words", "<strong>any of them</strong> or what they are a kind of (<em>database</em>",
			"More Details on Today&#39;s Outage", "<mark>database</mark>"}, []string{"Nothing matches"}},
		{"keep-alive apache zebra", []string{"No incident has all of the words", "Tonight&#39;s site interruptions"}, nil},
		{"org:Facebook", []string{`aria-current="true"`, `href="/search?q="`, "More Details on Today&#39;s Outage"}, []string{"Tonight&#39;s site interruptions"}},
		{`"unbalanced`, []string{"ignored unbalanced quote", "Nothing matches"}, []string{"these have <strong>any of them"}},
		// The fallback to any word found nothing either: no notice of results that have any of them.
		{"zebra quokka", []string{"0 incidents for", "Nothing matches"}, []string{"No incident has all of the words", "these have <strong>any of them"}},
		{"OR", []string{"OR is not an operator here"}, nil},
		{"<script>alert(1)</script>", []string{"&lt;script&gt;"}, []string{"<script>alert"}},
	} {
		t.Run(tt.query, func(t *testing.T) {
			rec := get(t, h, "/search?q="+url.QueryEscape(tt.query))
			if rec.Code != 200 {
				t.Fatalf("status = %d, want 200", rec.Code)
			}
			body := rec.Body.String()
			mustContain(t, body, tt.want...)
			mustNotContain(t, body, tt.notWant...)
		})
	}
}

func TestSearchPagination(t *testing.T) {
	t.Parallel()
	h, _ := newApp(t)
	rec := get(t, h, "/search?q=pattern:feedback-loop&page=5")
	if rec.Code != 200 {
		t.Fatalf("status = %d", rec.Code)
	}
	if body := rec.Body.String(); !strings.Contains(body, "2 incidents") || !strings.Contains(body, "No more results on this page") {
		t.Errorf("page 5 of 1 does not say so:\n%s", body)
	}
}

func TestSearchBoxOnEveryPage(t *testing.T) {
	t.Parallel()
	h, _ := newApp(t)
	for _, path := range []string{"/", "/postmortems", "/patterns/feedback-loop", "/search?q=x", "/nope"} {
		body := get(t, h, path).Body.String()
		for _, w := range []string{`action="/search"`, "data-search-box", `src="/static/js/search.js?v=`} {
			if !strings.Contains(body, w) {
				t.Errorf("%s lacks %q", path, w)
			}
		}
	}
	if rec := get(t, h, "/static/js/search.js"); rec.Code != 200 || !strings.Contains(rec.Body.String(), "/api/search") {
		t.Errorf("search.js: status %d", rec.Code)
	}
}

func TestSearchOddInputNever500(t *testing.T) {
	t.Parallel()
	h, _ := newApp(t)
	for _, q := range []string{
		`"`, `""`, "*", "-", "--x", "AND", "NOT x", "NEAR(", "a OR b", "title:x", "{a b}: c", "^x", "x:", "org:", `org:"`,
		"year:abc", "lang:zz", "sev:", "pattern:nope", "'; DROP TABLE postmortems; --", "%", "\x00", "\xff", "🔥",
		strings.Repeat("retry storm ", 900), strings.Repeat("x", 10_000),
		"数", "数据库 인증서 証明書", strings.Repeat("db k8s 连接池 ", 40), "tenant's", "’s", "config*", `"postgres`,
	} {
		for _, path := range []string{"/search?q=", "/api/search?q=", "/search?typing=1&q=", "/api/search?typing=1&q="} {
			if rec := get(t, h, path+url.QueryEscape(q)+"&page=999999"); rec.Code != 200 {
				t.Errorf("%s%.30q: status %d", path, q, rec.Code)
			}
			if rec := get(t, h, path+url.QueryEscape(q)); rec.Code != 200 {
				t.Errorf("%s%.30q: status %d", path, q, rec.Code)
			}
		}
	}
	for _, raw := range []string{"/search?page=-1", "/search?page=x&q=retry", "/api/search?limit=-5&q=retry", "/api/search?limit=1000000&q=retry", "/search?q=%zz"} {
		if rec := get(t, h, raw); rec.Code != 200 && rec.Code != 400 {
			t.Errorf("%s: status %d", raw, rec.Code)
		}
	}
}

func TestAPISearch(t *testing.T) {
	t.Parallel()
	h, _ := newApp(t)
	rec := get(t, h, "/api/search?q="+url.QueryEscape("health checks failing"))
	if rec.Code != 200 {
		t.Fatalf("status = %d", rec.Code)
	}
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type = %q", ct)
	}
	var out struct {
		Query string `json:"query"`
		Items []struct {
			Slug         string `json:"slug"`
			Title        string `json:"title"`
			Snippet      string `json:"snippet"`
			SnippetParts []struct {
				Text string `json:"text"`
				Mark bool   `json:"mark"`
			} `json:"snippet_parts"`
			Score     float64 `json:"score"`
			Language  string  `json:"language"`
			Canonical bool    `json:"canonical"`
			URL       string  `json:"url"`
		} `json:"items"`
		Facets map[string][]struct {
			Value, Label string
			Count        int
		} `json:"facets"`
		Total    int `json:"total"`
		Patterns []struct {
			Slug        string
			Postmortems []struct{ Slug, URL string }
		} `json:"patterns"`
		AnyWords bool `json:"any_words"`
		AllWords int  `json:"all_words"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	// One incident has all three words; with fewer than three, the others
	// with any of them follow it.
	if out.Total < 2 || len(out.Items) != out.Total || !out.AnyWords || out.AllWords != 1 {
		t.Fatalf("total = %d, items = %d, any_words %v, all_words %d; want 1 with all the words and more", out.Total, len(out.Items), out.AnyWords, out.AllWords)
	}
	it := out.Items[0]
	if it.Slug != "dreamwidth-2020-05-25-site-interruptions" || it.Title != "Tonight's site interruptions" ||
		it.Language != "en" || !it.Canonical || it.URL != "/postmortems/"+it.Slug {
		t.Errorf("item = %+v", it)
	}
	if it.Score <= 0 || !strings.Contains(it.Snippet, "health checks") {
		t.Errorf("score = %v, snippet = %q", it.Score, it.Snippet)
	}
	marked := 0
	for _, p := range it.SnippetParts {
		if p.Mark {
			marked++
		}
	}
	if marked == 0 {
		t.Error("no part of the snippet is marked")
	}
	for _, key := range []string{"pattern", "org", "year", "lang", "sev"} {
		if _, ok := out.Facets[key]; !ok {
			t.Errorf("facets lack %q", key)
		}
	}
	if f := out.Facets["org"]; len(f) != out.Total || !strings.Contains(rec.Body.String(), `"value": "Dreamwidth"`) {
		t.Errorf("org facet = %+v", f)
	}
	if len(out.Patterns) != 1 || out.Patterns[0].Slug != "health-check-death-spiral" || len(out.Patterns[0].Postmortems) == 0 {
		t.Errorf("patterns = %+v, want health-check-death-spiral with its postmortems", out.Patterns)
	}

	t.Run("Limit", func(t *testing.T) {
		var page struct {
			Items []json.RawMessage `json:"items"`
			Total int               `json:"total"`
			Pages int               `json:"pages"`
		}
		rec := get(t, h, "/api/search?limit=1&q=pattern:feedback-loop")
		if err := json.Unmarshal(rec.Body.Bytes(), &page); err != nil {
			t.Fatal(err)
		}
		if len(page.Items) != 1 || page.Total != 2 || page.Pages != 2 {
			t.Errorf("items %d, total %d, pages %d; want 1, 2, 2", len(page.Items), page.Total, page.Pages)
		}
	})
	t.Run("Empty", func(t *testing.T) {
		rec := get(t, h, "/api/search")
		if !strings.Contains(rec.Body.String(), `"items": []`) || !strings.Contains(rec.Body.String(), `"total": 0`) {
			t.Errorf("empty query: %s", rec.Body.String())
		}
	})
}
