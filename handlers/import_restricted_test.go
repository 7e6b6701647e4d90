package handlers_test

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"hindsight/library"
	"hindsight/postmortem"
	"hindsight/store"
)

// restrictedExport is a postmortem restricted to the group security,
// exported by a member from an instance with proxy sign-in: the Markdown
// a user downloads from /postmortems/{slug}.md.
func restrictedExport(t *testing.T) string {
	t.Helper()
	src, st := newTeamApp(t)
	p := store.Postmortem{
		Content: postmortem.Content{
			Title:        "Vault keys leaked through a retry storm",
			Organization: "Quokka Corp",
			IncidentDate: "2024-03-05",
			Severity:     "SEV1",
			Language:     "en",
			Summary:      "Keys for the vault leaked while clients retried without pause.",
			Tags:         []store.Tag{{PatternSlug: "retry-storm", Role: "trigger"}},
			Sections: postmortem.Sections{
				Impact: "Every key was rotated.",
			},
		},
		RestrictedTo: []string{"security"},
	}
	if err := library.New(st).ImportPostmortem(store.WithEveryGroup(t.Context()), &p); err != nil {
		t.Fatal(err)
	}
	rec := as(t, src, person{"sam", "security, sre"}, "GET", "/postmortems/"+p.Slug+".md", nil)
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "\nrestricted_to: security\n") {
		t.Fatalf("export: %d\n%s", rec.Code, rec.Body)
	}
	return rec.Body.String()
}

// TestImportRestrictedExport: an exported restricted postmortem pasted
// into /import shows its groups in the review form, with why they cannot
// be kept where they cannot; cleared, it is saved for everyone; with proxy
// sign-in a member keeps the group and an outsider is refused, their text
// kept.
func TestImportRestrictedExport(t *testing.T) {
	t.Parallel()
	md := restrictedExport(t)

	t.Run("Default", func(t *testing.T) {
		t.Parallel()
		h, st := newApp(t)
		rec := postForm(t, h, "/import", url.Values{"text": {md}})
		if rec.Code != http.StatusOK {
			t.Fatalf("review: %d\n%.2000s", rec.Code, rec.Body)
		}
		page := rec.Body.String()
		mustContain(t, page, `name="restricted_to"`, `value="security"`, "needs sign-in through a proxy", `href="#f-restricted_to"`,
			"The original is restricted to <strong>security</strong>", "clear the field to import it for everyone to read")
		form := formValues(page, "/import/save")
		if form.Get("restricted_to") != "security" {
			t.Fatalf("review form restricted_to = %q, want security", form.Get("restricted_to"))
		}
		form.Set("author", "Ana")

		// A review posted without the field (a script) keeps the groups.
		if rec := postForm(t, h, "/import/save", with(form, "restricted_to", "\x00delete")); rec.Code != http.StatusUnprocessableEntity {
			t.Errorf("save without the field: %d, want 422", rec.Code)
		}
		// Kept as it is: refused again, the user's text kept.
		form.Set("impact", "Every key was rotated, twice.")
		before := countPostmortems(t, st)
		rec = postForm(t, h, "/import/save", form)
		if rec.Code != http.StatusUnprocessableEntity {
			t.Fatalf("save restricted: %d, want 422", rec.Code)
		}
		page = rec.Body.String()
		mustContain(t, page, "needs sign-in through a proxy", `value="security"`, "Every key was rotated, twice.")
		if countPostmortems(t, st) != before {
			t.Error("a refused import stored something")
		}

		// Cleared: saved for everyone.
		form = formValues(page, "/import/save")
		form.Set("restricted_to", "")
		rec = postForm(t, h, "/import/save", form)
		if rec.Code != http.StatusSeeOther {
			t.Fatalf("save cleared: %d\n%.3000s", rec.Code, rec.Body)
		}
		slug := strings.TrimPrefix(rec.Header().Get("Location"), "/postmortems/")
		p, err := st.GetPostmortem(t.Context(), slug)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.RestrictedTo) != 0 || p.Impact != "Every key was rotated, twice." || p.SourceText != md {
			t.Errorf("saved restricted_to %v, impact %q, source kept %v", p.RestrictedTo, p.Impact, p.SourceText == md)
		}
		mustContain(t, follow(t, h, rec).Body.String(), "The original was restricted to security; this postmortem is for everyone to read.")
	})

	t.Run("Proxy", func(t *testing.T) {
		t.Parallel()
		h, st := newTeamApp(t)
		member, outsider := person{"sam", "security, sre"}, person{"ed", "staff, sre"}
		review := func(p person) url.Values {
			t.Helper()
			rec := as(t, h, p, "POST", "/import", url.Values{"text": {md}}, "Sec-Fetch-Site", "same-origin")
			if rec.Code != http.StatusOK {
				t.Fatalf("review as %s: %d\n%.2000s", p.name, rec.Code, rec.Body)
			}
			form := formValues(rec.Body.String(), "/import/save")
			if form.Get("restricted_to") != "security" {
				t.Fatalf("review as %s: restricted_to = %q, want security", p.name, form.Get("restricted_to"))
			}
			return form
		}

		before := countPostmortems(t, st)
		form := review(outsider)
		form.Set("summary", "Ed's own summary of the leak.")
		rec := as(t, h, outsider, "POST", "/import/save", form, "Sec-Fetch-Site", "same-origin")
		if rec.Code != http.StatusUnprocessableEntity {
			t.Fatalf("outsider's save: %d, want 422", rec.Code)
		}
		mustContain(t, rec.Body.String(), "Name at least one group you are in", "Ed&#39;s own summary of the leak.", `value="security"`)
		if countPostmortems(t, st) != before {
			t.Error("the outsider's refused import stored something")
		}

		rec = as(t, h, member, "POST", "/import/save", review(member), "Sec-Fetch-Site", "same-origin")
		if rec.Code != http.StatusSeeOther {
			t.Fatalf("member's save: %d\n%.3000s", rec.Code, rec.Body)
		}
		slug := strings.TrimPrefix(rec.Header().Get("Location"), "/postmortems/")
		p, err := st.GetPostmortem(store.WithEveryGroup(t.Context()), slug)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(p.RestrictedTo, []string{"security"}) {
			t.Errorf("saved restricted_to %v, want [security]", p.RestrictedTo)
		}
		if rec := as(t, h, outsider, "GET", "/postmortems/"+slug, nil); rec.Code != http.StatusNotFound {
			t.Errorf("outsider reads the import: %d, want 404", rec.Code)
		}
	})
}
