package handlers

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"hindsight/library"
	"hindsight/store"
)

// metrics are the application's Prometheus metrics, served at /metrics.
// Each Handler has a registry of its own, so tests can build many.
type metrics struct {
	requests *prometheus.CounterVec   // by route, method, code
	duration *prometheus.HistogramVec // by route, method
	inFlight prometheus.Gauge
	shed     prometheus.Counter
	// search is the latency of full-text queries alone, apart from
	// rendering the results (see runSearch).
	search  prometheus.Histogram
	handler http.Handler
	// labeled holds each route, method and status's counter and histogram
	// once looked up (WithLabelValues hashes the labels on every call); the
	// keys are as few as the label values.
	labeled sync.Map // requestLabels → labeledMetrics
}

type requestLabels struct {
	route, method string
	status        int
}

type labeledMetrics struct {
	requests prometheus.Counter
	duration prometheus.Observer
}

// bodyBytes is the memory request bodies hold now (admission.go).
func newMetrics(st *store.Store, log *slog.Logger, maxInFlight int, bodyBytes func() int64, extra []prometheus.Collector) (*metrics, error) {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hindsight_http_requests_total",
			Help: "HTTP requests answered, by route pattern, method and status code.",
		}, []string{"route", "method", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "hindsight_http_request_duration_seconds",
			Help:    "Time to answer HTTP requests, by route pattern and method.",
			Buckets: prometheus.DefBuckets,
		}, []string{"route", "method"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "hindsight_http_requests_in_flight",
			Help: "HTTP requests being answered now.",
		}),
		shed: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "hindsight_http_requests_shed_total",
			Help: "Requests refused with 503 because hindsight_http_max_in_flight expensive requests were already being served.",
		}),
		search: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "hindsight_search_duration_seconds",
			Help:    "Time to run a full-text search query against the database.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 2, 14), // 0.5 ms to 4 s
		}),
	}
	limit := prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "hindsight_http_max_in_flight",
		Help: "Cap on expensive requests served at once (-max-inflight); 0 means no cap.",
	})
	limit.Set(float64(maxInFlight))
	bodies := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "hindsight_http_request_body_bytes",
		Help: "Memory held by the request bodies being received or served.",
	}, func() float64 { return float64(bodyBytes()) })
	reg := prometheus.NewRegistry()
	for _, c := range append([]prometheus.Collector{
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		storeCollector{st: st, pool: collectors.NewDBStatsCollector(st.DB(), "hindsight")},
		m.requests, m.duration, m.inFlight, m.shed, m.search, limit, bodies,
	}, extra...) {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	m.handler = promhttp.HandlerFor(reg, promhttp.HandlerOpts{
		// A failing database query drops its metrics, not the whole scrape.
		ErrorHandling: promhttp.ContinueOnError,
		ErrorLog:      slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		Registry:      reg,
	})
	return m, nil
}

// runSearch runs a full-text search and records how long it took.
func (h *Handler) runSearch(ctx context.Context, p library.SearchParams) (library.SearchResult, error) {
	start := time.Now()
	defer func() { h.metrics.search.Observe(time.Since(start).Seconds()) }()
	return h.lib.Search(ctx, p)
}

func (h *Handler) serveMetrics(w http.ResponseWriter, r *http.Request) {
	switch {
	case h.metricsElsewhere:
		h.notFound(w, r)
	case !h.metricsAllowed(r):
		h.error(w, r, errMetricsRefused)
	default:
		h.metrics.handler.ServeHTTP(w, r)
	}
}

var errMetricsRefused = errors.New("metrics are served to loopback, trusted proxies and API tokens only")

// MetricsHandler serves the metrics alone, for -metrics-addr.
func (h *Handler) MetricsHandler() http.Handler { return h.metrics.handler }

// routeOf names the route that answered r by its pattern, never by its raw
// path, so that label values stay few whatever URLs clients send. Requests
// refused before routing (shed, cross-origin) are named by the route they
// would have reached.
func routeOf(r *http.Request) string {
	rctx := chi.RouteContext(r.Context())
	if rctx == nil {
		return "unmatched"
	}
	p := rctx.RoutePattern()
	if p == "" && rctx.Routes != nil {
		p = rctx.Routes.Find(chi.NewRouteContext(), r.Method, r.URL.Path)
	}
	if p == "" {
		return "unmatched"
	}
	return p
}

// methodOf bounds the method label: clients may send any token as a method.
func methodOf(r *http.Request) string {
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions:
		return r.Method
	}
	return "OTHER"
}

