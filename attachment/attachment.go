// Package attachment decides what an uploaded file is by its content, not
// by its name or the type its sender claims, and whether Hindsight takes
// it: images (PNG, JPEG, GIF, WebP) shown inline, and PDF, plain text,
// logs, CSV and JSON offered as downloads. Anything else, a file whose name
// or claimed type says something other than its content, SVG (it can
// carry scripts) and images whose header claims more than MaxPixels are
// refused, with a message naming what is accepted.
package attachment

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	_ "image/gif"  // registers GIF for image.DecodeConfig
	_ "image/jpeg" // registers JPEG
	_ "image/png"  // registers PNG
	"io"
	"mime"
	"path"
	"strings"
	"unicode/utf8"

	_ "golang.org/x/image/webp" // registers WebP
)

// DefaultMax is the default limit on an attachment's size, in bytes.
const DefaultMax = 10 << 20

// MaxPixels is the most pixels an image may claim: past it, decoding it
// (in a browser, too) would take more memory than a graph should.
const MaxPixels = 50_000_000

// Accepted names what is accepted, for refusals and the form's hint.
const Accepted = "PNG, JPEG, GIF or WebP images, and PDF, plain text (.txt, .log), CSV or JSON files"

// File is what an accepted upload is.
type File struct {
	ContentType string // as served
	Ext         string // the extension its name gets, with the dot
	// Width and Height are an image's, 0 for other files.
	Width, Height int
}

// Image reports whether f is shown inline.
func (f File) Image() bool { return strings.HasPrefix(f.ContentType, "image/") }

// Refusal is an upload refused for what it holds.
type Refusal struct{ Message string }

func (e *Refusal) Error() string { return e.Message }

func refuse(format string, args ...any) error {
	return &Refusal{fmt.Sprintf(format, args...) + " Hindsight accepts " + Accepted + "."}
}

type kind struct {
	contentType, ext string
	exts             []string // names it may have
}

var (
	kindPNG  = &kind{"image/png", ".png", []string{".png"}}
	kindJPEG = &kind{"image/jpeg", ".jpg", []string{".jpg", ".jpeg", ".jpe", ".jfif"}}
	kindGIF  = &kind{"image/gif", ".gif", []string{".gif"}}
	kindWebP = &kind{"image/webp", ".webp", []string{".webp"}}
	kindPDF  = &kind{"application/pdf", ".pdf", []string{".pdf"}}
	kindText = &kind{"text/plain; charset=utf-8", ".txt", []string{".txt", ".log", ".text", ".out", ""}}
	kindCSV  = &kind{"text/csv; charset=utf-8", ".csv", []string{".csv"}}
	kindJSON = &kind{"application/json", ".json", []string{".json"}}
)

// sniffLen is how much of a file its kind is told from.
const sniffLen = 512

// Check reads the size bytes of r (a file, read from the start) and says
// what they are, or why they are refused. name is the file's name and
// claimed the type its sender gave ("" or application/octet-stream for
// none). It reads an image's header only, and a text file once, in full,
// to check it is text; memory stays bounded whatever the size.
func Check(r io.ReaderAt, size int64, name, claimed string) (File, error) {
	if size == 0 {
		return File{}, refuse("The file is empty.")
	}
	head := make([]byte, min(size, sniffLen))
	if _, err := r.ReadAt(head, 0); err != nil && err != io.EOF {
		return File{}, fmt.Errorf("read upload: %w", err)
	}
	ext := strings.ToLower(path.Ext(name))
	k, ok := sniff(head)
	if !ok {
		if looksSVG(head) || ext == ".svg" || strings.Contains(claimed, "svg") {
			return File{}, refuse("SVG images are refused: they can carry scripts. Export the graph as PNG instead.")
		}
		if !isText(io.NewSectionReader(r, 0, size)) {
			return File{}, refuse("The content of %s is not a type Hindsight takes.", quoteName(name))
		}
		switch ext {
		case ".csv":
			k = kindCSV
		case ".json":
			if !validJSON(io.NewSectionReader(r, 0, size)) {
				return File{}, refuse("%s is named .json but does not hold valid JSON.", quoteName(name))
			}
			k = kindJSON
		default:
			k = kindText
		}
	}
	if err := matches(k, ext, claimed, name); err != nil {
		return File{}, err
	}
	f := File{ContentType: k.contentType, Ext: k.ext}
	if f.Image() {
		cfg, format, err := image.DecodeConfig(io.NewSectionReader(r, 0, size))
		if err != nil || "image/"+format != k.contentType && !(format == "jpeg" && k == kindJPEG) {
			return File{}, refuse("%s starts like a %s image but its header cannot be read.", quoteName(name), strings.TrimPrefix(k.contentType, "image/"))
		}
		if cfg.Width <= 0 || cfg.Height <= 0 || int64(cfg.Width)*int64(cfg.Height) > MaxPixels {
			return File{}, refuse("%s claims %d×%d pixels, more than the %d megapixels an image may have.", quoteName(name), cfg.Width, cfg.Height, MaxPixels/1_000_000)
		}
		f.Width, f.Height = cfg.Width, cfg.Height
	}
	return f, nil
}

