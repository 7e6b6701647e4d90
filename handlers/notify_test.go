package handlers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"hindsight/handlers"
	"hindsight/notify"
	"hindsight/notify/notifytest"
	"hindsight/store"
)

const hookSecret = "It's a Secret to Everybody"

var site = &url.URL{Scheme: "https", Host: "hindsight.example.com"}

// notified is the team application (newTeamApp) with a sender of its
// events to a webhook, Slack and a personal channel, each a real
// receiver; the test sends with Flush.
type notified struct {
	h        http.Handler
	st       *store.Store
	sender   *notify.Sender
	hook     *notifytest.Receiver
	slack    *notifytest.Receiver
	personal *inbox
}

func newNotified(t *testing.T, opts ...handlers.Option) notified {
	t.Helper()
	n := notified{hook: notifytest.NewReceiver(t), slack: notifytest.NewReceiver(t), personal: &inbox{}}
	hook, err := notify.NewWebhook(n.hook.URL+"/hook", hookSecret, site)
	if err != nil {
		t.Fatal(err)
	}
	slack, err := notify.NewSlack(n.slack.URL+"/services/T0/B0/XYZ", site)
	if err != nil {
		t.Fatal(err)
	}
	opts = append(opts, handlers.NotifyChannels(map[string]string{hook.Name(): hook.String(), "slack": slack.String()}))
	n.h, n.st = newTeamApp(t, opts...)
	n.sender = notify.NewSender(n.st, slog.New(slog.NewTextHandler(io.Discard, nil)), hook, slack, n.personal)
	return n
}

func (n notified) flush(t *testing.T) {
	t.Helper()
	if err := n.sender.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
}

// inbox is a channel that is not shared, as email is: it gets the events
// of restricted postmortems too, and keeps them.
type inbox struct {
	mu     sync.Mutex
	events []store.Event
}

func (*inbox) Name() string { return "inbox" }
func (*inbox) Shared() bool { return false }
func (*inbox) Targets(context.Context, store.Event) ([]string, error) {
	return []string{"inbox:someone"}, nil
}

func (b *inbox) Send(_ context.Context, _ string, e store.Event) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.events = append(b.events, e)
	return nil
}

func (b *inbox) got() []store.Event {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.events)
}

// checkedPayloads checks each accepted request of r is a webhook's: a valid
// signature of its body, and headers that name its event; it returns the
// payloads.
func checkedPayloads(t *testing.T, r *notifytest.Receiver) []notify.Payload {
	t.Helper()
	var out []notify.Payload
	for _, q := range r.Accepted() {
		if !notify.Verify([]byte(hookSecret), q.Body, q.Header.Get(notify.HeaderSignature)) {
			t.Errorf("bad signature %q of %s", q.Header.Get(notify.HeaderSignature), q.Body)
		}
		var p notify.Payload
		if err := json.Unmarshal(q.Body, &p); err != nil {
			t.Fatalf("body %s: %v", q.Body, err)
		}
		if q.Header.Get(notify.HeaderEvent) != p.Event || q.Header.Get(notify.HeaderEventID) != strconv.FormatInt(p.ID, 10) {
			t.Errorf("headers %s=%q %s=%q, body names %s %d", notify.HeaderEvent, q.Header.Get(notify.HeaderEvent),
				notify.HeaderEventID, q.Header.Get(notify.HeaderEventID), p.Event, p.ID)
		}
		if ct := q.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("Content-Type = %q", ct)
		}
		out = append(out, p)
	}
	return out
}

func kindsOf(ps []notify.Payload) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Event)
	}
	return out
}

