package handlers_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"hindsight/handlers"
)

// BenchmarkCompareDoubling serves the comparison of two versions of
// doubling size: lines of 500 words with a tenth of their words changed
// (word by word within the budget, then whole lines), and one long line
// with one word changed. ns/op and allocs/op should double with the size.
func BenchmarkCompareDoubling(b *testing.B) {
	h, _, _, _ := newOpsApp(b, handlers.ClientLimits(0, 0))
	post := func(path string, v url.Values) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(v.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		return serve(h, req)
	}
	for size := 32 << 10; size <= 256<<10; size *= 2 {
		oneLine := strings.ReplaceAll(bigVersion(size, 0), "\n", " ")
		for _, sh := range []struct {
			name   string
			v1, v2 string
		}{
			{"lines", bigVersion(size, 0), bigVersion(size, 1)},
			{"one-line", oneLine, strings.Replace(oneLine, "storm", "surge", 1)},
		} {
			rec := post("/postmortems", with(validForm(), "title", fmt.Sprintf("Compare %s %d", sh.name, size)))
			path := rec.Header().Get("Location")
			for i, body := range []string{sh.v1, sh.v2} {
				if rec := post(path+"/edit", with(validForm(), "title", "Compare", "body", body, "version", fmt.Sprint(i+1))); rec.Code != http.StatusSeeOther {
					b.Fatalf("edit: %d", rec.Code)
				}
			}
			b.Run(fmt.Sprintf("%s/%dkB", sh.name, size>>10), func(b *testing.B) {
				b.SetBytes(int64(2 * size))
				b.ReportAllocs()
				for b.Loop() {
					if rec := serve(h, httptest.NewRequest("GET", path+"/compare?from=2&to=3", nil)); rec.Code != 200 {
						b.Fatalf("compare: %d", rec.Code)
					}
				}
			})
		}
	}
}
