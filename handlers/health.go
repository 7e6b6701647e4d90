package handlers

import (
	"context"
	"net/http"
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

// readyz says the instance can serve: it is not refusing work (a slot is
// free, bodies have memory left), and the database answers and holds every
// migration this binary knows. A load balancer sends no traffic while it
// fails.
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
	if err := h.store.Ready(ctx); err != nil {
		h.log.WarnContext(r.Context(), "not ready", "err", err, "request_id", requestID(r))
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte("not ready\n"))
		return
	}
	w.Write([]byte("ready\n"))
}
