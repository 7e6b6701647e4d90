package handlers

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// exchange is what the middleware keeps of one request while it is
// answered, made once per request (one allocation for all of it): the
// recorder of what was answered, for the log line and the metrics, and
// what the handlers learn of the request (infoOf): its ID, and who sent
// it, which authenticate fills in.
type exchange struct {
	rec  recorder
	info requestInfo
	// idHeader is the X-Request-Id header's value, full (Add copies it).
	idHeader [1]string
}

// requestInfo is what the handlers learn of a request from the
// middleware, kept in its context.
type requestInfo struct {
	id     string
	user   user // authenticate's
	secure bool // see Handler.secure
	// impersonal marks the copy a cached page is rendered from: its page
	// keeps the place for the reader's name (see signedInMark).
	impersonal bool
}

type infoKey struct{}

// infoOf is r's requestInfo; the zero one for a request that did not come
// through observeRequests.
func infoOf(r *http.Request) *requestInfo {
	if info, ok := r.Context().Value(infoKey{}).(*requestInfo); ok {
		return info
	}
	return &requestInfo{}
}

func requestID(r *http.Request) string { return infoOf(r).id }

// requestIDPrefix and requestCount make the IDs of requests a proxy sent
// none for, as chi's middleware.RequestID did: "host/random-000001", the
// host name and ten random characters naming this process, then a count.
var (
	requestIDPrefix = newRequestIDPrefix()
	requestCount    atomic.Uint64
)

func newRequestIDPrefix() string {
	host, err := os.Hostname()
	if host == "" || err != nil {
		host = "localhost"
	}
	var b64 string
	for len(b64) < 10 {
		var buf [12]byte
		rand.Read(buf[:])
		b64 = strings.NewReplacer("+", "", "/", "").Replace(base64.StdEncoding.EncodeToString(buf[:]))
	}
	return host + "/" + b64[:10]
}

// newRequestID is the proxy's X-Request-Id, or the next of this process,
// the count zero-padded to six digits at least.
func newRequestID(r *http.Request) string {
	if id := r.Header.Get("X-Request-Id"); id != "" {
		return id
	}
	var buf [128]byte
	b := append(append(buf[:0], requestIDPrefix...), '-')
	var digits [20]byte
	n := strconv.AppendUint(digits[:0], requestCount.Add(1), 10)
	for i := len(n); i < 6; i++ {
		b = append(b, '0')
	}
	return string(append(b, n...))
}

// recorder passes a response on and records its status and size. As
// chi's middleware.WrapResponseWriter did, it passes informational (1xx)
// statuses on and drops a second final one. http.ResponseController
// reaches the connection through Unwrap (see readBodies).
type recorder struct {
	http.ResponseWriter
	status, bytes int
}

func (rec *recorder) WriteHeader(status int) {
	switch {
	case status >= 100 && status <= 199 && status != http.StatusSwitchingProtocols:
		rec.ResponseWriter.WriteHeader(status)
	case rec.status == 0:
		rec.status = status
		rec.ResponseWriter.WriteHeader(status)
	}
}

func (rec *recorder) Write(b []byte) (int, error) {
	if rec.status == 0 {
		rec.WriteHeader(http.StatusOK)
	}
	n, err := rec.ResponseWriter.Write(b)
	rec.bytes += n
	return n, err
}

func (rec *recorder) Unwrap() http.ResponseWriter { return rec.ResponseWriter }

// observeRequests gives each request its ID, logs one line per request
// once it is answered, and records it in the metrics. The response
// carries the request ID, so a user's report can be matched to the log.
func (h *Handler) observeRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		h.metrics.inFlight.Inc()
		defer h.metrics.inFlight.Dec()
		x := &exchange{rec: recorder{ResponseWriter: w}}
		x.info.id = newRequestID(r)
		x.idHeader[0] = x.info.id
		w.Header()["X-Request-Id"] = x.idHeader[:]
		r = r.WithContext(context.WithValue(r.Context(), infoKey{}, &x.info))
		next.ServeHTTP(&x.rec, r)
		took := time.Since(start)
		status := x.rec.status
		if status == 0 {
			status = http.StatusOK
		}
		route := routeOf(r)
		h.metrics.observe(r, route, status, took.Seconds())
		// What h.log.LogAttrs does, but without the caller's program
		// counter (runtime.Callers, on every request), which a handler
		// only shows with AddSource, and the app's loggers have none.
		if lh := h.log.Handler(); lh.Enabled(r.Context(), slog.LevelInfo) {
			line := slog.NewRecord(time.Now(), slog.LevelInfo, "request", 0)
			line.AddAttrs(
				slog.String("method", r.Method), slog.String("path", r.URL.Path), slog.String("route", route),
				slog.Int("status", status), slog.Int("bytes", x.rec.bytes), slog.Duration("duration", took),
				slog.String("client", h.clientIP(r)), slog.String("request_id", x.info.id))
			_ = lh.Handle(r.Context(), line)
		}
	})
}

