package main

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"hindsight/store/storetest"
)

// TestLogWriterKeepsEveryLine writes lines from many goroutines, more than
// the buffer holds, and checks that each arrives whole, once, after Close;
// that kept lines are written out without Close; and that a line written
// after Close goes straight through.
func TestLogWriterKeepsEveryLine(t *testing.T) {
	t.Parallel()
	out := &syncBuffer{}
	l := newLogWriter(out)
	const writers, lines = 8, 2000 // about 2.5 times the buffer
	var wg sync.WaitGroup
	for g := range writers {
		wg.Go(func() {
			for i := range lines {
				fmt.Fprintf(l, "writer=%d line=%d %s\n", g, i, strings.Repeat("x", 60))
			}
		})
	}
	wg.Wait()
	fmt.Fprintln(l, "last before close")
	deadline := time.Now().Add(10 * time.Second)
	for !strings.HasSuffix(out.String(), "last before close\n") {
		if time.Now().After(deadline) {
			t.Fatal("a kept line was not written out without Close")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(l, "after close")
	got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if want := writers*lines + 2; len(got) != want {
		t.Fatalf("%d lines, want %d", len(got), want)
	}
	seen := map[string]bool{}
	for _, line := range got[:writers*lines] {
		seen[line] = true
	}
	for g := range writers {
		for i := range lines {
			if l := fmt.Sprintf("writer=%d line=%d %s", g, i, strings.Repeat("x", 60)); !seen[l] {
				t.Fatalf("line missing or torn: %q", l)
			}
		}
	}
	if got[len(got)-1] != "after close" {
		t.Errorf("last line %q, want the one written after Close", got[len(got)-1])
	}
}

// TestStopLosesNoRequestLine serves many requests and stops the server at
// once: every request's line is in the log (the log is buffered, and run
// writes it out when it returns).
func TestStopLosesNoRequestLine(t *testing.T) {
	t.Parallel()
	base, stop, logs := startServer(t, []string{"-db", dbFrom(t, storetest.Seeded)}, nil)
	const n = 200
	for range n {
		fetch(t, base+"/patterns/feedback-loop")
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	text := logs.String()
	if got := strings.Count(text, `msg=request method=GET path=/patterns/feedback-loop route=/patterns/{slug} status=200`); got != n {
		t.Errorf("%d request lines for /patterns/feedback-loop after stop, want %d", got, n)
	}
	if !strings.Contains(text, "shutting down") {
		t.Errorf("log lacks the shutdown line:\n%s", text)
	}
}
