package handlers_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"unicode/utf16"
)

// utf16File encodes s as UTF-16 with a byte order mark, as Windows Notepad
// and Windows PowerShell's Out-File save text.
func utf16File(s string, bigEndian bool) []byte {
	var b []byte
	for _, u := range append([]uint16{0xFEFF}, utf16.Encode([]rune(s))...) {
		if bigEndian {
			b = append(b, byte(u>>8), byte(u))
		} else {
			b = append(b, byte(u), byte(u>>8))
		}
	}
	return b
}

// TestImportUTF16: a postmortem saved as UTF-16 (with its byte order mark)
// is text, read as such by the upload and the API, not refused as binary.
func TestImportUTF16(t *testing.T) {
	t.Parallel()
	h, st := newApp(t)
	text := "# Réplica caída en Zürich\n\nThe primary database failed over at 10:00 UTC and writes were lost for five minutes.\n"

	body, ct := multipartBody(t, nil, "notes.txt", utf16File(text, false))
	rec := post(t, h, "/import", ct, body)
	if rec.Code != http.StatusOK {
		t.Fatalf("upload: status = %d\n%s", rec.Code, rec.Body)
	}
	mustContain(t, rec.Body.String(), `value="Réplica caída en Zürich"`)

	rec = post(t, h, "/api/postmortems", "text/plain", bytes.NewBuffer(utf16File(text, true)))
	if rec.Code != http.StatusCreated {
		t.Fatalf("API: status = %d\n%s", rec.Code, rec.Body)
	}
	var got struct{ Slug, Title string }
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got.Title != "Réplica caída en Zürich" {
		t.Errorf("title = %q", got.Title)
	}
	p, err := st.GetPostmortem(t.Context(), got.Slug)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(p.SourceText, "# Réplica caída") {
		t.Errorf("the verbatim text is kept as %q, want it as UTF-8 text", p.SourceText[:min(len(p.SourceText), 40)])
	}
}