func (m *metrics) observe(r *http.Request, route string, status int, seconds float64) {
	key := requestLabels{route, methodOf(r), status}
	v, ok := m.labeled.Load(key)
	if !ok {
		v, _ = m.labeled.LoadOrStore(key, labeledMetrics{
			requests: m.requests.WithLabelValues(key.route, key.method, strconv.Itoa(status)),
			duration: m.duration.WithLabelValues(key.route, key.method),
		})
	}
	l := v.(labeledMetrics)
	l.requests.Inc()
	l.duration.Observe(seconds)
}

var (
	postmortemsDesc = prometheus.NewDesc("hindsight_postmortems",
		"Live (not archived) postmortems, counting every language version and copy.", nil, nil)
	incidentsDesc = prometheus.NewDesc("hindsight_incidents",
		"Live incidents: variant groups of postmortems, as lists show them.", nil, nil)
	openActionItemsDesc = prometheus.NewDesc("hindsight_action_items_open",
		"Action items of live postmortems that are open or in progress.", nil, nil)
	overdueActionItemsDesc = prometheus.NewDesc("hindsight_action_items_overdue",
		"Open or in-progress action items of live postmortems past their due date in the postmortem's time zone.", nil, nil)
)

var (
	writeErrorsDesc = prometheus.NewDesc("hindsight_write_errors_total",
		"Writes that failed for the storage under the database, by reason: disk_full, busy (the lock held elsewhere past the busy timeout), read_only, io, corrupt.",
		[]string{"reason"}, nil)
	diskFreeDesc = prometheus.NewDesc("hindsight_database_disk_free_bytes",
		"Bytes free for the database on the file system that holds it.", nil, nil)
	diskSizeDesc = prometheus.NewDesc("hindsight_database_disk_size_bytes",
		"Size of the file system that holds the database, in bytes.", nil, nil)
	deliveriesDesc = prometheus.NewDesc("hindsight_notification_deliveries",
		"Deliveries of events to webhooks, Slack and email, by state: queued (to be sent or retried), delivered, failed (given up until sent again).",
		[]string{"state"}, nil)
)

// storeCollector collects the database's metrics: the connection pool's
// statistics (go_sql_*{db_name="hindsight"}) and the size of the
// collection, counted when scraped so the figures are never stale.
type storeCollector struct {
	st   *store.Store
	pool prometheus.Collector
}

func (c storeCollector) Describe(ch chan<- *prometheus.Desc) {
	c.pool.Describe(ch)
	ch <- postmortemsDesc
	ch <- incidentsDesc
	ch <- openActionItemsDesc
	ch <- overdueActionItemsDesc
	ch <- writeErrorsDesc
	ch <- diskFreeDesc
	ch <- diskSizeDesc
	ch <- deliveriesDesc
}

func (c storeCollector) Collect(ch chan<- prometheus.Metric) {
	c.pool.Collect(ch)
	for reason, n := range c.st.WriteFaults() {
		ch <- prometheus.MustNewConstMetric(writeErrorsDesc, prometheus.CounterValue, float64(n), reason)
	}
	if free, size, err := c.st.DiskFree(); err != nil {
		ch <- prometheus.NewInvalidMetric(diskFreeDesc, err)
	} else {
		ch <- prometheus.MustNewConstMetric(diskFreeDesc, prometheus.GaugeValue, float64(free))
		ch <- prometheus.MustNewConstMetric(diskSizeDesc, prometheus.GaugeValue, float64(size))
	}
	// A scrape must not hang on a locked or sick database; the counts are
	// dropped from that scrape instead.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	size, err := c.st.CountSize(ctx)
	var items store.ActionItemTotals
	if err == nil {
		items, err = c.st.CountActionItems(ctx, c.st.Now())
	}
	for _, m := range []struct {
		desc *prometheus.Desc
		n    int
	}{{postmortemsDesc, size.Postmortems}, {incidentsDesc, size.Incidents}, {openActionItemsDesc, items.Matching}, {overdueActionItemsDesc, items.Overdue}} {
		if err != nil {
			ch <- prometheus.NewInvalidMetric(m.desc, err)
			continue
		}
		ch <- prometheus.MustNewConstMetric(m.desc, prometheus.GaugeValue, float64(m.n))
	}
	// All of them: /metrics is the operator's, and counts every
	// postmortem too.
	counts, err := c.st.DeliveryCounts(store.WithEveryGroup(ctx))
	if err != nil {
		ch <- prometheus.NewInvalidMetric(deliveriesDesc, err)
		return
	}
	for _, state := range []string{store.DeliveryQueued, store.DeliveryDelivered, store.DeliveryFailed} {
		ch <- prometheus.MustNewConstMetric(deliveriesDesc, prometheus.GaugeValue, float64(counts[state]), state)
	}
}
