package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"
)

// TestMain serves the static ceiling when run starts it: run starts it by
// running its own executable with "static", which in a test is the test
// binary; without this, that binary would run the tests again instead.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "static" {
		main()
		return
	}
	os.Exit(m.Run())
}

// TestSmoke runs the whole benchmark on a tiny corpus: build, corpus,
// import, start-up, every load step and the report. The figures mean
// nothing at this size; the test checks that every step runs and answers.
func TestSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the server and runs it")
	}
	var out bytes.Buffer
	cfg := config{n: 200, seed: 1, step: 200 * time.Millisecond, clients: []int{1, 4}, pairs: 1}
	if err := run(t.Context(), cfg, &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	report := out.String()
	for _, want := range []string{
		"| postmortem page | 4 |", "| static ceiling | 4 |", "| filtered list | 4 |", "| pattern page | 4 |",
		"| search | 4 |", "| triage | 4 |", "| triage | 16 |", "triage first request of each text", "| FTS ceiling | 4 |", "| bare handler ceiling | 4 |", "postmortem page vs bare handler (req/s)", "alternating rounds", "postmortem page throughput (req/s)", "search p95 (ms)",
		"search first request p50 (ms)", "search first request vs direct FTS",
		"| import |", "0 failed", "start-up to /readyz 200", "server peak RSS",
	} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q:\n%s", want, report)
		}
	}
	for _, line := range strings.Split(report, "\n") {
		// Every load step answered without errors: the last column is 0.
		if strings.HasPrefix(line, "| ") && strings.Count(line, "|") == 8 && !strings.HasSuffix(line, "| 0 |") &&
			!strings.HasPrefix(line, "| target") {
			t.Errorf("a step had errors: %s", line)
		}
	}
}

// TestTargetsReportOnlyWhatRan: with -targets, the steps and goals of the
// targets left out are not in the report (a goal of a step never timed
// read as met at 0 ms).
func TestTargetsReportOnlyWhatRan(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the server and runs it")
	}
	var out bytes.Buffer
	cfg := config{n: 200, seed: 1, step: 200 * time.Millisecond, clients: []int{1}, pairs: 1, targets: []string{"search"}}
	if err := run(t.Context(), cfg, &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	report := out.String()
	if !strings.Contains(report, "| search | 1 |") {
		t.Errorf("report lacks the search step:\n%s", report)
	}
	for _, absent := range []string{"triage", "| postmortem page | 1 |", "| follow-ups |"} {
		if strings.Contains(report, absent) {
			t.Errorf("report has %q, which did not run:\n%s", absent, report)
		}
	}
}
