// Package handlers is Hindsight's HTTP layer: routes, pages and the JSON
// mirror. It parses requests, calls the store and renders; it holds no SQL.
package handlers

import (
	"context"
	"html/template"
	"log/slog"
	"net/http"
	"time"

	"hindsight/classify"
	"hindsight/store"
)

// Handler serves the whole application.
type Handler struct {
	store  *store.Store
	log    *slog.Logger
	pages  map[string]*template.Template
	assets *assets
	// now is the clock used to judge overdue action items.
	now func() time.Time
	mux http.Handler
	// classifier suggests patterns; patternNames names them in answers.
	classifier   *classify.Classifier
	patternNames map[string]string
}

// New builds the application's handler. It parses every template and
// fingerprints every static asset up front, so a broken template fails here
// rather than in the middle of a request.
func New(st *store.Store, log *slog.Logger) (*Handler, error) {
	h := &Handler{store: st, log: log, now: time.Now}
	var err error
	if h.assets, err = loadAssets(); err != nil {
		return nil, err
	}
	if h.pages, err = parsePages(h.funcs()); err != nil {
		return nil, err
	}
	if h.classifier, h.patternNames, err = compileClassifier(context.Background(), st); err != nil {
		return nil, err
	}
	h.mux = h.routes()
	return h, nil
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }
