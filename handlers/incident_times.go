package handlers

import (
	"fmt"
	"time"

	"hindsight/store"
)

// incidentTime is one of the incident's recorded times, for display.
type incidentTime struct {
	Label    string
	Datetime string // RFC 3339, for <time datetime>
	Display  string
	Local    string // "2006-01-02T15:04" in the postmortem's zone
}

// timing is a duration measured from the start of the incident, with what
// it measures.
type timing struct {
	Label, Value, Means string
}

// incidentTimes returns the known times of p, shown in the zone they were
// entered in, and the time it took to detect, mitigate and resolve.
func incidentTimes(p store.Postmortem) ([]incidentTime, []timing) {
	loc, err := time.LoadLocation(p.TimeZone)
	if p.TimeZone == "" || err != nil {
		loc = nil // keep each time's own offset
	}
	var times []incidentTime
	at := map[string]time.Time{}
	for _, t := range []struct{ key, label, value string }{
		{"started", "Started", p.StartedAt}, {"detected", "Detected", p.DetectedAt},
		{"mitigated", "Mitigated", p.MitigatedAt}, {"resolved", "Resolved", p.ResolvedAt},
	} {
		v, err := time.Parse(time.RFC3339, t.value)
		if err != nil {
			continue
		}
		at[t.key] = v
		shown := v
		if loc != nil {
			shown = v.In(loc)
		}
		times = append(times, incidentTime{Label: t.label, Datetime: t.value, Display: shown.Format("2 January 2006, 15:04 MST"), Local: shown.Format(datetimeLocal)})
	}
	var timings []timing
	start, ok := at["started"]
	if !ok {
		return times, nil
	}
	for _, t := range []struct{ key, label, means string }{
		{"detected", "Time to detect", "from the start until someone knew"},
		{"mitigated", "Time to mitigate", "from the start until the impact on users ended"},
		{"resolved", "Time to resolve", "from the start until the incident was closed"},
	} {
		if end, ok := at[t.key]; ok && !end.Before(start) {
			timings = append(timings, timing{Label: t.label, Value: humanSpan(end.Sub(start)), Means: t.means})
		}
	}
	return times, timings
}

// humanSpan writes a duration the way people say it: "45 min", "2 h 5 min",
// "3 d 4 h".
func humanSpan(d time.Duration) string {
	if d < time.Minute {
		return "under a minute"
	}
	minutes := int(d.Round(time.Minute) / time.Minute)
	days, rest := minutes/(24*60), minutes%(24*60)
	switch {
	case days == 0:
		return humanDuration(minutes)
	case rest/60 == 0:
		return fmt.Sprintf("%d d", days)
	}
	return fmt.Sprintf("%d d %d h", days, rest/60)
}
