package handlers

import (
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
)

// routes is the map of the application: every URL it answers, and the
// role each needs (viewers read; editors write postmortems, action items
// and ticks; admins also edit checklists, manage tokens and read the audit
// trail).
func (h *Handler) routes() http.Handler {
	r := chi.NewRouter()
	// Refusals (wrong host, cross-origin, too large, too slow, no identity,
	// too many, shed) come after the headers are set and before any work,
	// and are logged and counted like the rest. Admission (admission.go)
	// knows who sent a request and applies their limits before it reads
	// the body, and reads it before the request may take a slot. HEAD is
	// answered wherever GET is.
	r.Use(h.observeRequests, h.recoverPanics, h.securityHeaders, h.checkHost,
		h.refuseCrossOrigin, h.limitBodies, middleware.GetHead, h.authenticate,
		h.fromPageCache, h.limitClients, h.readBodies, h.shed, takeFlash)
	r.NotFound(h.notFound)
	r.MethodNotAllowed(h.methodNotAllowed)

	// Reading: every signed-in user.
	r.Group(func(r chi.Router) {
		r.Use(h.require(roleViewer))
		// Pages read most are kept (cached) and served from the page cache
		// (fromPageCache) while the data is unchanged.
		r.Get("/", h.cached(h.showHome))
		r.Get("/postmortems", h.cached(h.listPostmortems))
		r.Get("/postmortems/{slug}", h.cached(h.showPostmortem))
		r.Get("/postmortems/{slug}/source", h.showPostmortemSource)
		r.Get("/postmortems/{slug}.md", h.showPostmortemMarkdown)
		r.Get("/postmortems.csv", h.postmortemsCSV)
		r.Get("/patterns", h.cached(h.listPatterns))
		r.Get("/patterns/{slug}", h.cached(h.showPattern))
		r.Get("/search", h.cached(h.showSearch))
		r.Get("/action-items", h.cached(h.listFollowUps))
		r.Get("/action-items.csv", h.followUpsCSV)
		r.Get("/action-items/feed.atom", h.followUpsFeed)
		r.Get("/insights", h.cached(h.showInsights))
		r.Get("/feed.atom", h.postmortemsFeed)
		r.Get("/patterns/{slug}/feed.atom", h.patternFeed)
		r.Get("/postmortems/{slug}/history", h.showHistory)
		r.Get("/postmortems/{slug}/compare", h.compareRevisions)
		r.Get("/postmortems/{slug}/revisions/{version}", h.showRevision)
		r.Get("/review", h.showReview)
		// "Have we seen this?": reads the pasted text, stores nothing.
		r.Get("/triage", h.showTriage)
		r.Post("/triage", h.runTriage)
		// Reviews of postmortems (review_*.go): viewers comment.
		r.Get("/reviews", h.showReviews)
		r.Post("/postmortems/{slug}/comments", h.addComment)
		r.Get("/postmortems/{slug}/comments/{id}/edit", h.editComment)
		r.Post("/postmortems/{slug}/comments/{id}/edit", h.updateComment)
		r.Post("/postmortems/{slug}/comments/{id}/delete", h.deleteComment)
		r.Post("/postmortems/{slug}/comments/{id}/resolve", h.resolveComment(true))
		r.Post("/postmortems/{slug}/comments/{id}/reopen", h.resolveComment(false))
		r.Get("/api/postmortems/{slug}/comments", h.apiListComments)
		r.Post("/api/postmortems/{slug}/comments", h.apiAddComment)
		r.Put("/api/postmortems/{slug}/comments/{id}", h.apiUpdateComment)
		r.Delete("/api/postmortems/{slug}/comments/{id}", h.apiDeleteComment)
		r.Post("/api/postmortems/{slug}/comments/{id}/resolve", h.apiResolveComment(true))
		r.Post("/api/postmortems/{slug}/comments/{id}/reopen", h.apiResolveComment(false))

		r.Get("/api/postmortems", h.apiListPostmortems)
		r.Get("/api/postmortems/{slug}", h.apiGetPostmortem)
		r.Get("/api/postmortems/{slug}/action-items", h.apiListActionItems)
		r.Get("/api/postmortems/{slug}/action-items/{id}", h.apiGetActionItem)
		r.Get("/api/patterns", h.apiListPatterns)
		r.Get("/api/patterns/{slug}", h.apiGetPattern)
		r.Get("/api/search", h.apiSearch)
		r.Get("/api/action-items", h.apiListFollowUps)
		r.Get("/api/insights", h.apiInsights)
		r.Get("/api/openapi.json", h.apiOpenAPI)
		r.Post("/api/triage", h.apiTriage)
		// Attachments (attachments.go): read with their postmortem.
		r.Get("/attachments/{id}/{name}", h.serveAttachment)
		r.Get("/api/postmortems/{slug}/attachments", h.apiListAttachments)
		// Each person's email notifications (notification_settings.go).
		r.Get("/settings/notifications", h.showNotificationSettings)
		r.Post("/settings/notifications", h.saveNotificationSettings)
	})

	// Writing and editing (forms; every POST redirects or re-renders with
	// 422/409): editors.
	r.Group(func(r chi.Router) {
		r.Use(h.require(roleEditor))
		r.Get("/import", h.showImportForm)
		r.Post("/import", h.reviewImport)
		r.Post("/import/save", h.saveImport)
		h.formSteps(r, "/import", h.submittedImport, false)
		// The postmortem form: its save buttons post to the form's URL,
		// its steps that save nothing each to their own (postmortem_steps.go).
		r.Get("/postmortems/new", h.newPostmortem)
		r.Post("/postmortems", h.createPostmortem)
		h.formSteps(r, "/postmortems/new", h.submittedNew, true)
		r.Get("/postmortems/{slug}/edit", h.editPostmortem)
		r.Post("/postmortems/{slug}/edit", h.updatePostmortem)
		h.formSteps(r, "/postmortems/{slug}/edit", h.submittedEdit, true)
		r.Post("/postmortems/{slug}/archive", h.archivePostmortem)
		r.Post("/postmortems/{slug}/unarchive", h.unarchivePostmortem)
		r.Post("/postmortems/{slug}/revisions/{version}/restore", h.restoreRevision)
		r.Post("/postmortems/{slug}/suggestions/{pattern}/confirm", h.confirmSuggestion)
		r.Post("/postmortems/{slug}/suggestions/{pattern}/dismiss", h.dismissSuggestion)
		r.Get("/postmortems/{slug}/action-items/new", h.newActionItem)
		r.Post("/postmortems/{slug}/action-items", h.createActionItem)
		r.Get("/postmortems/{slug}/action-items/{id}/edit", h.editActionItem)
		r.Post("/postmortems/{slug}/action-items/{id}", h.updateActionItem)
		r.Post("/postmortems/{slug}/action-items/{id}/complete", h.completeActionItem)
		r.Post("/postmortems/{slug}/action-items/{id}/status", h.setActionItemStatus)
		r.Post("/postmortems/{slug}/checklist", h.tickChecklist)
		r.Post("/postmortems/{slug}/checklist/{item}", h.tickChecklistItem)
		r.Post("/postmortems/{slug}/checklist/{item}/action-item", h.checklistActionItem)
		r.Post("/preview", h.previewMarkdown)
		// Review steps (review_actions.go): editors.
		r.Post("/postmortems/{slug}/review/request", h.takeReviewStep("request"))
		r.Post("/postmortems/{slug}/review/approve", h.takeReviewStep("approve"))
		r.Post("/postmortems/{slug}/review/request-changes", h.takeReviewStep("request_changes"))
		r.Post("/postmortems/{slug}/review/publish", h.takeReviewStep("publish"))
		r.Post("/postmortems/{slug}/review/reopen", h.takeReviewStep("reopen"))
		r.Post("/postmortems/{slug}/review/questions/{key}", h.answerReviewQuestion)
		r.Post("/api/postmortems/{slug}/review", h.apiTakeReviewStep)
		r.Post("/api/postmortems/{slug}/review/questions/{key}", h.apiAnswerReviewQuestion)

		r.Post("/api/postmortems", h.apiCreatePostmortem)
		r.Post("/api/import/preview", h.apiPreviewImport) // stores nothing
		r.Put("/api/postmortems/{slug}", h.apiUpdatePostmortem)
		r.Post("/api/postmortems/{slug}/action-items", h.apiCreateActionItem)
		r.Put("/api/postmortems/{slug}/action-items/{id}", h.apiUpdateActionItem)
		r.Post("/api/suggest", h.apiSuggest)
		// Uploads (attachments.go): to a postmortem, or from the form of
		// one not saved yet.
		r.Post("/api/postmortems/{slug}/attachments", h.apiUploadAttachment)
		r.Post("/api/attachments", h.apiUploadAttachment)
		r.Post("/postmortems/new/attach", h.attachToForm(h.submittedNew))
		r.Post("/postmortems/{slug}/edit/attach", h.attachToForm(h.submittedEdit))
	})

	// Checklists, tokens and the audit trail: admins.
	r.Group(func(r chi.Router) {
		r.Use(h.require(roleAdmin))
		r.Get("/patterns/{slug}/checklist", h.editChecklist)
		r.Post("/patterns/{slug}/checklist", h.addChecklistItem)
		r.Post("/patterns/{slug}/checklist/{item}", h.updateChecklistItem)
		r.Post("/patterns/{slug}/checklist/{item}/move", h.moveChecklistItem)
		r.Post("/patterns/{slug}/checklist/{item}/remove", h.removeChecklistItem)
		r.Post("/patterns/{slug}/checklist/{item}/restore", h.restoreChecklistItem)
		r.Post("/admin/examples/archive", h.archiveExamples)
		r.Get("/patterns/{slug}/review-questions", h.editPatternQuestions)
		r.Post("/patterns/{slug}/review-questions", h.addPatternQuestion)
		r.Post("/patterns/{slug}/review-questions/{id}", h.updatePatternQuestion)
		r.Post("/patterns/{slug}/review-questions/{id}/remove", h.removePatternQuestion)
		r.Post("/patterns/{slug}/review-questions/{id}/restore", h.restorePatternQuestion)
		r.Get("/admin/tokens", h.listTokens)
		r.Post("/admin/tokens", h.createToken)
		r.Post("/admin/tokens/revoke", h.revokeToken)
		r.Get("/audit", h.showAudit)
		r.Get("/admin/deliveries", h.showDeliveries)
		r.Post("/admin/deliveries/{id}/send-again", h.sendDeliveryAgain)
		r.Get("/api/audit", h.apiAudit)
	})

	// Operations; shed never refuses these (see probeOrAsset), and they answer
	// without an identity (/metrics only to loopback, trusted proxies and
	// tokens).
	r.Get("/healthz", h.healthz)
	r.Get("/readyz", h.readyz)
	r.Get("/metrics", h.serveMetrics)
	r.Get("/favicon.ico", h.serveFavicon)
	r.Handle("/static/*", http.StripPrefix("/static/", h.assets))

	return r
}

// formSteps routes the steps of one of the three postmortem forms that save
// nothing (postmortem_steps.go) under its URL, each reading the form with
// read and answering with it again; Preview where preview is true (the
// import review has none: its page is the preview).
func (h *Handler) formSteps(r chi.Router, under string, read formReader, preview bool) {
	if preview {
		r.Post(under+"/preview", h.previewPostmortem(read))
	}
	r.Post(under+"/rows", h.moreTimelineRows(read))
	r.Post(under+"/suggest", h.suggestPatterns(read))
	r.Post(under+"/accept", h.acceptSuggestion(read))
	r.Post(under+"/reject", h.rejectSuggestion(read))
	r.Post(under+"/link-variant", h.linkVariant(read))
}
