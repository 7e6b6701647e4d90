package handlers

import (
	"bytes"
	"errors"
	"io"
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Admission: what a request must pass before it may take one of the
// in-flight slots (shed). A slot is held while the app works, never while
// a client takes its time: the body is read first, whole, under a short
// deadline, and each client may hold only a share of the slots and send
// only so many writes a minute.
//
// The order in routes is limitBodies (size), readBodies (time, memory),
// fromPageCache, limitClients (per-client share and writes), shed (slots).

// Limits of admission; README lists them.
const (
	// bodyReadTimeout is how long a client has to send a request's body,
	// once its headers are in. The server's ReadTimeout (30 s) still bounds
	// the whole request; this is the part a slow client could stretch.
	bodyReadTimeout = 10 * time.Second
	// bodyBudget is the memory all bodies being read or served may hold at
	// once. A body is read in chunks of bodyChunk, each taken from the
	// budget as it arrives, so a body trickled in costs what it has sent.
	bodyBudget = 64 << 20
	bodyChunk  = 32 << 10
	// DefaultClientWrites is how many writes (POST, PUT) one client may send
	// a minute, in bursts of at most half that, and never more than
	// maxWriteBurst.
	DefaultClientWrites = 120
	maxWriteBurst       = 60
)

var (
	errBodyTimeout    = errors.New("the request body was not sent in time")
	errClientBusy     = errors.New("too many requests from this client at once")
	errClientWrites   = errors.New("too many changes from this client in the last minute")
	errBodiesBusy     = errors.New("too many request bodies are being received")
	errRefusingNoSlot = errors.New("every in-flight slot is taken")
)

// tooManyError is a refusal with 429 and the seconds a client should wait.
type tooManyError struct {
	err   error
	after int
}

func (e *tooManyError) Error() string { return e.err.Error() }
func (e *tooManyError) Unwrap() error { return e.err }

// DefaultClientInFlight is the default share of the in-flight slots one
// client may hold: a quarter, at least one; no cap when there are no slots.
func DefaultClientInFlight(maxInFlight int) int {
	if maxInFlight <= 0 {
		return 0
	}
	return max(1, maxInFlight/4)
}

// ClientLimits caps, per client address, the expensive requests served at
// once (inFlight) and the writes sent a minute (writesPerMinute); past
// them a client gets 429 with Retry-After. Zero removes a cap; a negative
// inFlight is DefaultClientInFlight of the in-flight cap.
func ClientLimits(inFlight, writesPerMinute int) Option {
	return func(h *Handler) {
		h.clients.inFlightCap = inFlight
		h.clients.writesPerMinute = writesPerMinute
	}
}

// clientTable is the state of the per-client limits.
type clientTable struct {
	inFlightCap     int
	writesPerMinute int

	mu       sync.Mutex
	inFlight map[string]int
	writes   map[string]*bucket
}

// bucket is a token bucket of writes: tokens refill at writesPerMinute.
type bucket struct {
	tokens float64
	at     time.Time
}

// maxBuckets bounds the write buckets kept; past it the full ones (clients
// quiet for a while) are forgotten.
const maxBuckets = 10000

// take returns a release func when the client may start a request, or
// the refusal.
func (c *clientTable) take(client string, write bool, now time.Time) (func(), error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.inFlightCap > 0 && c.inFlight[client] >= c.inFlightCap {
		return nil, &tooManyError{errClientBusy, 1}
	}
	if write && c.writesPerMinute > 0 {
		rate := float64(c.writesPerMinute) / 60
		b := c.writes[client]
		if b == nil {
			if len(c.writes) >= maxBuckets {
				c.forgetFull(now, rate)
			}
			b = &bucket{tokens: c.burst(), at: now}
			c.writes[client] = b
		}
		b.tokens = min(c.burst(), b.tokens+now.Sub(b.at).Seconds()*rate)
		b.at = now
		if b.tokens < 1 {
			return nil, &tooManyError{errClientWrites, int(math.Ceil((1 - b.tokens) / rate))}
		}
		b.tokens--
	}
	if c.inFlightCap <= 0 {
		return func() {}, nil
	}
	c.inFlight[client]++
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.inFlight[client]--; c.inFlight[client] <= 0 {
			delete(c.inFlight, client)
		}
	}, nil
}

// burst is the most writes a client may send at once.
func (c *clientTable) burst() float64 {
	return float64(max(1, min(maxWriteBurst, c.writesPerMinute/2)))
}

func (c *clientTable) forgetFull(now time.Time, rate float64) {
	for k, b := range c.writes {
		if b.tokens+now.Sub(b.at).Seconds()*rate >= c.burst() {
			delete(c.writes, k)
		}
	}
}

// limitClients applies the per-client limits to the requests shed would
// count: cheap routes and pages from the page cache pass.
func (h *Handler) limitClients(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if probeOrAsset(r.URL.Path) {
			next.ServeHTTP(w, r)
			return
		}
		release, err := h.clients.take(h.clientIP(r), r.Method == http.MethodPost || r.Method == http.MethodPut, time.Now())
		if err != nil {
			h.metrics.shed.Inc()
			h.error(w, r, err)
			return
		}
		defer release()
		next.ServeHTTP(w, r)
	})
}

// readBodies reads a request's body into memory before the request goes
// on to take a slot: within bodyReadTimeout of its headers, and within the
// memory all bodies share (bodyBudget). limitBodies has bounded its size.
func (h *Handler) readBodies(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
			next.ServeHTTP(w, r)
			return
		}
		rc := http.NewResponseController(w)
		// Not every ResponseWriter has a connection (tests' recorders).
		_ = rc.SetReadDeadline(time.Now().Add(bodyReadTimeout))
		body, held, err := h.readBody(r.Body)
		defer h.bodyBytes.Add(-held)
		if err != nil {
			// The rest of this body is never read. With the deadline past,
			// net/http's drain of it after the answer fails at once and the
			// connection closes; cleared, the drain would read a trickled
			// body for as long as its client kept sending.
			_ = rc.SetReadDeadline(time.Now())
			if errors.Is(err, errBodiesBusy) {
				h.metrics.shed.Inc()
				refuseBusy(w, r)
				return
			}
			h.error(w, r, err)
			return
		}
		_ = rc.SetReadDeadline(time.Time{})
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		next.ServeHTTP(w, r)
	})
}

// readBody reads body in chunks; the buffer's capacity is taken from the
// shared budget before it grows, and the bytes held are returned for the
// caller to give back once the request is answered.
func (h *Handler) readBody(body io.Reader) ([]byte, int64, error) {
	var buf bytes.Buffer
	var held int64
	for {
		buf.Grow(bodyChunk)
		if c := int64(buf.Cap()); c > held {
			if h.bodyBytes.Add(c-held) > bodyBudget {
				h.bodyBytes.Add(held - c)
				return nil, held, errBodiesBusy
			}
			held = c
		}
		n, err := buf.ReadFrom(io.LimitReader(body, bodyChunk))
		switch {
		case err != nil && isTimeout(err):
			return nil, held, errBodyTimeout
		case err != nil:
			return nil, held, err
		case n < bodyChunk:
			return buf.Bytes(), held, nil
		}
	}
}

func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}

// refusingWork reports why the app is refusing real work at the moment,
// for readyz: every slot taken, or bodies filling their memory budget.
func (h *Handler) refusingWork() error {
	if h.slots != nil && len(h.slots) == cap(h.slots) {
		return errRefusingNoSlot
	}
	if h.bodyBytes.Load()+bodyChunk > bodyBudget {
		return errBodiesBusy
	}
	return nil
}

// retryAfter sets the Retry-After header of a 429.
func retryAfter(w http.ResponseWriter, seconds int) {
	w.Header().Set("Retry-After", strconv.Itoa(max(1, seconds)))
}
