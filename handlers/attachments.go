package handlers

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"hindsight/attachment"
	"hindsight/markdown"
	"hindsight/store"
)

// Attachments: graphs, screenshots and files uploaded into a postmortem
// (issue 30). An upload is read as a stream: admission (readBodies) spools
// its body to a temporary file rather than memory, and receiveUpload
// copies the file part to another, hashing it on the way, so that memory
// stays bounded whatever the size. The attachment package decides what the
// bytes are; the store keeps them in the database file, once per content.

// DefaultMaxAttachment is the default limit on one attachment's size.
const DefaultMaxAttachment = attachment.DefaultMax

// Default quotas: what one postmortem's attachments, and all of them, may
// take.
const (
	DefaultAttachmentQuotaPerPostmortem = 100 << 20
	DefaultAttachmentQuotaTotal         = 4 << 30
)

// maxAltRunes bounds an attachment's alt text.
const maxAltRunes = 300

// MaxAttachment sets the largest attachment accepted, in bytes (413 past
// it); n <= 0 keeps the default.
func MaxAttachment(n int64) Option {
	return func(h *Handler) {
		if n > 0 {
			h.attach.max = n
		}
	}
}

// AttachmentQuota sets what one postmortem's attachments and all of them
// may take, in bytes; zero is no quota.
func AttachmentQuota(perPostmortem, total int64) Option {
	return func(h *Handler) { h.attach.quota = store.AttachmentQuota{PerPostmortem: perPostmortem, Total: total} }
}

// ImgSrc adds hosts a team trusts (a Grafana, say) to the img-src of the
// content security policy, for Markdown images that stay remote. Each is a
// CSP source expression such as https://grafana.example.com.
func ImgSrc(hosts []string) Option {
	return func(h *Handler) { h.imgSrc = append(h.imgSrc, hosts...) }
}

// attachConfig is how attachments are bounded.
type attachConfig struct {
	max   int64
	quota store.AttachmentQuota
}

func defaultAttachConfig() attachConfig {
	return attachConfig{max: DefaultMaxAttachment,
		quota: store.AttachmentQuota{PerPostmortem: DefaultAttachmentQuotaPerPostmortem, Total: DefaultAttachmentQuotaTotal}}
}

// isUpload reports the routes whose bodies carry a file: admission
// spools them to disk and allows them the attachment limit.
func isUpload(r *http.Request) bool {
	if r.Method != http.MethodPost {
		return false
	}
	p := r.URL.Path
	return p == "/api/attachments" || strings.HasPrefix(p, "/api/postmortems/") && strings.HasSuffix(p, "/attachments") ||
		strings.HasPrefix(p, "/postmortems/") && strings.HasSuffix(p, "/attach")
}

// uploadBodyLimit is the most an upload's body may hold: the file, and
// the form around it.
func (h *Handler) uploadBodyLimit() int64 { return h.attach.max + maxFormBytes }

// spoolBody copies an upload's body to a temporary file, through a small
// buffer, and returns it from the start; closing it removes it.
func spoolBody(body io.Reader) (io.ReadCloser, int64, error) {
	f, err := os.CreateTemp("", "hindsight-upload-*")
	if err != nil {
		return nil, 0, err
	}
	n, err := io.CopyBuffer(f, body, make([]byte, 32<<10))
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, 0, err
	}
	return &tempFile{f}, n, nil
}

// tempFile is a temporary file that closing removes.
type tempFile struct{ *os.File }

func (t *tempFile) Close() error {
	err := t.File.Close()
	os.Remove(t.File.Name())
	return err
}

// upload is a file received: its bytes in a temporary file, checked.
type upload struct {
	file    *tempFile
	size    int64
	sha256  string
	name    string // as sent
	claimed string // the type as sent
	alt     string
	checked attachment.File
}

func (u *upload) close() {
	if u.file != nil {
		u.file.Close()
	}
}

// errNoFile is an upload without a file.
var errNoFile = uploadInvalid("Choose a file to upload. Hindsight accepts " + attachment.Accepted + ".")

// uploadInvalid is an upload refused for what came with it (no file, no
// alt text): 422.
type uploadInvalid string

func (e uploadInvalid) Error() string { return string(e) }

