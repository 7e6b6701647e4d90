// Package notifytest runs HTTP receivers of notifications for tests: a
// real server (httptest) that keeps what it is sent. It is for tests only.
package notifytest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
)

// Request is one request a Receiver was sent.
type Request struct {
	Header http.Header
	Body   []byte
	// Status is what the receiver answered.
	Status int
}

// Receiver is a webhook receiver: it answers 200 to every POST, or the
// status Fail sets, and keeps every request.
type Receiver struct {
	*httptest.Server
	mu       sync.Mutex
	requests []Request
	fail     []int // the next answers' statuses, in order
	failAll  int
}

// NewReceiver starts a receiver, closed when the test ends.
func NewReceiver(t testing.TB) *Receiver {
	r := &Receiver{}
	r.Server = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.Close)
	return r
}

func (r *Receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(req.Body, 1<<20))
	r.mu.Lock()
	status := http.StatusOK
	switch {
	case len(r.fail) > 0:
		status, r.fail = r.fail[0], r.fail[1:]
	case r.failAll != 0:
		status = r.failAll
	}
	r.requests = append(r.requests, Request{Header: req.Header.Clone(), Body: body, Status: status})
	r.mu.Unlock()
	w.WriteHeader(status)
	io.WriteString(w, http.StatusText(status))
}

// Fail makes the next answers these statuses, in order.
func (r *Receiver) Fail(statuses ...int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.fail = append(r.fail, statuses...)
}

// FailAll makes every answer status from now on; 0 answers 200 again.
func (r *Receiver) FailAll(status int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failAll = status
}

// Requests returns the requests received so far.
func (r *Receiver) Requests() []Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Request(nil), r.requests...)
}

// Accepted returns the requests answered 2xx.
func (r *Receiver) Accepted() []Request {
	var out []Request
	for _, q := range r.Requests() {
		if q.Status/100 == 2 {
			out = append(out, q)
		}
	}
	return out
}

// AcceptedByEvent counts the requests answered 2xx by their
// X-Hindsight-Event-Id.
func (r *Receiver) AcceptedByEvent() map[int64]int {
	out := map[int64]int{}
	for _, q := range r.Accepted() {
		id, _ := strconv.ParseInt(q.Header.Get("X-Hindsight-Event-Id"), 10, 64)
		out[id]++
	}
	return out
}
