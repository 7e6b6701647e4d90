package handlers_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// sendJSON sends body as JSON through the trusted proxy as p (no one when
// p.name is empty), with more headers in pairs.
func sendJSON(t *testing.T, h http.Handler, p person, method, path, body string, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	return serveAs(h, p, req, header...)
}

// record reads a postmortem's JSON record as a map, to send back changed.
func record(t *testing.T, h http.Handler, p person, slug string) map[string]any {
	t.Helper()
	rec := sendJSON(t, h, p, "GET", "/api/postmortems/"+slug, "")
	var m map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil || rec.Code != 200 {
		t.Fatalf("GET %s: %d %v", slug, rec.Code, err)
	}
	return m
}

func decode[T any](t *testing.T, rec *httptest.ResponseRecorder) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(rec.Body.Bytes(), &v); err != nil {
		t.Fatalf("%v\n%.1000s", err, rec.Body)
	}
	return v
}

// TestAPIUpdatePostmortem: a record read from the API, changed and sent
// back with its version, is saved as an edit (a revision signed as the
// form's are, an audit entry); a save based on an older version is
// refused with what changed; bad input names its fields.
func TestAPIUpdatePostmortem(t *testing.T) {
	t.Parallel()
	h, st := newApp(t)
	path := "/api/postmortems/" + gmail
	read := record(t, h, person{}, gmail)
	v0 := int(read["version"].(float64))
	if v0 < 1 {
		t.Fatalf("record version = %v", read["version"])
	}

	mine := record(t, h, person{}, gmail)
	mine["title"] = "Gmail request routers overloaded"
	mine["author"] = "Script"
	mine["note"] = "retitled by a script"
	rec := sendJSON(t, h, person{}, "PUT", path, mustJSON(t, mine))
	if rec.Code != 200 {
		t.Fatalf("PUT: %d\n%.1500s", rec.Code, rec.Body)
	}
	saved := decode[struct {
		Title   string
		Version int
		Summary string
	}](t, rec)
	if saved.Title != "Gmail request routers overloaded" || saved.Version != v0+1 || saved.Summary != read["summary"] {
		t.Errorf("saved %+v, want the new title at version %d and the summary kept", saved, v0+1)
	}
	p, err := st.GetPostmortem(t.Context(), gmail)
	if err != nil {
		t.Fatal(err)
	}
	revs, err := st.ListRevisions(t.Context(), p.ID)
	if err != nil {
		t.Fatal(err)
	}
	last := revs[0]
	for _, r := range revs {
		if r.Version > last.Version {
			last = r
		}
	}
	if last.Version != v0+1 || last.Author != "Script" || last.Note != "retitled by a script" || last.Action != "edit" {
		t.Errorf("last revision %+v, want an edit by Script", last)
	}

	// The same save again is not a conflict and saves nothing.
	rec = sendJSON(t, h, person{}, "PUT", path, mustJSON(t, mine))
	if got := decode[struct{ Version int }](t, rec); rec.Code != 200 || got.Version != v0+1 {
		t.Errorf("repeated PUT: %d, version %d; want 200 at %d", rec.Code, got.Version, v0+1)
	}

	// A second writer started from the first version: refused, with the
	// first writer's change shown, nothing saved.
	theirs := read
	theirs["title"] = "Something else entirely"
	theirs["summary"] = "A summary of another writer."
	rec = sendJSON(t, h, person{}, "PUT", path, mustJSON(t, theirs))
	if rec.Code != http.StatusConflict {
		t.Fatalf("stale PUT: %d, want 409\n%.1000s", rec.Code, rec.Body)
	}
	conflict := decode[struct {
		Error   string
		Current struct {
			Title   string
			Version int
		}
		Since []struct {
			Version int
			Author  string
		}
		Changes []struct {
			Field string
			Lines []struct{ Op, Text string }
		}
		Overlap []string
	}](t, rec)
	if conflict.Current.Version != v0+1 || conflict.Current.Title != "Gmail request routers overloaded" ||
		len(conflict.Since) != 1 || conflict.Since[0].Author != "Script" ||
		len(conflict.Changes) != 1 || conflict.Changes[0].Field != "title" ||
		len(conflict.Overlap) != 1 || conflict.Overlap[0] != "title" || !strings.Contains(conflict.Error, "version") {
		t.Errorf("conflict = %+v", conflict)
	}
	var ins bool
	for _, l := range conflict.Changes[0].Lines {
		ins = ins || (l.Op == "ins" && l.Text == "Gmail request routers overloaded")
	}
	if !ins {
		t.Errorf("the title's diff %+v does not add the saved title", conflict.Changes[0].Lines)
	}
	if p, _ := st.GetPostmortem(t.Context(), gmail); p.Summary == "A summary of another writer." {
		t.Error("a stale save was written")
	}

	// Bad input: field-named errors, nothing saved.
	noVersion := record(t, h, person{}, gmail)
	delete(noVersion, "version")
	blank := record(t, h, person{}, gmail)
	blank["title"] = ""
	blank["patterns"] = []map[string]string{{"slug": "no-such-pattern", "role": "trigger"}}
	for _, tt := range []struct {
		name, path, body string
		status           int
		fields           []string
	}{
		{"NoVersion", path, mustJSON(t, noVersion), 422, []string{"version"}},
		{"Invalid", path, mustJSON(t, blank), 422, []string{"title", "patterns"}},
		{"NotJSON", path, `{"title": `, 400, nil},
		{"UnknownField", path, `{"titel": "x", "version": 1}`, 400, nil},
		{"WrongType", path, `{"title": 7, "version": 1}`, 400, nil},
		{"UnknownSlug", "/api/postmortems/no-such-postmortem", mustJSON(t, mine), 404, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			checkAPIError(t, sendJSON(t, h, person{}, "PUT", tt.path, tt.body), tt.status, tt.fields)
		})
	}
	if p, _ := st.GetPostmortem(t.Context(), gmail); p.Version != v0+1 {
		t.Errorf("version %d after refused saves, want %d", p.Version, v0+1)
	}

	// Without an author, the name this browser remembers signs it (-auth
	// none), as the form's field would be filled in with it.
	byCookie := record(t, h, person{}, gmail)
	byCookie["summary"] = "Saved by whoever the cookie names."
	rec = sendJSON(t, h, person{}, "PUT", path, mustJSON(t, byCookie), "Cookie", "hindsight_author=Carla")
	if rec.Code != 200 {
		t.Fatalf("PUT with the cookie: %d\n%.800s", rec.Code, rec.Body)
	}
	revs, _ = st.ListRevisions(t.Context(), p.ID)
	signed := false
	for _, r := range revs {
		signed = signed || (r.Version == v0+2 && r.Author == "Carla")
	}
	if !signed {
		t.Errorf("revisions %+v: version %d is not signed by the remembered name", revs, v0+2)
	}
}

