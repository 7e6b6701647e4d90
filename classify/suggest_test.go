package classify_test

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"hindsight/classify"
	"hindsight/postmortem"
	"hindsight/seeds/seedtest"
)

func find(sugs []classify.Suggestion, slug string) (classify.Suggestion, bool) {
	for _, s := range sugs {
		if s.Slug == slug && s.Score >= classify.DefaultThreshold {
			return s, true
		}
	}
	return classify.Suggestion{}, false
}

func TestSuggestRules(t *testing.T) {
	c := classify.Compile(testCatalogue(t))
	tests := []struct {
		name     string
		doc      classify.Document
		slug     string
		want     bool
		wantRole string
	}{
		{"multi-word phrase", classify.Document{Body: "The outage began when a retry storm hit the API."}, "retry-storm", true, ""},
		{"weak word alone", classify.Document{Body: "The outage lasted an hour. Our client retries once."}, "retry-storm", false, ""},
		{"negation ends at a comma", classify.Document{Body: "The storage API failed for an hour. We thought the replica was read-only. This wasn't true, an incorrect configuration left it writable."}, "bad-config-push", true, ""},
		{"negated phrase", classify.Document{Body: "The API failed for ten minutes. This was not a retry storm: clients backed off as designed."}, "retry-storm", false, ""},
		{"health check alone is weak", classify.Document{Body: "A disk failed on one server. We added a health check for the disk."}, "health-check-death-spiral", false, ""},
		{"health check with removal", classify.Document{Body: "Under load the health checks failed and the load balancer removed every server from rotation."}, "health-check-death-spiral", true, postmortem.RoleAmplifier},
		{"English phrase in Spanish text", classify.Document{Body: "Durante la caída, los workers de Apache estaban ocupados con keep-alive y no quedaban conexiones libres."}, "connection-exhaustion", true, ""},
		{"Spanish phrase with accents dropped", classify.Document{Body: "La API cayo. Hubo un fallo en cascada: los servidores restantes se sobrecargaron uno tras otro."}, "cascading-overload", true, ""},
		{"lessons field gives missing defence", classify.Document{Body: "The checkout API was down for an hour under a traffic spike.", Lessons: "We need load shedding and graceful degradation."}, "no-graceful-degradation", true, postmortem.RoleMissingDefence},
		{"action item sentence gives missing defence", classify.Document{Body: "The API was overloaded and failed. Action items: add load shedding so that we degrade gracefully."}, "no-graceful-degradation", true, postmortem.RoleMissingDefence},
		{"what was done to fix it", classify.Document{Body: "Reconnects overloaded the gateway and it failed. We resolved it by letting clients back in gradually: we slowly allowed users back onto the site."}, "thundering-herd", true, postmortem.RoleMitigation},
		{"early causal sentence", classify.Document{Body: "The outage was triggered by a configuration change pushed to every region. The proxies crashed. Traffic returned after the revert. The team met the next day."}, "bad-config-push", true, postmortem.RoleTrigger},
		{"thundering herd on the database is a stampede", classify.Document{Body: "After the cache restart a thundering herd on the database made every query time out and the site failed."}, "thundering-herd", false, ""},
		{"a list of pattern names", classify.Document{Body: "The API failed on Monday. We tag postmortems with patterns such as retry storm, cache stampede or bad config push."}, "retry-storm", false, ""},
		{"short word matches its longer forms", classify.Document{Body: "The pods kept hitting their memory limit and failed."}, "resource-limit-reached", true, ""},
		{"UPS is not up", classify.Document{Body: "The disks filled up on every node and the service failed."}, "hardware-failure", false, ""},
		{"irregular past matches the base form", classify.Document{Body: "The database failed. To make matters worse, the queue did not drain on its own."}, "feedback-loop", true, ""},
		{"no sign of failure", classify.Document{Body: "This is our process review. Every configuration change goes through a canary and is rolled out to all regions in stages."}, "bad-config-push", false, ""},
		{"a thing named in passing", classify.Document{Body: "The checkout API failed for an hour after its certificate expired. The API runs in three availability zones."}, "insufficient-isolation", false, ""},
		{"what was not impacted", classify.Document{Body: "The checkout API failed for an hour. Traffic between availability zones and the global DNS service were not impacted."}, "dns-failure", false, ""},
		{"any other label opens the story again", classify.Document{Body: "Mitigation: engineers restarted the proxies in every region.\nRoot cause and impact: a configuration change pushed to every region contained an invalid value, and the proxies crashed."}, "bad-config-push", true, ""},
		{"operating is not an operator", classify.Document{Body: "The API failed for an hour. The new operating system had been running in production for months."}, "maintenance-triggered", false, ""},
		{"a person trying to fix is no harmful automation", classify.Document{Body: "The API failed for an hour. Engineers deleted keys to try to fix the problem."}, "harmful-error-handling", false, ""},
		{"Spanish comando is not como", classify.Document{Body: "El servicio falló durante una hora. El cambio contenía un valor incorrecto, de modo que los tokens se rechazaban como inválidos."}, "maintenance-triggered", false, ""},
		{"two primaries, not both networks", classify.Document{Body: "The API failed. The change disconnected both the primary and secondary network at once."}, "split-brain", false, ""},
		{"a slow third party", classify.Document{Body: "Checkout failed for an hour. The third-party fraud API we call became slow and every order timed out."}, "dependency-failure", true, ""},
		{"down because another service is unavailable", classify.Document{Body: "Deployments failed for an hour due to the artifact store being unavailable."}, "dependency-failure", true, ""},
		{"a surge needs an outside cause", classify.Document{Body: "When the outage ended the database failed again under a surge in traffic from clients reconnecting."}, "traffic-surge", false, ""},
		{"a surge with an outside cause", classify.Document{Body: "The site failed under a surge in traffic after the launch was on the news."}, "traffic-surge", true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, got := find(c.Suggest(tt.doc), tt.slug)
			if got != tt.want {
				t.Fatalf("%s suggested = %v (score %.2f), want %v", tt.slug, got, s.Score, tt.want)
			}
			if tt.wantRole != "" && s.Role != tt.wantRole {
				t.Errorf("role = %q, want %q", s.Role, tt.wantRole)
			}
		})
	}
}

