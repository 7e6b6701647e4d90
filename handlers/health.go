package handlers

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// healthz says the process is alive and serving HTTP. It never touches the
// database: a slow or locked database must not get a live process killed
// and restarted by its supervisor, which would only add a cold start.
func (h *Handler) healthz(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Write([]byte("ok\n"))
}

// readyCheck is one part of readiness besides the database (ReadyCheck).
type readyCheck struct {
	name  string
	check func(context.Context) (string, error)
}

// readyz says the instance can serve: it is not refusing work (a slot is
// free, bodies have memory left), the database answers and holds every
// migration this binary knows, and every other check (replication) passes.
// A load balancer sends no traffic while it fails. The first line is the
// verdict; each other check adds a line with its status.
func (h *Handler) readyz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if err := h.refusingWork(); err != nil {
		// Overloaded: the balancer should send the next requests elsewhere.
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte("refusing work: " + err.Error() + "\n"))
		return
	}
	var lines strings.Builder
	ready := true
	if err := h.store.Ready(ctx); err != nil {
		h.log.WarnContext(r.Context(), "not ready", "err", err, "request_id", requestID(r))
		ready = false
	}
	// Writes failing for the storage (a full disk, a lock held elsewhere,
	// a read-only or failing disk) make the instance not ready, so that
	// it pages and a balancer with a standby sends writes there. Reads go
	// on being served to whoever still reaches it. A write that succeeds,
	// or the store's own re-check, clears it.
	if f := h.store.WriteHealth(ctx); f != nil {
		h.log.WarnContext(r.Context(), "not ready", "check", "writes", "reason", f.Reason, "err", f.Err, "request_id", requestID(r))
		ready = false
		fmt.Fprintf(&lines, "writes: failing (%s)\n", f.Reason)
	}
	for _, c := range h.readyChecks {
		status, err := c.check(ctx)
		if err != nil {
			h.log.WarnContext(r.Context(), "not ready", "check", c.name, "err", err, "request_id", requestID(r))
			ready = false
		}
		fmt.Fprintf(&lines, "%s: %s\n", c.name, status)
	}
	if !ready {
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, "not ready\n"+lines.String())
		return
	}
	io.WriteString(w, "ready\n"+lines.String())
}
