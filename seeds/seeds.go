package seeds

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"hindsight/importer"
	"hindsight/library"
	"hindsight/store"
)

// entry is one seed document's curated metadata in manifest.json.
type entry struct {
	File            string `json:"file"`
	Slug            string `json:"slug"`
	Title           string `json:"title"`
	Organization    string `json:"organization"`
	IncidentDate    string `json:"incident_date"`
	PublishedDate   string `json:"published_date"`
	DurationMinutes int    `json:"duration_minutes"`
	Severity        string `json:"severity"`
	Language        string `json:"language"`
	VariantKind     string `json:"variant_kind"`
	VariantOf       string `json:"variant_of"`
	SourceURL       string `json:"source_url"`
	Summary         string `json:"summary"`
	// Patterns are the seed's tags, each with the sentence of the document
	// that supports it (reviewed against classify/testdata/corpus/README.md:
	// a tag the text cannot defend is not kept).
	Patterns []struct {
		Slug     string `json:"slug"`
		Role     string `json:"role"`
		Evidence string `json:"evidence"`
	} `json:"patterns"`
	ActionItems []struct {
		Title    string `json:"title"`
		Kind     string `json:"kind"`
		Priority string `json:"priority"`
		Status   string `json:"status"`
	} `json:"action_items"`
}

// Report says what Load did.
type Report struct {
	PatternsAdded    int
	PostmortemsAdded int
	TagsRevised      int // seeds of an earlier version given the reviewed tags
}

// Load puts the catalogue and the seed postmortems, marked as examples,
// into st. It only adds what is missing, so running it on every start is
// safe: a seed that a user has since edited or archived is left as it is.
func Load(ctx context.Context, st *store.Store) (Report, error) {
	r, err := LoadCatalogue(ctx, st)
	if err != nil {
		return r, err
	}
	entries, err := manifest()
	if err != nil {
		return r, err
	}
	lib := library.New(st)
	// A seed restricted to some groups (by an export imported here) is
	// still there.
	ctx = store.WithEveryGroup(ctx)
	for _, e := range entries {
		cur, err := st.GetPostmortem(ctx, e.Slug)
		if err == nil {
			raw, err := FS.ReadFile("documents/" + e.File)
			if err != nil {
				return r, fmt.Errorf("seed %s: %w", e.File, err)
			}
			if cur.SourceText != string(raw) {
				continue // not loaded from the seed: imported (from an export) or written here
			}
			// Loaded before examples were marked: it is one.
			if _, err := st.MarkExample(ctx, e.Slug); err != nil {
				return r, err
			}
			// Seeded by an earlier version and never edited since: it takes
			// the reviewed tags, each citing its sentence.
			revised, err := st.ReviseCuratedTags(ctx, e.Slug, e.tags(), "The curated tags were reviewed: each cites the sentence that shows it.")
			if err != nil {
				return r, fmt.Errorf("seed %s: %w", e.File, err)
			}
			if revised {
				r.TagsRevised++
			}
			continue
		}
		if !errors.Is(err, store.ErrNotFound) {
			return r, err
		}
		p, err := e.postmortem()
		if err != nil {
			return r, err
		}
		err = lib.ImportPostmortem(ctx, &p)
		var dup *store.DuplicateError
		if errors.As(err, &dup) {
			continue // its text was imported (server import) under another slug
		}
		if err != nil {
			return r, fmt.Errorf("seed %s: %w", e.File, err)
		}
		r.PostmortemsAdded++
	}
	return r, nil
}

// LoadCatalogue puts the pattern catalogue into st, adding only what is
// missing, and none of the seed postmortems: server import loads only it,
// so that an export's own copies of the seeds are what a new database
// gets.
func LoadCatalogue(ctx context.Context, st *store.Store) (Report, error) {
	var r Report
	fams, pats, err := Catalogue()
	if err != nil {
		return r, err
	}
	if r.PatternsAdded, err = st.LoadCatalogue(ctx, fams, pats); err != nil {
		return r, err
	}
	qs, err := ReviewQuestions()
	if err != nil {
		return r, err
	}
	return r, st.LoadReviewQuestions(ctx, qs)
}

// ReviewQuestions reads review-questions.md: each pattern's review
// questions, by slug.
func ReviewQuestions() (map[string][]string, error) {
	src, err := FS.ReadFile("review-questions.md")
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	slug := ""
	for line := range strings.SplitSeq(string(src), "\n") {
		switch {
		case strings.HasPrefix(line, "## "):
			slug = strings.TrimSpace(strings.TrimPrefix(line, "## "))
		case strings.HasPrefix(line, "- ") && slug != "":
			out[slug] = append(out[slug], strings.TrimSpace(strings.TrimPrefix(line, "- ")))
		}
	}
	return out, nil
}

func manifest() ([]entry, error) {
	src, err := FS.ReadFile("manifest.json")
	if err != nil {
		return nil, err
	}
	var entries []entry
	if err := json.Unmarshal(src, &entries); err != nil {
		return nil, fmt.Errorf("seeds manifest: %w", err)
	}
	return entries, nil
}

// postmortem reads the seed document through the import path (the same
// cleaner and conversion as any imported file) and lays the curated
// metadata over what the cleaner guessed.
func (e entry) postmortem() (store.Postmortem, error) {
	raw, err := FS.ReadFile("documents/" + e.File)
	if err != nil {
		return store.Postmortem{}, fmt.Errorf("seed %s: %w", e.File, err)
	}
	_, p, err := importer.Read(raw, e.File)
	if err != nil {
		return store.Postmortem{}, fmt.Errorf("seed %s: %w", e.File, err)
	}
	p.Slug = e.Slug
	p.Title = e.Title
	p.Organization = e.Organization
	p.IncidentDate = e.IncidentDate
	p.PublishedDate = e.PublishedDate
	p.DurationMinutes = e.DurationMinutes
	p.Severity = e.Severity
	p.Language = e.Language
	p.VariantKind = e.VariantKind
	p.VariantOf = e.VariantOf
	p.SourceURL = e.SourceURL
	p.Summary = e.Summary
	p.Tags = e.tags()
	p.Example = true
	for _, a := range e.ActionItems {
		p.ActionItems = append(p.ActionItems, store.ActionItem{Title: a.Title, Kind: a.Kind, Priority: a.Priority, Status: a.Status})
	}
	return p, nil
}

// tags are the seed's curated tags with their evidence.
func (e entry) tags() []store.Tag {
	var out []store.Tag
	for _, t := range e.Patterns {
		out = append(out, store.Tag{PatternSlug: t.Slug, Role: t.Role, Evidence: t.Evidence})
	}
	return out
}
