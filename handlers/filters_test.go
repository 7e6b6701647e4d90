package handlers_test

import (
	"net/http"
	"testing"
)

// TestUnknownFilterValues: a list, search or insights page asked for a
// filter value that names nothing (an old link, a typo) says so above the
// empty result, names the value, links the same page without just that
// filter, and shows the value in its form; a value that exists gets no
// notice.
func TestUnknownFilterValues(t *testing.T) {
	t.Parallel()
	h, _ := newApp(t)
	for _, tt := range []struct {
		path    string
		want    []string
		notWant []string
	}{
		{"/postmortems?pattern=nope&lang=es", []string{`role="alert"`, "There is no pattern “nope”.", `href="/postmortems?lang=es"`,
			`<option value="nope" selected>`, "0 incidents"}, []string{"Download these as CSV", ".csv?"}},
		{"/postmortems?org=Nope+Corp&severity=SEV1", []string{"There is no organization “Nope Corp”.", `href="/postmortems?severity=SEV1"`}, nil},
		{"/postmortems?severity=SEV9", []string{"There is no severity “SEV9”", `href="/postmortems"`}, nil},
		{"/postmortems?year=20x0", []string{"There is no year “20x0”", `href="/postmortems"`}, nil},
		{"/postmortems?year=1999", []string{"No incident is from 1999.", "No postmortem matches"}, nil},
		{"/postmortems?lang=xx", []string{"No postmortem is written in “xx”."}, nil},
		{"/postmortems?lang=english", []string{"There is no language “english”"}, nil},
		// Both unknown: one notice each, each link keeping the other.
		{"/postmortems?pattern=nope&severity=SEV9", []string{"There is no pattern “nope”.", `href="/postmortems?severity=SEV9"`,
			"There is no severity “SEV9”", `href="/postmortems?pattern=nope"`}, nil},
		{"/action-items?status=closed&priority=P0", []string{`role="alert"`, "There is no status “closed”.", `href="/action-items?priority=P0"`,
			`<option value="closed" selected>`}, []string{"Download these as CSV", `href="/api/action-items`}},
		{"/action-items?type=fix", []string{"There is no type “fix”."}, nil},
		{"/action-items?priority=P9", []string{"There is no priority “P9”."}, nil},
		{"/action-items?pattern=nope", []string{"There is no pattern “nope”."}, nil},
		{"/action-items?org=Nope", []string{"There is no organization “Nope”."}, nil},
		{"/insights?severity=SEV9&service=web", []string{`role="alert"`, "There is no severity “SEV9”", `href="/insights?service=web"`}, nil},
		{"/insights?org=Nope", []string{"There is no organization “Nope”.", `href="/insights"`, "No incident matches these filters"}, nil},
		{"/search?q=retry+pattern%3Anope", []string{`role="alert"`, "There is no pattern “nope”.", `href="/search?q=retry"`}, nil},
		{"/search?q=sev%3A9", []string{"There is no severity “SEV9”"}, nil},
		{"/search?q=org%3Azzyzx", []string{"There is no organization “zzyzx”."}, nil},

		// Values that exist: no notice, whatever their case where case is
		// ignored.
		{"/postmortems?pattern=connection-exhaustion&org=dreamwidth&year=2020&lang=en&severity=", []string{"1 incident<", "Download these as CSV"}, []string{"There is no", "No incident is from", `role="alert"`}},
		{"/action-items?status=unfinished&type=prevent&priority=P1&org=facebook", []string{"Download these as CSV", `href="/api/action-items`}, []string{"There is no", `role="alert"`}},
		{"/insights?org=Facebook&severity=SEV1", nil, []string{"There is no", `role="alert"`}},
		{"/search?q=pattern%3Afeedback-loop+org%3Aface+sev%3A1", nil, []string{"There is no", `role="alert"`}},
		// Live results while the query is typed: the filter may be half
		// typed, so no notice flashes at each keystroke.
		{"/search?q=retry+pattern%3Anet&typing=1", []string{"0 incidents"}, []string{"There is no", `role="alert"`}},
	} {
		t.Run(tt.path, func(t *testing.T) {
			rec := get(t, h, tt.path)
			if rec.Code != http.StatusOK {
				t.Fatalf("status = %d, want 200", rec.Code)
			}
			body := rec.Body.String()
			mustContain(t, body, tt.want...)
			mustNotContain(t, body, tt.notWant...)
		})
	}
}
