package notify

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	htmltemplate "html/template"
	"log/slog"
	"net/mail"
	"net/url"
	"slices"
	"strings"
	texttemplate "text/template"
	"time"
	"unicode"
	"unicode/utf8"

	"hindsight/email"
	"hindsight/store"
	"hindsight/templates"
)

// Email sends each event by email to the people it concerns, one message
// per event per person (a delivery each), as plain text and HTML:
//
//   - user.mentioned: the users the comment mentions
//   - review.requested: the reviewers asked
//   - review.approved, review.changes_requested, comment.created,
//     postmortem.overdue: the postmortem's writers (its creator and
//     listed authors)
//   - action_item.assigned, .due, .overdue: the item's owner
//   - digest: everyone known with an address, each their own digest
//
// People are known by the sign-in proxy's name and email (store.Person);
// a name "token NAME" (a write made with an API token) is the token's
// maker. Nobody hears of their own doing, of a kind they turned off, or
// of a restricted postmortem they may not read: the check is made when
// the event is fanned out and again when it is sent.
type Email struct {
	store  *store.Store
	sender *email.Sender
	site   *url.URL
	log    *slog.Logger
	// reviewDue is the review policy's due date (the digest's overdue
	// postmortems); digestEvery the digest's period.
	reviewDue   func(store.Postmortem) time.Time
	digestEvery time.Duration
	html        *htmltemplate.Template
	text        *texttemplate.Template
	// Now is the clock of the message's Date.
	Now func() time.Time
}

// EmailOptions configure NewEmail.
type EmailOptions struct {
	// Site is -public-url, which links are made from (paths without it).
	Site        *url.URL
	ReviewDue   func(store.Postmortem) time.Time
	DigestEvery time.Duration
	Log         *slog.Logger
}