// TestNotificationsEndToEnd takes every step that causes an event through
// the real handlers, then sends: the webhook gets each event once, signed,
// naming the postmortem with its address; Slack gets a line with a link
// for each; a refused step tells no one.
func TestNotificationsEndToEnd(t *testing.T) {
	t.Parallel()
	n := newNotified(t)
	rec := sendJSON(t, n.h, editor, "POST", "/api/postmortems",
		`{"title": "Queue backlog", "summary": "The queue backed up.", "resolved_at": "2024-03-01T10:00:00Z"}`)
	if rec.Code != http.StatusCreated {
		t.Fatalf("create: %d %s", rec.Code, rec.Body)
	}
	slug := decode[struct{ Slug string }](t, rec).Slug
	pm := "/postmortems/" + slug
	for _, s := range []struct {
		who    person
		path   string
		form   url.Values
		status int
	}{
		{editor, pm + "/review/request", url.Values{"reviewers": {"ada"}}, http.StatusSeeOther},
		{editor, pm + "/review/approve", url.Values{"version": {"1"}}, http.StatusForbidden}, // a writer: refused, no event
		{admin, pm + "/review/approve", url.Values{"version": {"1"}, "comment": {"Clear & short"}}, http.StatusSeeOther},
		{admin, pm + "/review/request-changes", url.Values{"comment": {"Say how many users"}}, http.StatusSeeOther},
		{viewer, pm + "/comments", url.Values{"body": {"How many users? cc @ed"}, "section": {"impact"}}, http.StatusSeeOther},
		{editor, pm + "/action-items", url.Values{"title": {"Alert on queue age"}, "owner": {"ada"}, "kind": {"prevent"},
			"priority": {"P1"}, "status": {"open"}, "due_date": {"2030-01-31"}}, http.StatusSeeOther},
		{editor, pm + "/review/publish", url.Values{}, http.StatusSeeOther},
	} {
		if rec := as(t, n.h, s.who, "POST", s.path, s.form); rec.Code != s.status {
			t.Fatalf("%s as %s: %d, want %d\n%.600s", s.path, s.who.name, rec.Code, s.status, rec.Body)
		}
	}
	n.flush(t)

	got := checkedPayloads(t, n.hook)
	want := []string{store.EventPostmortemCreated, store.EventReviewRequested, store.EventReviewApproved,
		store.EventReviewChangesRequested, store.EventCommentCreated, store.EventUserMentioned,
		store.EventActionItemAssigned, store.EventPostmortemPublished}
	if !slices.Equal(kindsOf(got), want) {
		t.Fatalf("webhook got %v, want %v", kindsOf(got), want)
	}
	byKind := map[string]notify.Payload{}
	ids := map[int64]bool{}
	for _, p := range got {
		byKind[p.Event] = p
		if ids[p.ID] {
			t.Errorf("event %d delivered twice", p.ID)
		}
		ids[p.ID] = true
		if p.Postmortem == nil || p.Postmortem.Slug != slug || p.Postmortem.Title != "Queue backlog" ||
			p.Postmortem.URL != "https://hindsight.example.com/postmortems/"+slug {
			t.Errorf("%s names %+v", p.Event, p.Postmortem)
		}
		if p.Change.Summary == "" || p.At.IsZero() {
			t.Errorf("%s: no summary or time: %+v", p.Event, p)
		}
	}
	if p := byKind[store.EventReviewRequested]; p.Actor != "ed" || !slices.Equal(p.Change.Reviewers, []string{"ada"}) {
		t.Errorf("review.requested = %+v", p)
	}
	if p := byKind[store.EventReviewApproved]; p.Actor != "ada" || p.Change.Version != 1 || p.Change.Message != "Clear & short" {
		t.Errorf("review.approved = %+v", p)
	}
	if p := byKind[store.EventCommentCreated]; p.Actor != "vera" || p.Change.Comment == nil ||
		p.Change.Comment.Body != "How many users? cc @ed" || p.Change.Comment.Section != "impact" {
		t.Errorf("comment.created = %+v", p)
	}
	if p := byKind[store.EventUserMentioned]; !slices.Equal(p.Change.Mentioned, []string{"ed"}) || p.Change.Comment == nil {
		t.Errorf("user.mentioned = %+v", p)
	}
	if p := byKind[store.EventActionItemAssigned]; p.Change.ActionItem == nil || p.Change.ActionItem.Owner != "ada" ||
		p.Change.ActionItem.Title != "Alert on queue age" || p.Change.ActionItem.DueDate != "2030-01-31" {
		t.Errorf("action_item.assigned = %+v", p.Change.ActionItem)
	}

	texts := n.slack.Accepted()
	if len(texts) != len(want) {
		t.Fatalf("slack got %d messages, want %d", len(texts), len(want))
	}
	for _, q := range texts {
		var m map[string]string
		if err := json.Unmarshal(q.Body, &m); err != nil || len(m) != 1 {
			t.Fatalf("slack body %s: %v; want only text", q.Body, err)
		}
		if link := "<https://hindsight.example.com/postmortems/" + slug + "|Queue backlog>"; !strings.Contains(m["text"], link) {
			t.Errorf("slack text %q has no link %s", m["text"], link)
		}
	}
	if m := string(texts[2].Body); !strings.Contains(m, "*ada* approved version 1 of “Queue backlog”") || !strings.Contains(m, `\n>Clear &amp; short`) {
		t.Errorf("approval's text = %s, want who, what, and the comment quoted with & escaped for Slack", m)
	}

	// Sending again sends nothing more: each was delivered once.
	n.flush(t)
	if len(n.hook.Requests()) != len(want) || len(n.slack.Requests()) != len(want) {
		t.Errorf("after a second flush: %d and %d requests, want %d each", len(n.hook.Requests()), len(n.slack.Requests()), len(want))
	}
	// Three channels, each delivered every event.
	metrics := get(t, n.h, "/metrics").Body.String()
	for _, line := range []string{`hindsight_notification_deliveries{state="delivered"} 24`,
		`hindsight_notification_deliveries{state="queued"} 0`, `hindsight_notification_deliveries{state="failed"} 0`} {
		if !strings.Contains(metrics, line+"\n") {
			t.Errorf("/metrics lacks %s", line)
		}
	}
}

