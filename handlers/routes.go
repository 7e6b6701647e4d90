package handlers

import (
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
)

// routes is the map of the application: every URL it answers.
func (h *Handler) routes() http.Handler {
	r := chi.NewRouter()
	// Refusals (cross-origin, too large, shed) come after the headers are
	// set and before any work, and are logged and counted like the rest.
	r.Use(middleware.RequestID, h.observeRequests, h.recoverPanics, securityHeaders,
		h.refuseCrossOrigin, h.limitBodies, h.shed)
	r.NotFound(h.notFound)
	r.MethodNotAllowed(h.methodNotAllowed)

	r.Get("/", h.showHome)
	r.Get("/postmortems", h.listPostmortems)
	r.Get("/postmortems/{slug}", h.showPostmortem)
	r.Get("/postmortems/{slug}/source", h.showPostmortemSource)
	r.Get("/patterns", h.listPatterns)
	r.Get("/patterns/{slug}", h.showPattern)

	r.Get("/api/postmortems", h.apiListPostmortems)
	r.Get("/api/postmortems/{slug}", h.apiGetPostmortem)
	r.Get("/api/patterns", h.apiListPatterns)
	r.Get("/api/patterns/{slug}", h.apiGetPattern)

	// Operations; shed never refuses these (see neverShed).
	r.Get("/healthz", h.healthz)
	r.Get("/readyz", h.readyz)
	r.Get("/metrics", h.serveMetrics)
	r.Get("/favicon.ico", h.serveFavicon)
	r.Handle("/static/*", http.StripPrefix("/static/", h.assets))

	return r
}
