package handlers

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-chi/chi/v5"

	"hindsight/store"
)

// The page cache keeps rendered pages (postmortems, patterns, lists)
// while the data they show is unchanged: rendering a 20 kB write-up costs a
// millisecond or more of queries, templates and Markdown, and serving the
// same bytes again costs almost nothing. It is a store.Cache, under the
// rule of every value derived from the data: an entry holds for one
// generation of the data, and a hit reads no SQLite. The key holds the
// day (pageDays: pages show what is overdue).
type cachedPage struct {
	// The header values, made once: a hit sets them into the response's
	// header as they are (net/http only reads them). Content-Length spares
	// the chunked encoding of a body larger than the server's buffer.
	contentType, contentLength []string
	body                       []byte
	// route is the pattern of the route that rendered the page: a hit is
	// answered before routing, and logs and metrics name it by this
	// instead of finding the route again (routeOf).
	route string
	// signedInAt is where the header names its reader (signedInMark),
	// -1 when it does not.
	signedInAt int
}

func newCachedPage(contentType string, body []byte, route string) cachedPage {
	return cachedPage{contentType: []string{contentType}, contentLength: []string{strconv.Itoa(len(body))}, body: body, route: route,
		signedInAt: bytes.Index(body, signedInMark)}
}

// write sends the kept page, naming its reader where the header does.
func (p cachedPage) write(w http.ResponseWriter, r *http.Request, h *Handler) {
	hd := w.Header()
	hd["Content-Type"] = p.contentType
	if p.signedInAt < 0 {
		hd["Content-Length"] = p.contentLength
		w.Write(p.body)
		return
	}
	who := h.signedIn(r)
	hd["Content-Length"] = []string{strconv.Itoa(len(p.body) - len(signedInMark) + len(who))}
	w.Write(p.body[:p.signedInAt])
	w.Write(who)
	w.Write(p.body[p.signedInAt+len(signedInMark):])
}

// pageCacheBytes bounds the memory the cache holds; when full it lets go
// of the pages asked for least lately (store.Cache).
const pageCacheBytes = 24 << 20

func newPageCache(st *store.Store) *store.Cache[cachedPage] {
	return store.NewCache(st, pageCacheBytes, func(p cachedPage) int { return len(p.body) })
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
// OpenGraph), on the day it was rendered (pageDays), for one kind of
// reader: their role (which controls a page shows) and their groups (which
// restricted postmortems it lists). Never the reader themselves: see
// cached.
func (h *Handler) pageKey(r *http.Request) string {
	u := userOf(r)
	// Built in one buffer: a hit makes no other string.
	var buf [256]byte
	b := append(buf[:0], h.days.key(r.Context(), h.store, h.now())...)
	b = append(append(append(append(b, ' '), h.scheme(r)...), "://"...), r.Host...)
	if r.URL.Opaque != "" {
		b = append(b, r.URL.RequestURI()...)
	} else { // RequestURI's text, without its string
		p := r.URL.EscapedPath()
		if p == "" {
			p = "/"
		}
		b = append(b, p...)
		if r.URL.ForceQuery || r.URL.RawQuery != "" {
			b = append(append(b, '?'), r.URL.RawQuery...)
		}
	}
	b = append(append(append(b, 0), u.Role.String()...), 0)
	for i, g := range u.Groups {
		if i > 0 {
			b = append(b, 1)
		}
		b = append(b, g...)
	}
	return string(b)
}

// impersonal is r without anything that names its reader: no name, no
// email, no cookies. Cached pages are rendered from it, so whatever a
// handler reads, a page served to the next reader of the same role and
// groups holds nothing of the first one.
func impersonal(r *http.Request) *http.Request {
	info := *infoOf(r)
	info.user.Name, info.user.Email = "", ""
	info.impersonal = true
	r = r.Clone(context.WithValue(r.Context(), infoKey{}, &info))
	r.Header.Del("Cookie")
	r.Header.Del("Authorization")
	return r
}

// cacheable reports whether r may be answered from the page cache: only
// GETs (and HEADs, which net/http answers without the body) of pages are,
// and not when a flash message waits to be shown (that page is for one
// reader).
func cacheable(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead || probeOrAsset(r.URL.Path) || isAPI(r) {
		return false // probes and assets must not wait on the database
	}
	_, err := r.Cookie(flashCookie)
	return err != nil
}

// fromPageCache answers from the page cache, before shed: a kept page costs
// next to nothing, so it is served even when the expensive requests are at
// their cap. Pages get there through cached. Every other request goes on
// with the reader's groups, which the store filters restricted postmortems
// by, and looks for other processes' writes at most once
// (store.CheckWritesOnce).
func (h *Handler) fromPageCache(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if cacheable(r) {
			if p, ok := h.rendered.Lookup(h.pageKey(r)); ok {
				if rctx := chi.RouteContext(r.Context()); rctx != nil {
					rctx.RoutePatterns = append(rctx.RoutePatterns, p.route)
				}
				p.write(w, r, h)
				return
			}
		}
		next.ServeHTTP(w, r.WithContext(store.CheckWritesOnce(store.WithReaderGroups(r.Context(), userOf(r).Groups))))
	})
}

