package library_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"hindsight/library"
	"hindsight/postmortem"
	"hindsight/search"
	"hindsight/store"
)

// certOutage is an imported write-up nobody tagged: the classifier finds
// certificate expiry in it.
func certOutage(title string) *store.Postmortem {
	return &store.Postmortem{
		Content: postmortem.Content{
			Title:        title,
			Organization: "Example Corp",
			IncidentDate: "2024-03-01",
			Summary:      "Every API call failed for two hours because the TLS certificate of the API gateway expired.",
			Body: "At 00:00 UTC the TLS certificate of the API gateway expired. Clients failed the TLS handshake and " +
				"every request was refused with a certificate error. Mobile clients kept retrying without backoff, and the " +
				"retry storm overloaded the gateway even after the fix. Nobody was paged because the expiry alert had been " +
				"disabled. We renewed the certificate at 02:00 and service was restored. We will automate certificate renewal.",
		},
		SourceText: "imported text of " + title,
	}
}

// importedCertOutage is a seeded store with the certificate outage
// imported (and so suggested tags), and the outage as read back.
func importedCertOutage(t *testing.T) (*store.Store, store.Postmortem) {
	t.Helper()
	st, _ := newSeededStore(t)
	p := certOutage("Gateway certificate outage")
	if err := library.New(st).ImportPostmortem(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	got, err := st.GetPostmortem(t.Context(), p.Slug)
	if err != nil {
		t.Fatal(err)
	}
	return st, got
}

func suggestedSlugs(ts []store.SuggestedTag) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.PatternSlug)
	}
	return out
}

func TestImportStoresSuggestedTags(t *testing.T) {
	t.Parallel()
	st, got := importedCertOutage(t)
	ctx := t.Context()
	if len(got.Tags) != 0 {
		t.Errorf("tags = %v, want none: suggestions are not tags", got.Tags)
	}
	if !slices.Contains(suggestedSlugs(got.Suggested), "certificate-expiry") {
		t.Fatalf("suggested = %v, want certificate-expiry", suggestedSlugs(got.Suggested))
	}
	for _, s := range got.Suggested {
		if s.Status != postmortem.SuggestionPending || s.Confidence <= 0 || s.Confidence > 1 || s.Reason == "" || s.Evidence == "" || s.PatternName == "" {
			t.Errorf("suggestion %+v: want pending, a confidence in (0, 1], a reason, evidence and a name", s)
		}
	}

	// Postmortems that come tagged keep their authors' tags alone.
	tagged := certOutage("Tagged certificate outage")
	tagged.Tags = []store.Tag{{PatternSlug: "certificate-expiry", Role: postmortem.RoleTrigger}}
	if err := library.New(st).ImportPostmortem(ctx, tagged); err != nil {
		t.Fatal(err)
	}
	if got, err := st.GetPostmortem(ctx, tagged.Slug); err != nil || len(got.Suggested) != 0 {
		t.Errorf("tagged import: suggested %v (err %v), want none", suggestedSlugs(got.Suggested), err)
	}

	// A batch import (server import DIR) suggests the same way.
	batch := []*store.Postmortem{certOutage("Batch certificate outage")}
	errs, err := library.New(st).ImportPostmortems(ctx, batch)
	if err != nil || errs[0] != nil {
		t.Fatalf("batch import: %v %v", err, errs)
	}
	if got, err := st.GetPostmortem(ctx, batch[0].Slug); err != nil || !slices.Contains(suggestedSlugs(got.Suggested), "certificate-expiry") {
		t.Errorf("batch import: suggested %v (err %v), want certificate-expiry", suggestedSlugs(got.Suggested), err)
	}

	queue, total, err := st.ReviewQueue(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	var slugs []string
	for _, it := range queue {
		slugs = append(slugs, it.Slug)
		if len(it.Suggestions) == 0 {
			t.Errorf("queue item %s has no suggestions", it.Slug)
		}
	}
	if total != 2 || !slices.Equal(slugs, []string{got.Slug, batch[0].Slug}) {
		t.Errorf("review queue = %v (total %d), want %s then %s", slugs, total, got.Slug, batch[0].Slug)
	}

	refs, n, err := st.PatternSuggestions(ctx, "certificate-expiry", 10)
	if err != nil || n != 2 || len(refs) != 2 {
		t.Errorf("PatternSuggestions = %v, %d, %v; want the two untagged imports", refs, n, err)
	}
	// Pattern counts and lists stay the confirmed tags'.
	confirmed, counts, err := st.PatternPostmortems(ctx, "certificate-expiry", 10)
	if err != nil || len(confirmed) != 1 || counts[postmortem.RoleTrigger] != 1 {
		t.Errorf("PatternPostmortems = %v, %v, %v; want only the tagged import", confirmed, counts, err)
	}

	// Search finds a postmortem through its suggestions, below a tagged one.
	res, err := library.New(st).Search(ctx, library.SearchParams{Query: search.Parse("certificate expiry")})
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, h := range res.Hits {
		found = append(found, h.Slug)
	}
	if !slices.Contains(found, got.Slug) || len(found) == 0 || found[0] != tagged.Slug {
		t.Errorf("search hits = %v, want %s first and %s among them", found, tagged.Slug, got.Slug)
	}
}

func TestConfirmAndDismissSuggestedTags(t *testing.T) {
	t.Parallel()
	st, before := importedCertOutage(t)
	ctx := t.Context()
	if len(before.Suggested) < 2 {
		t.Fatalf("suggested %v, want two patterns to review", suggestedSlugs(before.Suggested))
	}
	confirm := before.Suggested[0]

	t.Run("Confirm", func(t *testing.T) {
		if err := st.ConfirmSuggestedTag(ctx, before.Slug, confirm.PatternSlug, "Ana"); err != nil {
			t.Fatal(err)
		}
		after, err := st.GetPostmortem(ctx, before.Slug)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(after.Tags, func(tg store.Tag) bool { return tg.PatternSlug == confirm.PatternSlug && tg.Role == confirm.Role }) {
			t.Errorf("tags = %v, want %s as %s", after.Tags, confirm.PatternSlug, confirm.Role)
		}
		if slices.Contains(suggestedSlugs(after.Suggested), confirm.PatternSlug) {
			t.Errorf("%s still suggested after confirming", confirm.PatternSlug)
		}
		if after.Version != before.Version+1 {
			t.Errorf("version %d, want %d: a confirmation is a save", after.Version, before.Version+1)
		}
		revs, err := st.ListRevisions(ctx, after.ID)
		if err != nil || len(revs) == 0 || revs[0].Author != "Ana" || !strings.Contains(revs[0].Note, "Confirmed") {
			t.Errorf("latest revision %+v (err %v), want Ana's confirmation", revs, err)
		}
	})
	t.Run("ConfirmTwice", func(t *testing.T) {
		if err := st.ConfirmSuggestedTag(ctx, before.Slug, confirm.PatternSlug, "Ana"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("second confirm: %v, want ErrNotFound", err)
		}
	})
	t.Run("Dismiss", func(t *testing.T) {
		cur, err := st.GetPostmortem(ctx, before.Slug)
		if err != nil {
			t.Fatal(err)
		}
		if len(cur.Suggested) == 0 {
			t.Fatal("nothing left to dismiss")
		}
		d := cur.Suggested[0]
		if err := st.DismissSuggestedTag(ctx, before.Slug, d.PatternSlug, "Ana"); err != nil {
			t.Fatal(err)
		}
		after, err := st.GetPostmortem(ctx, before.Slug)
		if err != nil {
			t.Fatal(err)
		}
		if slices.Contains(suggestedSlugs(after.Suggested), d.PatternSlug) || slices.ContainsFunc(after.Tags, func(tg store.Tag) bool { return tg.PatternSlug == d.PatternSlug }) {
			t.Errorf("dismissed %s: still suggested or tagged", d.PatternSlug)
		}
		rej, err := st.ListRejections(ctx, d.PatternSlug, 10)
		if err != nil || len(rej) == 0 || rej[0].PostmortemSlug != before.Slug {
			t.Errorf("rejections of %s = %+v (err %v), want the dismissal recorded", d.PatternSlug, rej, err)
		}
	})
	t.Run("UnknownPostmortem", func(t *testing.T) {
		if err := st.DismissSuggestedTag(ctx, "no-such-postmortem", "retry-storm", "Ana"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("dismiss on a missing postmortem: %v, want ErrNotFound", err)
		}
		if err := st.ConfirmSuggestedTag(ctx, "no-such-postmortem", "retry-storm", "Ana"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("confirm on a missing postmortem: %v, want ErrNotFound", err)
		}
	})
}
