package store_test

import (
	"strings"
	"testing"

	"hindsight/store"
	"hindsight/store/storetest"
)

// TestRestrictedSlugCannotBeProbed: a postmortem restricted when it is
// created gets a slug with a random part, so an outsider cannot find it
// by creating a twin: a twin of its title gets the title's plain slug, as
// if it were not there, and a slug named for an import cannot be guessed.
// Open postmortems keep plain, numbered slugs.
func TestRestrictedSlugCannotBeProbed(t *testing.T) {
	t.Parallel()
	st, _ := newSeededStore(t)
	member := store.WithReaderGroups(t.Context(), []string{"security"})
	outsider := store.WithReaderGroups(t.Context(), []string{"sre"})
	hidden := storetest.Draft("Zanzibar vault keys")
	hidden.RestrictedTo = []string{"security"}
	if err := st.CreatePostmortem(member, &hidden); err != nil {
		t.Fatal(err)
	}
	if hidden.Slug == "zanzibar-vault-keys" || !strings.HasPrefix(hidden.Slug, "zanzibar-vault-keys-") || len(hidden.Slug) < len("zanzibar-vault-keys-")+8 {
		t.Errorf("restricted slug %q, want zanzibar-vault-keys and a random part", hidden.Slug)
	}
	again := storetest.Draft("Zanzibar vault keys")
	again.RestrictedTo = []string{"security"}
	if err := st.CreatePostmortem(member, &again); err != nil {
		t.Fatal(err)
	}
	if again.Slug == hidden.Slug || !strings.HasPrefix(again.Slug, "zanzibar-vault-keys-") {
		t.Errorf("a second restricted twin: slug %q (first %q)", again.Slug, hidden.Slug)
	}
	twin := storetest.Draft("Zanzibar vault keys")
	if err := st.CreatePostmortem(outsider, &twin); err != nil {
		t.Fatal(err)
	}
	if twin.Slug != "zanzibar-vault-keys" {
		t.Errorf("the outsider's twin: slug %q, want zanzibar-vault-keys as if nothing were hidden", twin.Slug)
	}
	second := storetest.Draft("Zanzibar vault keys")
	if err := st.CreatePostmortem(outsider, &second); err != nil {
		t.Fatal(err)
	}
	if second.Slug != "zanzibar-vault-keys-2" {
		t.Errorf("an open twin of an open postmortem: slug %q, want zanzibar-vault-keys-2", second.Slug)
	}
}