// receiveUpload reads a multipart body part by part: the part named file
// is copied to a temporary file while it is hashed, at most the
// attachment limit of it (413 past it); every other part is a form value,
// all of them at most maxFormBytes. The values are set as r's form, so the
// form's own readers find them. The caller closes the upload, also on
// error.
func (h *Handler) receiveUpload(r *http.Request) (*upload, error) {
	up := &upload{}
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
		return up, fmt.Errorf("%w: send the file as multipart/form-data, in a part named file", errBadRequest)
	}
	mr := multipart.NewReader(r.Body, params["boundary"])
	values := url.Values{}
	budget := int64(maxFormBytes)
	buf := make([]byte, 32<<10)
	for parts := 0; ; parts++ {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return up, bodyError(err)
		}
		if parts > 10000 {
			return up, fmt.Errorf("%w: too many parts in the form", errBadRequest)
		}
		name := part.FormName()
		if name == "file" && part.FileName() != "" && up.file == nil {
			if up.file, err = newTempFile(); err != nil {
				return up, err
			}
			sum := sha256.New()
			n, err := io.CopyBuffer(io.MultiWriter(up.file, sum), io.LimitReader(part, h.attach.max+1), buf)
			if err != nil {
				return up, bodyError(err)
			}
			if n > h.attach.max {
				return up, &http.MaxBytesError{Limit: h.attach.max}
			}
			up.size, up.sha256, up.name = n, hex.EncodeToString(sum.Sum(nil)), part.FileName()
			up.claimed = part.Header.Get("Content-Type")
			continue
		}
		if part.FileName() != "" {
			continue // another file: not read
		}
		b, err := io.ReadAll(io.LimitReader(part, budget+1))
		if err != nil {
			return up, bodyError(err)
		}
		if budget -= int64(len(b)); budget < 0 {
			return up, &http.MaxBytesError{Limit: maxFormBytes}
		}
		values.Add(name, string(b))
	}
	r.PostForm, r.Form = values, values
	signAsUser(r)
	up.alt = strings.Join(strings.Fields(values.Get("alt")), " ")
	if up.file == nil {
		return up, errNoFile
	}
	if !utf8.ValidString(up.alt) || utf8.RuneCountInString(up.alt) > maxAltRunes {
		return up, uploadInvalid(fmt.Sprintf("The alt text must be text of at most %d characters.", maxAltRunes))
	}
	up.checked, err = attachment.Check(up.file, up.size, up.name, up.claimed)
	if err != nil {
		return up, err
	}
	if up.checked.Image() && up.alt == "" {
		return up, uploadInvalid("An image needs alt text: a few words on what it shows, read to people who cannot see it.")
	}
	if _, err := up.file.Seek(0, io.SeekStart); err != nil {
		return up, err
	}
	return up, nil
}

func newTempFile() (*tempFile, error) {
	f, err := os.CreateTemp("", "hindsight-attachment-*")
	if err != nil {
		return nil, err
	}
	return &tempFile{f}, nil
}

// bodyError is an error reading a body: a body past its limit stays one
// (413), anything else is a malformed request.
func bodyError(err error) error {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) || errors.Is(err, errBodyTimeout) {
		return err
	}
	return fmt.Errorf("%w: the upload could not be read: %v", errBadRequest, err)
}

// uploader is who a pending upload belongs to: a signed-in user (proxy,
// token); "" without sign-in (-auth none), where everyone is one person
// and the name typed in a form may change between the upload and the
// save.
func uploader(r *http.Request) string {
	if u := userOf(r); u.signedIn() {
		return u.Name
	}
	return ""
}

// storeUpload keeps up as an attachment of the postmortem at slug
// (pending when slug is "").
func (h *Handler) storeUpload(r *http.Request, slug string, up *upload) (store.Attachment, error) {
	return h.store.CreateAttachment(r.Context(), slug, store.NewAttachment{
		Name: attachment.Name(up.name, up.checked), Alt: up.alt, ContentType: up.checked.ContentType,
		SHA256: up.sha256, Size: up.size, Width: up.checked.Width, Height: up.checked.Height,
		UploadedBy: uploader(r), Content: up.file,
	}, h.attach.quota)
}

// apiAttachment is an attachment in the API.
type apiAttachment struct {
	ID          int64  `json:"id"`
	Name        string `json:"name"`
	ContentType string `json:"content_type"`
	Size        int64  `json:"size"`
	URL         string `json:"url"`
	Markdown    string `json:"markdown"`
	Alt         string `json:"alt"`
	Width       int    `json:"width,omitempty"`
	Height      int    `json:"height,omitempty"`
	SHA256      string `json:"sha256"`
}

func toAPIAttachment(a store.Attachment) apiAttachment {
	return apiAttachment{ID: a.ID, Name: a.Name, ContentType: a.ContentType, Size: a.Size, URL: a.URL(), Markdown: a.Markdown(),
		Alt: a.Alt, Width: a.Width, Height: a.Height, SHA256: a.SHA256}
}

// apiUploadAttachment is POST /api/postmortems/{slug}/attachments
// (multipart: file, alt), and POST /api/attachments for a postmortem not
// saved yet: 201 with the attachment and the Markdown that shows it.
func (h *Handler) apiUploadAttachment(w http.ResponseWriter, r *http.Request) {
	slug := r.PathValue("slug")
	if slug != "" {
		// Who cannot read the postmortem learns nothing, not even whether
		// their file would have been taken.
		if _, err := h.store.GetPostmortem(r.Context(), slug); err != nil {
			h.error(w, r, err)
			return
		}
	}
	up, err := h.receiveUpload(r)
	defer up.close()
	if err != nil {
		h.error(w, r, err)
		return
	}
	a, err := h.storeUpload(r, slug, up)
	if err != nil {
		h.error(w, r, err)
		return
	}
	w.Header().Set("Location", a.URL())
	writeJSON(w, http.StatusCreated, toAPIAttachment(a))
}

