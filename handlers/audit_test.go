package handlers_test

import (
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// auditRow is the newest entry of the audit trail, read from the file.
type auditRow struct{ Actor, Via, Kind, Postmortem, What, Client string }

// auditDB reads the application's database file beside it, on one
// connection of its own: PRAGMA data_version changes on it exactly when
// another connection commits.
type auditDB struct {
	t    *testing.T
	conn *sql.Conn
}

func openAuditDB(t *testing.T, path string) auditDB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return auditDB{t, conn}
}

func (d auditDB) int(query string) int64 {
	d.t.Helper()
	var n int64
	if err := d.conn.QueryRowContext(d.t.Context(), query).Scan(&n); err != nil {
		d.t.Fatalf("%s: %v", query, err)
	}
	return n
}

func (d auditDB) exec(query string) {
	d.t.Helper()
	if _, err := d.conn.ExecContext(d.t.Context(), query); err != nil {
		d.t.Fatalf("%s: %v", query, err)
	}
}

func (d auditDB) newest() auditRow {
	d.t.Helper()
	var e auditRow
	err := d.conn.QueryRowContext(d.t.Context(), `SELECT actor, via, kind, postmortem, what, client FROM audit_log ORDER BY id DESC LIMIT 1`).
		Scan(&e.Actor, &e.Via, &e.Kind, &e.Postmortem, &e.What, &e.Client)
	if err != nil {
		d.t.Fatal(err)
	}
	return e
}

