// Package handlers is Hindsight's HTTP layer: routes, pages and the JSON
// mirror. It parses requests, calls the store and renders; it holds no SQL.
package handlers

import (
	"context"
	"html/template"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"runtime"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"hindsight/library"
	"hindsight/store"
)

// Handler serves the whole application.
type Handler struct {
	store  *store.Store
	lib    *library.Library // the use cases over store that are not SQL
	log    *slog.Logger
	pages  map[string]*template.Template
	assets *assets
	// rendered keeps the pages most read, while the data is unchanged;
	// days names the day they are rendered on (pageKey).
	rendered *store.Cache[cachedPage]
	days     pageDays
	// triageCache keeps triage answers (triage_cache.go).
	triageCache triageCaches
	// now is the clock used to judge overdue action items.
	now func() time.Time
	mux http.Handler
	// patternNames names the suggested patterns in answers.
	patternNames map[string]string

	metrics *metrics
	// slots holds one token per expensive request being served; nil means
	// no limit.
	slots          chan struct{}
	trustedProxies []netip.Prefix
	// readyChecks are the parts of readiness besides the database's, and
	// collectors the metrics besides the application's.
	readyChecks []readyCheck
	collectors  []prometheus.Collector
	// clients holds the per-client limits; bodies the memory held by
	// request bodies (admission.go).
	clients clientTable
	bodies  bodyTable

	// auth says how users are known; publicURL and listenAddr which Host
	// headers are answered; metricsElsewhere takes /metrics off this
	// handler.
	auth             AuthConfig
	publicURL        *url.URL
	listenAddr       string
	metricsElsewhere bool

	// review is how postmortems are reviewed (review_policy.go).
	review reviewPolicy

	// attach bounds attachments; imgSrc are the hosts images may come
	// from besides this one (attachments.go).
	attach attachConfig
	imgSrc []string
	// people marks who was last written to the people table, and when
	// (people.go).
	people peopleSeen
	// mailOn says email notifications are configured (-smtp-addr).
	mailOn bool
	// notifyChannels names the channels notifications go to
	// (deliveries.go).
	notifyChannels map[string]string
}

// Option configures New.
type Option func(*Handler)

// DefaultMaxInFlight is the default cap on expensive requests served at
// once. Their work is CPU-bound (templates, a pure-Go SQLite), so past a
// few per core more concurrency only adds queueing: eight per core keeps
// every core busy while some requests wait on fsync or the write lock, and
// caps the latency of accepted requests at a few service times and the
// number of SQLite connections open at once.
func DefaultMaxInFlight() int { return 8 * runtime.GOMAXPROCS(0) }

// MaxInFlight caps the expensive requests (pages, the API, forms) served at
// once; past the cap they are refused at once with 503 and Retry-After
// rather than queued. n <= 0 removes the cap.
func MaxInFlight(n int) Option {
	return func(h *Handler) {
		h.slots = nil
		if n > 0 {
			h.slots = make(chan struct{}, n)
		}
	}
}

// Clock sets the clock that judges action items overdue (tests fix it).
func Clock(now func() time.Time) Option {
	return func(h *Handler) { h.now = now }
}

// TrustedProxies lists the reverse proxies whose X-Forwarded-For header is
// believed when logging a request's client address.
func TrustedProxies(prefixes []netip.Prefix) Option {
	return func(h *Handler) { h.trustedProxies = prefixes }
}

// ReadyCheck adds a part to readiness: /readyz answers 503 while check
// returns an error, and shows its status line under name either way.
func ReadyCheck(name string, check func(context.Context) (status string, err error)) Option {
	return func(h *Handler) { h.readyChecks = append(h.readyChecks, readyCheck{name, check}) }
}

// Collector adds metrics to /metrics.
func Collector(c prometheus.Collector) Option {
	return func(h *Handler) { h.collectors = append(h.collectors, c) }
}

// New builds the application's handler. It parses every template and
// fingerprints every static asset up front, so a broken template fails here
// rather than in the middle of a request.
func New(st *store.Store, log *slog.Logger, opts ...Option) (*Handler, error) {
	h := &Handler{store: st, lib: library.New(st), log: log, now: time.Now, rendered: newPageCache(st), attach: defaultAttachConfig(), triageCache: newTriageCaches(st)}
	MaxInFlight(DefaultMaxInFlight())(h)
	ClientLimits(-1, DefaultClientWrites)(h)
	Auth(AuthConfig{Mode: "none"})(h)
	ReviewPolicy(0, DefaultReviewDueDays)(h)
	for _, o := range opts {
		o(h)
	}
	if h.clients.inFlightCap < 0 {
		h.clients.inFlightCap = DefaultClientInFlight(cap(h.slots))
	}
	h.clients.inFlight = make(map[string]int)
	h.clients.writes = make(map[string]*bucket)
	var err error
	if h.assets, err = loadedAssets(); err != nil {
		return nil, err
	}
	if h.pages, err = parsedPages(); err != nil {
		return nil, err
	}
	if h.patternNames, err = readPatternNames(context.Background(), st); err != nil {
		return nil, err
	}
	if h.metrics, err = newMetrics(st, log, cap(h.slots), h.bodies.held, h.collectors); err != nil {
		return nil, err
	}
	if h.proxyMode() {
		if err := h.warnPlainEntries(context.Background()); err != nil {
			return nil, err
		}
	}
	h.addImageSizer()
	h.mux = h.routes()
	return h, nil
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }
