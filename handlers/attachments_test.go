package handlers_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"runtime"
	"strings"
	"testing"

	"hindsight/handlers"
)

// graphPNG draws a small line graph (an error rate rising and falling),
// w×h pixels, as PNG.
func graphPNG(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.White)
		}
	}
	for x := range w {
		y := h - 1 - (h/8 + int(float64(h/2)*bump(float64(x)/float64(w))))
		for dy := -1; dy <= 1; dy++ {
			img.Set(x, y+dy, color.RGBA{200, 40, 40, 255})
		}
		img.Set(x, h-2, color.Gray{90})
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// bump rises from 0 to 1 between 0.3 and 0.45 and falls back by 0.7.
func bump(x float64) float64 {
	switch {
	case x < 0.3 || x > 0.7:
		return 0.05
	case x < 0.45:
		return (x - 0.3) / 0.15
	case x < 0.55:
		return 1
	}
	return (0.7 - x) / 0.15
}

func jpegBytes(t testing.TB) []byte {
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, image.NewGray(image.Rect(0, 0, 8, 6)), nil); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func gifBytes(t testing.TB) []byte {
	var buf bytes.Buffer
	if err := gif.Encode(&buf, image.NewPaletted(image.Rect(0, 0, 5, 4), []color.Color{color.Black, color.White}), nil); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// webpBytes is a lossless WebP header for a w×h image: all DecodeConfig
// reads.
func webpBytes(w, h int) []byte {
	bits := uint32(w-1) | uint32(h-1)<<14
	chunk := append([]byte{0x2f}, binary.LittleEndian.AppendUint32(nil, bits)...)
	chunk = append(chunk, 0) // padded to an even length
	body := append([]byte("WEBPVP8L"), binary.LittleEndian.AppendUint32(nil, 5)...)
	body = append(body, chunk...)
	return append(append([]byte("RIFF"), binary.LittleEndian.AppendUint32(nil, uint32(len(body)))...), body...)
}

// bombPNG is a PNG whose header claims w×h pixels, with a valid CRC and
// no pixels.
func bombPNG(w, h uint32) []byte {
	ihdr := binary.BigEndian.AppendUint32(nil, w)
	ihdr = binary.BigEndian.AppendUint32(ihdr, h)
	ihdr = append(ihdr, 8, 6, 0, 0, 0)
	out := []byte("\x89PNG\r\n\x1a\n")
	out = binary.BigEndian.AppendUint32(out, uint32(len(ihdr)))
	typed := append([]byte("IHDR"), ihdr...)
	out = append(out, typed...)
	return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(typed))
}

// attachmentBody is a form with a file part (name, type, data) and fields.
func attachmentBody(t testing.TB, name, contentType string, data []byte, fields ...string) (*bytes.Buffer, string) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for i := 0; i+1 < len(fields); i += 2 {
		mw.WriteField(fields[i], fields[i+1])
	}
	if name != "" {
		hd := textproto.MIMEHeader{}
		hd.Set("Content-Disposition", fmt.Sprintf(`form-data; name="file"; filename=%q`, name))
		if contentType != "" {
			hd.Set("Content-Type", contentType)
		}
		part, err := mw.CreatePart(hd)
		if err != nil {
			t.Fatal(err)
		}
		part.Write(data)
	}
	mw.Close()
	return &buf, mw.FormDataContentType()
}

// upload posts a file to path as p.
func upload(t testing.TB, h http.Handler, p person, path, name, contentType string, data []byte, fields ...string) *httptest.ResponseRecorder {
	t.Helper()
	body, ct := attachmentBody(t, name, contentType, data, fields...)
	req := httptest.NewRequest(http.MethodPost, path, body)
	req.Header.Set("Content-Type", ct)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	return serveAs(h, p, req)
}

type uploaded struct {
	ID          int64
	Name        string
	ContentType string `json:"content_type"`
	Size        int64
	URL         string
	Markdown    string
	Width       int
	Height      int
}

