package handlers_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"hindsight/handlers"
	"hindsight/store/storetest"
)

// A database failure while checking variant_of is the server's error (500,
// logged), on every path that checks it: never the field message "Choose an
// existing postmortem", which would send the writer looking for a mistake
// they did not make.
func TestVariantCheckDatabaseFailureIs500(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "test.db")
	st := openSeeded(t, path)
	h, err := handlers.New(st, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	const of = "facebook-2010-09-23-outage"
	// Reading a postmortem (what the check does) needs its source comments:
	// without their table every read of one fails.
	storetest.Exec(t, path, `ALTER TABLE source_comments RENAME TO source_comments_gone`)
	apiPost := func(contentType, body string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("POST", "/api/postmortems", strings.NewReader(body))
		req.RemoteAddr = "127.0.0.1:5000"
		req.Header.Set("Content-Type", contentType)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w
	}
	for name, rec := range map[string]*httptest.ResponseRecorder{
		"form": postForm(t, h, "/postmortems", with(with(validForm(), "variant_of", of), "variant_kind", "rewrite")),
		"JSON API": apiPost("application/json", `{"title": "Retold", "summary": "A retelling.", "body": "Keys leaked.",
			"variant_of": "`+of+`", "variant_kind": "rewrite"}`),
		"import": apiPost("text/markdown", "---\ntitle: Retold\nvariant_of: "+of+"\nvariant_kind: rewrite\n---\n\nA retelling of the outage, in a few words more than one.\n"),
	} {
		if rec.Code != http.StatusInternalServerError || strings.Contains(rec.Body.String(), "Choose an existing postmortem") {
			t.Errorf("%s: %d, want 500 without a field message\n%.600s", name, rec.Code, rec.Body)
		}
	}
}