// errNotKept carries a page that is not kept (its status is not 200).
type errNotKept struct{ c *capture }

func (errNotKept) Error() string { return "page not kept" }

// cached keeps next's page in the page cache, for fromPageCache to serve
// until the data changes. Requests for a page being rendered wait for it.
func (h *Handler) cached(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !cacheable(r) {
			next(w, impersonal(r))
			return
		}
		p, err := h.rendered.Get(r.Context(), h.pageKey(r), func() (cachedPage, error) {
			c := &capture{header: w.Header(), status: http.StatusOK}
			next(c, impersonal(r))
			if c.status != http.StatusOK {
				return cachedPage{}, errNotKept{c}
			}
			return newCachedPage(w.Header().Get("Content-Type"), c.body.Bytes(), routeOf(r)), nil
		})
		var notKept errNotKept
		switch {
		case errors.As(err, &notKept):
			w.WriteHeader(notKept.c.status)
			w.Write(notKept.c.body.Bytes())
		case err != nil:
			h.error(w, r, err)
		default:
			p.write(w, r, h)
		}
	}
}

// pageDays names the day a page is rendered on, as far as pages can tell:
// the date in UTC (a review is overdue after its due date there) and in
// each time zone action items fall due in (store.TimeZonesInUse: an item
// is overdue after its due date where its team is). It changes when one
// of those dates does, a few times a day. A key of the quarter hour
// (every zone's offset is a multiple of 15 minutes) rendered every kept
// page again at once 96 times a day: at 100,000 postmortems, a burst of
// renders of 50 ms and more, which shed requests under load.
type pageDays struct {
	current atomic.Pointer[pageDay]
	mu      sync.Mutex // one computation at a time
}

// pageDay is one day's key, for one data generation (the zones in use
// come from the data), from its first moment to its next midnight in one
// of the zones.
type pageDay struct {
	key       string
	gen       uint64
	from, end time.Time
}

func (d *pageDays) key(ctx context.Context, st *store.Store, now time.Time) string {
	gen := st.Generation()
	if c := d.current.Load(); c != nil && c.gen == gen && !now.Before(c.from) && now.Before(c.end) {
		return c.key
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	zones, err := st.TimeZonesInUse(ctx)
	if err != nil {
		// Still right, only kept for less long.
		return "q" + strconv.FormatInt(now.Unix()/int64(15*time.Minute/time.Second), 10)
	}
	day := pageDay{gen: gen}
	var dates []string
	for _, z := range append([]string{""}, zones...) {
		loc := store.Location(z)
		t := now.In(loc)
		start := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, loc)
		next := start.AddDate(0, 0, 1)
		if day.end.IsZero() || next.Before(day.end) {
			day.end = next
		}
		if start.After(day.from) {
			day.from = start
		}
		dates = append(dates, t.Format(time.DateOnly))
	}
	day.key = strings.Join(dates, ",")
	d.current.Store(&day)
	return day.key
}
