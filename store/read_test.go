package store_test

import (
	"slices"
	"sync"
	"testing"

	"hindsight/postmortem"
	"hindsight/store"
)

// TestGetPostmortemReadsOneMoment: a postmortem read while saves replace
// its summary and its tags together comes back as one save wrote it, never
// with the summary of one save and the tags of another.
func TestGetPostmortemReadsOneMoment(t *testing.T) {
	t.Parallel()
	const chat = "chatco-lockstep-reconnect"
	st, _ := newSearchStore(t)
	ctx := t.Context()
	p, err := st.GetPostmortem(ctx, chat)
	if err != nil {
		t.Fatal(err)
	}
	saves := []struct {
		summary string
		tag     string
	}{
		{"Clients retried in lockstep.", "retry-storm"},
		{"All phones came back at once.", "thundering-herd"},
	}
	tagOf := map[string]string{}
	for _, s := range saves {
		tagOf[s.summary] = s.tag
	}
	var wg sync.WaitGroup
	done := make(chan struct{})
	wg.Go(func() {
		defer close(done)
		version := p.Version
		for i := range 40 {
			f := p.Fields()
			s := saves[i%2]
			f.Summary, f.Tags = s.summary, []store.Tag{{PatternSlug: s.tag, Role: postmortem.RoleTrigger}}
			saved, err := st.UpdatePostmortem(ctx, chat, version, store.PostmortemUpdate{Fields: f, Author: "test"})
			if err != nil {
				t.Error(err)
				return
			}
			version = saved.Version
		}
	})
	reads := 0
	for running := true; running; reads++ {
		select {
		case <-done:
			running = false
		default:
		}
		got, err := st.GetPostmortem(ctx, chat)
		if err != nil {
			t.Fatal(err)
		}
		want, saved := tagOf[got.Summary]
		if !saved {
			continue // the fixture's own summary, before the first save
		}
		tags := make([]string, len(got.Tags))
		for i, tg := range got.Tags {
			tags[i] = tg.PatternSlug
		}
		if !slices.Equal(tags, []string{want}) {
			t.Fatalf("read %d: summary %q with tags %q, want [%s]: a mix of two saves", reads, got.Summary, tags, want)
		}
	}
	wg.Wait()
	t.Logf("%d reads during 40 saves", reads)
}
