package handlers

import (
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
)

// routes is the map of the application: every URL it answers.
func (h *Handler) routes() http.Handler {
	r := chi.NewRouter()
	r.Use(middleware.RequestID, h.logRequests, h.recoverPanics, securityHeaders)
	r.NotFound(h.notFound)
	r.MethodNotAllowed(h.methodNotAllowed)

	r.Get("/", h.showHome)
	r.Get("/postmortems", h.listPostmortems)
	r.Get("/postmortems/{slug}", h.showPostmortem)
	r.Get("/postmortems/{slug}/source", h.showPostmortemSource)
	r.Get("/patterns", h.listPatterns)
	r.Get("/patterns/{slug}", h.showPattern)
	r.Get("/search", h.showSearch)

	r.Get("/api/postmortems", h.apiListPostmortems)
	r.Get("/api/postmortems/{slug}", h.apiGetPostmortem)
	r.Get("/api/patterns", h.apiListPatterns)
	r.Get("/api/patterns/{slug}", h.apiGetPattern)
	r.Get("/api/search", h.apiSearch)

	r.Get("/healthz", h.healthz)
	r.Get("/favicon.ico", h.serveFavicon)
	r.Handle("/static/*", http.StripPrefix("/static/", h.assets))

	return http.NewCrossOriginProtection().Handler(r)
}