// recoverPanics turns a panic in a handler into a logged 500 page.
func (h *Handler) recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				h.error(w, r, fmt.Errorf("panic: %v", v))
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// securityHeaders allows no inline script, no framing and no content sniffing.
// Strict-Transport-Security is left to the TLS-terminating proxy: this server
// speaks plain HTTP, and HSTS sent over plain HTTP is ignored by browsers at
// best and locks a misconfigured site out at worst.
// The values are made once and shared by every response, as a cached
// page's are: net/http only reads them, and Set or Add replace or grow a
// copy (each slice is full).
// Images may also come from the hosts of -img-src (h.imgSrc).
func (h *Handler) securityHeaders(next http.Handler) http.Handler {
	imgSrc := "'self' data:"
	for _, host := range h.imgSrc {
		imgSrc += " " + host
	}
	csp := []string{"default-src 'self'; script-src 'self'; style-src 'self'; img-src " + imgSrc + "; " +
		"object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"}
	nosniff, referrer, deny := []string{"nosniff"}, []string{"strict-origin-when-cross-origin"}, []string{"DENY"}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd["Content-Security-Policy"] = csp
		hd["X-Content-Type-Options"] = nosniff
		hd["Referrer-Policy"] = referrer
		hd["X-Frame-Options"] = deny
		next.ServeHTTP(w, r)
	})
}

var errCrossOrigin = errors.New("cross-origin request refused")

// refuseCrossOrigin refuses state-changing requests that a browser says come
// from another site (Sec-Fetch-Site, or Origin against Host), which is what
// a forged form post looks like; no token is needed.
func (h *Handler) refuseCrossOrigin(next http.Handler) http.Handler {
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.error(w, r, errCrossOrigin)
	}))
	return cop.Handler(next)
}

// maxUploadBody is the ceiling for imports, which carry whole documents.
// It is generous on purpose: the import handlers read up to their own,
// smaller limits and answer an oversized file with a message in the form
// (or the API's JSON); this only stops what no handler should read.
const maxUploadBody = 12 << 20

// bodyLimit is the most a request body may hold, checked against
// Content-Length before a byte is read: maxUploadBody for imports,
// maxFormBytes for every other form or JSON record.
func bodyLimit(r *http.Request) int64 {
	if strings.HasPrefix(r.URL.Path, "/import") || r.URL.Path == "/api/postmortems" {
		return maxUploadBody
	}
	return maxFormBytes
}

// limitBodies refuses a body announced as too large before reading any of
// it, and stops reading one that turns out too large, so that no client can
// make the server hold or parse an unbounded body.
func (h *Handler) limitBodies(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := bodyLimit(r)
		if isUpload(r) {
			n = h.uploadBodyLimit()
		}
		if r.ContentLength > n {
			h.error(w, r, &http.MaxBytesError{Limit: n})
			return
		}
		if r.Body != http.NoBody { // as net/http gives a request without one
			r.Body = http.MaxBytesReader(w, r.Body, n)
		}
		next.ServeHTTP(w, r)
	})
}

// probeOrAsset reports the cheap routes: probes, the scrape and assets.
// They answer without an identity, and shed never refuses them: probes and
// scrapes must not fail because the app is busy, and assets are served
// from memory.
func probeOrAsset(path string) bool {
	switch path {
	case "/healthz", "/readyz", "/metrics", "/favicon.ico":
		return true
	}
	return strings.HasPrefix(path, "/static/")
}

// shed serves at most cap(h.slots) expensive requests at once and refuses
// the rest at once with 503 and Retry-After. Refusing fast keeps the
// latency of accepted requests bounded and the work per request the same,
// where a queue would let every request wait longer and time out together.
func (h *Handler) shed(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h.slots == nil || probeOrAsset(r.URL.Path) {
			next.ServeHTTP(w, r)
			return
		}
		select {
		case h.slots <- struct{}{}:
			defer func() { <-h.slots }()
			next.ServeHTTP(w, r)
		default:
			h.metrics.shed.Inc()
			refuseBusy(w, r)
		}
	})
}

// refuseBusy answers 503 with a fixed body: refusing must cost next to
// nothing, or a surge of refusals takes the CPU the accepted requests need
// (rendering the error page cost about a seventh of a whole page).
func refuseBusy(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Retry-After", "1")
	hd.Set("Cache-Control", "no-store")
	if isAPI(r) {
		hd.Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte(`{"error": "Hindsight is busy right now. Please retry in a moment."}` + "\n"))
		return
	}
	hd.Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusServiceUnavailable)
	w.Write([]byte("Hindsight is busy right now. Please retry in a moment.\n"))
}
