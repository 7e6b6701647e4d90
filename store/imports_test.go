package store_test

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"hindsight/postmortem"
	"hindsight/store"
	"hindsight/store/storetest"
)

func TestValidatePostmortem(t *testing.T) {
	t.Parallel()
	valid := func() store.Postmortem {
		return store.Postmortem{Content: postmortem.Content{Title: "Routers overloaded", Summary: "Routers overloaded", Body: "The routers were overloaded."}}
	}
	for _, tt := range []struct {
		name   string
		change func(p *store.Postmortem)
		fields []string // the fields reported, sorted
	}{
		{"OK", func(p *store.Postmortem) {}, nil},
		{"OKFull", func(p *store.Postmortem) {
			p.IncidentDate, p.PublishedDate, p.Severity, p.Language = "2009-09-01", "2009-09-02", "SEV1", "es"
			p.SourceURL, p.VariantKind, p.VariantOf, p.DurationMinutes = "https://example.com/x", "translation", "gmail-2009", 100
			p.Tags = []store.Tag{{PatternSlug: "cascading-overload", Role: "amplifier"}}
			p.ActionItems = []store.ActionItem{{Title: "Add routers", Kind: "mitigate", Priority: "P1", DueDate: "2009-10-01"}}
		}, nil},
		{"TitleRequired", func(p *store.Postmortem) { p.Title = "  " }, []string{"title"}},
		{"SummaryRequired", func(p *store.Postmortem) { p.Summary = "" }, []string{"summary"}},
		{"WriteUpOptional", func(p *store.Postmortem) { p.Body = "" }, nil},
		{"TitleTooLong", func(p *store.Postmortem) { p.Title = strings.Repeat("é", postmortem.MaxTitleRunes+1) }, []string{"title"}},
		{"BadDates", func(p *store.Postmortem) { p.IncidentDate, p.PublishedDate = "01/09/2009", "2009-02-30" }, []string{"incident_date", "published_date"}},
		{"BadSeverity", func(p *store.Postmortem) { p.Severity = "major" }, []string{"severity"}},
		{"BadLanguage", func(p *store.Postmortem) { p.Language = "english" }, []string{"language"}},
		{"BadSourceURL", func(p *store.Postmortem) { p.SourceURL = "javascript:alert(1)" }, []string{"source_url"}},
		{"BadKind", func(p *store.Postmortem) { p.VariantKind = "copy" }, []string{"variant_kind"}},
		{"BadVariantOf", func(p *store.Postmortem) { p.VariantOf = "Not A Slug" }, []string{"variant_of"}},
		{"NegativeDuration", func(p *store.Postmortem) { p.DurationMinutes = -5 }, []string{"duration_minutes"}},
		{"BadRole", func(p *store.Postmortem) { p.Tags = []store.Tag{{PatternSlug: "retry-storm", Role: "cause"}} }, []string{"patterns"}},
		{"BadActionItem", func(p *store.Postmortem) { p.ActionItems = []store.ActionItem{{Title: "x", Kind: "fix"}} }, []string{"action_items"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := valid()
			tt.change(&p)
			errs := store.ValidatePostmortem(&p)
			var got []string
			for f := range errs {
				got = append(got, f)
			}
			slices.Sort(got)
			if !reflect.DeepEqual(got, tt.fields) {
				t.Errorf("fields = %v, want %v (%v)", got, tt.fields, errs)
			}
			if errs != nil && !errors.Is(errs, store.ErrInvalid) {
				t.Error("FieldErrors is not an ErrInvalid")
			}
		})
	}
}