// NewEmail returns the email channel sending through sender.
func NewEmail(st *store.Store, sender *email.Sender, o EmailOptions) (*Email, error) {
	h, err := htmltemplate.ParseFS(templates.EmailFS, "email/*.html")
	if err != nil {
		return nil, fmt.Errorf("email templates: %w", err)
	}
	t, err := texttemplate.ParseFS(templates.EmailFS, "email/*.txt")
	if err != nil {
		return nil, fmt.Errorf("email templates: %w", err)
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.DigestEvery <= 0 {
		o.DigestEvery = DefaultDigestEvery
	}
	return &Email{store: st, sender: sender, site: o.Site, log: o.Log, reviewDue: o.ReviewDue, digestEvery: o.DigestEvery,
		html: h, text: t, Now: time.Now}, nil
}

// Name is "email"; its targets are "email:" and a person's name.
func (m *Email) Name() string { return "email" }

// String says where the mail goes.
func (m *Email) String() string { return "email from " + m.sender.From().Address }

// Shared: each message goes to one person, who may read what it says.
func (m *Email) Shared() bool { return false }

// digestQuietAfter: people not seen signed in for this long get no digest.
const digestQuietAfter = 90 * 24 * time.Hour

// recipients names who hear of e, before the checks.
func (m *Email) recipients(ctx context.Context, e store.Event) ([]string, error) {
	switch e.Kind {
	case store.EventUserMentioned:
		return e.Change.Mentioned, nil
	case store.EventReviewRequested:
		return e.Change.Reviewers, nil
	case store.EventReviewApproved, store.EventReviewChangesRequested, store.EventCommentCreated, store.EventPostmortemOverdue:
		if e.Postmortem == nil || e.Postmortem.Slug == "" {
			return nil, nil
		}
		r, err := m.store.GetReview(store.WithEveryGroup(ctx), e.Postmortem.Slug)
		if errors.Is(err, store.ErrNotFound) {
			return nil, nil
		}
		return r.Writers, err
	case store.EventActionItemAssigned, store.EventActionItemDue, store.EventActionItemOverdue:
		if a := e.Change.ActionItem; a != nil && a.Owner != "" {
			return []string{a.Owner}, nil
		}
	case store.EventDigest:
		people, err := m.store.ListPeople(ctx)
		var names []string
		for _, p := range people {
			// Someone not seen for a long while has most likely left:
			// the digest stops, the emails about them go on.
			if !p.SeenAt.Before(e.At.Add(-digestQuietAfter)) {
				names = append(names, p.Name)
			}
		}
		return names, err
	}
	return nil, nil
}

// reader finds the person name stands for, and whether they may hear of
// e: they have an address, did not turn its kind off, and may read its
// postmortem.
func (m *Email) reader(ctx context.Context, name string, e store.Event) (store.Person, bool, error) {
	name = strings.TrimSpace(name)
	viaToken := false
	if tok, ok := strings.CutPrefix(name, "token "); ok {
		owner, err := m.store.TokenOwner(ctx, tok)
		if errors.Is(err, store.ErrNotFound) {
			return store.Person{}, false, nil
		}
		if err != nil {
			return store.Person{}, false, err
		}
		name, viaToken = owner, true
	}
	if name == "" {
		return store.Person{}, false, nil
	}
	p, err := m.store.GetPerson(ctx, name)
	if errors.Is(err, store.ErrNotFound) {
		return store.Person{}, false, nil
	}
	if err != nil || p.Email == "" {
		return p, false, err
	}
	// The proxy's header is taken as given when people sign in: an
	// address that is not one plain address reaches no one.
	if a, err := mail.ParseAddress(p.Email); err != nil || a.Name != "" || a.Address != p.Email {
		return p, false, nil
	}
	// A token reads no restricted postmortem: what it wrote about one is
	// not its maker's to hear of either.
	if !p.CanRead(e.Restricted) || (viaToken && len(e.Restricted) > 0) {
		return p, false, nil
	}
	off, err := m.store.NotificationsOff(ctx, p.Name)
	if err != nil || off[e.Kind] {
		return p, false, err
	}
	return p, true, nil
}

// Targets are the people who hear of e, one "email:NAME" each.
func (m *Email) Targets(ctx context.Context, e store.Event) ([]string, error) {
	names, err := m.recipients(ctx, e)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, n := range names {
		if e.Actor != "" && strings.EqualFold(strings.TrimSpace(n), e.Actor) {
			continue // nobody hears of their own doing
		}
		p, ok, err := m.reader(ctx, n, e)
		if err != nil {
			return nil, err
		}
		if !ok || (e.Actor != "" && strings.EqualFold(p.Name, e.Actor)) {
			continue
		}
		t := m.Name() + ":" + p.Name
		if !slices.ContainsFunc(out, func(o string) bool { return strings.EqualFold(o, t) }) {
			out = append(out, t)
		}
	}
	return out, nil
}

// Send emails e to the person target names, checking again that they may
// read it and still want it (a skipped message is not an error).
func (m *Email) Send(ctx context.Context, target string, e store.Event) error {
	name, ok := strings.CutPrefix(target, m.Name()+":")
	if !ok {
		return fmt.Errorf("email target %q", target)
	}
	p, ok, err := m.reader(ctx, name, e)
	if err != nil {
		return err
	}
	if !ok {
		m.log.Info("notifications: email not sent: the person may no longer read it, turned it off or has no address",
			"event", e.ID, "kind", e.Kind, "to", name)
		return nil
	}
	if past, err := m.outdated(ctx, e); err != nil || past {
		if past {
			m.log.Info("notifications: reminder not sent: done since", "event", e.ID, "kind", e.Kind, "to", name)
		}
		return err
	}
	msg, err := m.Message(ctx, p, e)
	if err != nil {
		return err
	}
	if msg == nil {
		return nil // an empty digest
	}
	b, err := msg.Bytes()
	if err != nil {
		return err
	}
	return m.sender.Send(ctx, p.Email, b)
}

// outdated reports whether a reminder no longer holds when it is sent:
// its action item was finished or given another due date, its
// postmortem published.
func (m *Email) outdated(ctx context.Context, e store.Event) (bool, error) {
	switch e.Kind {
	case store.EventActionItemDue, store.EventActionItemOverdue:
		if e.Change.ActionItem == nil {
			return false, nil
		}
		a, err := m.store.GetActionItem(ctx, e.Change.ActionItem.ID)
		if errors.Is(err, store.ErrNotFound) {
			return true, nil
		}
		return err == nil && (a.Closed() || a.DueDate != e.Change.Due), err
	case store.EventPostmortemOverdue:
		if e.Postmortem == nil {
			return false, nil
		}
		r, err := m.store.GetReview(store.WithEveryGroup(ctx), e.Postmortem.Slug)
		if errors.Is(err, store.ErrNotFound) {
			return true, nil
		}
		return err == nil && r.Status == store.StatusPublished, err
	}
	return false, nil
}

// mailView is what an email's templates show.
type mailView struct {
	Subject     string
	Name        string
	Headline    string
	Item        *store.EventActionItem
	Quote       string
	Link        string
	LinkText    string
	Reason      string
	SettingsURL string
	Digest      *digestView
}

type digestView struct {
	Published, OverduePostmortems, OverdueItems, Recurred []digestLine
	OverdueItemCount                                      int
	MoreItems                                             string
}

type digestLine struct{ Title, Note, Link string }

// maxQuote bounds a comment quoted in an email, in runes.
const maxQuote = 2000

func clipText(s string, n int) string {
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n])) + "…"
}