// TestEveryWriteIsAudited walks every kind of write through the HTTP
// handlers. Each is first made while the audit trail refuses its entry (a
// trigger on audit_log): the write must fail and commit nothing, so the
// entry is written in the write's own transaction. Made again, it must
// succeed with exactly one new entry, of its kind, by its actor, from a
// client address. Then /audit and /api/audit show every kind with its
// actor.
func TestEveryWriteIsAudited(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "test.db")
	h, st := newTeamAppAt(t, path)
	db := openAuditDB(t, path)
	pm := "/postmortems/" + gmail

	send := func(p person, method, target string, form url.Values) *httptest.ResponseRecorder {
		return as(t, h, p, method, target, form, "Sec-Fetch-Site", "same-origin")
	}
	version := func(slug string) string {
		p, err := st.GetPostmortem(t.Context(), slug)
		if err != nil {
			t.Fatal(err)
		}
		return itoa(int64(p.Version))
	}
	page := as(t, h, editor, "GET", pm, nil).Body.String()
	tickID := regexp.MustCompile(`name="item" value="(\d+)"`).FindStringSubmatch(page)[1]
	items, err := st.Checklist(t.Context(), "feedback-loop")
	if err != nil || len(items) < 2 {
		t.Fatalf("checklist: %v, %d items", err, len(items))
	}
	item := "/patterns/feedback-loop/checklist/" + itoa(items[1].ID)

	// State the writes build on, filled in as they run.
	var created, imported, actionItem, apiItem, addedItem string
	var suggested []string

	for _, tt := range []struct {
		name, kind string
		who        person
		postmortem func() string // the postmortem the entry names, if any
		write      func() *httptest.ResponseRecorder
		after      func(*httptest.ResponseRecorder) // reads state from a successful write
	}{
		{"CreateForm", "postmortem.create", editor, func() string { return created },
			func() *httptest.ResponseRecorder { return send(editor, "POST", "/postmortems", validForm()) },
			func(rec *httptest.ResponseRecorder) {
				created = strings.TrimPrefix(rec.Header().Get("Location"), "/postmortems/")
			}},
		{"CreateAPI", "postmortem.create", editor, nil,
			func() *httptest.ResponseRecorder {
				return sendJSON(t, h, editor, "POST", "/api/postmortems", `{"title": "Cache stampede", "summary": "The cache expired at once.", "body": "All keys expired together."}`)
			}, nil},
		{"ImportForm", "postmortem.import", editor, func() string { return imported },
			func() *httptest.ResponseRecorder {
				return send(editor, "POST", "/import/save", url.Values{"source": {base64.StdEncoding.EncodeToString([]byte(certImport))},
					"filename": {"draft.md"}, "title": {"Gateway certificate outage"}, "language": {"en"},
					"summary": {"The gateway's certificate expired."}, "body": {certImport}})
			},
			func(rec *httptest.ResponseRecorder) {
				imported = strings.TrimPrefix(rec.Header().Get("Location"), "/postmortems/")
				p, err := st.GetPostmortem(t.Context(), imported)
				if err != nil {
					t.Fatal(err)
				}
				for _, s := range p.Suggested {
					suggested = append(suggested, s.PatternSlug)
				}
				if len(suggested) < 2 {
					t.Fatalf("imported %q with %d suggestions, want 2", imported, len(suggested))
				}
			}},
		{"Edit", "postmortem.edit", editor, func() string { return created },
			func() *httptest.ResponseRecorder {
				return send(editor, "POST", "/postmortems/"+created+"/edit", with(with(validForm(), "version", version(created)), "summary", "Changed."))
			}, nil},
		{"EditAPI", "postmortem.edit", editor, func() string { return created },
			func() *httptest.ResponseRecorder {
				body := record(t, h, editor, created)
				body["summary"] = "Changed through the API."
				return sendJSON(t, h, editor, "PUT", "/api/postmortems/"+created, mustJSON(t, body))
			}, nil},
		{"Restore", "postmortem.restore", editor, func() string { return created },
			func() *httptest.ResponseRecorder {
				return send(editor, "POST", "/postmortems/"+created+"/revisions/1/restore", url.Values{"version": {version(created)}, "note": {"back"}})
			}, nil},
		{"Archive", "postmortem.archive", editor, func() string { return gmail },
			func() *httptest.ResponseRecorder { return send(editor, "POST", pm+"/archive", url.Values{}) }, nil},
		{"Unarchive", "postmortem.unarchive", editor, func() string { return gmail },
			func() *httptest.ResponseRecorder { return send(editor, "POST", pm+"/unarchive", url.Values{}) }, nil},
		{"RejectSuggestion", "tags.reject", editor, nil,
			func() *httptest.ResponseRecorder {
				form := with(validForm(), "body", "Clients retried immediately without backoff; the retries multiplied the load into a retry storm.")
				return send(editor, "POST", "/postmortems/new/reject", with(form, "reject", "retry-storm"))
			}, nil},
		{"ConfirmSuggestion", "tags.confirm", editor, func() string { return imported },
			func() *httptest.ResponseRecorder {
				return send(editor, "POST", "/postmortems/"+imported+"/suggestions/"+suggested[0]+"/confirm", url.Values{})
			}, nil},
		{"DismissSuggestion", "tags.dismiss", editor, func() string { return imported },
			func() *httptest.ResponseRecorder {
				return send(editor, "POST", "/postmortems/"+imported+"/suggestions/"+suggested[1]+"/dismiss", url.Values{})
			}, nil},
		{"CreateActionItem", "action_item.create", editor, func() string { return gmail },
			func() *httptest.ResponseRecorder {
				return send(editor, "POST", pm+"/action-items", url.Values{"title": {"Add a breaker"}, "kind": {"prevent"}, "priority": {"P1"}, "status": {"open"}})
			},
			func(*httptest.ResponseRecorder) {
				p, err := st.GetPostmortem(t.Context(), gmail)
				if err != nil || len(p.ActionItems) == 0 {
					t.Fatalf("action items: %v", err)
				}
				actionItem = itoa(p.ActionItems[len(p.ActionItems)-1].ID)
			}},
		{"EditActionItem", "action_item.edit", editor, func() string { return gmail },
			func() *httptest.ResponseRecorder {
				return send(editor, "POST", pm+"/action-items/"+actionItem, url.Values{"title": {"Add a circuit breaker"}, "kind": {"prevent"}, "priority": {"P1"}, "status": {"in-progress"}})
			}, nil},
		{"CompleteActionItem", "action_item.complete", editor, func() string { return gmail },
			func() *httptest.ResponseRecorder {
				return send(editor, "POST", pm+"/action-items/"+actionItem+"/complete", url.Values{})
			}, nil},
		{"CreateActionItemAPI", "action_item.create", editor, func() string { return gmail },
			func() *httptest.ResponseRecorder {
				return sendJSON(t, h, editor, "POST", "/api/postmortems/"+gmail+"/action-items", `{"title": "Cap router retries", "type": "prevent"}`)
			},
			func(rec *httptest.ResponseRecorder) { apiItem = rec.Header().Get("Location") }},
		{"EditActionItemAPI", "action_item.edit", editor, func() string { return gmail },
			func() *httptest.ResponseRecorder {
				return sendJSON(t, h, editor, "PUT", apiItem, `{"title": "Cap the router's retries", "type": "prevent", "version": 1}`)
			}, nil},
		{"Tick", "checklist.tick", editor, func() string { return gmail },
			func() *httptest.ResponseRecorder {
				return send(editor, "POST", pm+"/checklist", url.Values{"item": {tickID}, "done": {tickID}})
			}, nil},
		{"TickOne", "checklist.tick", editor, func() string { return gmail },
			func() *httptest.ResponseRecorder { return send(editor, "POST", pm+"/checklist/"+tickID, url.Values{}) }, nil},
		{"AddChecklistItem", "checklist.add", admin, nil,
			func() *httptest.ResponseRecorder {
				return send(admin, "POST", "/patterns/feedback-loop/checklist", url.Values{"text": {"Cap retries"}, "phase": {"after"}})
			},
			func(*httptest.ResponseRecorder) {
				items, _ := st.Checklist(t.Context(), "feedback-loop")
				addedItem = "/patterns/feedback-loop/checklist/" + itoa(items[len(items)-1].ID)
			}},
		{"EditChecklistItem", "checklist.edit", admin, nil,
			func() *httptest.ResponseRecorder {
				return send(admin, "POST", item, url.Values{"text": {"Reworded"}, "phase": {items[1].Phase}})
			}, nil},
		{"MoveChecklistItem", "checklist.move", admin, nil,
			func() *httptest.ResponseRecorder {
				return send(admin, "POST", item+"/move", url.Values{"direction": {"up"}})
			}, nil},
		{"RemoveChecklistItem", "checklist.remove", admin, nil,
			func() *httptest.ResponseRecorder { return send(admin, "POST", addedItem+"/remove", url.Values{}) }, nil},
		{"RestoreChecklistItem", "checklist.restore", admin, nil,
			func() *httptest.ResponseRecorder { return send(admin, "POST", addedItem+"/restore", url.Values{}) }, nil},
		{"CreateToken", "token.create", admin, nil,
			func() *httptest.ResponseRecorder {
				return send(admin, "POST", "/admin/tokens", url.Values{"name": {"ci"}, "role": {"viewer"}})
			}, nil},
		{"RevokeToken", "token.revoke", admin, nil,
			func() *httptest.ResponseRecorder {
				return send(admin, "POST", "/admin/tokens/revoke", url.Values{"name": {"ci"}})
			}, nil},
	} {
		// Not subtests: each write builds on the ones before.
		entries := db.int(`SELECT count(*) FROM audit_log`)
		db.exec(`CREATE TRIGGER audit_refused BEFORE INSERT ON audit_log BEGIN SELECT RAISE(ABORT, 'audit refused'); END`)
		committed := db.int(`PRAGMA data_version`)
		if rec := tt.write(); rec.Code < 500 {
			t.Errorf("%s with its audit entry refused: %d, want a failure\n%.500s", tt.name, rec.Code, rec.Body)
		}
		if db.int(`PRAGMA data_version`) != committed {
			t.Errorf("%s with its audit entry refused: something was committed", tt.name)
		}
		db.exec(`DROP TRIGGER audit_refused`)
		if got := db.int(`SELECT count(*) FROM audit_log`); got != entries {
			t.Errorf("%s refused: %d audit entries, want %d", tt.name, got, entries)
		}

		rec := tt.write()
		if rec.Code >= 400 {
			t.Fatalf("%s: %d\n%.800s", tt.name, rec.Code, rec.Body)
		}
		if tt.after != nil {
			tt.after(rec)
		}
		if got := db.int(`SELECT count(*) FROM audit_log`); got != entries+1 {
			t.Errorf("%s: %d new audit entries, want 1", tt.name, got-entries)
		}
		e := db.newest()
		if e.Kind != tt.kind || e.Actor != tt.who.name || e.Via != "proxy" || e.Client == "" || e.What == "" {
			t.Errorf("%s: audit entry %+v, want kind %s by %s via proxy, with a client address and what it did", tt.name, e, tt.kind, tt.who.name)
		}
		if tt.postmortem != nil && e.Postmortem != tt.postmortem() {
			t.Errorf("%s: audit entry names postmortem %q, want %q", tt.name, e.Postmortem, tt.postmortem())
		}
	}

	// Both views of the trail show every kind with its actor.
	kinds := map[string]string{"postmortem.create": "ed", "postmortem.import": "ed", "postmortem.edit": "ed", "postmortem.restore": "ed",
		"postmortem.archive": "ed", "postmortem.unarchive": "ed", "tags.reject": "ed", "tags.confirm": "ed", "tags.dismiss": "ed",
		"action_item.create": "ed", "action_item.edit": "ed", "action_item.complete": "ed", "checklist.tick": "ed",
		"checklist.add": "ada", "checklist.edit": "ada", "checklist.move": "ada", "checklist.remove": "ada", "checklist.restore": "ada",
		"token.create": "ada", "token.revoke": "ada"}
	for kind, actor := range kinds {
		var got struct {
			Items []struct{ Actor, Kind string }
			Total int
		}
		rec := as(t, h, admin, "GET", "/api/audit?kind="+kind, nil)
		if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
			t.Fatalf("/api/audit?kind=%s: %v", kind, err)
		}
		if got.Total == 0 || got.Items[0].Actor != actor {
			t.Errorf("/api/audit?kind=%s: %+v, want entries by %s", kind, got, actor)
		}
		body := as(t, h, admin, "GET", "/audit?kind="+kind, nil).Body.String()
		mustContain(t, body, "<td>"+kind+"</td>", "<td>"+actor+` <span class="meta">(proxy)</span></td>`)
	}
}