func TestSuggestEvidence(t *testing.T) {
	c := classify.Compile(testCatalogue(t))
	body := "The site was down.  Our clients kept retrying without exponential backoff, and the API fell over."
	s, ok := find(c.Suggest(classify.Document{Body: body}), "retry-storm")
	if !ok {
		t.Fatal("retry-storm not suggested")
	}
	if len(s.Evidence) == 0 {
		t.Fatal("no evidence")
	}
	ev := s.Evidence[0]
	if !strings.Contains(s.Reason, "“Our clients kept retrying without exponential backoff, and the API fell over.”") {
		t.Errorf("reason %q does not quote the sentence that fired", s.Reason)
	}
	if want := "Our clients kept retrying without exponential backoff, and the API fell over."; ev.Sentence != want {
		t.Errorf("sentence = %q, want %q", ev.Sentence, want)
	}
	var lit []string
	for _, h := range ev.Highlights {
		lit = append(lit, ev.Sentence[h.Start:h.End])
	}
	for _, want := range []string{"clients kept retrying", "without exponential backoff"} {
		if !slices.Contains(lit, want) {
			t.Errorf("highlights %q lack %q", lit, want)
		}
	}
}

func TestSuggestDeterministic(t *testing.T) {
	pats := testCatalogue(t)
	doc := classify.Document{Body: seedtest.Document(t, "003")}
	first := classify.Compile(pats).Suggest(doc)
	for range 5 {
		again := classify.Compile(pats).Suggest(doc)
		if len(again) != len(first) {
			t.Fatalf("%d suggestions, then %d", len(first), len(again))
		}
		if !reflect.DeepEqual(first, again) {
			t.Fatalf("runs differ:\n%+v\n%+v", first, again)
		}
	}
	// The scraped page repeats its body: evidence must not show a sentence twice.
	for _, s := range first {
		seen := map[string]bool{}
		for _, e := range s.Evidence {
			if seen[e.Sentence] {
				t.Errorf("%s: evidence repeats %q", s.Slug, e.Sentence)
			}
			seen[e.Sentence] = true
		}
	}
}

func TestSuggestEmpty(t *testing.T) {
	if got := classify.Compile(testCatalogue(t)).Suggest(classify.Document{}); len(got) != 0 {
		t.Errorf("empty document: %d suggestions", len(got))
	}
	if got := classify.Compile(nil).Suggest(classify.Document{Body: "retry storm"}); len(got) != 0 {
		t.Errorf("empty catalogue: %d suggestions", len(got))
	}
}

// TestSuggestHostileText checks what the classifier answers for texts made
// to be slow (its speed over doubling sizes is BenchmarkSuggestDoubling):
// a text without sentence ends still finds its pattern, and the evidence
// shown is one cut of the sentence, its highlights on the matched words.
func TestSuggestHostileText(t *testing.T) {
	t.Parallel()
	c := classify.Compile(testCatalogue(t))
	tests := []struct {
		name, body, slug, phrase string
	}{
		{"one word repeated", strings.Repeat("retry ", 20000), "", ""},
		{"abbreviations without sentence ends", strings.Repeat("Mr. ", 40000) + "then a retry storm took the API down.", "retry-storm", "retry storm"},
		{"a phrase repeated", "The API failed. " + strings.Repeat("retry storm ", 10000), "retry-storm", "retry storm"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sugs := c.Suggest(classify.Document{Title: "Outage", Body: tt.body})
			if tt.slug != "" {
				if _, ok := find(sugs, tt.slug); !ok {
					t.Errorf("%s not suggested", tt.slug)
				}
			}
			for _, s := range sugs {
				for _, e := range s.Evidence {
					if len(e.Sentence) > 1010 || len(e.Phrases) > 8 {
						t.Fatalf("%s: evidence of %d bytes and %d phrases", s.Slug, len(e.Sentence), len(e.Phrases))
					}
					for _, h := range e.Highlights {
						got := classify.Normalize(e.Sentence[h.Start:h.End])
						if !strings.Contains(got, "retry") && tt.phrase != "" && s.Slug == tt.slug {
							t.Errorf("%s: highlight %q", s.Slug, got)
						}
					}
				}
			}
		})
	}
}

// TestSuggestContextStops: a done context stops the classifier with its
// error, before any work or between sentences.
func TestSuggestContextStops(t *testing.T) {
	t.Parallel()
	c := classify.Compile(testCatalogue(t))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	doc := classify.Document{Body: strings.Repeat("The retry storm overloaded the database. ", 1000)}
	if sugs, err := c.SuggestContext(ctx, doc); !errors.Is(err, context.Canceled) || sugs != nil {
		t.Errorf("SuggestContext after cancel = %d suggestions, %v; want none and context.Canceled", len(sugs), err)
	}
	sugs, err := c.SuggestContext(t.Context(), doc)
	if _, ok := find(sugs, "retry-storm"); err != nil || !ok {
		t.Errorf("SuggestContext = %v, retry-storm found %v", err, ok)
	}
}
