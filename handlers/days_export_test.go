package handlers

import (
	"context"
	"time"
)

// PageDay is the day part of a cached page's key at now (pageDays).
func PageDay(h *Handler, now time.Time) string {
	return h.days.key(context.Background(), h.store, now)
}