// apiListAttachments is GET /api/postmortems/{slug}/attachments.
func (h *Handler) apiListAttachments(w http.ResponseWriter, r *http.Request) {
	as, err := h.store.ListAttachments(r.Context(), r.PathValue("slug"))
	if err != nil {
		h.error(w, r, err)
		return
	}
	items := make([]apiAttachment, 0, len(as))
	for _, a := range as {
		items = append(items, toAPIAttachment(a))
	}
	writeJSON(w, http.StatusOK, map[string]any{"items": items})
}

// serveAttachment is GET /attachments/{id}/{name}: the bytes, to whoever
// may read the attachment's postmortem and the versions referencing it
// (404 to anyone else, as if it did not exist). Images are shown inline,
// other files downloaded. An attachment never changes, so its ETag is its
// content's hash; one readable by everyone may be kept by any cache for
// a year, a restricted one only by its reader's browser.
func (h *Handler) serveAttachment(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "id", "attachment")
	if err != nil {
		h.error(w, r, err)
		return
	}
	a, err := h.store.GetAttachment(r.Context(), id, uploader(r))
	if err == nil && r.PathValue("name") != a.Name {
		err = fmt.Errorf("attachment %d is not named %q: %w", id, r.PathValue("name"), store.ErrNotFound)
	}
	if err != nil {
		h.error(w, r, err)
		return
	}
	hd := w.Header()
	etag := `"` + a.SHA256 + `"`
	hd.Set("ETag", etag)
	if len(a.RestrictedTo) == 0 && a.PostmortemID != 0 && h.unrestrictedReaders(r.Context(), a) {
		hd.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		hd.Set("Cache-Control", "private, max-age=31536000, immutable")
	}
	hd.Set("X-Content-Type-Options", "nosniff")
	// Nothing served here runs: not even a PDF's script, if a browser
	// shows one.
	hd.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	if match := r.Header.Get("If-None-Match"); match != "" && strings.Contains(match, etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	disposition := "attachment"
	if a.Image() {
		disposition = "inline"
	}
	hd.Set("Content-Disposition", mime.FormatMediaType(disposition, map[string]string{"filename": a.Name}))
	hd.Set("Content-Type", a.ContentType)
	hd.Set("Content-Length", strconv.FormatInt(a.Size, 10))
	if err := h.store.WriteAttachment(r.Context(), a, w); err != nil {
		h.log.ErrorContext(r.Context(), "serve attachment", "err", err, "id", a.ID)
	}
}

// unrestrictedReaders reports whether everyone who may read Hindsight may
// read a's postmortem: a response a shared cache keeps must hold nothing
// about one user.
func (h *Handler) unrestrictedReaders(ctx context.Context, a store.Attachment) bool {
	p, err := h.store.GetPostmortem(ctx, a.Slug)
	return err == nil && len(p.RestrictedTo) == 0
}

// addImageSizer lets the Markdown renderer draw this store's image
// attachments at their size.
func (h *Handler) addImageSizer() {
	st := h.store
	markdown.AddImageSizer(func(dest string) (int, int, bool) {
		rest, ok := strings.CutPrefix(dest, "/attachments/")
		if !ok {
			return 0, 0, false
		}
		idText, name, ok := strings.Cut(rest, "/")
		id, err := strconv.ParseInt(idText, 10, 64)
		if !ok || err != nil {
			return 0, 0, false
		}
		if n, err := url.PathUnescape(name); err == nil {
			name = n
		}
		return st.ImageSize(context.Background(), id, name)
	})
}

// uploadReadTimeout is how long a client has to send an upload's body:
// longer than a form's, as a file is larger (the server's ReadTimeout
// still bounds the whole request).
const uploadReadTimeout = 30 * time.Second

// spoolUpload is readBodies for an upload: the body goes to a temporary
// file, not memory, within uploadReadTimeout, before the request may take
// a slot; the file is removed once the request is answered.
func (h *Handler) spoolUpload(w http.ResponseWriter, r *http.Request, rc *http.ResponseController, next http.Handler) {
	_ = rc.SetReadDeadline(time.Now().Add(uploadReadTimeout))
	body, n, err := spoolBody(r.Body)
	if err != nil {
		_ = rc.SetReadDeadline(time.Now())
		if isTimeout(err) {
			err = errBodyTimeout
		}
		h.error(w, r, bodyError(err))
		return
	}
	defer body.Close()
	_ = rc.SetReadDeadline(time.Time{})
	r.Body, r.ContentLength = body, n
	next.ServeHTTP(w, r)
}
