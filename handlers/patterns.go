package handlers

import (
	"net/http"
	"regexp"

	"hindsight/markdown"
	"hindsight/postmortem"
	"hindsight/store"
)

type patternsPage struct {
	basePage
	Families []store.Family
}

func (h *Handler) listPatterns(w http.ResponseWriter, r *http.Request) {
	fams, err := h.store.ListFamilies(r.Context())
	if err != nil {
		h.error(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, "patterns", patternsPage{
		basePage: h.base(r, "Failure patterns", "The catalogue of failure patterns, by family, with the number of incidents that show each."),
		Families: fams,
	})
}

// roleGroup is the postmortems in which a pattern played one role: the
// most recent ones, and how many there are in all.
type roleGroup struct {
	Role        string
	Postmortems []store.PostmortemRef
	Total       int
}

// patternPageRefs is how many incidents a pattern page lists per role; the
// filtered list has them all, page by page.
const patternPageRefs = store.PatternPageRefs

// patternPageAllSuggested bounds the suggestions a pattern page lists with
// ?suggested=all, the link under the ten most confident.
const patternPageAllSuggested = 1000

type patternPage struct {
	basePage
	Pattern store.Pattern
	Related []store.Pattern
	During  []store.ChecklistItem
	After   []store.ChecklistItem
	ByRole  []roleGroup
	// Rejections are the latest suggestions of the pattern that writers
	// turned down, beside its detection phrases: what to tune them by.
	Rejections []store.Rejection
	// Suggested are postmortems the classifier suggested the pattern for,
	// not yet reviewed: counted apart from the tagged ones.
	Suggested      []store.PostmortemRef
	SuggestedTotal int
	// ReviewQuestions are what reviews of its postmortems ask.
	ReviewQuestions []store.PatternQuestion
	// AllSuggested is set when the page lists every suggestion
	// (?suggested=all), not the most confident.
	AllSuggested bool
}

// patternPageRejections is how many rejected suggestions a pattern page shows.
const patternPageRejections = 20

func (h *Handler) showPattern(w http.ResponseWriter, r *http.Request) {
	p, err := h.store.GetPattern(r.Context(), r.PathValue("slug"))
	if err != nil {
		h.error(w, r, err)
		return
	}
	refs, counts, err := h.store.PatternPostmortems(r.Context(), p.Slug, patternPageRefs)
	if err != nil {
		h.error(w, r, err)
		return
	}
	all, err := h.store.PatternCatalogue(r.Context())
	if err != nil {
		h.error(w, r, err)
		return
	}
	rejections, err := h.store.ListRejections(r.Context(), p.Slug, patternPageRejections)
	if err != nil {
		h.error(w, r, err)
		return
	}
	allSuggested := r.URL.Query().Get("suggested") == "all"
	limit := patternPageRefs
	if allSuggested {
		limit = patternPageAllSuggested
	}
	suggested, suggestedTotal, err := h.store.PatternSuggestions(r.Context(), p.Slug, limit)
	if err != nil {
		h.error(w, r, err)
		return
	}
	page := patternPage{basePage: h.base(r, p.Name, markdown.Text(p.Definition)), Pattern: p, Rejections: rejections,
		Suggested: suggested, SuggestedTotal: suggestedTotal, AllSuggested: allSuggested}
	page.Pattern.Related = nameSlugs(p.Related, all)
	page.Feeds = append(page.Feeds, feedLink{"Postmortems showing " + p.Name, "/patterns/" + p.Slug + "/feed.atom"})
	for _, rel := range p.RelatedTo {
		for _, q := range all {
			if q.Slug == rel {
				page.Related = append(page.Related, q)
			}
		}
	}
	for _, it := range p.Checklist {
		if it.Phase == store.PhaseDuring {
			page.During = append(page.During, it)
		} else {
			page.After = append(page.After, it)
		}
	}
	for _, role := range postmortem.Roles {
		g := roleGroup{Role: role, Total: counts[role]}
		for _, ref := range refs {
			if ref.Role == role {
				g.Postmortems = append(g.Postmortems, ref)
			}
		}
		if len(g.Postmortems) > 0 {
			page.ByRole = append(page.ByRole, g)
		}
	}
	if page.ReviewQuestions, err = h.store.PatternReviewQuestions(r.Context(), p.Slug, false); err != nil {
		h.error(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, "pattern", page)
}

type homePage struct {
	basePage
	Recent    []store.Postmortem
	Families  []store.Family
	Incidents int
	Documents int
	// Examples counts the live example postmortems: an admin may archive
	// them all at once.
	Examples int
}

func (h *Handler) showHome(w http.ResponseWriter, r *http.Request) {
	recent, _, err := h.store.ListPostmortems(r.Context(), store.PostmortemFilter{Limit: 6})
	if err != nil {
		h.error(w, r, err)
		return
	}
	h.review.annotateReview(recent, h.now())
	fams, err := h.store.ListFamilies(r.Context())
	if err != nil {
		h.error(w, r, err)
		return
	}
	incidents, documents, err := h.store.CountPostmortems(r.Context())
	if err != nil {
		h.error(w, r, err)
		return
	}
	examples, err := h.store.CountExamples(r.Context())
	if err != nil {
		h.error(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, "home", homePage{
		Examples:  examples,
		basePage:  h.base(r, "Hindsight", "An incident postmortem knowledge base: postmortems tagged by failure pattern and linked to remediation checklists."),
		Recent:    recent,
		Families:  fams,
		Incidents: incidents,
		Documents: documents,
	})
}

// nameSlugs writes the catalogue's pattern slugs in a text as links named
// after their pattern ("retry-storm" becomes "[Retry storm](/patterns/retry-storm)"),
// so prose never shows a raw slug. Only whole words are replaced.
func nameSlugs(text string, pats []store.Pattern) string {
	if text == "" {
		return text
	}
	names := map[string]string{}
	for _, q := range pats {
		names[q.Slug] = q.Name
	}
	return slugWord.ReplaceAllStringFunc(text, func(w string) string {
		if name, ok := names[w]; ok {
			return "[" + name + "](/patterns/" + w + ")"
		}
		return w
	})
}

// slugWord matches a word that may be a pattern slug: lower-case words
// joined by hyphens, not inside a link or a longer word.
var slugWord = regexp.MustCompile(`[a-z0-9]+(?:-[a-z0-9]+)+`)
