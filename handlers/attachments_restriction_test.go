package handlers_test

import (
	"net/http"
	"strings"
	"testing"
)

// putBody saves body (and who may read, when groups is not nil) over the
// postmortem at slug through the API, as p.
func putBody(t *testing.T, h http.Handler, p person, slug, body string, groups []string) {
	t.Helper()
	rec := record(t, h, p, slug)
	rec["body"] = body
	if groups != nil {
		rec["restricted_to"] = groups
	}
	if got := sendJSON(t, h, p, "PUT", "/api/postmortems/"+slug, mustJSON(t, rec)); got.Code != http.StatusOK {
		t.Fatalf("PUT %s: %d %.600s", slug, got.Code, got.Body)
	}
}

// TestAttachmentRestrictedWithItsPostmortem: an attachment of a
// restricted postmortem answers 404 to everyone outside its groups, as an
// attachment that does not exist, on every route (the file, the list, an
// upload), and is never kept by a shared cache. Its members read it, and
// its page draws it at its size. An attachment referenced only by
// versions saved while restricted stays restricted once the postmortem is
// opened (the redaction rule); one the opened version still shows opens
// with it.
func TestAttachmentRestrictedWithItsPostmortem(t *testing.T) {
	t.Parallel()
	h, _ := newTeamApp(t)
	member, outsider := person{"sam", "security, sre"}, person{"ed", "sre"}
	slug := importRestricted(t, h, member, "security")
	api := "/api/postmortems/" + slug + "/attachments"

	secret := decode[uploaded](t, upload(t, h, member, api, "exfil-graph.png", "image/png", graphPNG(t, 64, 40), "alt", "Bytes sent out"))
	kept := decode[uploaded](t, upload(t, h, member, api, "error-rate.png", "image/png", graphPNG(t, 80, 30), "alt", "Error rate"))
	if secret.ID == 0 || kept.ID == 0 {
		t.Fatalf("uploads: %+v %+v", secret, kept)
	}
	got := as(t, h, member, "GET", secret.URL, nil)
	if got.Code != 200 || !strings.HasPrefix(got.Header().Get("Cache-Control"), "private") {
		t.Errorf("the member reads it: %d, Cache-Control %q, want 200 private", got.Code, got.Header().Get("Cache-Control"))
	}
	unknown := as(t, h, outsider, "GET", "/attachments/999999/exfil-graph.png", nil)
	for _, who := range []person{outsider, viewer, admin} {
		for _, path := range []string{secret.URL, kept.URL, api} {
			if rec := as(t, h, who, "GET", path, nil); rec.Code != http.StatusNotFound || rec.Code != unknown.Code {
				t.Errorf("GET %s as %s: %d, want 404 as for nothing", path, who.name, rec.Code)
			} else if strings.Contains(rec.Body.String(), "Bytes sent out") {
				t.Errorf("GET %s as %s tells the name: %s", path, who.name, rec.Body)
			}
		}
	}
	if rec := upload(t, h, outsider, api, "x.png", "", graphPNG(t, 4, 4), "alt", "x"); rec.Code != http.StatusNotFound {
		t.Errorf("an outsider uploads: %d, want 404", rec.Code)
	}

	// Both shown in the restricted text, at their size.
	putBody(t, h, member, slug, secret.Markdown+"\n\n"+kept.Markdown, nil)
	page := as(t, h, member, "GET", "/postmortems/"+slug, nil).Body.String()
	for _, a := range []uploaded{secret, kept} {
		want := `src="` + a.URL + `" alt="`
		if !strings.Contains(page, want) {
			t.Errorf("the page does not show %s", a.URL)
			continue
		}
		img := page[strings.Index(page, want):]
		img = img[:strings.Index(img, ">")]
		if !strings.Contains(img, `width="`+itoa(int64(a.Width))+`"`) || !strings.Contains(img, `height="`+itoa(int64(a.Height))+`"`) || !strings.Contains(img, `loading="lazy"`) {
			t.Errorf("the image is drawn as %s, want width %d height %d lazy", img, a.Width, a.Height)
		}
	}

	// Redacted (the secret graph taken out), then opened to everyone.
	putBody(t, h, member, slug, kept.Markdown, nil)
	putBody(t, h, member, slug, kept.Markdown, []string{})
	if rec := as(t, h, outsider, "GET", secret.URL, nil); rec.Code != http.StatusNotFound {
		t.Errorf("opened, the redacted graph to an outsider: %d, want 404", rec.Code)
	}
	if rec := as(t, h, member, "GET", secret.URL, nil); rec.Code != 200 {
		t.Errorf("opened, the redacted graph to the member: %d, want 200", rec.Code)
	}
	rec := as(t, h, outsider, "GET", kept.URL, nil)
	if rec.Code != 200 || rec.Header().Get("Cache-Control") != "public, max-age=31536000, immutable" {
		t.Errorf("opened, the graph its text shows to an outsider: %d %q, want 200, public", rec.Code, rec.Header().Get("Cache-Control"))
	}
	list := decode[struct{ Items []uploaded }](t, as(t, h, outsider, "GET", api, nil))
	if len(list.Items) != 1 || list.Items[0].ID != kept.ID {
		t.Errorf("opened, the outsider lists %+v, want only %d", list.Items, kept.ID)
	}
	// The uploads are in the audit trail, for those who may read them.
	if audit := as(t, h, person{"ada", "admins, security"}, "GET", "/api/audit?kind=attachment.upload", nil).Body.String(); !strings.Contains(audit, "error-rate.png") {
		t.Errorf("the audit trail has no upload: %.600s", audit)
	}
}

// TestPendingUploadOnlyItsUploaderClaims: an upload from the form of a
// postmortem not saved yet is read only by its uploader; another writer
// who puts its address in a postmortem they save does not make it theirs,
// nor readable, while its uploader's save does.
func TestPendingUploadOnlyItsUploaderClaims(t *testing.T) {
	t.Parallel()
	h, _ := newTeamApp(t)
	ann, bob := person{"ann", "sre"}, person{"bob", "sre"}
	a := decode[uploaded](t, upload(t, h, ann, "/api/attachments", "draft-graph.png", "image/png", graphPNG(t, 12, 8), "alt", "Draft graph"))
	if rec := as(t, h, bob, "GET", a.URL, nil); rec.Code != http.StatusNotFound {
		t.Fatalf("another writer reads a pending upload: %d", rec.Code)
	}
	putBody(t, h, bob, gmail, a.Markdown, nil)
	if rec := as(t, h, bob, "GET", a.URL, nil); rec.Code != http.StatusNotFound {
		t.Errorf("another writer's save referencing it made it readable: %d", rec.Code)
	}
	putBody(t, h, ann, gmail, "The graph Ann drew:\n\n"+a.Markdown, nil)
	if rec := as(t, h, bob, "GET", a.URL, nil); rec.Code != http.StatusOK {
		t.Errorf("its uploader saved it into an open postmortem; another reader gets %d, want 200", rec.Code)
	}
}
