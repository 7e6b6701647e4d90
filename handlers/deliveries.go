package handlers

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"

	"hindsight/store"
)

// NotifyChannels names the channels events are delivered to (their
// delivery name → a description without secrets), for /admin/deliveries.
func NotifyChannels(names map[string]string) Option {
	return func(h *Handler) { h.notifyChannels = names }
}

// The admin page of notifications: the recent deliveries of events to
// webhooks, Slack and email, the failures first if asked, each with
// "send again".
type deliveriesPage struct {
	basePage
	Channels   []string // described
	Deliveries []deliveryRow
	// State is the filter: "" (all), problems, queued, delivered, failed.
	State  string
	States []string
	Counts map[string]int
}

type deliveryRow struct {
	store.Delivery
	ChannelName string
	Link        string // the postmortem's page, if it has one
}

const deliveriesPerPage = 100

// deliveryStates are the page's filters: all, problems (failed, or
// queued after a failed attempt), and each state.
var deliveryStates = []string{"", "problems", store.DeliveryQueued, store.DeliveryDelivered, store.DeliveryFailed}

func (h *Handler) showDeliveries(w http.ResponseWriter, r *http.Request) {
	state := r.URL.Query().Get("state")
	if !slices.Contains(deliveryStates, state) {
		h.error(w, r, fmt.Errorf("%w: state is one of problems, queued, delivered or failed, not %q", errBadRequest, state))
		return
	}
	ds, err := h.store.ListDeliveries(r.Context(), store.DeliveryFilter{State: state, Limit: deliveriesPerPage})
	if err != nil {
		h.error(w, r, err)
		return
	}
	counts, err := h.store.DeliveryCounts(r.Context())
	if err != nil {
		h.error(w, r, err)
		return
	}
	page := deliveriesPage{basePage: h.base(r, "Deliveries", "Notifications sent to webhooks, Slack and email, and those that failed."),
		Channels: slices.Sorted(maps.Values(h.notifyChannels)), State: state, Counts: counts,
		States: deliveryStates}
	for _, d := range ds {
		row := deliveryRow{Delivery: d, ChannelName: h.notifyChannels[d.Channel]}
		if row.ChannelName == "" {
			row.ChannelName = d.Channel
		}
		if p := d.Event.Postmortem; p != nil && p.Slug != "" {
			row.Link = "/postmortems/" + p.Slug
		}
		page.Deliveries = append(page.Deliveries, row)
	}
	h.render(w, r, http.StatusOK, "deliveries", page)
}

// sendDeliveryAgain queues a delivery again, due at once.
func (h *Handler) sendDeliveryAgain(w http.ResponseWriter, r *http.Request) {
	if err := parseForm(w, r); err != nil {
		h.error(w, r, err)
		return
	}
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		h.error(w, r, store.ErrNotFound)
		return
	}
	if err := h.store.RequeueDelivery(r.Context(), id); err != nil {
		h.error(w, r, err)
		return
	}
	back := "/admin/deliveries"
	if s := r.PostForm.Get("state"); s != "" && slices.Contains(deliveryStates, s) {
		back += "?state=" + s
	}
	redirectWithFlash(w, r, back, "Delivery "+strconv.FormatInt(id, 10)+" is queued to be sent again now.")
}
