package handlers

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"time"

	"hindsight/store"
)

// People are remembered as the sign-in proxy names them (their email
// address and groups), so that notifications can reach them and be held
// back from what they may not read. A signed-in request writes its person
// only when something changed or seenEvery has passed since the last
// write: most requests cost a map lookup.
const seenEvery = time.Hour

// maxPeopleSeen bounds the marks kept in memory; past it they are
// forgotten and the next request of each writes again.
const maxPeopleSeen = 10000

type peopleSeen struct {
	mu   sync.Mutex
	last map[string]seenMark // by lower-cased name
}

type seenMark struct {
	email, groups string
	at            time.Time
}

// seePerson records who sent a request that the proxy named, when the
// store has not heard of them lately. Only reads (GET, HEAD) record: a
// write request commits its own change or nothing at all. A failure is
// logged, never shown: the request goes on.
func (h *Handler) seePerson(ctx context.Context, method string, u user) {
	if u.Via != "proxy" || u.Name == "" || (method != http.MethodGet && method != http.MethodHead) {
		return
	}
	key := strings.ToLower(u.Name)
	mark := seenMark{email: u.Email, groups: strings.Join(u.Groups, "\x00"), at: h.now()}
	ps := &h.people
	ps.mu.Lock()
	prev, ok := ps.last[key]
	fresh := ok && prev.email == mark.email && prev.groups == mark.groups && mark.at.Sub(prev.at) < seenEvery
	if !fresh {
		if ps.last == nil || len(ps.last) >= maxPeopleSeen {
			ps.last = map[string]seenMark{}
		}
		ps.last[key] = mark
	}
	ps.mu.Unlock()
	if fresh {
		return
	}
	// On a failure the mark stays: the next try is in seenEvery, so a
	// name the store refuses, or a failing disk, logs once an hour per
	// person, not at every request.
	if _, err := h.store.SeePerson(context.WithoutCancel(ctx), store.Person{Name: u.Name, Email: u.Email, Groups: u.Groups}, seenEvery); err != nil {
		h.log.WarnContext(ctx, "could not remember who signed in", "user", u.Name, "err", err)
	}
}
