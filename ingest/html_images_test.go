package ingest_test

import (
	"strings"
	"testing"

	"hindsight/ingest"
)

// TestHTMLImages: an image saved beside the page stays an image (the
// import brings it in), a remote one with alt text becomes a link to it
// (nothing is fetched), and images that say nothing, or live in the
// page's own site or a data: URL, are dropped.
func TestHTMLImages(t *testing.T) {
	page := `<html><head><title>Queue backlog</title></head><body><article><h1>Queue backlog</h1>
<p>The backlog grew for an hour. <img src="page_files/backlog.png" alt="Backlog by minute"></p>
<p>The board showed it first. <img src="https://grafana.example.com/render/queue.png" alt="Queue depth board"></p>
<p>Nothing else. <img src="https://tracker.example.com/pixel.gif"><img src="/static/logo.png" alt="Logo"><img src="data:image/png;base64,AAAA" alt="Inline"></p>
</article></body></html>`
	d, err := ingest.Clean([]byte(page), "queue.html")
	if err != nil {
		t.Fatal(err)
	}
	text := d.Body + d.Summary
	for _, want := range []string{"![Backlog by minute](page_files/backlog.png)", "[Queue depth board](https://grafana.example.com/render/queue.png)"} {
		if !strings.Contains(text, want) {
			t.Errorf("the draft lacks %q:\n%s", want, text)
		}
	}
	for _, gone := range []string{"![Queue depth board]", "pixel.gif", "logo.png", "data:image"} {
		if strings.Contains(text, gone) {
			t.Errorf("the draft keeps %q:\n%s", gone, text)
		}
	}
}
