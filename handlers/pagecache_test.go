package handlers_test

import (
	"net/http"
	"os"
	"strings"
	"testing"

	"hindsight/postmortem"
	"hindsight/store"
)

// TestCachedPagesHoldNothingOfTheirReader requests every cached route
// (read from routes.go: a route newly wrapped in h.cached is covered, and
// fails here if it cannot be requested) first as reader A, then as reader
// B, who must get nothing of A's: A's name, email or token, the postmortems
// restricted to A's group, or the controls of A's role. A is known in each
// way the app knows readers: a sign-in proxy (name, email, groups), an API
// token, and the name cookie of the none mode.
func TestCachedPagesHoldNothingOfTheirReader(t *testing.T) {
	t.Parallel()
	routes := cachedRoutes(t)
	src, err := os.ReadFile("routes.go")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(src), "h.cached("); n != len(routes) {
		t.Fatalf("routes.go wraps %d handlers in h.cached but %d are written r.Get(\"…\", h.cached(…)): write the others so, for this test to cover them", n, len(routes))
	}
	const secret = "Quokka vault breach"
	restrictedMarkers := []string{secret, "Quokkacorp", "Rotate the quokka keys"}
	controls := []string{`href="/audit"`, `href="/admin/tokens"`, `href="/import"`, `href="/postmortems/new"`}
	names := []string{"zebrafinch", "Zebrafinch", "zebra-token"}

	h, st := newTeamApp(t)
	ctx := store.WithReaderGroups(t.Context(), []string{"vault"})
	p := store.Postmortem{
		Content: postmortem.Content{
			Title:        secret,
			Organization: "Quokkacorp",
			IncidentDate: "2017-02-28",
			Severity:     "SEV1",
			Summary:      "Overload in the quokka vault.",
			Body:         "The vault overloaded: a feedback loop of retries.",
			Tags:         []store.Tag{{PatternSlug: "feedback-loop", Role: postmortem.RoleTrigger}},
		},
		RestrictedTo: []string{"vault"},
		ActionItems:  []store.ActionItem{{Title: "Rotate the quokka keys", Kind: "prevent", Priority: "P1", Status: "open"}},
	}
	if err := st.CreatePostmortem(ctx, &p); err != nil {
		t.Fatal(err)
	}
	_, token, err := st.CreateToken(t.Context(), "zebra-token", "admin", "test")
	if err != nil {
		t.Fatal(err)
	}
	paths := func(route string) []string {
		out := []string{concrete(route)}
		switch {
		case strings.Contains(route, "/postmortems/{slug}"):
			out = append(out, strings.ReplaceAll(route, "{slug}", p.Slug))
		case route == "/search":
			out = append(out, "/search?q=quokka", "/search?q=feedback+loop")
		case route == "/postmortems":
			out = append(out, "/postmortems?year=2017", "/postmortems?pattern=feedback-loop")
		}
		return out
	}
	bob := person{"bob", "staff"}
	seen := map[string]bool{}
	check := func(t *testing.T, path string, bCode int, aBody, bBody string) {
		t.Helper()
		for _, m := range append(append(restrictedMarkers, controls...), names...) {
			if strings.Contains(aBody, m) {
				seen[m] = true
			}
		}
		if bCode != http.StatusOK && bCode != http.StatusNotFound {
			t.Errorf("%s as B: %d", path, bCode)
		}
		mustNotContainIn(t, path+" as B after A", bBody, append(append(restrictedMarkers, controls...), names...)...)
	}

	t.Run("Proxy", func(t *testing.T) {
		alice := person{"alice-zebrafinch", "admins, vault"}
		for _, route := range routes {
			for _, path := range paths(route) {
				a := as(t, h, alice, "GET", path, nil, "X-Forwarded-Email", "alice@zebrafinch.example")
				if a.Code != http.StatusOK {
					t.Fatalf("%s as A: %d", path, a.Code)
				}
				b := as(t, h, bob, "GET", path, nil)
				check(t, path, b.Code, a.Body.String(), b.Body.String())
			}
		}
		for _, m := range append(restrictedMarkers, controls...) {
			if !seen[m] {
				t.Errorf("no cached page showed A %q: the test checks nothing for it", m)
			}
		}
	})
	t.Run("Token", func(t *testing.T) {
		for _, route := range routes {
			for _, path := range paths(route) {
				a := as(t, h, person{}, "GET", path, nil, "Authorization", "Bearer "+token)
				if a.Code != http.StatusOK && !strings.Contains(path, p.Slug) {
					t.Fatalf("%s with A's token: %d", path, a.Code)
				}
				b := as(t, h, bob, "GET", path, nil)
				check(t, path, b.Code, a.Body.String(), b.Body.String())
			}
		}
	})
	t.Run("NameCookie", func(t *testing.T) {
		h, _ := newApp(t)
		alice := &http.Cookie{Name: "hindsight_author", Value: "Alice%20Zebrafinch"}
		for _, route := range routes {
			path := concrete(route)
			a := send(t, h, "GET", path, nil, alice)
			b := send(t, h, "GET", path, nil)
			if a.Code != http.StatusOK || b.Code != http.StatusOK {
				t.Fatalf("%s: %d, %d", path, a.Code, b.Code)
			}
			// The kept page holds no name at all, not even for A, who
			// gets the shared page too.
			mustNotContainIn(t, path+" as A", a.Body.String(), names...)
			mustNotContainIn(t, path+" without a name after A", b.Body.String(), names...)
		}
	})
}