// TestAttachmentAcceptedTypes: every accepted type is taken, told by its
// content, and served back byte for byte: images inline, other files as
// downloads, with nosniff, an ETag and, for a postmortem everyone may
// read, a year in any cache.
func TestAttachmentAcceptedTypes(t *testing.T) {
	t.Parallel()
	h, _ := newTeamApp(t)
	api := "/api/postmortems/" + gmail + "/attachments"
	for _, tt := range []struct {
		name, sent string
		data       []byte
		want       string
		w, h       int
	}{
		{"error-rate.png", "image/png", graphPNG(t, 64, 40), "image/png", 64, 40},
		{"latency.jpg", "image/jpeg", jpegBytes(t), "image/jpeg", 8, 6},
		{"spinner.gif", "", gifBytes(t), "image/gif", 5, 4},
		{"shot.webp", "image/webp", webpBytes(3, 2), "image/webp", 3, 2},
		{"report.pdf", "application/pdf", []byte("%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n"), "application/pdf", 0, 0},
		{"router.log", "application/octet-stream", []byte("14:02 router: queue full\n14:03 router: shedding\n"), "text/plain; charset=utf-8", 0, 0},
		{"notes.txt", "text/plain", []byte("Ünïcode notes\tand tabs\n"), "text/plain; charset=utf-8", 0, 0},
		{"errors.csv", "text/csv", []byte("minute,errors\n14:02,10\n14:03,900\n"), "text/csv; charset=utf-8", 0, 0},
		{"alert.json", "application/json", []byte(`{"alert": "RouterQueueFull", "value": 0.93}`), "application/json", 0, 0},
	} {
		rec := upload(t, h, editor, api, tt.name, tt.sent, tt.data, "alt", "What "+tt.name+" shows")
		if rec.Code != http.StatusCreated {
			t.Errorf("%s: %d %s", tt.name, rec.Code, rec.Body)
			continue
		}
		a := decode[uploaded](t, rec)
		if a.ContentType != tt.want || a.Size != int64(len(tt.data)) || a.Width != tt.w || a.Height != tt.h || a.Name != tt.name {
			t.Errorf("%s: %+v", tt.name, a)
		}
		image := strings.HasPrefix(tt.want, "image/")
		if wantMD := "[What " + tt.name + " shows](" + a.URL + ")"; image && a.Markdown != "!"+wantMD || !image && a.Markdown != wantMD {
			t.Errorf("%s: markdown %q", tt.name, a.Markdown)
		}
		got := as(t, h, viewer, "GET", a.URL, nil)
		hd := got.Header()
		if got.Code != 200 || !bytes.Equal(got.Body.Bytes(), tt.data) || hd.Get("Content-Type") != tt.want {
			t.Errorf("GET %s: %d %q, %d bytes", a.URL, got.Code, hd.Get("Content-Type"), got.Body.Len())
		}
		disposition := "attachment"
		if image {
			disposition = "inline"
		}
		if !strings.HasPrefix(hd.Get("Content-Disposition"), disposition+";") || hd.Get("X-Content-Type-Options") != "nosniff" ||
			hd.Get("Cache-Control") != "public, max-age=31536000, immutable" || hd.Get("ETag") == "" {
			t.Errorf("GET %s: headers %v", a.URL, hd)
		}
		if again := as(t, h, viewer, "GET", a.URL, nil, "If-None-Match", hd.Get("ETag")); again.Code != http.StatusNotModified {
			t.Errorf("GET %s with its ETag: %d, want 304", a.URL, again.Code)
		}
	}
	list := decode[struct{ Items []uploaded }](t, as(t, h, viewer, "GET", api, nil))
	if len(list.Items) != 9 {
		t.Errorf("list: %d items, want 9", len(list.Items))
	}
}

// TestAttachmentRefusals: what is not taken, with the status and a
// message naming what is.
func TestAttachmentRefusals(t *testing.T) {
	t.Parallel()
	h, st := newTeamApp(t, handlers.MaxAttachment(4096))
	api := "/api/postmortems/" + gmail + "/attachments"
	for _, tt := range []struct {
		why, name, sent string
		data            []byte
		alt             string
		status          int
		says            string
	}{
		{"a PNG named .jpg", "graph.jpg", "", graphPNG(t, 10, 10), "a graph", 415, "named .jpg but holds a PNG image"},
		{"a JPEG sent as PNG", "graph", "image/png", jpegBytes(t), "a graph", 415, "sent as image/png but holds a JPEG image"},
		{"text named .png", "graph.png", "image/png", []byte("not an image at all\n"), "a graph", 415, "named .png but holds plain text"},
		{"SVG", "graph.svg", "image/svg+xml", []byte(`<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`), "a graph", 415, "SVG images are refused"},
		{"SVG named .txt", "graph.txt", "text/plain", []byte(`<?xml version="1.0"?><svg></svg>`), "a graph", 415, "SVG"},
		{"binary", "core.bin", "", []byte{0, 1, 2, 3, 0xfe, 0xff, 0, 0}, "", 415, "not a type Hindsight takes"},
		{"a pixel bomb", "bomb.png", "image/png", bombPNG(100000, 100000), "a bomb", 415, "more than the 50 megapixels"},
		{"bad JSON", "alert.json", "application/json", []byte(`{"alert": `), "", 415, "does not hold valid JSON"},
		{"no alt text", "graph.png", "image/png", graphPNG(t, 10, 10), "  ", 422, "needs alt text"},
		{"no file", "", "", nil, "a graph", 422, "Choose a file"},
		{"over the limit", "big.log", "text/plain", bytes.Repeat([]byte("x"), 5000), "", 413, "limit of 4096 bytes"},
	} {
		rec := upload(t, h, editor, api, tt.name, tt.sent, tt.data, "alt", tt.alt)
		if rec.Code != tt.status || !strings.Contains(rec.Body.String(), tt.says) {
			t.Errorf("%s: %d %s; want %d saying %q", tt.why, rec.Code, rec.Body, tt.status, tt.says)
		}
		if tt.status == 415 && !strings.Contains(rec.Body.String(), "PNG, JPEG, GIF or WebP") {
			t.Errorf("%s: the refusal does not name what is accepted: %s", tt.why, rec.Body)
		}
	}
	if n, err := st.AttachmentBytes(t.Context()); err != nil || n != 0 {
		t.Errorf("refused uploads stored %d bytes (%v)", n, err)
	}
	// A viewer may not upload.
	if rec := upload(t, h, viewer, api, "graph.png", "", graphPNG(t, 10, 10), "alt", "a graph"); rec.Code != http.StatusForbidden {
		t.Errorf("a viewer uploads: %d, want 403", rec.Code)
	}
}