// TestNotificationsOfRestrictedPostmortems: webhooks and Slack are read
// by people we do not know, so no event of a restricted postmortem goes
// there, not even that one happened; a personal channel (email) gets it
// with the groups that may read it. A postmortem restricted after its
// event was written, before it was sent, counts as restricted.
func TestNotificationsOfRestrictedPostmortems(t *testing.T) {
	t.Parallel()
	n := newNotified(t)
	rec := sendJSON(t, n.h, editor, "POST", "/api/postmortems",
		`{"title": "Zanzibar key leak", "summary": "Keys leaked.", "restricted_to": ["sre"]}`)
	if rec.Code != http.StatusCreated {
		t.Fatalf("create: %d %s", rec.Code, rec.Body)
	}
	secret := decode[struct{ Slug string }](t, rec).Slug
	if rec := as(t, n.h, editor, "POST", "/postmortems/"+secret+"/comments", url.Values{"body": {"cc @ed"}}); rec.Code != http.StatusSeeOther {
		t.Fatalf("comment: %d", rec.Code)
	}
	// Open when its event is written, restricted before it is sent.
	rec = sendJSON(t, n.h, editor, "POST", "/api/postmortems", `{"title": "Quiet lemur outage", "summary": "Down."}`)
	if rec.Code != http.StatusCreated {
		t.Fatalf("create: %d %s", rec.Code, rec.Body)
	}
	later := decode[struct{ Slug string }](t, rec).Slug
	body := record(t, n.h, editor, later)
	body["restricted_to"] = []string{"sre"}
	if rec := sendJSON(t, n.h, editor, "PUT", "/api/postmortems/"+later, mustJSON(t, body)); rec.Code != http.StatusOK {
		t.Fatalf("restrict: %d %s", rec.Code, rec.Body)
	}
	n.flush(t)

	for name, r := range map[string]*notifytest.Receiver{"webhook": n.hook, "slack": n.slack} {
		for _, q := range r.Requests() {
			t.Errorf("%s got %s", name, q.Body)
		}
	}
	got := n.personal.got()
	var kinds []string
	for _, e := range got {
		kinds = append(kinds, e.Kind)
		if !slices.Equal(e.Restricted, []string{"sre"}) {
			t.Errorf("%s of %s: restricted to %v, want [sre]", e.Kind, e.Postmortem.Slug, e.Restricted)
		}
	}
	want := []string{store.EventPostmortemCreated, store.EventCommentCreated, store.EventUserMentioned, store.EventPostmortemCreated}
	if !slices.Equal(kinds, want) {
		t.Errorf("personal channel got %v, want %v", kinds, want)
	}

	// Restricted after it was queued for the webhook (its first attempt
	// failed, while it was open): the retry is not sent.
	rec = sendJSON(t, n.h, editor, "POST", "/api/postmortems", `{"title": "Open otter outage", "summary": "Down."}`)
	if rec.Code != http.StatusCreated {
		t.Fatalf("create: %d %s", rec.Code, rec.Body)
	}
	otter := decode[struct{ Slug string }](t, rec).Slug
	n.hook.Fail(http.StatusServiceUnavailable)
	n.slack.Fail(http.StatusServiceUnavailable)
	n.flush(t)
	body = record(t, n.h, editor, otter)
	body["restricted_to"] = []string{"sre"}
	if rec := sendJSON(t, n.h, editor, "PUT", "/api/postmortems/"+otter, mustJSON(t, body)); rec.Code != http.StatusOK {
		t.Fatalf("restrict: %d %s", rec.Code, rec.Body)
	}
	n.sender.Now = func() time.Time { return time.Now().Add(time.Minute) }
	n.flush(t)
	if got := len(n.hook.Accepted()) + len(n.slack.Accepted()); got != 0 {
		t.Errorf("after the restriction, %d accepted, want none", got)
	}
	failed, err := n.st.ListDeliveries(store.WithReaderGroups(t.Context(), []string{"sre"}), store.DeliveryFilter{State: store.DeliveryFailed})
	if err != nil || len(failed) != 2 || !strings.Contains(failed[0].LastError, "restricted") {
		t.Errorf("failed deliveries = %+v, %v; want the webhook's and Slack's, refused as restricted", failed, err)
	}
}

// TestDeliveriesPage: admins see the deliveries and failures, except those
// of postmortems they may not read, and send one again; others may not.
func TestDeliveriesPage(t *testing.T) {
	t.Parallel()
	n := newNotified(t)
	rec := sendJSON(t, n.h, editor, "POST", "/api/postmortems", `{"title": "Lost pelican pages", "summary": "Pages lost."}`)
	if rec.Code != http.StatusCreated {
		t.Fatalf("create: %d %s", rec.Code, rec.Body)
	}
	if rec := sendJSON(t, n.h, editor, "POST", "/api/postmortems", `{"title": "Zanzibar key leak", "summary": "Keys leaked.", "restricted_to": ["sre"]}`); rec.Code != http.StatusCreated {
		t.Fatalf("create: %d %s", rec.Code, rec.Body)
	}
	n.hook.Fail(http.StatusInternalServerError)
	n.flush(t)

	if rec := as(t, n.h, editor, "GET", "/admin/deliveries", nil); rec.Code != http.StatusForbidden {
		t.Errorf("editor: %d, want 403", rec.Code)
	}
	page := as(t, n.h, admin, "GET", "/admin/deliveries?state=problems", nil)
	if page.Code != http.StatusOK {
		t.Fatalf("admin: %d %s", page.Code, page.Body)
	}
	// The counts leave out the restricted postmortem's delivery (to the
	// personal channel) too.
	mustContain(t, page.Body.String(), "Lost pelican pages", "500 Internal Server Error", "webhook to 127.0.0.1", "Send again",
		"Queued 1 · delivered 2 · failed 0")
	if strings.Contains(page.Body.String(), "Zanzibar") {
		t.Error("the page shows a restricted postmortem's delivery to an admin outside its groups")
	}
	if rec := as(t, n.h, admin, "GET", "/admin/deliveries?state=bogus", nil); rec.Code != http.StatusBadRequest {
		t.Errorf("bad state: %d, want 400", rec.Code)
	}
	problems, err := n.st.ListDeliveries(t.Context(), store.DeliveryFilter{State: "problems"})
	if err != nil || len(problems) != 1 {
		t.Fatalf("problems = %v, %v", problems, err)
	}
	id := problems[0].ID
	rec = as(t, n.h, admin, "POST", fmt.Sprintf("/admin/deliveries/%d/send-again", id), url.Values{"state": {"problems"}})
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/admin/deliveries?state=problems" {
		t.Fatalf("send again: %d to %q", rec.Code, rec.Header().Get("Location"))
	}
	n.flush(t)
	if got := n.hook.AcceptedByEvent()[problems[0].EventID]; got != 1 {
		t.Errorf("event %d accepted %d times after send again, want 1", problems[0].EventID, got)
	}
	// Sent again once delivered, it is sent again: receivers drop a repeat
	// by its X-Hindsight-Event-Id.
	if rec := as(t, n.h, admin, "POST", fmt.Sprintf("/admin/deliveries/%d/send-again", id), url.Values{}); rec.Code != http.StatusSeeOther {
		t.Fatalf("send again: %d", rec.Code)
	}
	n.flush(t)
	if got := n.hook.AcceptedByEvent()[problems[0].EventID]; got != 2 {
		t.Errorf("event %d accepted %d times after a second send again, want 2", problems[0].EventID, got)
	}
	for _, path := range []string{"/admin/deliveries/999999/send-again", "/admin/deliveries/x/send-again"} {
		if rec := as(t, n.h, admin, "POST", path, url.Values{}); rec.Code != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", path, rec.Code)
		}
	}
	restricted, err := n.st.ListDeliveries(store.WithReaderGroups(t.Context(), []string{"sre"}), store.DeliveryFilter{})
	if err != nil {
		t.Fatal(err)
	}
	// The restricted postmortem's event went to the personal channel only;
	// an admin outside its groups cannot send it again.
	for _, d := range restricted {
		if d.Event.Postmortem != nil && strings.HasPrefix(d.Event.Postmortem.Title, "Zanzibar") {
			if rec := as(t, n.h, admin, "POST", fmt.Sprintf("/admin/deliveries/%d/send-again", d.ID), url.Values{}); rec.Code != http.StatusNotFound {
				t.Errorf("send again of a restricted delivery by an outsider: %d, want 404", rec.Code)
			}
		}
	}
}

