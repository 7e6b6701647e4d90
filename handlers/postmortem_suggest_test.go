package handlers_test

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// dreamwidthForm is a create form holding the Dreamwidth write-up, with no
// pattern ticked and no name given yet: suggestions need neither.
func dreamwidthForm(t *testing.T, kv ...string) url.Values {
	t.Helper()
	v := url.Values{"title": {"Site interruptions"}, "language": {"en"}, "time_zone": {"UTC"},
		"body": {seedDocument(t, "003_d02c9b3c5e33dc49.txt")}}
	return with(v, kv...)
}

func TestFormSuggestsPatternsWithoutSaving(t *testing.T) {
	t.Parallel()
	h, st := newApp(t)
	rec := postForm(t, h, "/postmortems/new/suggest", dreamwidthForm(t))
	if rec.Code != http.StatusOK {
		t.Fatalf("status = %d, want 200; body:\n%.2000s", rec.Code, rec.Body)
	}
	body := rec.Body.String()
	mustContain(t, body,
		`<button type="submit" formaction="/postmortems/new/suggest"`,
		"Connection exhaustion", "Health check death spiral",
		`<mark>keep-alive</mark>`, // the evidence, highlighted
		`name="accept" value="connection-exhaustion:amplifier"`,
		`name="reject" value="connection-exhaustion"`,
		// the stored Dreamwidth postmortem is the same text
		`name="link_variant" value="dreamwidth-2020-05-25-site-interruptions:rewrite"`,
	)
	mustNotContain(t, body, "Check the form", `class="field-error"`)
	if _, n, _ := st.CountPostmortems(t.Context()); n != 5 {
		t.Errorf("%d postmortems after suggesting, want the 5 seeds: nothing is saved", n)
	}
}

func TestFormAcceptRejectAndSave(t *testing.T) {
	t.Parallel()
	h, st := newApp(t)
	// Accept: the pattern is ticked in the form, nothing is saved.
	rec := postForm(t, h, "/postmortems/new/accept", dreamwidthForm(t, "accept", "connection-exhaustion:amplifier"))
	if rec.Code != http.StatusOK {
		t.Fatalf("accept: status = %d; body:\n%.2000s", rec.Code, rec.Body)
	}
	mustContain(t, rec.Body.String(), `value="connection-exhaustion:amplifier" checked`, "Accepted: ticked below as Amplifier.")

	// Reject: recorded with its phrases, and carried so it stays away.
	rec = postForm(t, h, "/postmortems/new/reject", dreamwidthForm(t, "reject", "traffic-surge", "tags", "connection-exhaustion:amplifier"))
	if rec.Code != http.StatusOK {
		t.Fatalf("reject: status = %d; body:\n%.2000s", rec.Code, rec.Body)
	}
	body := rec.Body.String()
	mustContain(t, body, `<input type="hidden" name="rejected" value="traffic-surge">`, `value="connection-exhaustion:amplifier" checked`)
	mustNotContain(t, body, `name="accept" value="traffic-surge:`)
	rej, err := st.ListRejections(t.Context(), "traffic-surge", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(rej) != 1 || rej[0].Title != "Site interruptions" || rej[0].PostmortemSlug != "" || !slices.Contains(rej[0].Phrases, "lots of people trying to") {
		t.Fatalf("rejections = %+v, want the draft's traffic-surge with its phrase", rej)
	}
	// The pattern page shows it beside the words that suggest the pattern.
	mustContain(t, get(t, h, "/patterns/traffic-surge").Body.String(), "Suggestions of this pattern that writers turned down",
		"Site interruptions <span class=\"meta\">(a draft, not saved)</span>", "matched “lots of people trying to”")
	mustNotContain(t, get(t, h, "/patterns/retry-storm").Body.String(), "writers turned down")
	// Suggesting again with the rejection carried records nothing new.
	v := dreamwidthForm(t, "rejected", "traffic-surge")
	if rec := postForm(t, h, "/postmortems/new/suggest", v); rec.Code != http.StatusOK {
		t.Fatalf("status = %d", rec.Code)
	}
	if rej, _ := st.ListRejections(t.Context(), "", 0); len(rej) != 1 {
		t.Errorf("%d rejections, want 1", len(rej))
	}

	// Save: accepted patterns are the postmortem's tags.
	save := dreamwidthForm(t, "save", "save", "author", "Mark", "summary", "Apache workers tied up by keep-alive.",
		"tags", "connection-exhaustion:amplifier")
	p := follow(t, h, postForm(t, h, "/postmortems", save))
	if p.Code != http.StatusOK {
		t.Fatalf("after save: status = %d", p.Code)
	}
	got, err := st.GetPostmortem(t.Context(), "site-interruptions")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Tags) != 1 || got.Tags[0].PatternSlug != "connection-exhaustion" || got.Tags[0].Role != "amplifier" {
		t.Errorf("tags = %+v, want connection-exhaustion as amplifier", got.Tags)
	}
}