// validJSON reports whether r holds one JSON value and nothing after it,
// read token by token: memory holds one token, not the file.
func validJSON(r io.Reader) bool {
	dec := json.NewDecoder(bufio.NewReaderSize(r, 32<<10))
	depth := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return depth == 0
		}
		if err != nil {
			return false
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 && dec.More() {
			return false // a second value after the first
		}
	}
}

func sniff(head []byte) (*kind, bool) {
	switch {
	case bytes.HasPrefix(head, []byte("\x89PNG\r\n\x1a\n")):
		return kindPNG, true
	case bytes.HasPrefix(head, []byte{0xff, 0xd8, 0xff}):
		return kindJPEG, true
	case bytes.HasPrefix(head, []byte("GIF87a")), bytes.HasPrefix(head, []byte("GIF89a")):
		return kindGIF, true
	case len(head) >= 12 && bytes.HasPrefix(head, []byte("RIFF")) && string(head[8:12]) == "WEBP":
		return kindWebP, true
	case bytes.HasPrefix(head, []byte("%PDF-")):
		return kindPDF, true
	}
	return nil, false
}

// looksSVG reports markup that may be SVG (or any XML or HTML, which a
// browser could render): refused whatever its name.
func looksSVG(head []byte) bool {
	h := bytes.ToLower(bytes.TrimLeft(head, "\xef\xbb\xbf \t\r\n"))
	return bytes.Contains(h, []byte("<svg")) || bytes.HasPrefix(h, []byte("<?xml")) || bytes.HasPrefix(h, []byte("<!doctype")) ||
		bytes.HasPrefix(h, []byte("<html"))
}

// isText reports whether r holds UTF-8 text without NUL or other control
// bytes than tab, newlines and form feed, reading it in chunks.
func isText(r io.Reader) bool {
	br := bufio.NewReaderSize(r, 32<<10)
	for {
		c, size, err := br.ReadRune()
		switch {
		case err == io.EOF:
			return true
		case err != nil, c == utf8.RuneError && size == 1:
			return false
		case c < ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\f', c == 0x7f:
			return false
		}
	}
}

// matches refuses a file whose name or claimed type says another kind
// than its content.
func matches(k *kind, ext, claimed, name string) error {
	textual := k == kindText || k == kindCSV || k == kindJSON
	if ext != "" && !containsExt(k.exts, ext) && !(textual && (ext == ".txt" || ext == ".log")) {
		return refuse("%s is named %s but holds %s.", quoteName(name), ext, describe(k))
	}
	mt, _, _ := mime.ParseMediaType(claimed)
	switch {
	case mt == "" || mt == "application/octet-stream":
		return nil
	case textual && (strings.HasPrefix(mt, "text/") || mt == "application/json"):
		return nil
	case mt == "image/jpg" && k == kindJPEG:
		return nil
	case mt != strings.SplitN(k.contentType, ";", 2)[0]:
		return refuse("%s was sent as %s but holds %s.", quoteName(name), mt, describe(k))
	}
	return nil
}

func containsExt(exts []string, ext string) bool {
	for _, e := range exts {
		if e == ext {
			return true
		}
	}
	return false
}

func describe(k *kind) string {
	switch k {
	case kindPNG:
		return "a PNG image"
	case kindJPEG:
		return "a JPEG image"
	case kindGIF:
		return "a GIF image"
	case kindWebP:
		return "a WebP image"
	case kindPDF:
		return "a PDF document"
	case kindCSV:
		return "CSV"
	case kindJSON:
		return "JSON"
	}
	return "plain text"
}

func quoteName(name string) string {
	if name == "" {
		return "The file"
	}
	return "“" + name + "”"
}

// Name is the name an accepted file is kept under: the base of name, in
// letters, digits, dots, dashes and underscores, at most 100 bytes, with
// f's extension.
func Name(name string, f File) string {
	name = path.Base(strings.ReplaceAll(name, `\`, "/"))
	base := strings.TrimSuffix(name, path.Ext(name))
	var b strings.Builder
	for _, r := range base {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
		if b.Len() >= 90 {
			break
		}
	}
	clean := strings.Trim(b.String(), ".-")
	if clean == "" {
		clean = "file"
	}
	ext := strings.ToLower(path.Ext(name))
	if ext == "" || !strings.HasSuffix(f.Ext, ext) && !validFor(f, ext) {
		ext = f.Ext
	}
	return clean + ext
}

func validFor(f File, ext string) bool {
	for _, k := range []*kind{kindPNG, kindJPEG, kindGIF, kindWebP, kindPDF, kindText, kindCSV, kindJSON} {
		if strings.HasPrefix(f.ContentType, strings.SplitN(k.contentType, ";", 2)[0]) && k.ext == f.Ext {
			return containsExt(k.exts, ext) && ext != ""
		}
	}
	return false
}
