package importer_test

import (
	"path/filepath"
	"reflect"
	"testing"

	"hindsight/importer"
	"hindsight/library"
	"hindsight/postmortem"
	"hindsight/store"
)

// openStore is an empty migrated store holding one English postmortem,
// the target of the variants below.
func openStore(t *testing.T) (*store.Store, string) {
	t.Helper()
	st, err := library.Open(t.Context(), filepath.Join(t.TempDir(), "hindsight.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	p := store.Postmortem{Content: postmortem.Content{Title: "Certificate expired at Example", Summary: "The certificate expired.", Body: "The certificate expired at midnight.", Language: "en"}}
	if err := library.New(st).ImportPostmortem(t.Context(), &p); err != nil {
		t.Fatal(err)
	}
	return st, p.Slug
}

// Prepare gives a document what an import assumes where it says nothing:
// the importing user and note, English, and a variant kind told by the
// languages.
func TestPrepare(t *testing.T) {
	t.Parallel()
	st, target := openStore(t)
	for _, tt := range []struct {
		name, raw                string
		author, lang, kind, note string
	}{
		{"Defaults", "---\ntitle: Short\n---\nShort text.\n", "ana", "en", "", "Imported from a.md"},
		{"AuthorOfTheFile", "---\ntitle: Short\nauthor: Bo\n---\nShort text.\n", "Bo", "en", "", "Imported from a.md"},
		{"LanguageOfTheFile", "---\ntitle: Corto\nlanguage: es\n---\nTexto corto.\n", "ana", "es", "", "Imported from a.md"},
		{"TranslationWhenTheLanguagesDiffer", "---\ntitle: Corto\nlanguage: es\nvariant_of: " + target + "\n---\nTexto.\n", "ana", "es", postmortem.KindTranslation, "Imported from a.md"},
		{"RewriteInTheSameLanguage", "---\ntitle: Short\nvariant_of: " + target + "\n---\nText.\n", "ana", "en", postmortem.KindRewrite, "Imported from a.md"},
		{"RewriteOfAnUnknownPostmortem", "---\ntitle: Short\nvariant_of: no-such-postmortem\n---\nText.\n", "ana", "en", postmortem.KindRewrite, "Imported from a.md"},
		{"KindOfTheFile", "---\ntitle: Short\nvariant_of: " + target + "\nvariant_kind: translation\n---\nText.\n", "ana", "en", postmortem.KindTranslation, "Imported from a.md"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d, p, err := importer.Prepare(t.Context(), st, []byte(tt.raw), "a.md", "ana", "Imported from a.md")
			if err != nil {
				t.Fatal(err)
			}
			if p.SavedBy != tt.author || p.SaveNote != tt.note || p.Language != tt.lang || p.VariantKind != tt.kind {
				t.Errorf("signed by %q (%q), language %q, kind %q; want %q (%q), %q, %q", p.SavedBy, p.SaveNote, p.Language, p.VariantKind, tt.author, tt.note, tt.lang, tt.kind)
			}
			if d.Title != p.Title {
				t.Errorf("draft title %q, postmortem title %q", d.Title, p.Title)
			}
		})
	}
	if _, _, err := importer.Prepare(t.Context(), st, nil, "a.md", "ana", ""); err == nil {
		t.Error("an empty document: no error")
	}
}

// Finish keeps the evidence the document gave the tags the form kept, and
// makes a main version an original unless the document says otherwise.
func TestFinish(t *testing.T) {
	t.Parallel()
	mapped := []store.Tag{
		{PatternSlug: "retry-storm", Role: postmortem.RoleTrigger, Evidence: "Clients retried at once."},
		{PatternSlug: "feedback-loop", Role: postmortem.RoleAmplifier, Evidence: "The retries slowed it further."},
	}
	for _, tt := range []struct {
		name    string
		p, want store.Postmortem
	}{
		{"EvidenceOfTheKeptTags",
			store.Postmortem{Content: postmortem.Content{Tags: []store.Tag{{PatternSlug: "retry-storm", Role: postmortem.RoleTrigger}, {PatternSlug: "cascading-overload", Role: postmortem.RoleTrigger}}}},
			store.Postmortem{Content: postmortem.Content{Tags: []store.Tag{{PatternSlug: "retry-storm", Role: postmortem.RoleTrigger, Evidence: "Clients retried at once."}, {PatternSlug: "cascading-overload", Role: postmortem.RoleTrigger}}}, VariantKind: postmortem.KindOriginal}},
		{"AnotherRoleIsAnotherTag",
			store.Postmortem{Content: postmortem.Content{Tags: []store.Tag{{PatternSlug: "feedback-loop", Role: postmortem.RoleTrigger}}}},
			store.Postmortem{Content: postmortem.Content{Tags: []store.Tag{{PatternSlug: "feedback-loop", Role: postmortem.RoleTrigger}}}, VariantKind: postmortem.KindOriginal}},
		{"TranslationOfATextHeldNowhere",
			store.Postmortem{VariantKind: postmortem.KindTranslation},
			store.Postmortem{VariantKind: postmortem.KindTranslation}},
		{"UnknownKindOfAMainVersion",
			store.Postmortem{VariantKind: "sequel"},
			store.Postmortem{VariantKind: postmortem.KindOriginal}},
		{"VariantKeepsItsKind",
			store.Postmortem{VariantOf: "a-b", VariantKind: postmortem.KindRewrite},
			store.Postmortem{VariantOf: "a-b", VariantKind: postmortem.KindRewrite}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.p
			importer.Finish(&p, mapped)
			if !reflect.DeepEqual(p, tt.want) {
				t.Errorf("got\n%+v\nwant\n%+v", p, tt.want)
			}
		})
	}
}

// Duplicate names the postmortem imported from the same text, and nothing
// for a text not imported.
func TestDuplicate(t *testing.T) {
	t.Parallel()
	st, _ := openStore(t)
	p := store.Postmortem{Content: postmortem.Content{Title: "Imported", Summary: "Imported.", Body: "x"}, SourceText: "the original file"}
	if err := library.New(st).ImportPostmortem(t.Context(), &p); err != nil {
		t.Fatal(err)
	}
	for source, want := range map[string]string{"the original file": p.Slug, "another file": ""} {
		if got, err := importer.Duplicate(t.Context(), st, source); err != nil || got != want {
			t.Errorf("Duplicate(%q) = %q, %v; want %q", source, got, err, want)
		}
	}
}
