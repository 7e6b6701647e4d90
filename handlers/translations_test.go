package handlers_test

import (
	"bytes"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportOffersTranslation: a translation of a postmortem already held,
// into a language the catalogue has no phrases for (Portuguese, Korean,
// Chinese), is offered on the import
// review as its translation, from what survives translation (the date, the
// numbers, product names and times); a write-up of another incident of the
// same organization, in the same language, is not. The texts are our own
// translations of the Gmail seed and a Gmail incident of our own making.
func TestImportOffersTranslation(t *testing.T) {
	t.Parallel()
	h, _ := newApp(t)
	const gmail = "gmail-2009-09-01-request-router-overload"
	offer := `name="link_variant" value="` + gmail + `:translation"`
	for _, tt := range []struct {
		file  string
		lang  string
		offer bool
	}{
		{"gmail-pt.txt", "pt", true},
		{"gmail-ko.txt", "ko", true},
		{"gmail-zh.txt", "zh", true},
		{"gmail-other-incident-pt.txt", "pt", false},
		{"gmail-other-incident-ko.txt", "ko", false},
	} {
		t.Run(tt.file, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join("testdata", "translations", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			rec := post(t, h, "/import", "application/x-www-form-urlencoded",
				bytes.NewBufferString(url.Values{"text": {string(raw)}}.Encode()))
			if rec.Code != http.StatusOK {
				t.Fatalf("status = %d", rec.Code)
			}
			body := rec.Body.String()
			if got := strings.Contains(body, offer); got != tt.offer {
				t.Errorf("offered as a translation of %s: %v, want %v", gmail, got, tt.offer)
			}
			if !strings.Contains(body, `<option value="`+tt.lang+`" selected>`) {
				t.Errorf("the language is not read as %s", tt.lang)
			}
		})
	}
}
