package handlers_test

import (
	"html"
	"net/http"
	"strings"
	"testing"
)

// TestAttachmentFromTheForm: without JavaScript, "Upload and insert"
// posts the whole form; the form comes back with every value as typed and
// the image's Markdown where the writer was (the cursor the script put in
// attach_cursor, else the end of the field chosen). A refusal comes back
// with the form, its text kept, and the reason.
func TestAttachmentFromTheForm(t *testing.T) {
	t.Parallel()
	h, _ := newTeamApp(t)
	path := "/postmortems/" + gmail + "/edit/attach"
	text := "Before the graph.\nAfter the graph."
	rec := upload(t, h, editor, path, "error rate.png", "image/png", graphPNG(t, 64, 40),
		"title", "Request router overload", "body", text, "impact", "Half of the users.", "version", "1",
		"attach_field", "body", "attach_cursor", "18", "alt", "Error rate over the hour")
	if rec.Code != http.StatusOK {
		t.Fatalf("upload from the form: %d %.800s", rec.Code, rec.Body)
	}
	page := html.UnescapeString(rec.Body.String())
	want := "Before the graph.\n![Error rate over the hour](/attachments/1/error-rate.png)\n\nAfter the graph."
	if !strings.Contains(page, want) || !strings.Contains(page, "Half of the users.") {
		i := strings.Index(page, `name="body"`)
		t.Errorf("the form does not keep the text with the Markdown at the cursor; want %q in\n%.600s", want, page[max(i, 0):])
	}
	if !strings.Contains(page, "Uploaded error-rate.png") {
		t.Error("the form does not say what was uploaded")
	}
	// Without a cursor, at the end of the field chosen.
	rec = upload(t, h, editor, path, "latency.png", "image/png", graphPNG(t, 20, 20),
		"title", "Request router overload", "impact", "Half of the users.", "version", "1", "attach_field", "impact", "alt", "Latency")
	if page := html.UnescapeString(rec.Body.String()); !strings.Contains(page, "Half of the users.\n\n![Latency](/attachments/2/latency.png)") {
		t.Errorf("without a cursor: %d, the Markdown is not at the end of the impact", rec.Code)
	}
	// Refused: the text stays, with the reason.
	rec = upload(t, h, editor, path, "graph.svg", "image/svg+xml", []byte("<svg></svg>"),
		"title", "Request router overload", "body", text, "version", "1", "alt", "A graph")
	if page := html.UnescapeString(rec.Body.String()); rec.Code != http.StatusUnprocessableEntity || !strings.Contains(page, text) ||
		!strings.Contains(page, "SVG images are refused") {
		t.Errorf("refused from the form: %d, text kept %v", rec.Code, strings.Contains(page, text))
	}
	// The new postmortem's form: the upload waits for its first save.
	rec = upload(t, h, editor, "/postmortems/new/attach", "g.png", "image/png", graphPNG(t, 10, 10),
		"title", "New one", "body", "", "alt", "A graph")
	if page := html.UnescapeString(rec.Body.String()); rec.Code != 200 || !strings.Contains(page, "![A graph](/attachments/3/g.png)") {
		t.Errorf("upload from the new form: %d", rec.Code)
	}
	if rec := as(t, h, editor, "GET", "/attachments/3/g.png", nil); rec.Code != 200 {
		t.Errorf("its uploader reads the pending upload: %d", rec.Code)
	}
	if rec := as(t, h, viewer, "GET", "/attachments/3/g.png", nil); rec.Code != 404 {
		t.Errorf("another user reads a pending upload: %d, want 404", rec.Code)
	}
}
