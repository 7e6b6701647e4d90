package e2e_test

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// errorRateGraph draws an error-rate graph, w×h, as PNG: axes, a grid and
// a curve that rises at the incident and falls back once mitigated.
func errorRateGraph(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	bg, grid, axis, line := color.RGBA{255, 255, 255, 255}, color.RGBA{226, 230, 236, 255}, color.RGBA{90, 98, 110, 255}, color.RGBA{204, 52, 45, 255}
	left, bottom := 40, h-30
	for y := range h {
		for x := range w {
			c := bg
			if x > left && y < bottom && (x-left)%(w/12) == 0 || y < bottom && x > left && (bottom-y)%(h/6) == 0 {
				c = grid
			}
			if x == left || y == bottom {
				c = axis
			}
			img.Set(x, y, c)
		}
	}
	rate := func(f float64) float64 { // 0..1 over the hour
		switch {
		case f < 0.25:
			return 0.04
		case f < 0.35:
			return 0.04 + (f-0.25)/0.10*0.86
		case f < 0.55:
			return 0.9
		case f < 0.65:
			return 0.9 - (f-0.55)/0.10*0.84
		}
		return 0.06
	}
	prev := -1
	for x := left + 1; x < w-10; x++ {
		y := bottom - 4 - int(rate(float64(x-left)/float64(w-left-10))*float64(bottom-20))
		if prev < 0 {
			prev = y
		}
		for yy := min(prev, y) - 1; yy <= max(prev, y)+1; yy++ {
			img.Set(x, yy, line)
		}
		prev = y
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// An editor adds a graph to a postmortem: without JavaScript by choosing
// the file and pressing "Upload and insert" (the form comes back with the
// Markdown in the text, nothing lost); with JavaScript the same in place,
// and by pasting an image into a Markdown field. Saved, the page shows the
// images at their size, and is accessible.
func TestBothWaysAttachGraph(t *testing.T) {
	t.Parallel()
	graph := errorRateGraph(t, 640, 280)
	dir := t.TempDir()
	file := filepath.Join(dir, "error-rate.png")
	if err := os.WriteFile(file, graph, 0o644); err != nil {
		t.Fatal(err)
	}
	const slug = "gmail-2009-09-01-request-router-overload"
	bothWays(t, func(t *testing.T, p *page, js bool) {
		p.open("/postmortems/"+slug+"/edit", 200)
		p.run("write and choose the graph",
			typeInto("#f-impact", " Error rates rose for an hour."),
			chromedp.SetUploadFiles(chromedp.CSS("#f-attach-file"), []string{file}),
			typeInto("#f-attach-alt", "Error rate over the hour: up at 14:15, back down by 14:40"),
			setSelect("#f-attach-into", "impact"),
		)
		if js {
			eval[bool](p, `window.stayed = true`)
		}
		p.press(`#f-attach button[formaction$="/attach"]`, js)
		want := "![Error rate over the hour: up at 14:15, back down by 14:40](/attachments/"
		if js {
			p.waitFor("the Markdown in the impact", `document.getElementById("f-impact").value.includes(`+jsString(want)+`)`)
			if !eval[bool](p, `window.stayed === true`) {
				t.Error("with JavaScript, the upload reloaded the page")
			}
			p.see("[data-attach-status]", "Uploaded error-rate.png")
		} else {
			p.see("#f-attach-done", "Uploaded error-rate.png")
		}
		impact := eval[string](p, `document.getElementById("f-impact").value`)
		if !strings.Contains(impact, "Error rates rose for an hour.") || !strings.Contains(impact, want) {
			t.Errorf("the impact holds %q, want the text typed and the graph's Markdown", impact)
		}
		if js {
			// Paste an image into the write-up, as from the clipboard.
			small := base64.StdEncoding.EncodeToString(errorRateGraph(t, 320, 140))
			eval[bool](p, fmt.Sprintf(`(() => {
				const bytes = Uint8Array.from(atob(%q), c => c.charCodeAt(0));
				const dt = new DataTransfer();
				dt.items.add(new File([bytes], "latency.png", {type: "image/png"}));
				const area = document.getElementById("f-body");
				area.focus();
				area.selectionStart = area.selectionEnd = area.value.length;
				document.getElementById("f-attach-alt").value = "Latency by minute";
				area.dispatchEvent(new ClipboardEvent("paste", {clipboardData: dt, bubbles: true, cancelable: true}));
				return true;
			})()`, small))
			p.waitFor("the pasted image's Markdown", `document.getElementById("f-body").value.includes("![Latency by minute](/attachments/")`)
			// Drop a file on another field: a CSV, linked for download.
			eval[bool](p, `(() => {
				const dt = new DataTransfer();
				dt.items.add(new File(["minute,errors\n14:15,930\n"], "errors.csv", {type: "text/csv"}));
				const area = document.getElementById("f-resolution");
				area.dispatchEvent(new DragEvent("drop", {dataTransfer: dt, bubbles: true, cancelable: true}));
				return true;
			})()`)
			p.waitFor("the dropped file's link", `document.getElementById("f-resolution").value.includes("[errors.csv](/attachments/")`)
		}
		p.run("sign", typeInto("#f-author", "Dana"))
		p.press(`.form-actions button[value="save"]`, false)
		if got := p.path(); got != "/postmortems/"+slug {
			t.Fatalf("saved, landed on %s", got)
		}
		p.waitFor("the graph loaded", `(() => { const i = document.querySelector('img[src^="/attachments/"]'); return i && i.complete && i.naturalWidth > 0 })()`)
		size := eval[string](p, `(() => { const i = document.querySelector('img[alt^="Error rate over the hour"]');
			return [i.getAttribute("width"), i.getAttribute("height"), i.getAttribute("loading"), i.naturalWidth, i.naturalHeight].join(" ") })()`)
		if size != "640 280 lazy 640 280" {
			t.Errorf("the graph is drawn as %q, want width, height and lazy of a 640×280 image", size)
		}
		if n := query[int](t, p.srv, `SELECT count(*) FROM attachments WHERE referenced = 1`); n != map[bool]int{true: 3, false: 1}[js] {
			t.Errorf("%d attachments referenced by a saved version", n)
		}
		if js {
			pasted := eval[string](p, `(() => { const i = document.querySelector('img[alt="Latency by minute"]'); return i ? i.getAttribute("width") + "x" + i.getAttribute("height") : "none" })()`)
			if pasted != "320x140" {
				t.Errorf("the pasted image is drawn at %s, want 320x140", pasted)
			}
			for _, scheme := range []string{"light", "dark"} {
				p.theme(scheme)
				p.accessible()
			}
			p.theme("light")
			if *screenshotDir != "" {
				p.viewport(1280, 900)
				eval[bool](p, `(window.scrollTo(0, document.querySelector('img[alt^="Error rate over the hour"]').getBoundingClientRect().top + window.scrollY - 170), true)`)
				for _, scheme := range []string{"light", "dark"} {
					p.theme(scheme)
					shot := runValue(p, "take a screenshot", chromedp.CaptureScreenshot())
					name := filepath.Join(*screenshotDir, "attachment-graph-1280-"+scheme+".png")
					if err := os.WriteFile(name, shot, 0o644); err != nil {
						t.Fatal(err)
					}
					t.Logf("wrote %s", name)
				}
				p.theme("light")
			}
		}
	})
}

// With JavaScript, a refused paste says why, by the file field, and
// inserts nothing.
func TestAttachRefusedWithJavaScript(t *testing.T) {
	t.Parallel()
	p := scriptPage(t, freshServer(t), true)
	p.expectConsole("415")
	p.open("/postmortems/gmail-2009-09-01-request-router-overload/edit", 200)
	eval[bool](p, `(() => {
		const dt = new DataTransfer();
		dt.items.add(new File(["<svg xmlns='http://www.w3.org/2000/svg'></svg>"], "graph.svg", {type: "image/svg+xml"}));
		document.getElementById("f-attach-alt").value = "A graph";
		const area = document.getElementById("f-body");
		area.focus();
		area.dispatchEvent(new ClipboardEvent("paste", {clipboardData: dt, bubbles: true, cancelable: true}));
		return true;
	})()`)
	p.waitFor("the refusal", `document.querySelector("[data-attach-status]").textContent.includes("SVG images are refused")`)
	if role := eval[string](p, `document.querySelector("[data-attach-status]").getAttribute("role")`); role != "alert" {
		t.Errorf("the refusal has role %q, want alert", role)
	}
	if v := eval[string](p, `document.getElementById("f-body").value`); strings.Contains(v, "/attachments/") {
		t.Errorf("a refused paste inserted %q", v)
	}
}

// A graph added while writing a new postmortem waits for its first save,
// then shows on its page.
func TestBothWaysAttachToNewPostmortem(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "queue-depth.png")
	if err := os.WriteFile(file, errorRateGraph(t, 300, 120), 0o644); err != nil {
		t.Fatal(err)
	}
	bothWays(t, func(t *testing.T, p *page, js bool) {
		p.open("/postmortems/new", 200)
		p.run("write and choose the graph",
			typeInto("#f-title", "Queue backlog at Example"),
			typeInto("#f-summary", "The queue backed up for an hour."),
			typeInto("#f-body", "The queue grew all morning."),
			chromedp.SetUploadFiles(chromedp.CSS("#f-attach-file"), []string{file}),
			typeInto("#f-attach-alt", "Queue depth by minute"),
		)
		p.press(`#f-attach button[formaction$="/attach"]`, js)
		if js {
			p.waitFor("the Markdown in the write-up", `document.getElementById("f-body").value.includes("![Queue depth by minute](/attachments/")`)
		}
		if v := eval[string](p, `document.getElementById("f-body").value`); !strings.HasPrefix(v, "The queue grew all morning.") {
			t.Errorf("the write-up holds %q", v)
		}
		p.run("sign", typeInto("#f-author", "Dana"))
		p.press(`.form-actions button[value="save"]`, false)
		if !strings.HasPrefix(p.path(), "/postmortems/queue-backlog") {
			t.Fatalf("saved, landed on %s", p.path())
		}
		p.waitFor("the graph loaded", `(() => { const i = document.querySelector('img[alt="Queue depth by minute"]'); return i && i.complete && i.naturalWidth === 300 && i.getAttribute("height") === "120" })()`)
		if n := query[int](t, p.srv, `SELECT count(*) FROM attachments WHERE postmortem_id IS NOT NULL AND referenced = 1`); n != 1 {
			t.Errorf("%d attachments belong to a postmortem, want 1", n)
		}
	})
}
