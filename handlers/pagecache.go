package handlers

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"sync"
	"time"
)

// pageCache keeps rendered pages (postmortems, patterns, lists) while the
// data they show is unchanged: rendering a 20 kB write-up costs a
// millisecond or more of queries, templates and Markdown, and serving the
// same bytes again costs almost nothing. An entry holds for one data
// version (store.DataVersion) and one day (pages show what is overdue).
type pageCache struct {
	mu      sync.Mutex
	version int64
	size    int
	pages   map[string]cachedPage
}

type cachedPage struct {
	contentType string
	body        []byte
}

// pageCacheBytes bounds the memory the cache holds; when full it starts
// again empty, which is simple and, for a working set larger than this,
// no worse than no cache.
const pageCacheBytes = 24 << 20

func (c *pageCache) get(key string, version int64) (cachedPage, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if version != c.version {
		c.pages, c.size, c.version = nil, 0, version
	}
	p, ok := c.pages[key]
	return p, ok
}

func (c *pageCache) put(key string, version int64, p cachedPage) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if version != c.version {
		return // the data changed while the page was rendered
	}
	if c.pages == nil || c.size+len(p.body) > pageCacheBytes {
		c.pages, c.size = map[string]cachedPage{}, 0
	}
	c.pages[key] = p
	c.size += len(p.body)
}

// capture is a ResponseWriter that keeps what a handler writes.
type capture struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (c *capture) Header() http.Header         { return c.header }
func (c *capture) WriteHeader(status int)      { c.status = status }
func (c *capture) Write(b []byte) (int, error) { return c.body.Write(b) }

// pageKey names a cached page: its absolute URL (pages carry it, for
// OpenGraph), in the quarter hour it was rendered (whether an action item
// is overdue changes at midnight in its postmortem's time zone, and every
// zone's offset is a multiple of 15 minutes), for one kind of reader: their
// role (which controls a page shows) and their groups (which restricted
// postmortems it lists). Never the reader themselves: see cached.
func (h *Handler) pageKey(r *http.Request) string {
	u := userOf(r)
	return h.now().UTC().Truncate(15*time.Minute).Format(time.RFC3339) + " " + h.origin(r) + r.URL.RequestURI() + "\x00" + u.Role.String() + "\x00" +
		strings.Join(u.Groups, "\x01")
}

// impersonal is r without anything that names its reader: no name, no
// email, no cookies. Cached pages are rendered from it, so whatever a
// handler reads, a page served to the next reader of the same role and
// groups holds nothing of the first one.
func impersonal(r *http.Request) *http.Request {
	u := userOf(r)
	u.Name, u.Email = "", ""
	r = r.Clone(context.WithValue(r.Context(), userKey{}, u))
	r.Header.Del("Cookie")
	r.Header.Del("Authorization")
	return r
}

// cacheable reports whether r may be answered from the page cache: only
// GETs (and HEADs, which net/http answers without the body) of pages are,
// and not when a flash message waits to be shown (that page is for one
// reader).
func cacheable(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead || neverShed(r.URL.Path) || isAPI(r) {
		return false // probes and assets must not wait on the database
	}
	_, err := r.Cookie(flashCookie)
	return err != nil
}

// fromPageCache answers from the page cache, before shed: a kept page costs
// next to nothing, so it is served even when the expensive requests are at
// their cap. Pages get there through cached.
func (h *Handler) fromPageCache(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !cacheable(r) {
			next.ServeHTTP(w, r)
			return
		}
		version, err := h.store.DataVersion(r.Context())
		if err != nil {
			h.error(w, r, err)
			return
		}
		if p, ok := h.rendered.get(h.pageKey(r), version); ok {
			w.Header().Set("Content-Type", p.contentType)
			w.Write(p.body)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// cached keeps next's page in the page cache, for fromPageCache to serve
// until the data changes.
func (h *Handler) cached(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !cacheable(r) {
			next(w, impersonal(r))
			return
		}
		version, err := h.store.DataVersion(r.Context())
		if err != nil {
			h.error(w, r, err)
			return
		}
		c := &capture{header: w.Header(), status: http.StatusOK}
		next(c, impersonal(r))
		if c.status == http.StatusOK {
			h.rendered.put(h.pageKey(r), version, cachedPage{contentType: w.Header().Get("Content-Type"), body: bytes.Clone(c.body.Bytes())})
		}
		w.WriteHeader(c.status)
		w.Write(c.body.Bytes())
	}
}