// link is path on the site: absolute with -public-url, the path alone
// without.
func (m *Email) link(path string) string {
	if m.site == nil {
		return path
	}
	return strings.TrimSuffix(m.site.String(), "/") + path
}

func upperFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// reasons say why each kind reached the person.
var reasons = map[string]string{
	store.EventUserMentioned:          "You get this email because you were mentioned.",
	store.EventReviewRequested:        "You get this email because you were asked to review this postmortem.",
	store.EventReviewApproved:         "You get this email because you wrote this postmortem.",
	store.EventReviewChangesRequested: "You get this email because you wrote this postmortem.",
	store.EventCommentCreated:         "You get this email because you wrote this postmortem.",
	store.EventPostmortemOverdue:      "You get this email because you wrote this postmortem.",
	store.EventActionItemAssigned:     "You get this email because you own this action item.",
	store.EventActionItemDue:          "You get this email because you own this action item.",
	store.EventActionItemOverdue:      "You get this email because you own this action item.",
	store.EventDigest:                 "You get this digest because you use Hindsight.",
}

// subject is the message's subject line.
func subject(e store.Event) string {
	title := ""
	if e.Postmortem != nil {
		title = "“" + e.Postmortem.Title + "”"
	}
	item := ""
	if a := e.Change.ActionItem; a != nil {
		item = "“" + a.Title + "”"
	}
	s := map[string]string{
		store.EventUserMentioned:          e.Actor + " mentioned you on " + title,
		store.EventReviewRequested:        "Review requested: " + title,
		store.EventReviewApproved:         e.Actor + " approved " + title,
		store.EventReviewChangesRequested: "Changes requested on " + title,
		store.EventCommentCreated:         "New comment on " + title,
		store.EventActionItemAssigned:     "Action item for you: " + item,
		store.EventActionItemDue:          "Due " + e.Change.Due + ": " + item,
		store.EventActionItemOverdue:      "Overdue since " + e.Change.Due + ": " + item,
		store.EventPostmortemOverdue:      "Publication overdue: " + title,
	}[e.Kind]
	if s == "" {
		s = upperFirst(e.Change.Summary)
	}
	return "[Hindsight] " + clipText(s, 200)
}