// TestAPIWritesFollowRolesAndSigning: PUT and the action-item endpoints
// need the editor role, sign with the proxy's user or the token's name
// whatever the body says, are audited, and answer 404 for a postmortem
// restricted to others.
func TestAPIWritesFollowRolesAndSigning(t *testing.T) {
	t.Parallel()
	h, st := newTeamApp(t)
	path := "/api/postmortems/" + gmail
	body := record(t, h, editor, gmail)
	body["summary"] = "Changed through the API."
	body["author"] = "Mallory"
	if rec := sendJSON(t, h, viewer, "PUT", path, mustJSON(t, body)); rec.Code != http.StatusForbidden {
		t.Errorf("viewer PUT: %d, want 403", rec.Code)
	}
	if rec := sendJSON(t, h, viewer, "POST", path+"/action-items", `{"title": "x", "type": "prevent"}`); rec.Code != http.StatusForbidden {
		t.Errorf("viewer POST action item: %d, want 403", rec.Code)
	}
	rec := sendJSON(t, h, editor, "PUT", path, mustJSON(t, body))
	if rec.Code != 200 {
		t.Fatalf("editor PUT: %d\n%.800s", rec.Code, rec.Body)
	}
	p, _ := st.GetPostmortem(t.Context(), gmail)
	revs, _ := st.ListRevisions(t.Context(), p.ID)
	signed := false
	for _, r := range revs {
		signed = signed || (r.Version == p.Version && r.Author == "ed")
	}
	if !signed {
		t.Errorf("revisions %+v: the save is not signed by ed", revs)
	}
	if rec := sendJSON(t, h, editor, "GET", path, ""); strings.Contains(rec.Body.String(), `"restricted_to"`) {
		t.Errorf("a PUT without restricted_to restricted the postmortem")
	}

	// A token signs with its name.
	_, secret, err := st.CreateToken(t.Context(), "deploy-bot", "editor", "test")
	if err != nil {
		t.Fatal(err)
	}
	rec = sendJSON(t, h, person{}, "POST", path+"/action-items", `{"title": "Cap router retries", "type": "prevent", "author": "x"}`,
		"Authorization", "Bearer "+secret)
	if rec.Code != http.StatusBadRequest {
		t.Errorf("an action item with an unknown field: %d, want 400", rec.Code)
	}
	rec = sendJSON(t, h, person{}, "POST", path+"/action-items", `{"title": "Cap router retries", "type": "prevent"}`,
		"Authorization", "Bearer "+secret)
	if rec.Code != http.StatusCreated {
		t.Fatalf("token POST action item: %d\n%.800s", rec.Code, rec.Body)
	}

	audit := decode[struct {
		Items []struct{ Actor, Via, Kind, Postmortem, What string }
	}](t, as(t, h, admin, "GET", "/api/audit", nil))
	want := map[string]string{"postmortem.edit": "ed", "action_item.create": "token deploy-bot"}
	for _, e := range audit.Items {
		if actor, ok := want[e.Kind]; ok && e.Actor == actor && e.Postmortem == gmail && strings.Contains(e.What, "through the API") {
			delete(want, e.Kind)
		}
	}
	if len(want) > 0 {
		t.Errorf("audit trail lacks %v: %+v", want, audit.Items)
	}

	// Restricted to a group ed is not in: unknown to him, whatever he sends.
	member := person{"sam", "security, sre"}
	secretPM := record(t, h, member, gmail)
	secretPM["restricted_to"] = []string{"security"}
	if rec := sendJSON(t, h, member, "PUT", path, mustJSON(t, secretPM)); rec.Code != 200 {
		t.Fatalf("restrict through PUT: %d\n%.800s", rec.Code, rec.Body)
	}
	for _, tt := range []struct{ method, path, body string }{
		{"GET", path, ""},
		{"PUT", path, mustJSON(t, body)},
		{"GET", path + "/action-items", ""},
		{"POST", path + "/action-items", `{"title": "x", "type": "prevent"}`},
	} {
		if rec := sendJSON(t, h, editor, tt.method, tt.path, tt.body); rec.Code != http.StatusNotFound {
			t.Errorf("outsider %s %s: %d, want 404", tt.method, tt.path, rec.Code)
		}
	}
	items := decode[struct{ Items []struct{ ID int64 } }](t, sendJSON(t, h, member, "GET", path+"/action-items", ""))
	if len(items.Items) == 0 {
		t.Fatal("member sees no action items")
	}
	item := path + "/action-items/" + strconv.FormatInt(items.Items[0].ID, 10)
	if rec := sendJSON(t, h, editor, "PUT", item, `{"title": "x", "type": "prevent", "version": 1}`); rec.Code != http.StatusNotFound {
		t.Errorf("outsider PUT action item: %d, want 404", rec.Code)
	}
}

