package handlers_test

import (
	"bytes"
	"net/http"
	"testing"
)

// TestImportActionItemOwner: an action item written "… (owner: Tom)" is
// reviewed and saved with Tom as its owner, through the upload and the API.
func TestImportActionItemOwner(t *testing.T) {
	t.Parallel()
	h, st := newApp(t)
	doc := []byte("# Kafka consumer lag took down notifications\n\nOn 2 May 2024 the notifications service stopped sending push messages for two hours.\n\n" +
		"## Action items\n\n- Alert on consumer lag above 5 minutes (owner: Tom)\n- Add a config validation for session timeouts\n")

	body, ct := multipartBody(t, nil, "kafka.md", doc)
	rec := post(t, h, "/import", ct, body)
	if rec.Code != http.StatusOK {
		t.Fatalf("upload: status = %d\n%s", rec.Code, rec.Body)
	}
	mustContain(t, rec.Body.String(), `<li>Alert on consumer lag above 5 minutes <span class="meta">(prevent, owner Tom)</span></li>`)

	rec = post(t, h, "/api/postmortems", "text/markdown", bytes.NewBuffer(doc))
	if rec.Code != http.StatusCreated {
		t.Fatalf("API: status = %d\n%s", rec.Code, rec.Body)
	}
	p, err := st.GetPostmortem(t.Context(), "kafka-consumer-lag-took-down-notifications")
	if err != nil {
		t.Fatal(err)
	}
	items := p.ActionItems
	if len(items) != 2 || items[0].Title != "Alert on consumer lag above 5 minutes" || items[0].Owner != "Tom" || items[1].Owner != "" {
		t.Errorf("action items = %+v", items)
	}
}
