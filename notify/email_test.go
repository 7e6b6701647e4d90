package notify_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"io"
	"log/slog"
	"mime"
	"mime/multipart"
	"net/mail"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"hindsight/email"
	"hindsight/email/smtptest"
	"hindsight/handlers"
	"hindsight/notify"
	"hindsight/postmortem"
	"hindsight/store"
	"hindsight/store/storetest"
)

// mailRig is a store, a real SMTP server (STARTTLS and AUTH required),
// the email channel and a sender, all on one clock.
type mailRig struct {
	t      *testing.T
	st     *store.Store
	srv    *smtptest.Server
	sender *notify.Sender
	mu     sync.Mutex
	now    time.Time
}

func (r *mailRig) clock() time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.now
}

func (r *mailRig) setNow(t time.Time) {
	r.mu.Lock()
	r.now = t
	r.mu.Unlock()
}

func newMailRig(t *testing.T, digestEvery time.Duration) *mailRig {
	t.Helper()
	r := &mailRig{t: t, now: time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)}
	r.st = storetest.Open(t, storetest.Seeded, filepath.Join(t.TempDir(), "test.db"))
	r.st.Now = r.clock
	r.srv = smtptest.Start(t, smtptest.Options{User: "hindsight", Password: "pw", RequireAuth: true})
	snd, err := email.NewSender(email.Config{Addr: r.srv.Addr, From: "Hindsight <hindsight@example.com>",
		User: "hindsight", Password: "pw", TLS: &tls.Config{RootCAs: r.srv.RootCAs}})
	if err != nil {
		t.Fatal(err)
	}
	site, _ := url.Parse("https://hindsight.example.com")
	ch, err := notify.NewEmail(r.st, snd, notify.EmailOptions{Site: site, ReviewDue: handlers.ReviewDueFunc(5), DigestEvery: digestEvery})
	if err != nil {
		t.Fatal(err)
	}
	ch.Now = r.clock
	r.sender = notify.NewSender(r.st, slog.New(slog.DiscardHandler), ch)
	r.sender.Now = r.clock
	for _, p := range []store.Person{
		{Name: "ann", Email: "ann@example.com", Groups: []string{"sre"}},
		{Name: "bob", Email: "bob@example.com"},
		{Name: "carol", Email: "carol@example.com", Groups: []string{"security"}},
		{Name: "erin", Email: "erin@example.com", Groups: []string{"security", "sre"}},
		{Name: "dave"}, // the proxy gives no address
	} {
		if _, err := r.st.SeePerson(t.Context(), p, time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// as is a context writing as name, signed in through the proxy.
func (r *mailRig) as(name string) context.Context {
	return store.WithActor(store.WithReaderGroups(r.t.Context(), []string{"security", "sre"}), store.Actor{Name: name, Via: "proxy"})
}

func (r *mailRig) flush() {
	r.t.Helper()
	if err := r.sender.Flush(r.t.Context()); err != nil {
		r.t.Fatal(err)
	}
}

// received counts the messages each address got.
func (r *mailRig) received() map[string]int {
	out := map[string]int{}
	for _, m := range r.srv.Messages() {
		if len(m.To) != 1 {
			r.t.Errorf("a message to %v: want one recipient per message", m.To)
		}
		for _, to := range m.To {
			out[to]++
		}
	}
	return out
}

// mailTo is the parsed messages to addr: subject, text and HTML.
type parsedMail struct{ Subject, Text, HTML string }

func (r *mailRig) mailTo(addr string) []parsedMail {
	r.t.Helper()
	var out []parsedMail
	for _, m := range r.srv.Messages() {
		if !slices.Contains(m.To, addr) {
			continue
		}
		if !m.TLS || m.User != "hindsight" {
			r.t.Errorf("message to %s: TLS=%v user=%q, want STARTTLS and AUTH", addr, m.TLS, m.User)
		}
		msg, err := mail.ReadMessage(bytes.NewReader(m.Data))
		if err != nil {
			r.t.Fatal(err)
		}
		subject, _ := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
		_, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
		if err != nil {
			r.t.Fatal(err)
		}
		p := parsedMail{Subject: subject}
		mr := multipart.NewReader(msg.Body, params["boundary"])
		for {
			part, err := mr.NextPart()
			if err == io.EOF {
				break
			}
			if err != nil {
				r.t.Fatal(err)
			}
			b, _ := io.ReadAll(part)
			switch {
			case strings.HasPrefix(part.Header.Get("Content-Type"), "text/plain"):
				p.Text = string(b)
			case strings.HasPrefix(part.Header.Get("Content-Type"), "text/html"):
				p.HTML = string(b)
			}
		}
		if p.Text == "" || p.HTML == "" {
			r.t.Errorf("message to %s lacks its text or HTML part", addr)
		}
		out = append(out, p)
	}
	return out
}

func draft(title, author string, restricted []string, items ...store.ActionItem) store.Postmortem {
	return store.Postmortem{
		Content: postmortem.Content{
			Title:        title,
			Organization: "Example Corp",
			Summary:      "The queue backed up.",
			Authors:      author,
			Tags:         []store.Tag{{PatternSlug: "retry-storm", Role: postmortem.RoleTrigger}},
			Sections:     postmortem.Sections{Impact: "Users waited.\n"},
		},
		ActionItems:  items,
		RestrictedTo: restricted,
		SavedBy:      author,
		Status:       store.StatusDraft,
	}
}

func item(title, owner, due string) store.ActionItem {
	return store.ActionItem{Title: title, Owner: owner, Kind: "prevent", Priority: "P2", Status: "open", DueDate: due}
}

func wantReceived(t *testing.T, got map[string]int, want map[string]int) {
	t.Helper()
	for addr, n := range want {
		if got[addr] != n {
			t.Errorf("%s got %d messages, want %d (all: %v)", addr, got[addr], n, got)
		}
	}
	for addr, n := range got {
		if _, ok := want[addr]; !ok {
			t.Errorf("%s got %d messages, want none", addr, n)
		}
	}
}

// TestEmailOneMessagePerEventPerPerson: each event reaches the people it
// concerns, one message each, over STARTTLS with AUTH, as
// multipart/alternative with the title escaped in the HTML; the actor
// hears nothing of their own doing, and a second flush sends nothing.
func TestEmailOneMessagePerEventPerPerson(t *testing.T) {
	t.Parallel()
	r := newMailRig(t, 0)
	p := draft("Queue <b>backlog</b>", "ann", nil, item("Add queue-age alerts", "bob", ""))
	if err := r.st.CreatePostmortem(r.as("ann"), &p); err != nil {
		t.Fatal(err)
	}
	rev, err := r.st.TakeReviewStep(r.as("ann"), p.Slug, store.ReviewStep{Action: store.ReviewRequest, By: "ann", Reviewers: []string{"bob", "carol"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.st.TakeReviewStep(r.as("bob"), p.Slug, store.ReviewStep{Action: store.ReviewApprove, By: "bob", Version: rev.Version, Comment: "Clear & complete"}); err != nil {
		t.Fatal(err)
	}
	if err := r.st.AddReviewComment(r.as("bob"), p.Slug, &store.ReviewComment{Author: "bob", Body: "Looks right to me, @ann."}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.st.TakeReviewStep(r.as("carol"), p.Slug, store.ReviewStep{Action: store.ReviewRequestChanges, By: "carol", Comment: "Add the timeline."}); err != nil {
		t.Fatal(err)
	}
	r.flush()
	r.flush()
	// bob: assigned, asked to review; carol: asked to review; ann:
	// approved, commented on, mentioned, changes requested.
	wantReceived(t, r.received(), map[string]int{"bob@example.com": 2, "carol@example.com": 1, "ann@example.com": 4})
	var subjects []string
	for _, m := range r.mailTo("ann@example.com") {
		subjects = append(subjects, m.Subject)
	}
	for _, want := range []string{"[Hindsight] New comment on “Queue <b>backlog</b>”", "[Hindsight] bob mentioned you on “Queue <b>backlog</b>”",
		"[Hindsight] Changes requested on “Queue <b>backlog</b>”"} {
		if !slices.Contains(subjects, want) {
			t.Errorf("ann got no %q among %q", want, subjects)
		}
	}

	var approval parsedMail
	for _, m := range r.mailTo("ann@example.com") {
		if strings.Contains(m.Subject, "approved") {
			approval = m
		}
	}
	if approval.Subject != "[Hindsight] bob approved “Queue <b>backlog</b>”" {
		t.Errorf("subject = %q", approval.Subject)
	}
	if !strings.Contains(approval.HTML, "Queue &lt;b&gt;backlog&lt;/b&gt;") || strings.Contains(approval.HTML, "<b>backlog") {
		t.Errorf("the HTML does not escape the title:\n%s", approval.HTML)
	}
	if !strings.Contains(approval.HTML, "Clear &amp; complete") || !strings.Contains(approval.Text, "Clear & complete") {
		t.Errorf("the approval's comment is not quoted:\n%s\n%s", approval.Text, approval.HTML)
	}
	link := "https://hindsight.example.com/postmortems/" + p.Slug
	if !strings.Contains(approval.Text, link) || !strings.Contains(approval.HTML, `href="`+link+`"`) {
		t.Errorf("no link to %s:\n%s", link, approval.Text)
	}
	if !strings.Contains(approval.Text, "https://hindsight.example.com/settings/notifications") {
		t.Errorf("no link to the settings:\n%s", approval.Text)
	}
}

// TestEmailRestrictedReachesOnlyReaders: the events of a postmortem
// restricted to security reach only people in that group: not the
// action item's owner, a reviewer or a mentioned user outside it.
func TestEmailRestrictedReachesOnlyReaders(t *testing.T) {
	t.Parallel()
	r := newMailRig(t, 0)
	p := draft("Vault keys leaked", "carol", []string{"security"}, item("Rotate the keys", "ann", ""))
	if err := r.st.CreatePostmortem(r.as("carol"), &p); err != nil {
		t.Fatal(err)
	}
	if _, err := r.st.TakeReviewStep(r.as("carol"), p.Slug, store.ReviewStep{Action: store.ReviewRequest, By: "carol", Reviewers: []string{"ann", "erin"}}); err != nil {
		t.Fatal(err)
	}
	if err := r.st.AddReviewComment(r.as("erin"), p.Slug, &store.ReviewComment{Author: "erin", Body: "@ann should rotate them today."}); err != nil {
		t.Fatal(err)
	}
	r.flush()
	// erin: asked to review; carol: erin's comment. ann (sre only): nothing.
	wantReceived(t, r.received(), map[string]int{"erin@example.com": 1, "carol@example.com": 1})
}

// TestEmailSettingsTurnKindOff: a kind a person turned off reaches them
// no more; the others still do.
func TestEmailSettingsTurnKindOff(t *testing.T) {
	t.Parallel()
	r := newMailRig(t, 0)
	if err := r.st.SetNotificationsOff(t.Context(), "ann", []string{store.EventCommentCreated}); err != nil {
		t.Fatal(err)
	}
	p := draft("Cache stampede", "ann", nil)
	if err := r.st.CreatePostmortem(r.as("ann"), &p); err != nil {
		t.Fatal(err)
	}
	if err := r.st.AddReviewComment(r.as("bob"), p.Slug, &store.ReviewComment{Author: "bob", Body: "What about the TTLs?"}); err != nil {
		t.Fatal(err)
	}
	r.flush()
	wantReceived(t, r.received(), map[string]int{})
	if err := r.st.AddReviewComment(r.as("bob"), p.Slug, &store.ReviewComment{Author: "bob", Body: "@ann, the TTLs?"}); err != nil {
		t.Fatal(err)
	}
	r.flush()
	got := r.mailTo("ann@example.com")
	if len(got) != 1 || !strings.Contains(got[0].Subject, "mentioned you") {
		t.Errorf("ann got %+v, want only the mention", got)
	}
}

// TestSchedulerRemindsOnce: the scheduler's reminders (an item due
// tomorrow, one overdue, a postmortem past its review due date) are
// enqueued once however often it runs, and after a restart (a new
// scheduler on the same database); each is emailed once.
func TestSchedulerRemindsOnce(t *testing.T) {
	t.Parallel()
	r := newMailRig(t, 0)
	r.setNow(time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC))
	p := draft("Disk full", "ann", nil, item("Alert at 80%", "bob", "2026-12-01"), item("Grow the volume", "ann", "2026-12-03"))
	p.Times.ResolvedAt = "2026-11-20T10:00:00Z" // due 5 working days later: 2026-11-27
	if err := r.st.CreatePostmortem(r.as("ann"), &p); err != nil {
		t.Fatal(err)
	}
	r.flush()
	before := r.received() // the assignment of bob's item (ann assigned her own)

	r.setNow(time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC))
	newScheduler := func() *notify.Scheduler {
		return &notify.Scheduler{Store: r.st, Log: slog.New(slog.DiscardHandler), ReviewDue: handlers.ReviewDueFunc(5), Now: r.clock}
	}
	sch := newScheduler()
	if n, err := sch.RunOnce(t.Context()); err != nil || n != 3 {
		t.Fatalf("first pass added %d, %v; want 3", n, err)
	}
	if n, err := sch.RunOnce(t.Context()); err != nil || n != 0 {
		t.Fatalf("second pass added %d, %v; want 0", n, err)
	}
	r.flush()
	if n, err := newScheduler().RunOnce(t.Context()); err != nil || n != 0 {
		t.Fatalf("after a restart, a pass added %d, %v; want 0", n, err)
	}
	r.flush()
	after := r.received()
	got := map[string]int{}
	for addr, n := range after {
		got[addr] = n - before[addr]
	}
	// bob: his item overdue; ann: her item due tomorrow, her postmortem overdue.
	wantReceived(t, got, map[string]int{"bob@example.com": 1, "ann@example.com": 2})
	var subjects []string
	for _, m := range slices.Concat(r.mailTo("ann@example.com"), r.mailTo("bob@example.com")) {
		subjects = append(subjects, m.Subject)
	}
	for _, want := range []string{"[Hindsight] Overdue since 2026-12-01: “Alert at 80%”", "[Hindsight] Due 2026-12-03: “Grow the volume”",
		"[Hindsight] Publication overdue: “Disk full”"} {
		if !slices.Contains(subjects, want) {
			t.Errorf("no message %q among %q", want, subjects)
		}
	}
}

// TestDigestPerPerson: the digest of the last week tells each person
// what they may read: what was published, the patterns that recurred
// (counted over what they read), nothing of a restricted postmortem to
// an outsider; one per person, none to who turned it off or has no
// address, and the scheduler enqueues it once per week.
func TestDigestPerPerson(t *testing.T) {
	t.Parallel()
	r := newMailRig(t, 7*24*time.Hour)
	publish := func(title, author string, restricted []string) {
		t.Helper()
		p := draft(title, author, restricted)
		p.Status = store.StatusPublished
		if err := r.st.CreatePostmortem(r.as(author), &p); err != nil {
			t.Fatal(err)
		}
	}
	r.setNow(time.Date(2026, 11, 18, 12, 0, 0, 0, time.UTC)) // the week before
	publish("Retry storm in billing", "erin", nil)
	r.setNow(time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)) // the week of 23 to 30 November
	publish("Retry storm in search", "erin", nil)
	publish("Retry storm in the vault", "erin", []string{"security"})
	if err := r.st.SetNotificationsOff(t.Context(), "bob", []string{store.EventDigest}); err != nil {
		t.Fatal(err)
	}
	// gus was last seen in the summer: he gets no digest.
	r.setNow(time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC))
	if _, err := r.st.SeePerson(t.Context(), store.Person{Name: "gus", Email: "gus@example.com"}, time.Hour); err != nil {
		t.Fatal(err)
	}
	r.flush()
	before := len(r.srv.Messages())

	r.setNow(time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC))
	sch := &notify.Scheduler{Store: r.st, Log: slog.New(slog.DiscardHandler), DigestEvery: 7 * 24 * time.Hour, Now: r.clock}
	for range 2 {
		if _, err := sch.RunOnce(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	r.flush()
	if got := len(r.srv.Messages()) - before; got != 3 {
		t.Errorf("%d digests sent, want 3 (ann, carol, erin)", got)
	}
	ann, carol := r.mailTo("ann@example.com"), r.mailTo("carol@example.com")
	if len(ann) != 1 || len(carol) != 1 {
		t.Fatalf("ann got %d, carol %d messages; want one digest each", len(ann), len(carol))
	}
	if want := "[Hindsight] Digest, 23 November to 29 November 2026"; ann[0].Subject != want {
		t.Errorf("subject = %q, want %q", ann[0].Subject, want)
	}
	for _, c := range []struct {
		who          string
		m            parsedMail
		vault        bool
		patternCount string
	}{{"ann", ann[0], false, "1 new, 1 before"}, {"carol", carol[0], true, "2 new, 1 before"}} {
		for _, body := range []string{c.m.Text, c.m.HTML} {
			if !strings.Contains(body, "Retry storm in search") || strings.Contains(body, "Retry storm in billing") {
				t.Errorf("%s's digest does not list the week's publications only:\n%s", c.who, body)
			}
			if got := strings.Contains(body, "vault"); got != c.vault {
				t.Errorf("%s's digest names the restricted postmortem: %v, want %v:\n%s", c.who, got, c.vault, body)
			}
			if !strings.Contains(body, "/patterns/retry-storm") || !strings.Contains(body, c.patternCount) {
				t.Errorf("%s's digest lacks the recurring pattern (%s):\n%s", c.who, c.patternCount, body)
			}
		}
	}
}

// TestEmailTokenWritesReachItsMaker: a postmortem written with an API
// token ("token ci") has the token's maker hear of its comments; a
// person who only ever signed in (never wrote) can be mentioned.
func TestEmailTokenWritesReachItsMaker(t *testing.T) {
	t.Parallel()
	r := newMailRig(t, 0)
	if _, _, err := r.st.CreateToken(r.as("ann"), "ci", "editor", "ann"); err != nil {
		t.Fatal(err)
	}
	ci := store.WithActor(r.t.Context(), store.Actor{Name: "token ci", Via: "token"})
	p := draft("Deploy froze", "", nil)
	p.SavedBy = "token ci"
	if err := r.st.CreatePostmortem(ci, &p); err != nil {
		t.Fatal(err)
	}
	if err := r.st.AddReviewComment(r.as("bob"), p.Slug, &store.ReviewComment{Author: "bob", Body: "Who froze it? @erin knows."}); err != nil {
		t.Fatal(err)
	}
	r.flush()
	// ann made the token; erin only ever signed in.
	wantReceived(t, r.received(), map[string]int{"ann@example.com": 1, "erin@example.com": 1})
}

// TestEmailOddAddressReachesNoOne: an email header that is not one plain
// address ("a@b, c@d", a display name) gets no delivery at all.
func TestEmailOddAddressReachesNoOne(t *testing.T) {
	t.Parallel()
	r := newMailRig(t, 0)
	for _, p := range []store.Person{
		{Name: "mallory", Email: "mallory@example.com, boss@example.com"},
		{Name: "trent", Email: "Trent <trent@example.com>"},
	} {
		if _, err := r.st.SeePerson(t.Context(), p, time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	p := draft("Odd addresses", "ann", nil, item("One", "mallory", ""), item("Two", "trent", ""), item("Three", "bob", ""))
	if err := r.st.CreatePostmortem(r.as("ann"), &p); err != nil {
		t.Fatal(err)
	}
	r.flush()
	wantReceived(t, r.received(), map[string]int{"bob@example.com": 1})
}

// TestReminderOutdatedBeforeSent: a reminder whose item was finished
// between the scheduler's pass and the send is not sent.
func TestReminderOutdatedBeforeSent(t *testing.T) {
	t.Parallel()
	r := newMailRig(t, 0)
	p := draft("Slow disk", "ann", nil, item("Replace the disk", "bob", "2026-12-01"))
	p.Status = store.StatusPublished
	if err := r.st.CreatePostmortem(r.as("ann"), &p); err != nil {
		t.Fatal(err)
	}
	r.flush()
	before := len(r.srv.Messages()) // bob's assignment
	sch := &notify.Scheduler{Store: r.st, Log: slog.New(slog.DiscardHandler), ReviewDue: handlers.ReviewDueFunc(5), Now: r.clock}
	if n, err := sch.RunOnce(t.Context()); err != nil || n != 1 {
		t.Fatalf("pass added %d, %v; want the overdue reminder", n, err)
	}
	got, err := r.st.GetPostmortem(t.Context(), p.Slug)
	if err != nil {
		t.Fatal(err)
	}
	done := "done"
	if _, err := r.st.UpdateActionItem(r.as("bob"), got.ActionItems[0].ID, store.ActionItemUpdate{Status: &done}); err != nil {
		t.Fatal(err)
	}
	r.flush()
	if n := len(r.srv.Messages()) - before; n != 0 {
		t.Errorf("%d reminders sent for an item done since, want 0", n)
	}
}