// TestAPIActionItems: list, create, read and update one postmortem's
// action items, with the form's validation and a stale update refused.
func TestAPIActionItems(t *testing.T) {
	t.Parallel()
	h, st := newApp(t)
	base := "/api/postmortems/" + gmail + "/action-items"
	type item struct {
		ID            int64
		Version       int
		Title, Owner  string
		Type          string
		Priority      string
		Status        string
		DueDate       string `json:"due_date"`
		TicketURL     string `json:"ticket_url"`
		ChecklistItem int64  `json:"checklist_item"`
		Overdue       bool
		URL           string
	}
	type list struct {
		Items []item
		Total int
	}
	before := decode[list](t, sendJSON(t, h, person{}, "GET", base, ""))
	if before.Total != len(before.Items) {
		t.Errorf("total %d, %d items", before.Total, len(before.Items))
	}

	rec := sendJSON(t, h, person{}, "POST", base, `{"title": "Shed load at the routers", "owner": "Traffic team", "type": "mitigate",
		"priority": "P1", "due_date": "2001-01-01", "ticket_url": "https://tracker.example/T-1"}`)
	if rec.Code != http.StatusCreated {
		t.Fatalf("POST: %d\n%.800s", rec.Code, rec.Body)
	}
	made := decode[item](t, rec)
	if made.ID == 0 || made.Version != 1 || made.Status != "open" || made.Type != "mitigate" || !made.Overdue ||
		rec.Header().Get("Location") != base+"/"+strconv.FormatInt(made.ID, 10) {
		t.Errorf("created %+v, Location %q", made, rec.Header().Get("Location"))
	}
	after := decode[list](t, sendJSON(t, h, person{}, "GET", base, ""))
	if after.Total != before.Total+1 {
		t.Errorf("total %d after creating, want %d", after.Total, before.Total+1)
	}
	one := decode[item](t, sendJSON(t, h, person{}, "GET", base+"/"+strconv.FormatInt(made.ID, 10), ""))
	if one != made {
		t.Errorf("GET one = %+v, want %+v", one, made)
	}
	// The postmortem's record lists it with its id and version.
	if rec := sendJSON(t, h, person{}, "GET", "/api/postmortems/"+gmail, ""); !strings.Contains(rec.Body.String(), `"id": `+strconv.FormatInt(made.ID, 10)) {
		t.Error("the record does not carry the item's id")
	}

	// From a checklist item of the postmortem's patterns, once.
	p, _ := st.GetPostmortem(t.Context(), gmail)
	cl, err := st.Checklist(t.Context(), p.Tags[0].PatternSlug)
	if err != nil || len(cl) == 0 {
		t.Fatalf("checklist of %s: %v", p.Tags[0].PatternSlug, err)
	}
	fromCL := `{"title": "From the checklist", "type": "prevent", "checklist_item": ` + strconv.FormatInt(cl[0].ID, 10) + `}`
	if rec := sendJSON(t, h, person{}, "POST", base, fromCL); rec.Code != http.StatusCreated {
		t.Errorf("from a checklist item: %d\n%.500s", rec.Code, rec.Body)
	}
	if rec := sendJSON(t, h, person{}, "POST", base, fromCL); rec.Code != http.StatusConflict {
		t.Errorf("the same checklist item twice: %d, want 409", rec.Code)
	}

	itemPath := base + "/" + strconv.FormatInt(made.ID, 10)
	mine := made
	mine.Status, mine.Owner = "in-progress", "Routing team"
	rec = sendJSON(t, h, person{}, "PUT", itemPath, mustJSON(t, map[string]any{"title": mine.Title, "owner": mine.Owner,
		"type": mine.Type, "priority": mine.Priority, "status": mine.Status, "due_date": mine.DueDate, "ticket_url": mine.TicketURL,
		"version": made.Version}))
	if rec.Code != 200 {
		t.Fatalf("PUT: %d\n%.800s", rec.Code, rec.Body)
	}
	if got := decode[item](t, rec); got.Version != 2 || got.Status != "in-progress" || got.Owner != "Routing team" {
		t.Errorf("updated %+v", got)
	}
	// Another writer, from version 1: refused, with what differs.
	rec = sendJSON(t, h, person{}, "PUT", itemPath, `{"title": "Shed load at the routers", "type": "mitigate", "priority": "P1",
		"status": "done", "owner": "Traffic team", "due_date": "2001-01-01", "ticket_url": "https://tracker.example/T-1", "version": 1}`)
	if rec.Code != http.StatusConflict {
		t.Fatalf("stale PUT: %d, want 409\n%.800s", rec.Code, rec.Body)
	}
	conflict := decode[struct {
		Error   string
		Current item
		Changes []struct{ Field, Current, Requested string }
	}](t, rec)
	changed := map[string][2]string{}
	for _, c := range conflict.Changes {
		changed[c.Field] = [2]string{c.Current, c.Requested}
	}
	if conflict.Current.Version != 2 || len(changed) != 2 || changed["status"] != [2]string{"in-progress", "done"} ||
		changed["owner"] != [2]string{"Routing team", "Traffic team"} {
		t.Errorf("conflict = %+v", conflict)
	}

	for _, tt := range []struct {
		name, method, path, body string
		status                   int
		fields                   []string
	}{
		{"CreateInvalid", "POST", base, `{"title": "", "type": "fix", "priority": "P9", "due_date": "soon", "ticket_url": "javascript:alert(1)"}`,
			422, []string{"title", "type", "priority", "due_date", "ticket_url"}},
		{"CreateUnknownChecklistItem", "POST", base, `{"title": "x", "type": "prevent", "checklist_item": 999999}`, 422, []string{"checklist_item"}},
		{"UpdateNoVersion", "PUT", itemPath, `{"title": "x", "type": "prevent"}`, 422, []string{"version"}},
		{"UpdateInvalid", "PUT", itemPath, `{"title": "x", "type": "prevent", "status": "finished", "version": 2}`, 422, []string{"status"}},
		{"NotJSON", "POST", base, `[1, 2]`, 400, nil},
		{"UnknownItem", "PUT", base + "/999999", `{"title": "x", "type": "prevent", "version": 1}`, 404, nil},
		{"NonNumericItem", "GET", base + "/abc", "", 404, nil},
		{"ItemOfAnother", "GET", "/api/postmortems/dreamwidth-2020-05-25-site-interruptions/action-items/" + strconv.FormatInt(made.ID, 10), "", 404, nil},
		{"UnknownPostmortem", "GET", "/api/postmortems/nope/action-items", "", 404, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			checkAPIError(t, sendJSON(t, h, person{}, tt.method, tt.path, tt.body), tt.status, tt.fields)
		})
	}
	if a, _ := st.GetActionItem(t.Context(), made.ID); a.Version != 2 || a.Status != "in-progress" {
		t.Errorf("stored %+v after refused saves", a)
	}
}