// TestAttachmentQuotaAndDedup: the same bytes are stored once; a
// postmortem's quota full, the upload is refused with a message saying so.
func TestAttachmentQuotaAndDedup(t *testing.T) {
	t.Parallel()
	png := graphPNG(t, 30, 20)
	h, st := newTeamApp(t, handlers.AttachmentQuota(int64(len(png))*2, 0))
	api := "/api/postmortems/" + gmail + "/attachments"
	for _, name := range []string{"a.png", "b.png"} {
		if rec := upload(t, h, editor, api, name, "", png, "alt", "a graph"); rec.Code != 201 {
			t.Fatalf("%s: %d %s", name, rec.Code, rec.Body)
		}
	}
	if n, _ := st.AttachmentBytes(t.Context()); n != int64(len(png)) {
		t.Errorf("two uploads of the same bytes take %d bytes, want %d", n, len(png))
	}
	rec := upload(t, h, editor, api, "c.png", "", graphPNG(t, 31, 20), "alt", "a graph")
	if rec.Code != http.StatusRequestEntityTooLarge || !strings.Contains(rec.Body.String(), "more than its quota") {
		t.Errorf("over the quota: %d %s", rec.Code, rec.Body)
	}
}

// TestAttachmentUploadMemoryBounded: a 10 MiB upload allocates a small
// fraction of its size: it is streamed to disk and to the database in
// chunks, never held whole. Not parallel: it reads the process's
// allocation counter.
func TestAttachmentUploadMemoryBounded(t *testing.T) {
	h, _ := newTeamApp(t)
	body, ct := tenMiBUpload(t)
	at := bytes.Index(body.Bytes(), []byte("line 0000000"))
	run := func(i int) *httptest.ResponseRecorder {
		b := body.Bytes()
		copy(b[at:], fmt.Sprintf("run %08d", i))
		req := httptest.NewRequest(http.MethodPost, "/api/postmortems/"+gmail+"/attachments", bytes.NewReader(b))
		req.Header.Set("Content-Type", ct)
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		return serveAs(h, editor, req)
	}
	if rec := run(0); rec.Code != 201 { // warm up
		t.Fatalf("upload: %d %s", rec.Code, rec.Body)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	rec := run(1)
	runtime.ReadMemStats(&after)
	if rec.Code != 201 {
		t.Fatalf("upload: %d %s", rec.Code, rec.Body)
	}
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("a 10 MiB upload allocated %d KiB", allocated>>10)
	if allocated > 3<<20 {
		t.Errorf("a 10 MiB upload allocated %d KiB, want under 3 MiB", allocated>>10)
	}
}

// tenMiBUpload is a multipart body with a log of just under 10 MiB.
func tenMiBUpload(t testing.TB) (*bytes.Buffer, string) {
	var log bytes.Buffer
	log.WriteString("line 0000000 router: start\n")
	for i := 1; log.Len() < 10<<20-100; i++ {
		fmt.Fprintf(&log, "line %07d router: queue depth %d\n", i, i%977)
	}
	return attachmentBody(t, "router.log", "text/plain", log.Bytes()[:10<<20-100])
}

// BenchmarkAttachmentUpload10MiB: bytes allocated per 10 MiB upload
// (B/op) show memory bounded by the chunks, not the file.
func BenchmarkAttachmentUpload10MiB(b *testing.B) {
	st := openSeeded(b, b.TempDir()+"/bench.db")
	h, err := handlers.New(st, slog.New(slog.NewTextHandler(io.Discard, nil)), handlers.AttachmentQuota(0, 0))
	if err != nil {
		b.Fatal(err)
	}
	body, ct := tenMiBUpload(b)
	raw := body.Bytes()
	at := bytes.Index(raw, []byte("line 0000000"))
	b.ReportAllocs()
	b.SetBytes(int64(len(raw)))
	for i := 0; b.Loop(); i++ {
		copy(raw[at:], fmt.Sprintf("run %08d", i))
		req := httptest.NewRequest(http.MethodPost, "/api/postmortems/"+gmail+"/attachments", bytes.NewReader(raw))
		req.Header.Set("Content-Type", ct)
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != 201 {
			b.Fatalf("upload: %d %s", rec.Code, rec.Body)
		}
	}
}