func TestFormLinkSuggestedVariant(t *testing.T) {
	t.Parallel()
	h, _ := newApp(t)
	v := url.Values{"title": {"Facebook outage"}, "language": {"en"}, "time_zone": {"UTC"},
		"body": {seedDocument(t, "001_06b369280e90b647.txt")}, "link_variant": {"facebook-2010-09-23-outage:rewrite"}}
	rec := postForm(t, h, "/postmortems/new/link-variant", v)
	if rec.Code != http.StatusOK {
		t.Fatalf("status = %d; body:\n%.2000s", rec.Code, rec.Body)
	}
	mustContain(t, rec.Body.String(),
		`name="variant_of" type="text" value="facebook-2010-09-23-outage"`,
		`name="variant_kind" value="rewrite" checked`,
		"Chosen below as the postmortem this is a variant of.")
}

func TestEditFormSuggestionsRecordThePostmortem(t *testing.T) {
	t.Parallel()
	h, st := newApp(t)
	slug := "gmail-2009-09-01-request-router-overload"
	p, err := st.GetPostmortem(t.Context(), slug)
	if err != nil {
		t.Fatal(err)
	}
	v := url.Values{"title": {p.Title}, "language": {"en"}, "time_zone": {"UTC"}, "summary": {p.Summary}, "body": {p.Body},
		"version": {"1"}, "reject": {"bad-deploy"}}
	rec := postForm(t, h, "/postmortems/"+slug+"/edit/reject", v)
	if rec.Code != http.StatusOK {
		t.Fatalf("status = %d; body:\n%.2000s", rec.Code, rec.Body)
	}
	// Its own variant group is not offered back to it.
	mustNotContain(t, rec.Body.String(), `name="link_variant" value="`+slug)
	rej, err := st.ListRejections(t.Context(), "bad-deploy", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(rej) != 1 || rej[0].PostmortemSlug != slug {
		t.Errorf("rejections = %+v, want one for %s", rej, slug)
	}
	if again, _ := st.GetPostmortem(t.Context(), slug); again.Version != p.Version {
		t.Errorf("version %d after suggesting, want %d: nothing is saved", again.Version, p.Version)
	}
}

// TestFormStepsHaveTheirOwnRoutes: each step of the postmortem form that
// saves nothing posts to its own route, on the create and the edit form
// and the import review. The form's own URL only saves: the same step
// named there the old way (action=…, accept=…) is a save, refused here
// for want of a name (422), not the step; neither saves anything.
func TestFormStepsHaveTheirOwnRoutes(t *testing.T) {
	t.Parallel()
	h, st := newApp(t)
	const gmail = "gmail-2009-09-01-request-router-overload"
	p, err := st.GetPostmortem(t.Context(), gmail)
	if err != nil {
		t.Fatal(err)
	}
	edit := url.Values{"title": {p.Title}, "language": {"en"}, "time_zone": {"UTC"}, "summary": {p.Summary}, "body": {p.Body}, "version": {"1"}}
	review := postForm(t, h, "/import", url.Values{"text": {certImport}}).Body.String()
	imported := dreamwidthForm(t, "source", base64.StdEncoding.EncodeToString([]byte(certImport)), "filename", "")
	for _, form := range []struct {
		name, page, url, jobs string
		values                url.Values
	}{
		{"Create", get(t, h, "/postmortems/new").Body.String(), "/postmortems", "/postmortems/new", dreamwidthForm(t)},
		{"Edit", get(t, h, "/postmortems/"+gmail+"/edit").Body.String(), "/postmortems/" + gmail + "/edit", "/postmortems/" + gmail + "/edit", edit},
		{"Import", review, "/import/save", "/import", imported},
	} {
		page := form.page
		for _, tt := range []struct {
			step, legacy, value string
			want                string // in the answer
		}{
			{"preview", "action", "preview", `class="preview`},
			{"rows", "action", "rows", `id="f-timeline-time-7"`},
			{"suggest", "action", "suggest", `name="accept" value="`},
			{"accept", "accept", "connection-exhaustion:amplifier", `value="connection-exhaustion:amplifier" checked`},
			{"reject", "reject", "traffic-surge", `<input type="hidden" name="rejected" value="traffic-surge">`},
			{"link-variant", "link_variant", "facebook-2010-09-23-outage:rewrite", `name="variant_of" type="text" value="facebook-2010-09-23-outage"`},
		} {
			if form.name == "Import" && tt.step == "preview" {
				continue // the review has no preview: what is imported is shown beside the form
			}
			t.Run(form.name+"/"+tt.step, func(t *testing.T) {
				v := with(form.values, "rejected", "bad-deploy")
				rec := postForm(t, h, form.jobs+"/"+tt.step, with(v, tt.legacy, tt.value))
				if rec.Code != http.StatusOK {
					t.Fatalf("POST %s/%s: %d\n%.1000s", form.jobs, tt.step, rec.Code, rec.Body)
				}
				mustContain(t, rec.Body.String(), tt.want)
				mustNotContain(t, rec.Body.String(), "Check the form")
				old := postForm(t, h, form.url, with(v, tt.legacy, tt.value))
				if old.Code != http.StatusUnprocessableEntity || !strings.Contains(old.Body.String(), "Check the form") {
					t.Errorf("POST %s with %s=%s answers %d, want the save's 422 (the field names no step)", form.url, tt.legacy, tt.value, old.Code)
				}
				if tt.step != "rows" { // the saved form shows its blank rows anyway
					mustNotContain(t, old.Body.String(), tt.want)
				}
			})
		}
		if (form.name != "Import" && !strings.Contains(page, `formaction="`+form.jobs+`/preview"`)) || !strings.Contains(page, `formaction="`+form.jobs+`/suggest"`) ||
			!strings.Contains(page, `formaction="`+form.jobs+`/rows"`) || strings.Contains(page, `name="action"`) {
			t.Errorf("%s form: the buttons do not post to their own routes", form.name)
		}
	}
	if _, n, _ := st.CountPostmortems(t.Context()); n != 5 {
		t.Errorf("%d postmortems after the steps, want the 5 seeds: nothing is saved", n)
	}
	if again, _ := st.GetPostmortem(t.Context(), gmail); again.Version != p.Version {
		t.Errorf("version %d after the steps, want %d", again.Version, p.Version)
	}
}

// A suggestion can be accepted in any role, not only the one it came
// with: each other role has its button, and the accepted one is said.
func TestFormAcceptsASuggestionInAnyRole(t *testing.T) {
	t.Parallel()
	h, _ := newApp(t)
	body := postForm(t, h, "/postmortems/new/suggest", dreamwidthForm(t)).Body.String()
	mustContain(t, body, `name="accept" value="connection-exhaustion:amplifier"`, "Accept in another role",
		`name="accept" value="connection-exhaustion:trigger"`, "As Trigger")
	rec := postForm(t, h, "/postmortems/new/accept", dreamwidthForm(t, "accept", "connection-exhaustion:trigger"))
	if rec.Code != http.StatusOK {
		t.Fatalf("accept as trigger: status = %d", rec.Code)
	}
	mustContain(t, rec.Body.String(), `value="connection-exhaustion:trigger" checked`, "Accepted: ticked below as Trigger.")
}

// TestRejectionOutlastsEdits: a suggestion rejected on a saved postmortem
// stays rejected on its later edits, an edit of other text saved in
// between, while the same sentences show it; once a sentence of its
// evidence is edited it is offered again.
func TestRejectionOutlastsEdits(t *testing.T) {
	t.Parallel()
	h, st := newApp(t)
	const slug = "gmail-2009-09-01-request-router-overload"
	p, err := st.GetPostmortem(t.Context(), slug)
	if err != nil {
		t.Fatal(err)
	}
	form := func(version string, kv ...string) url.Values {
		v := url.Values{"title": {p.Title}, "language": {"en"}, "time_zone": {"UTC"}, "summary": {p.Summary},
			"body": {p.Body}, "version": {version}, "author": {"Mark"}}
		for _, tg := range p.Tags {
			if tg.PatternSlug != "maintenance-triggered" { // the one to suggest
				v.Add("tags", tg.PatternSlug+":"+tg.Role)
			}
		}
		return with(v, kv...)
	}
	const offered = `name="accept" value="maintenance-triggered:`
	suggest := func(v url.Values) string {
		t.Helper()
		rec := postForm(t, h, "/postmortems/"+slug+"/edit/suggest", v)
		if rec.Code != http.StatusOK {
			t.Fatalf("suggest: status = %d; body:\n%.2000s", rec.Code, rec.Body)
		}
		return rec.Body.String()
	}
	if body := suggest(form("1")); !strings.Contains(body, offered) {
		t.Fatal("maintenance-triggered is not suggested for the Gmail postmortem")
	}
	if rec := postForm(t, h, "/postmortems/"+slug+"/edit/reject", form("1", "reject", "maintenance-triggered")); rec.Code != http.StatusOK {
		t.Fatalf("reject: status = %d", rec.Code)
	}
	rej, err := st.ListRejections(t.Context(), "maintenance-triggered", 0)
	if err != nil || len(rej) != 1 || len(rej[0].Phrases) == 0 {
		t.Fatalf("rejections = %+v, %v; want one with its phrases", rej, err)
	}

	// A later edit, the rejection no longer carried by the form.
	body := suggest(form("1"))
	mustNotContain(t, body, offered)
	mustContain(t, body, `<input type="hidden" name="rejected" value="maintenance-triggered">`)

	// Other text edited and saved: still rejected.
	if rec := postForm(t, h, "/postmortems/"+slug+"/edit", form("1", "title", p.Title+" (edited)")); rec.Code != http.StatusSeeOther {
		t.Fatalf("save: status = %d; body:\n%.2000s", rec.Code, rec.Body)
	}
	p.Title += " (edited)"
	mustNotContain(t, suggest(form("2")), offered)

	// The evidence edited: offered again.
	phrase := rej[0].Phrases[0]
	edited := strings.Replace(p.Body, phrase, "as we now know, "+phrase, 1)
	summary := strings.Replace(p.Summary, phrase, "as we now know, "+phrase, 1)
	if edited == p.Body && summary == p.Summary {
		t.Fatalf("%q is in neither the summary nor the body", phrase)
	}
	mustContain(t, suggest(form("2", "body", edited, "summary", summary)), offered)
}