// TestAPIRecordSentBackSavesNothing: every record, sent back unchanged
// with PUT (seeds, their variants, one with incident times in a time zone
// and a timeline), is accepted and saves nothing: the form's reading of
// the JSON gives back the stored fields.
func TestAPIRecordSentBackSavesNothing(t *testing.T) {
	t.Parallel()
	h, _ := newApp(t)
	list := decode[struct{ Items []struct{ Slug string } }](t, sendJSON(t, h, person{}, "GET", "/api/postmortems", ""))
	slugs := []string{"facebook-2010-09-23-outage-es", "facebook-2010-09-23-outage-rewrite"}
	for _, it := range list.Items {
		slugs = append(slugs, it.Slug)
	}
	rec := sendJSON(t, h, person{}, "POST", "/api/postmortems", `{"title": "Cache stampede at login", "organization": "Example Corp",
		"incident_date": "2024-02-01", "severity": "SEV2", "services": "login, cache", "summary": "Logins failed.",
		"body": "Every entry expired.", "timeline": "10:00 expiry\n10:05 alerts", "started_at": "2024-02-01T10:00:00Z",
		"detected_at": "2024-02-01T10:03:30Z", "resolved_at": "2024-02-01T10:20:00Z", "time_zone": "Europe/Madrid",
		"patterns": [{"slug": "thundering-herd", "role": "trigger"}]}`)
	if rec.Code != http.StatusCreated {
		t.Fatalf("create: %d\n%.800s", rec.Code, rec.Body)
	}
	slugs = append(slugs, decode[struct{ Slug string }](t, rec).Slug)
	for _, slug := range slugs {
		read := record(t, h, person{}, slug)
		rec := sendJSON(t, h, person{}, "PUT", "/api/postmortems/"+slug, mustJSON(t, read))
		got := decode[map[string]any](t, rec)
		if rec.Code != 200 || got["version"] != read["version"] {
			t.Errorf("%s sent back: %d, version %v, want 200 at %v\n%.800s", slug, rec.Code, got["version"], read["version"], rec.Body)
		}
	}
}

// checkAPIError checks that rec is an API error of status with a message,
// naming each of fields.
func checkAPIError(t *testing.T, rec *httptest.ResponseRecorder, status int, fields []string) {
	t.Helper()
	if rec.Code != status {
		t.Fatalf("%d, want %d\n%.800s", rec.Code, status, rec.Body)
	}
	got := decode[struct {
		Error  string
		Fields map[string]string
	}](t, rec)
	if got.Error == "" {
		t.Error("no error message")
	}
	for _, f := range fields {
		if got.Fields[f] == "" {
			t.Errorf("no error for %q in %v", f, got.Fields)
		}
	}
}