func TestImportPostmortem(t *testing.T) {
	t.Parallel()
	st, _ := newSeededStore(t)
	ctx := t.Context()
	_, before, err := st.CountPostmortems(ctx)
	if err != nil {
		t.Fatal(err)
	}
	source := "---\ntitle: Routers overloaded\n---\nThe request routers were overloaded.\n"
	p := store.Postmortem{
		Content: postmortem.Content{
			Title:   "Routers overloaded",
			Summary: "Routers overloaded",
			Body:    "The request routers were overloaded.",
			Tags:    []store.Tag{{PatternSlug: "cascading-overload", Role: "amplifier"}},
		},
		SourceText: source,
		Comments:   []store.Comment{{Author: "ann", Posted: "2 June 2021, 10:00", Text: "Thanks"}},
	}

	t.Run("OK", func(t *testing.T) {
		if err := st.ImportPostmortem(ctx, &p); err != nil {
			t.Fatal(err)
		}
		got, err := st.GetPostmortem(ctx, p.Slug)
		if err != nil {
			t.Fatal(err)
		}
		if got.SourceText != source || len(got.Tags) != 1 || len(got.Comments) != 1 || got.Slug != "routers-overloaded" {
			t.Errorf("stored %+v", got)
		}
		if slug, err := st.FindImported(ctx, source); err != nil || slug != p.Slug {
			t.Errorf("FindImported = %q, %v", slug, err)
		}
	})
	t.Run("Duplicate", func(t *testing.T) {
		again := store.Postmortem{Content: postmortem.Content{Title: "Another title", Summary: "Another title", Body: "x"}, SourceText: source}
		err := st.ImportPostmortem(ctx, &again)
		var dup *store.DuplicateError
		if !errors.As(err, &dup) || dup.Slug != "routers-overloaded" || !errors.Is(err, store.ErrConflict) {
			t.Fatalf("err = %v, want a DuplicateError naming routers-overloaded", err)
		}
	})
	t.Run("SeedTextIsADuplicate", func(t *testing.T) {
		// Seeds are created without a source hash; their text still counts.
		raw, err := os.ReadFile(filepath.Join("..", "seeds", "documents", "003_d02c9b3c5e33dc49.txt"))
		if err != nil {
			t.Fatal(err)
		}
		again := store.Postmortem{Content: postmortem.Content{Title: "Dreamwidth", Summary: "Dreamwidth", Body: "x"}, SourceText: string(raw)}
		var dup *store.DuplicateError
		if err := st.ImportPostmortem(ctx, &again); !errors.As(err, &dup) || dup.Slug != "dreamwidth-2020-05-25-site-interruptions" {
			t.Fatalf("err = %v, want the Dreamwidth seed as duplicate", err)
		}
	})
	for _, tt := range []struct {
		name  string
		p     store.Postmortem
		field string
	}{
		{"UnknownPattern", store.Postmortem{Content: postmortem.Content{Title: "A", Summary: "A", Body: "b", Tags: []store.Tag{{PatternSlug: "no-such-pattern", Role: "trigger"}}}, SourceText: "a1"}, "patterns"},
		{"UnknownVariantOf", store.Postmortem{Content: postmortem.Content{Title: "A", Summary: "A", Body: "b"}, SourceText: "a2", VariantOf: "no-such-postmortem"}, "variant_of"},
		{"Invalid", store.Postmortem{Content: postmortem.Content{Body: "b"}, SourceText: "a3"}, "title"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := st.ImportPostmortem(ctx, &tt.p)
			var fields store.FieldErrors
			if !errors.As(err, &fields) || fields[tt.field] == "" {
				t.Fatalf("err = %v, want a field error on %s", err, tt.field)
			}
		})
	}
	if _, n, err := st.CountPostmortems(ctx); err != nil || n != before+1 {
		t.Errorf("%d postmortems, want %d: a refused import left something behind", n, before+1)
	}

	t.Run("VariantKindFromLanguage", func(t *testing.T) {
		for _, tt := range []struct {
			lang, want string
		}{{"es", postmortem.KindTranslation}, {"en", postmortem.KindRewrite}} {
			v := store.Postmortem{Content: postmortem.Content{Title: "Routers " + tt.lang, Summary: "Routers " + tt.lang, Body: "b", Language: tt.lang}, VariantOf: "routers-overloaded", SourceText: "v-" + tt.lang}
			if err := st.ImportPostmortem(ctx, &v); err != nil {
				t.Fatal(err)
			}
			got, err := st.GetPostmortem(ctx, v.Slug)
			if err != nil {
				t.Fatal(err)
			}
			if got.VariantKind != tt.want || got.GroupID != p.GroupID {
				t.Errorf("%s: kind %q group %d, want %q in group %d", tt.lang, got.VariantKind, got.GroupID, tt.want, p.GroupID)
			}
		}
	})
}

// TestImportedTextsWithoutHash: texts imported before source_hash existed
// get their hash on the next Open, once, so that importing them again is
// still refused; of two copies of one text, the first keeps the hash.
func TestImportedTextsWithoutHash(t *testing.T) {
	t.Parallel()
	st, path := newEmptyStore(t)
	ctx := t.Context()
	for _, p := range []*store.Postmortem{
		{Content: postmortem.Content{Title: "Old import", Summary: "Old import", Body: "x"}, SourceText: "the original file"},
		{Content: postmortem.Content{Title: "Its copy", Summary: "Its copy", Body: "y"}, SourceText: "another file"},
	} {
		if err := st.ImportPostmortem(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	// As in a database from before source_hash: no hashes, and two rows
	// with one text.
	storetest.Exec(t, path,
		`UPDATE postmortems SET source_hash = ''`,
		`UPDATE postmortems SET source_text = 'the original file'`,
		`DELETE FROM store_jobs WHERE name = 'source-hashes'`,
	)
	again, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if slug, err := again.FindImported(ctx, "the original file"); err != nil || slug != "old-import" {
		t.Errorf("FindImported = %q, %v; want old-import", slug, err)
	}
	var dup *store.DuplicateError
	err = again.ImportPostmortem(ctx, &store.Postmortem{Content: postmortem.Content{Title: "Again", Summary: "Again", Body: "z"}, SourceText: "the original file"})
	if !errors.As(err, &dup) || dup.Slug != "old-import" {
		t.Errorf("importing the text again: err = %v, want a DuplicateError naming old-import", err)
	}
	if _, err := again.FindImported(ctx, "another file"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("FindImported(a text no longer held) err = %v, want ErrNotFound", err)
	}
}

// TestImportPostmortemsValidatesPrepared: a batch refuses an invalid
// postmortem with its field errors whether the importer prepared it ahead
// (PrepareImport validates it then, on a reader's core) or the batch
// prepares it, and imports the rest.
func TestImportPostmortemsValidatesPrepared(t *testing.T) {
	t.Parallel()
	for _, prepared := range []bool{false, true} {
		st, _ := newSeededStore(t)
		ctx := t.Context()
		valid := store.Postmortem{Content: postmortem.Content{Title: "Queue backlog", Summary: "Queue backlog", Body: "The queue backed up."}, SourceText: "ok"}
		untitled := store.Postmortem{Content: postmortem.Content{Body: "b"}, SourceText: "no title"}
		ps := []*store.Postmortem{&valid, &untitled}
		if prepared {
			for _, p := range ps {
				p.PrepareImport()
			}
		}
		errs, err := st.ImportPostmortems(ctx, ps)
		if err != nil {
			t.Fatal(err)
		}
		var fields store.FieldErrors
		if errs[0] != nil || !errors.As(errs[1], &fields) || fields["title"] == "" {
			t.Errorf("prepared %v: errs = %v, want the second refused for its title", prepared, errs)
		}
		if _, err := st.GetPostmortem(ctx, valid.Slug); err != nil {
			t.Errorf("prepared %v: the valid one: %v", prepared, err)
		}
	}
}
