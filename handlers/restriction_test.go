package handlers_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestTokenCannotRestrictToOtherGroups: an API token is in no group, so a
// write signed with one that restricts a postmortem, which the token
// could then not read, is refused with a field error (422), on update and
// on create, as the form refuses a user naming no group of theirs; the
// postmortem stays as it was.
func TestTokenCannotRestrictToOtherGroups(t *testing.T) {
	t.Parallel()
	h, st := newTeamApp(t)
	_, secret, err := st.CreateToken(t.Context(), "deploy-bot", "editor", "test")
	if err != nil {
		t.Fatal(err)
	}
	bearer := []string{"Authorization", "Bearer " + secret}
	path := "/api/postmortems/" + gmail
	body := record(t, h, editor, gmail)
	body["restricted_to"] = []string{"sre"}
	body["summary"] = "Restricted by a token."
	checkAPIError(t, sendJSON(t, h, person{}, "PUT", path, mustJSON(t, body), bearer...), http.StatusUnprocessableEntity, []string{"restricted_to"})
	if rec := sendJSON(t, h, person{}, "GET", path, "", bearer...); rec.Code != http.StatusOK || strings.Contains(rec.Body.String(), "Restricted by a token.") {
		t.Errorf("after the refused PUT the token reads it: %d (changed: %v)", rec.Code, strings.Contains(rec.Body.String(), "Restricted by a token."))
	}
	checkAPIError(t, sendJSON(t, h, person{}, "POST", "/api/postmortems", `{"title": "Token-made secret", "summary": "x", "restricted_to": ["sre"]}`, bearer...),
		http.StatusUnprocessableEntity, []string{"restricted_to"})
	checkAPIError(t, sendJSON(t, h, person{}, "POST", "/api/postmortems", "---\nrestricted_to: sre\n---\n# Cache flush\n\nA cache flush slowed the site for ten minutes.\n",
		append(bearer, "Content-Type", "text/markdown")...), http.StatusUnprocessableEntity, []string{"restricted_to"})

	// Without restricted_to, or with none, the token's writes go through.
	delete(body, "restricted_to")
	if rec := sendJSON(t, h, person{}, "PUT", path, mustJSON(t, body), bearer...); rec.Code != http.StatusOK {
		t.Errorf("token PUT without a restriction: %d\n%.800s", rec.Code, rec.Body)
	}
}
