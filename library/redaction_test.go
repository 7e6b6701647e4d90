package library_test

import (
	"strings"
	"testing"

	"hindsight/library"
	"hindsight/postmortem"
	"hindsight/store"
)

// TestOpeningDerivesSuggestionsFromTheOpenedText: a postmortem imported
// restricted, redacted and opened keeps only the unreviewed suggestions
// its opened text supports, each with evidence from that text; one the
// redaction took away goes, with the sentence it quoted.
func TestOpeningDerivesSuggestionsFromTheOpenedText(t *testing.T) {
	t.Parallel()
	st, _ := newSeededStore(t)
	member := store.WithReaderGroups(t.Context(), []string{"security"})
	secret := "At 00:00 UTC the TLS certificate of the Initech API gateway expired. Clients failed the TLS handshake and every request " +
		"was refused with a certificate error. We renewed the certificate at 02:00 and service was restored. "
	kept := "Mobile clients kept retrying without backoff, and the retry storm overloaded the gateway even after the fix."
	p := store.Postmortem{Content: postmortem.Content{Title: "Gateway outage", Summary: "The gateway failed.", Body: secret + kept}, SourceText: secret + kept,
		RestrictedTo: []string{"security"}}
	if err := library.New(st).ImportPostmortem(member, &p); err != nil {
		t.Fatal(err)
	}
	suggested := func() map[string]store.SuggestedTag {
		t.Helper()
		got, err := st.GetPostmortem(member, p.Slug)
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]store.SuggestedTag{}
		for _, s := range got.Suggested {
			m[s.PatternSlug] = s
		}
		return m
	}
	if before := suggested(); !strings.Contains(before["certificate-expiry"].Evidence, "Initech") || before["retry-storm"].Evidence == "" {
		t.Fatalf("imported: suggestions %v, want certificate-expiry quoting the secret and retry-storm", before)
	}
	cur, err := st.GetPostmortem(member, p.Slug)
	if err != nil {
		t.Fatal(err)
	}
	f := cur.Fields()
	f.Body = kept
	redacted, err := library.New(st).UpdatePostmortem(member, p.Slug, cur.Version, store.PostmortemUpdate{Fields: f, Author: "sam"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := suggested()["certificate-expiry"]; !ok {
		t.Fatal("redacting while restricted already dropped the suggestion: nothing left to test")
	}
	if _, err := library.New(st).UpdatePostmortem(member, p.Slug, redacted.Version, store.PostmortemUpdate{Fields: f, Author: "sam", RestrictedTo: &[]string{}}); err != nil {
		t.Fatal(err)
	}
	after := suggested()
	if s, ok := after["certificate-expiry"]; ok {
		t.Errorf("opened: certificate-expiry still suggested, evidence %q, reason %q", s.Evidence, s.Reason)
	}
	if s := after["retry-storm"]; s.Evidence != kept || strings.Contains(s.Reason+strings.Join(s.Phrases, " "), "Initech") {
		t.Errorf("opened: retry-storm evidence %q, reason %q, want the kept sentence", s.Evidence, s.Reason)
	}
}