// TestFailedWritesAreNotAudited: a write refused by the store (a stale
// version, a conflict, something gone) leaves no audit entry.
func TestFailedWritesAreNotAudited(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "test.db")
	h, st := newTeamAppAt(t, path)
	db := openAuditDB(t, path)
	send := func(p person, target string, form url.Values) *httptest.ResponseRecorder {
		return as(t, h, p, "POST", target, form, "Sec-Fetch-Site", "same-origin")
	}
	items, _ := st.Checklist(t.Context(), "feedback-loop")
	if rec := send(admin, "/admin/tokens", url.Values{"name": {"ci"}, "role": {"viewer"}}); rec.Code != 200 {
		t.Fatalf("token: %d", rec.Code)
	}
	pm := "/postmortems/" + gmail
	for _, tt := range []struct {
		name   string
		status int
		write  func() *httptest.ResponseRecorder
	}{
		{"StaleEdit", http.StatusConflict, func() *httptest.ResponseRecorder {
			return send(editor, pm+"/edit", with(with(validForm(), "version", "0"), "summary", "Changed."))
		}},
		{"StaleChecklistItem", http.StatusConflict, func() *httptest.ResponseRecorder {
			return send(admin, "/patterns/feedback-loop/checklist/"+itoa(items[0].ID), url.Values{"text": {"Late"}, "phase": {items[0].Phase}, "version": {"99"}})
		}},
		{"TokenNameTaken", http.StatusConflict, func() *httptest.ResponseRecorder {
			return send(admin, "/admin/tokens", url.Values{"name": {"ci"}, "role": {"viewer"}})
		}},
		{"RevokeUnknownToken", http.StatusNotFound, func() *httptest.ResponseRecorder {
			return send(admin, "/admin/tokens/revoke", url.Values{"name": {"nobody"}})
		}},
		{"TickItemNotOnThePostmortem", http.StatusNotFound, func() *httptest.ResponseRecorder {
			return send(editor, pm+"/checklist/999999", url.Values{"done": {"1"}})
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			entries := db.int(`SELECT count(*) FROM audit_log`)
			if rec := tt.write(); rec.Code != tt.status {
				t.Fatalf("%d, want %d\n%.500s", rec.Code, tt.status, rec.Body)
			}
			if got := db.int(`SELECT count(*) FROM audit_log`); got != entries {
				t.Errorf("%d new audit entries, want none", got-entries)
			}
		})
	}
}
