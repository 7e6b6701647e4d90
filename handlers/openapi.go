package handlers

import (
	_ "embed"
	"net/http"
)

// openAPIDocument describes every JSON endpoint of routes (the /api/
// routes): their parameters, bodies, responses and errors. Tests check it
// against the OpenAPI 3.1 schema, against the routes, and real responses
// against it; change it with the API.
//
//go:embed openapi.json
var openAPIDocument []byte

// apiOpenAPI is /api/openapi.json.
func (h *Handler) apiOpenAPI(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Write(openAPIDocument)
}
