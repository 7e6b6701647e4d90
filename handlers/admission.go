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
// deadline. Who sent it is known before a byte of it is read (in proxy
// mode an unsigned client's body is never read), and each client may hold
// only a share of the slots, of the bodies being received and of the
// memory they take, and send only so many writes a minute.
//
// The order in routes is limitBodies (size), authenticate (identity),
// fromPageCache, limitClients (per-client share and writes), readBodies
// (time, memory), shed (slots).

// Limits of admission; README lists them.
const (
	// bodyReadTimeout is how long a client has to send a request's body,
	// once its headers are in. The server's ReadTimeout (30 s) still bounds
	// the whole request; this is the part a slow client could stretch.
	bodyReadTimeout = 10 * time.Second
	// bodyBudget is the memory all bodies being read or served may hold at
	// once, and clientBodyShare what one client's may: room for one whole
	// import (maxUploadBody) and some forms, so that no client can take it
	// all. A body is read in chunks of at most bodyChunk, each taken from
	// the budget before it is read into, so a body trickled in costs what
	// it has sent, not what it announced.
	bodyBudget      = 64 << 20
	clientBodyShare = bodyBudget / 4
	// largeBody is the size past which a body is one of its client's
	// large ones, read one at a time: two of them would each take half
	// the client's share and, asking for their last chunks at once, both
	// be refused.
	largeBody = clientBodyShare / 2
	bodyChunk = 32 << 10
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
	errClientBodies   = errors.New("this client is sending too much at once")
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
// on to take a slot: within bodyReadTimeout of its headers, within the
// client's share of the memory bodies share and within all of it.
// limitBodies has bounded its size.
func (h *Handler) readBodies(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
			next.ServeHTTP(w, r)
			return
		}
		rc := http.NewResponseController(w)
		if isUpload(r) {
			h.spoolUpload(w, r, rc, next)
			return
		}
		// Not every ResponseWriter has a connection (tests' recorders).
		_ = rc.SetReadDeadline(time.Now().Add(bodyReadTimeout))
		client := h.clientIP(r)
		if r.ContentLength > largeBody {
			if !h.bodies.takeLarge(client) {
				_ = rc.SetReadDeadline(time.Now()) // as below: the body is never read
				h.metrics.shed.Inc()
				h.error(w, r, &tooManyError{errClientBodies, 1})
				return
			}
			defer h.bodies.giveLarge(client)
		}
		body, n, held, err := h.readBody(client, r.Body, r.ContentLength)
		defer h.bodies.give(client, held)
		if err != nil {
			// The rest of this body is never read. With the deadline past,
			// net/http's drain of it after the answer fails at once and the
			// connection closes; cleared, the drain would read a trickled
			// body for as long as its client kept sending.
			_ = rc.SetReadDeadline(time.Now())
			var tooMany *tooManyError
			switch {
			case errors.Is(err, errBodiesBusy):
				h.metrics.shed.Inc()
				refuseBusy(w, r)
			case errors.As(err, &tooMany):
				h.metrics.shed.Inc()
				h.error(w, r, err)
			default:
				h.error(w, r, err)
			}
			return
		}
		_ = rc.SetReadDeadline(time.Time{})
		r.Body = io.NopCloser(body)
		r.ContentLength = n
		next.ServeHTTP(w, r)
	})
}

// readBody reads body (of length bytes, -1 when unknown) in chunks, each
// taken from client's share and the shared budget before it is read into,
// and returns it, its size and the bytes held, for the caller to give back
// once the request is answered. The chunks are kept as read: gathering
// them in one growing buffer would hold up to twice the body.
func (h *Handler) readBody(client string, body io.Reader, length int64) (io.Reader, int64, int64, error) {
	var chunks []io.Reader
	var n, held int64
	for length < 0 || n < length {
		size := int64(bodyChunk)
		if length >= 0 {
			size = min(size, length-n)
		}
		if err := h.bodies.take(client, size); err != nil {
			return nil, 0, held, err
		}
		held += size
		chunk := make([]byte, size)
		filled, err := readFull(body, chunk)
		n += int64(filled)
		chunks = append(chunks, bytes.NewReader(chunk[:filled]))
		switch {
		case err == io.EOF:
			return io.MultiReader(chunks...), n, held, nil
		case err != nil && isTimeout(err):
			return nil, 0, held, errBodyTimeout
		case err != nil:
			return nil, 0, held, err
		}
	}
	return io.MultiReader(chunks...), n, held, nil
}

// readFull fills b from r, and returns io.EOF only when r ended (where
// io.ReadFull would also call a body cut short io.ErrUnexpectedEOF).
func readFull(r io.Reader, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		m, err := r.Read(b[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// bodyTable is the memory request bodies hold, in all and per client, and
// the clients reading a large body.
type bodyTable struct {
	mu       sync.Mutex
	total    int64
	byClient map[string]int64
	large    map[string]bool
}

// takeLarge lets client read a large body unless it is reading one.
func (b *bodyTable) takeLarge(client string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.large[client] {
		return false
	}
	if b.large == nil {
		b.large = make(map[string]bool)
	}
	b.large[client] = true
	return true
}

func (b *bodyTable) giveLarge(client string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.large, client)
}

// take charges n bytes to client, or refuses them: 429 past the client's
// share, errBodiesBusy past the budget.
func (b *bodyTable) take(client string, n int64) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.byClient[client]+n > clientBodyShare {
		return &tooManyError{errClientBodies, 1}
	}
	if b.total+n > bodyBudget {
		return errBodiesBusy
	}
	if b.byClient == nil {
		b.byClient = make(map[string]int64)
	}
	b.total += n
	b.byClient[client] += n
	return nil
}

func (b *bodyTable) give(client string, n int64) {
	if n == 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.total -= n
	if b.byClient[client] -= n; b.byClient[client] <= 0 {
		delete(b.byClient, client)
	}
}

func (b *bodyTable) held() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.total
}

func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}

// refusingWork reports why the app is refusing real work at the moment,
// for readyz: every slot taken. Bodies being received are not the
// instance's health: clients send them at their own pace, and one that
// stalls its bodies must not get the instance dropped by a load balancer.
func (h *Handler) refusingWork() error {
	if h.slots != nil && len(h.slots) == cap(h.slots) {
		return errRefusingNoSlot
	}
	return nil
}

// retryAfter sets the Retry-After header of a 429.
func retryAfter(w http.ResponseWriter, seconds int) {
	w.Header().Set("Retry-After", strconv.Itoa(max(1, seconds)))
}
