package handlers

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"net/http"
	"strings"
	"sync"

	"hindsight/static"
)

// assets serves the embedded static files. URLs carry a hash of the file's
// content (?v=…), so browsers may cache them for a year and still never see
// a stale file after an upgrade.
type assets struct {
	version map[string]string // path under static/ -> content hash
	files   http.Handler
}

// loadedAssets are the static assets, fingerprinted once per process: they
// are embedded, so every Handler serves the same.
var loadedAssets = sync.OnceValues(loadAssets)

func loadAssets() (*assets, error) {
	a := &assets{version: map[string]string{}, files: http.FileServerFS(static.FS)}
	err := fs.WalkDir(static.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(static.FS, p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		a.version[p] = hex.EncodeToString(sum[:6])
		return nil
	})
	return a, err
}

// url returns the versioned URL of a static file, e.g. "css/app.css".
func (a *assets) url(p string) string {
	return "/static/" + p + "?v=" + a.version[p]
}

func (a *assets) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// Directory listings are not part of the site.
	if _, ok := a.version[r.URL.Path]; !ok || strings.HasSuffix(r.URL.Path, "/") {
		w.Header().Set("Cache-Control", "no-store")
		http.NotFound(w, r)
		return
	}
	if r.URL.Query().Get("v") == a.version[r.URL.Path] {
		w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		w.Header().Set("Cache-Control", "public, max-age=300")
	}
	a.files.ServeHTTP(w, r)
}

func (h *Handler) serveFavicon(w http.ResponseWriter, r *http.Request) {
	http.Redirect(w, r, h.assets.url("img/favicon.svg"), http.StatusMovedPermanently)
}
