package handlers_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestAPIRefusesWhatIsNotOneJSONValue: every JSON the API reads is one
// value in valid UTF-8, with nothing after it but white space. Trailing
// garbage, and text that is not UTF-8 (which the decoder would otherwise
// save with its bytes replaced), are refused with 400 saying which, and
// nothing is saved.
func TestAPIRefusesWhatIsNotOneJSONValue(t *testing.T) {
	t.Parallel()
	h, _ := newApp(t)
	const valid = `"summary": "The cache expired at once.", "body": "All keys expired together."`
	mine := record(t, h, person{}, gmail)
	mine["title"] = "Retitled \uFFFD"
	put := mustJSON(t, mine)
	for _, tt := range []struct {
		method, path, body, want string
	}{
		{"POST", "/api/postmortems", `{"title": "Trailing garbage", ` + valid + `} {"title": "second"}`, "more follows"},
		{"POST", "/api/postmortems", `{"title": "Trailing garbage", ` + valid + `}xyz`, "more follows"},
		{"POST", "/api/postmortems", "{\"title\": \"Not UTF-8 \xff\xfe\", " + valid + "}", "not valid UTF-8"},
		{"PUT", "/api/postmortems/" + gmail, put + "]", "more follows"},
		{"PUT", "/api/postmortems/" + gmail, strings.Replace(put, "\uFFFD", "\xc3", 1), "not valid UTF-8"},
		{"POST", "/api/postmortems/" + gmail + "/action-items", `{"title": "Add a breaker"} xyz`, "more follows"},
		{"POST", "/api/suggest", `{"title": "Retry storm", "body": "Clients retried."} trailing`, "more follows"},
		{"POST", "/api/suggest", "{\"title\": \"Retry storm \xff\"}", "not valid UTF-8"},
	} {
		rec := sendJSON(t, h, person{}, tt.method, tt.path, tt.body)
		if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), tt.want) {
			t.Errorf("%s %s %q: %d %s; want 400 saying %q", tt.method, tt.path, tt.body, rec.Code, rec.Body, tt.want)
		}
	}
	// White space after the value is not data.
	if rec := sendJSON(t, h, person{}, "POST", "/api/postmortems", "{\"title\": \"Trailing white space\", "+valid+"}\n\t \r\n"); rec.Code != http.StatusCreated {
		t.Errorf("JSON then white space: %d %s, want 201", rec.Code, rec.Body)
	}
	if rec := get(t, h, "/api/search?q=garbage"); strings.Contains(rec.Body.String(), "Trailing garbage") {
		t.Errorf("a refused body was saved: %s", rec.Body)
	}
}

// TestPreviewRefusesAFormItCannotRead: /preview answers 400 to a body it
// cannot parse as a form, where it answered 200 with nothing.
func TestPreviewRefusesAFormItCannotRead(t *testing.T) {
	t.Parallel()
	h, _ := newApp(t)
	for _, tt := range []struct{ contentType, body string }{
		{"application/x-www-form-urlencoded", "text=%zz"},
		{"multipart/form-data; boundary=xyz", "--xyz\r\nContent-Disposition: form-data; name=\"text\"\r\n\r\nunterminated"},
		{"multipart/form-data", "text=no+boundary"},
	} {
		req := httptest.NewRequest(http.MethodPost, "/preview", strings.NewReader(tt.body))
		req.Header.Set("Content-Type", tt.contentType)
		rec := serve(h, req)
		if rec.Code != http.StatusBadRequest {
			t.Errorf("preview of %s %q: %d %q, want 400", tt.contentType, tt.body, rec.Code, rec.Body)
		}
	}
	req := httptest.NewRequest(http.MethodPost, "/preview", strings.NewReader("text=**bold**"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if rec := serve(h, req); rec.Code != 200 || !strings.Contains(rec.Body.String(), "<strong>bold</strong>") {
		t.Errorf("preview of a good form: %d %q", rec.Code, rec.Body)
	}
}
