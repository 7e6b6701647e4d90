package handlers_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// TestAPIPatternSuggestedCount: /api/patterns/{slug} and /api/patterns
// count the postmortems the classifier suggested a pattern for, unreviewed,
// as the pattern's page does: apart from count, and without one the reader
// may not read.
func TestAPIPatternSuggestedCount(t *testing.T) {
	t.Parallel()
	h, st := newTeamApp(t)
	member := person{"sam", "security, sre"}
	outsider := person{"ed", "sre"}
	importAs := func(who person, doc string) {
		t.Helper()
		req := httptest.NewRequest(http.MethodPost, "/api/postmortems", strings.NewReader(doc))
		req.Header.Set("Content-Type", "text/markdown")
		if rec := serveAs(h, who, req); rec.Code != http.StatusCreated {
			t.Fatalf("import as %s: %d %s", who.name, rec.Code, rec.Body)
		}
	}
	importAs(outsider, certImport)
	restricted := strings.Replace(certImport, "title: Gateway certificate outage\n",
		"title: Vault gateway certificate outage\nrestricted_to: security\n", 1) + "\nThe vault's own gateway was down as well.\n"
	importAs(member, restricted)

	p, err := st.GetPostmortem(t.Context(), "gateway-certificate-outage")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Suggested) == 0 {
		t.Fatal("the import has no suggested tags")
	}
	slug := p.Suggested[0].PatternSlug

	type apiPattern struct {
		Slug           string `json:"slug"`
		Count          int    `json:"count"`
		SuggestedCount *int   `json:"suggested_count"`
	}
	for _, tt := range []struct {
		who  person
		want int
	}{{outsider, 1}, {member, 2}} {
		one := decode[apiPattern](t, as(t, h, tt.who, "GET", "/api/patterns/"+slug, nil))
		if one.SuggestedCount == nil || *one.SuggestedCount != tt.want {
			t.Errorf("%s: /api/patterns/%s suggested_count = %v, want %d", tt.who.name, slug, one.SuggestedCount, tt.want)
		}
		list := decode[struct{ Items []apiPattern }](t, as(t, h, tt.who, "GET", "/api/patterns", nil))
		for _, it := range list.Items {
			want := 0
			if it.Slug == slug {
				want = tt.want
			}
			if it.SuggestedCount == nil || it.Slug == slug && *it.SuggestedCount != want {
				t.Errorf("%s: /api/patterns item %s suggested_count = %v, want %d", tt.who.name, it.Slug, it.SuggestedCount, want)
			}
		}
		// The same figure as the pattern's page.
		page := as(t, h, tt.who, "GET", "/patterns/"+slug, nil).Body.String()
		if want := fmt.Sprintf("%d imported postmortem", tt.want); !strings.Contains(page, want) {
			t.Errorf("%s: /patterns/%s lacks %q", tt.who.name, slug, want)
		}
	}
	// Confirmed, the suggestion becomes a tag: counted in count, no more
	// in suggested_count.
	before := decode[apiPattern](t, as(t, h, outsider, "GET", "/api/patterns/"+slug, nil))
	rec := as(t, h, outsider, "POST", "/postmortems/gateway-certificate-outage/suggestions/"+slug+"/confirm", url.Values{}, "Sec-Fetch-Site", "same-origin")
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("confirm: %d", rec.Code)
	}
	after := decode[apiPattern](t, as(t, h, outsider, "GET", "/api/patterns/"+slug, nil))
	if after.Count != before.Count+1 || after.SuggestedCount == nil || *after.SuggestedCount != 0 {
		t.Errorf("after confirming: count %d (was %d), suggested_count %v; want %d and 0", after.Count, before.Count, after.SuggestedCount, before.Count+1)
	}

	// A pattern nobody was suggested for counts 0 (the field is always there).
	none := decode[apiPattern](t, as(t, h, outsider, "GET", "/api/patterns/dns-failure", nil))
	if none.SuggestedCount == nil || *none.SuggestedCount != 0 {
		t.Errorf("dns-failure: suggested_count = %v, want 0", none.SuggestedCount)
	}
}
