package handlers_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// The record's rules hold whichever way a postmortem comes in: a timeline
// pasted as lines through the JSON API is held to the limits of the form's
// rows.
func TestAPICreateTimelineRules(t *testing.T) {
	t.Parallel()
	h, st := newApp(t)
	longEvent := strings.Repeat("x", 2001)
	for _, tt := range []struct {
		name, timeline string
		status         int
		message        string
	}{
		{"Rows", "14:02 deploy starts\n14:09 alert fires", http.StatusCreated, ""},
		{"EventTooLong", "14:02 " + longEvent, http.StatusUnprocessableEntity, "An event of the timeline is longer than 2000 characters."},
		{"TooManyRows", strings.Repeat("14:02 again\n", 1001), http.StatusUnprocessableEntity, "The timeline has more than 1000 rows."},
		{"FreeForm", "All afternoon: " + longEvent, http.StatusCreated, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			body, _ := json.Marshal(map[string]string{"title": "Timeline " + tt.name, "summary": "s", "body": "x", "timeline": tt.timeline})
			before := countPostmortems(t, st)
			rec := post(t, h, "/api/postmortems", "application/json", bytes.NewBuffer(body))
			if rec.Code != tt.status {
				t.Fatalf("status = %d, want %d\n%.300s", rec.Code, tt.status, rec.Body)
			}
			if tt.status == http.StatusCreated {
				return
			}
			var got struct {
				Fields map[string]string `json:"fields"`
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
			if got.Fields["timeline"] != tt.message {
				t.Errorf("timeline: %q, want %q", got.Fields["timeline"], tt.message)
			}
			if countPostmortems(t, st) != before {
				t.Error("a refused request stored something")
			}
		})
	}
}
