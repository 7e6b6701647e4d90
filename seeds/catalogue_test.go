package seeds_test

import (
	"slices"
	"strings"
	"testing"

	"hindsight/seeds"
	"hindsight/store"
)

func TestCatalogue(t *testing.T) {
	fams, pats, err := seeds.Catalogue()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(fams), 5; got != want {
		t.Errorf("families = %d, want %d", got, want)
	}
	if got, want := len(pats), 25; got != want {
		t.Fatalf("patterns = %d, want %d", got, want)
	}
	perFamily := map[string]int{}
	for _, p := range pats {
		perFamily[p.Family]++
		if len(p.PhrasesES) == 0 {
			t.Errorf("%s: no Spanish detection phrases", p.Slug)
		}
		if len(p.Incidents) == 0 {
			t.Errorf("%s: no example incidents", p.Slug)
		}
		var during, after int
		for _, it := range p.Checklist {
			switch it.Phase {
			case store.PhaseDuring:
				during++
			case store.PhaseAfter:
				after++
			}
		}
		if during == 0 || after == 0 {
			t.Errorf("%s: checklist has %d during and %d after items; want both phases", p.Slug, during, after)
		}
		for _, ph := range append(p.PhrasesEN, p.PhrasesES...) {
			if ph == "" || strings.HasSuffix(ph, ",") || strings.HasPrefix(ph, " ") {
				t.Errorf("%s: badly split phrase %q", p.Slug, ph)
			}
		}
	}
	want := map[string]int{"load-and-feedback": 11, "change-and-operations": 4, "architecture-and-coupling": 3, "time-identity-naming": 3, "infrastructure-and-data": 4}
	for f, n := range want {
		if perFamily[f] != n {
			t.Errorf("family %s has %d patterns, want %d", f, perFamily[f], n)
		}
	}

	byslug := map[string]store.Pattern{}
	for _, p := range pats {
		byslug[p.Slug] = p
	}
	fl := byslug["feedback-loop"]
	if fl.Name != "Feedback loop" || !strings.HasPrefix(fl.Headline, "Positive feedback loop") {
		t.Errorf("feedback-loop name/headline = %q / %q", fl.Name, fl.Headline)
	}
	if !slices.Contains(fl.PhrasesEN, "feedback loop") || !slices.Contains(fl.PhrasesES, "bucle de retroalimentación") {
		t.Errorf("feedback-loop phrases missing: en %v es %v", fl.PhrasesEN, fl.PhrasesES)
	}
	if !slices.Contains(fl.RelatedTo, "retry-storm") || !slices.Contains(fl.RelatedTo, "cascading-overload") {
		t.Errorf("feedback-loop related = %v", fl.RelatedTo)
	}
	if got := byslug["connection-exhaustion"].Incidents[2].URL; !strings.HasPrefix(got, "http://www.kalzumeus.com/") {
		t.Errorf("third connection-exhaustion incident URL = %q", got)
	}
	// A phrase with a comma inside parentheses stays whole.
	if !slices.Contains(byslug["queue-backlog"].PhrasesES, "acumulación de trabajo (backlog)") {
		t.Errorf("queue-backlog es phrases = %v", byslug["queue-backlog"].PhrasesES)
	}
	// Citation keys link to their source.
	if !strings.Contains(fl.Definition, `[\[HOTOS21\]](https://sigops.org/`) {
		t.Errorf("feedback-loop definition citations not linked: %s", fl.Definition)
	}
	if byslug["dns-failure"].Name != "DNS failure" {
		t.Errorf("dns-failure name = %q", byslug["dns-failure"].Name)
	}
}
