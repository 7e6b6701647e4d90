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
		h.refuseCrossOrigin, h.limitBodies, h.fromPageCache, h.shed, takeFlash)
	r.NotFound(h.notFound)
	r.MethodNotAllowed(h.methodNotAllowed)

	// Pages read most are kept (cached) and served from the page cache
	// (fromPageCache) while the data is unchanged.
	r.Get("/", h.cached(h.showHome))
	r.Get("/postmortems", h.cached(h.listPostmortems))
	r.Get("/postmortems/{slug}", h.cached(h.showPostmortem))
	r.Get("/postmortems/{slug}/source", h.showPostmortemSource)
	r.Get("/patterns", h.cached(h.listPatterns))
	r.Get("/patterns/{slug}", h.cached(h.showPattern))
	r.Get("/search", h.cached(h.showSearch))
	r.Get("/import", h.showImportForm)
	r.Post("/import", h.reviewImport)
	r.Post("/import/save", h.saveImport)

	// Writing and editing (forms; every POST redirects or re-renders with 422/409).
	r.Get("/postmortems/new", h.newPostmortem)
	r.Post("/postmortems", h.createPostmortem)
	r.Get("/postmortems/{slug}/edit", h.editPostmortem)
	r.Post("/postmortems/{slug}/edit", h.updatePostmortem)
	r.Post("/postmortems/{slug}/archive", h.archivePostmortem)
	r.Post("/postmortems/{slug}/unarchive", h.unarchivePostmortem)
	r.Get("/postmortems/{slug}/history", h.showHistory)
	r.Get("/postmortems/{slug}/compare", h.compareRevisions)
	r.Get("/postmortems/{slug}/revisions/{version}", h.showRevision)
	r.Post("/postmortems/{slug}/revisions/{version}/restore", h.restoreRevision)
	r.Get("/postmortems/{slug}/action-items/new", h.newActionItem)
	r.Post("/postmortems/{slug}/action-items", h.createActionItem)
	r.Get("/postmortems/{slug}/action-items/{id}/edit", h.editActionItem)
	r.Post("/postmortems/{slug}/action-items/{id}", h.updateActionItem)
	r.Post("/postmortems/{slug}/action-items/{id}/complete", h.completeActionItem)
	r.Post("/postmortems/{slug}/checklist", h.tickChecklist)
	r.Post("/postmortems/{slug}/checklist/{item}", h.tickChecklistItem)
	r.Post("/postmortems/{slug}/checklist/{item}/action-item", h.checklistActionItem)
	r.Get("/patterns/{slug}/checklist", h.editChecklist)
	r.Post("/patterns/{slug}/checklist", h.addChecklistItem)
	r.Post("/patterns/{slug}/checklist/{item}", h.updateChecklistItem)
	r.Post("/patterns/{slug}/checklist/{item}/move", h.moveChecklistItem)
	r.Post("/patterns/{slug}/checklist/{item}/remove", h.removeChecklistItem)
	r.Post("/patterns/{slug}/checklist/{item}/restore", h.restoreChecklistItem)
	r.Post("/preview", h.previewMarkdown)

	r.Get("/api/postmortems", h.apiListPostmortems)
	r.Post("/api/postmortems", h.apiCreatePostmortem)
	r.Get("/api/postmortems/{slug}", h.apiGetPostmortem)
	r.Get("/api/patterns", h.apiListPatterns)
	r.Get("/api/patterns/{slug}", h.apiGetPattern)
	r.Get("/api/search", h.apiSearch)
	r.Post("/api/suggest", h.apiSuggest)

	// Operations; shed never refuses these (see neverShed).
	r.Get("/healthz", h.healthz)
	r.Get("/readyz", h.readyz)
	r.Get("/metrics", h.serveMetrics)
	r.Get("/favicon.ico", h.serveFavicon)
	r.Handle("/static/*", http.StripPrefix("/static/", h.assets))

	return r
}
