package handlers

import (
	"errors"
	"net/http"
	"slices"
	"time"

	"hindsight/handlers/formfield"
	"hindsight/store"
)

// emailKind is a kind of notification sent by email, as the settings page
// offers it: each person may turn any of them off.
type emailKind struct {
	Kind, Label, Hint string
}

// emailKinds are the kinds of event email goes out for, and to whom.
var emailKinds = []emailKind{
	{"user.mentioned", "Mentions", "Someone wrote @your-name in a review comment."},
	{"review.requested", "Review requests", "You are asked to review a postmortem."},
	{"review.approved", "Approvals", "A postmortem you wrote was approved."},
	{"review.changes_requested", "Changes requested", "A reviewer asked for changes to a postmortem you wrote."},
	{"comment.created", "Comments", "Someone commented on a postmortem you wrote."},
	{"action_item.assigned", "Action items assigned", "An action item is given to you."},
	{"action_item.due", "Action items due", "An action item of yours is due tomorrow."},
	{"action_item.overdue", "Action items overdue", "An action item of yours is past its due date."},
	{"postmortem.overdue", "Postmortems overdue", "A postmortem you wrote is past its review due date."},
	{"digest", "Digest", "What was published, what is overdue and the patterns that recurred, once a period."},
}

func emailKindKnown(kind string) bool {
	return slices.ContainsFunc(emailKinds, func(k emailKind) bool { return k.Kind == kind })
}

// notificationSettingsPage is /settings/notifications: the signed-in
// person's email notifications, each kind on or off.
type notificationSettingsPage struct {
	basePage
	// Signed is false where people are not known by the sign-in proxy:
	// nobody has an address, so there is nothing to set.
	Signed bool
	Name   string
	Email  string
	Kinds  []emailKindSetting
	// Mail says whether the server sends email at all (-smtp-addr).
	Mail bool
}

type emailKindSetting struct {
	emailKind
	On bool
}

var errNotSignedIn = errors.New("notification settings need a person signed in through the proxy")

func (h *Handler) showNotificationSettings(w http.ResponseWriter, r *http.Request) {
	u := userOf(r)
	page := notificationSettingsPage{basePage: h.base(r, "Notification settings", "Which emails Hindsight sends you."),
		Signed: u.Via == "proxy", Name: u.Name, Email: u.Email, Mail: h.mailOn}
	if page.Signed {
		off, err := h.store.NotificationsOff(r.Context(), u.Name)
		if err != nil {
			h.error(w, r, err)
			return
		}
		for _, k := range emailKinds {
			page.Kinds = append(page.Kinds, emailKindSetting{emailKind: k, On: !off[k.Kind]})
		}
	}
	h.render(w, r, http.StatusOK, "notification-settings", page)
}

// saveNotificationSettings keeps the kinds left unticked as turned off.
// Only the kinds the page offers are read; anything else is refused.
func (h *Handler) saveNotificationSettings(w http.ResponseWriter, r *http.Request) {
	u := userOf(r)
	if u.Via != "proxy" {
		h.error(w, r, errNotSignedIn)
		return
	}
	if err := parseForm(w, r); err != nil {
		h.error(w, r, err)
		return
	}
	on := r.PostForm["on"]
	if len(on) > len(emailKinds) {
		h.error(w, r, store.FieldErrors{"on": "Tick each kind at most once."})
		return
	}
	for _, k := range on {
		if !emailKindKnown(k) {
			h.error(w, r, store.FieldErrors{"on": "There is no notification of kind “" + formfield.DisplayText(k) + "”."})
			return
		}
	}
	var off []string
	for _, k := range emailKinds {
		if !slices.Contains(on, k.Kind) {
			off = append(off, k.Kind)
		}
	}
	if err := h.store.SetNotificationsOff(r.Context(), u.Name, off); err != nil {
		h.error(w, r, err)
		return
	}
	redirectWithFlash(w, r, "/settings/notifications", "Notification settings saved.")
}

// MailOn says email notifications are configured (-smtp-addr): the
// settings page says nothing is sent otherwise.
func MailOn() Option { return func(h *Handler) { h.mailOn = true } }

// ReviewDueFunc is the review policy's due date of a postmortem under
// -review-due-days dueDays, for the reminders of overdue postmortems.
func ReviewDueFunc(dueDays int) func(store.Postmortem) time.Time {
	pol := reviewPolicy{dueDays: max(dueDays, 0)}
	return pol.reviewDue
}