// Message is the email e makes for p; nil for a digest with nothing in it.
func (m *Email) Message(ctx context.Context, p store.Person, e store.Event) (*email.Message, error) {
	v := mailView{Subject: subject(e), Name: p.Name, Reason: reasons[e.Kind], SettingsURL: m.link("/settings/notifications")}
	if m.site == nil {
		v.SettingsURL = ""
	}
	page := "event"
	if e.Kind == store.EventDigest {
		d, err := m.digest(ctx, p, e)
		if err != nil || d == nil {
			return nil, err
		}
		page, v.Digest = "digest", d
		since, until := e.At.Add(-m.digestEvery), e.At
		v.Subject = "[Hindsight] Digest, " + since.Format("2 January") + " to " + until.Add(-time.Second).Format("2 January 2006")
		v.Headline = "What happened in Hindsight from " + since.Format("Monday 2 January") + " to " + until.Add(-time.Second).Format("Monday 2 January 2006") + " (UTC)."
	} else {
		v.Headline = upperFirst(e.Change.Summary) + "."
		if e.Actor != "" {
			v.Headline = e.Actor + " " + e.Change.Summary + "."
		}
		v.Item = e.Change.ActionItem
		if c := e.Change.Comment; c != nil {
			v.Quote = clipText(c.Body, maxQuote)
		} else if e.Change.Message != "" {
			v.Quote = clipText(e.Change.Message, maxQuote)
		}
		if pm := e.Postmortem; pm != nil && pm.Slug != "" {
			v.Link, v.LinkText = m.link("/postmortems/"+url.PathEscape(pm.Slug)), "Open “"+pm.Title+"”"
			if c := e.Change.Comment; c != nil && c.ID != 0 {
				v.Link += fmt.Sprintf("#comment-%d", c.ID)
			}
		}
	}
	var text, html bytes.Buffer
	if err := m.text.ExecuteTemplate(&text, page+".txt", v); err != nil {
		return nil, fmt.Errorf("email %s: %w", page, err)
	}
	if err := m.html.ExecuteTemplate(&html, page+".html", v); err != nil {
		return nil, fmt.Errorf("email %s: %w", page, err)
	}
	from := *m.sender.From()
	if from.Name == "" {
		from.Name = "Hindsight"
	}
	sum := sha256.Sum256([]byte(strings.ToLower(p.Name)))
	domain := from.Address[strings.LastIndexByte(from.Address, '@')+1:]
	return &email.Message{
		From: &from, To: &mail.Address{Name: p.Name, Address: p.Email},
		Subject: v.Subject, Text: text.String(), HTML: html.String(), Date: m.Now(),
		ID:          fmt.Sprintf("hindsight.%d.%s@%s", e.ID, hex.EncodeToString(sum[:8]), domain),
		SettingsURL: v.SettingsURL,
	}, nil
}

// digest is p's digest of the period ending at e.At, read as p reads:
// nil when there is nothing to tell.
func (m *Email) digest(ctx context.Context, p store.Person, e store.Event) (*digestView, error) {
	until := e.At
	d, err := m.store.DigestFor(p.ReaderContext(ctx), until.Add(-m.digestEvery), until)
	if err != nil {
		return nil, err
	}
	v := &digestView{OverdueItemCount: d.OverdueItemCount}
	for _, r := range d.Published {
		note := r.Organization
		if r.IncidentDate != "" {
			note = strings.TrimSpace(note + ", " + r.IncidentDate)
			note = strings.TrimPrefix(note, ", ")
		}
		v.Published = append(v.Published, digestLine{Title: r.Title, Note: note, Link: m.link("/postmortems/" + url.PathEscape(r.Slug))})
	}
	today := until.UTC().Format(dateOnly)
	for _, pm := range d.Unpublished {
		if m.reviewDue == nil {
			break
		}
		if due := m.reviewDue(pm).Format(dateOnly); due < today {
			v.OverduePostmortems = append(v.OverduePostmortems, digestLine{Title: pm.Title, Note: "due by " + due,
				Link: m.link("/postmortems/" + url.PathEscape(pm.Slug))})
		}
	}
	for _, it := range d.OverdueItems {
		note := "due " + it.DueDate
		if it.Owner != "" {
			note = it.Owner + ", " + note
		}
		v.OverdueItems = append(v.OverdueItems, digestLine{Title: it.Title, Note: note + ", in “" + it.PostmortemTitle + "”",
			Link: m.link("/postmortems/" + url.PathEscape(it.PostmortemSlug) + "#actions-heading")})
	}
	if d.OverdueItemCount > len(d.OverdueItems) {
		v.MoreItems = m.link("/action-items?overdue=1")
	}
	for _, r := range d.Recurred {
		v.Recurred = append(v.Recurred, digestLine{Title: r.Name,
			Note: fmt.Sprintf("%d new, %d before", r.InPeriod, r.Before), Link: m.link("/patterns/" + url.PathEscape(r.Slug))})
	}
	if len(v.Published)+len(v.OverduePostmortems)+len(v.OverdueItems)+len(v.Recurred) == 0 {
		return nil, nil
	}
	return v, nil
}
