package markdown_test

import (
	"strings"
	"testing"

	"hindsight/markdown"
)

// Images load lazily and keep any alt text; one whose size a sizer knows
// is drawn at that size.
func TestImagesSizedAndLazy(t *testing.T) {
	markdown.AddImageSizer(func(dest string) (int, int, bool) {
		return 640, 280, dest == "/attachments/7/error-rate.png"
	})
	got := string(markdown.Render("![Error rate: up at 14:15, back by 14:40](/attachments/7/error-rate.png)\n\n![remote](https://grafana.example.com/x.png)"))
	for _, want := range []string{
		`<img src="/attachments/7/error-rate.png" alt="Error rate: up at 14:15, back by 14:40" loading="lazy" width="640" height="280">`,
		`<img src="https://grafana.example.com/x.png" alt="remote" loading="lazy">`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("rendered\n%s\nwant %s", got, want)
		}
	}
	if got := string(markdown.Render(`![x" onerror="alert(1)](/a.png)`)); strings.Contains(got, "onerror=") && !strings.Contains(got, "&#34;") {
		t.Errorf("an alt text broke out of its attribute: %s", got)
	}
}