// TestREADMEWebhookRecipes checks the README's Notifications section as
// written: its example payload is what a webhook receives for that
// event (but its id and time), and its Go and shell recipes accept the
// signature a webhook received and refuse a changed body.
func TestREADMEWebhookRecipes(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	block := func(re string) string {
		t.Helper()
		m := regexp.MustCompile(re).FindSubmatch(readme)
		if m == nil {
			t.Fatalf("README.md has no block matching %s", re)
		}
		return string(m[1])
	}
	n := newNotified(t)
	rec := sendJSON(t, n.h, editor, "POST", "/api/postmortems", `{"title": "Queue backlog", "summary": "The queue backed up."}`)
	if rec.Code != http.StatusCreated {
		t.Fatalf("create: %d %s", rec.Code, rec.Body)
	}
	if rec := as(t, n.h, editor, "POST", "/postmortems/queue-backlog/review/request", url.Values{"reviewers": {"ada"}}); rec.Code != http.StatusSeeOther {
		t.Fatalf("request: %d %s", rec.Code, rec.Body)
	}
	n.flush(t)
	var body []byte
	var signature string
	for _, q := range n.hook.Accepted() {
		if q.Header.Get(notify.HeaderEvent) == store.EventReviewRequested {
			body, signature = q.Body, q.Header.Get(notify.HeaderSignature)
		}
	}
	if body == nil {
		t.Fatal("no review.requested received")
	}

	t.Run("Payload", func(t *testing.T) {
		var want, got map[string]any
		if err := json.Unmarshal([]byte(block("(?s)<!-- test: webhook payload[^\n]*\n```json\n(.*?)```")), &want); err != nil {
			t.Fatalf("README payload: %v", err)
		}
		if err := json.Unmarshal(body, &got); err != nil {
			t.Fatal(err)
		}
		want["id"], want["at"] = got["id"], got["at"]
		if !reflect.DeepEqual(got, want) {
			t.Errorf("received %s\nREADME says %v", body, want)
		}
	})

	dir := t.TempDir()
	write := func(name string, b []byte) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	changed := append(slices.Clone(body[:len(body)-1]), []byte(` }`)...)
	env := append(os.Environ(), "HINDSIGHT_WEBHOOK_SECRET="+hookSecret, "SIGNATURE="+signature)

	t.Run("Shell", func(t *testing.T) {
		if _, err := exec.LookPath("openssl"); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatal("openssl is not installed: .ci/run installs it")
			}
			t.Skip("openssl is not installed")
		}
		recipe := block("(?s)```sh\n(# recipe: verify-signature\n.*?)```")
		for _, tt := range []struct {
			body  []byte
			valid bool
		}{{body, true}, {changed, false}} {
			write("body.json", tt.body)
			cmd := exec.Command("sh", "-c", recipe)
			cmd.Dir, cmd.Env = dir, env
			out, err := cmd.CombinedOutput()
			if got := err == nil && string(out) == "valid\n"; got != tt.valid {
				t.Errorf("the shell recipe on a body that is valid: %v said %q (%v)", tt.valid, out, err)
			}
		}
	})

	t.Run("Go", func(t *testing.T) {
		goBin, err := exec.LookPath("go")
		if err != nil {
			t.Skip("no go command")
		}
		write("verify.go", []byte("package main\n\n"+block("(?s)```go\n(// recipe: verify\n.*?)```")))
		write("main.go", []byte(`package main

import (
	"fmt"
	"os"
)

func main() {
	for _, f := range os.Args[1:] {
		body, _ := os.ReadFile(f)
		fmt.Println(validSignature([]byte(os.Getenv("HINDSIGHT_WEBHOOK_SECRET")), body, os.Getenv("SIGNATURE")))
	}
}
`))
		write("body.json", body)
		write("changed.json", changed)
		cmd := exec.Command(goBin, "run", "verify.go", "main.go", "body.json", "changed.json")
		cmd.Dir, cmd.Env = dir, append(env, "GOTOOLCHAIN=local", "GOFLAGS=")
		out, err := cmd.CombinedOutput()
		if err != nil || string(out) != "true\nfalse\n" {
			t.Errorf("the Go recipe said %q (%v), want true for the body and false for the changed one", out, err)
		}
	})
}
