package handlers

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"hindsight/classify"
	"hindsight/library"
	"hindsight/postmortem"
	"hindsight/search"
	"hindsight/store"
	"hindsight/textnorm"
)

// "Have we seen this?" (/triage, POST /api/triage): during an incident, the
// alert or the symptoms pasted in one box are read by the classifier for
// the failure patterns they look like, each with its remediation
// checklist, and looked up in the collection for past incidents of those
// patterns or with those words, each with how it was resolved. Nothing is
// stored; the reader sees only postmortems they may read, since every
// lookup goes through the store with the reader's context.

// maxTriageBytes bounds the pasted text: an alert, a few log lines and
// what the responder sees, not a whole log. Reading it is linear (the
// classifier), and the search reads a few words of it.
const maxTriageBytes = 32 << 10

// maxTriageBody bounds the JSON that carries the text: escapes may make
// each byte of text up to six bytes of JSON ("\u0001").
const maxTriageBody = 6 * maxTriageBytes

// The search for the text looks for what names the symptom: the phrases
// the classifier matched (the catalogue's detection phrases, which few
// incidents share), at most triageQueryTerms of them, the longest first;
// or, when it matched none, the text's first triageQueryWords words. Every
// word more that an incident may have instead of all of them is one more
// posting list ranked at 100,000 postmortems, so both are few.
const (
	triageQueryTerms = 3
	triageQueryWords = 5
)

// triageSearchHits is how many search results are weighed,
// triagePostmortems how many past incidents are shown, and
// triageCandidates how many of the best are read to show them (two
// versions of one incident, or one archived since, are seldom among them).
const (
	triageSearchHits  = 20
	triagePostmortems = 10
	triageCandidates  = 2 * triagePostmortems
)

// triageExcerptBytes is how much of a resolution (and of a summary) is
// quoted: a few lines to judge whether the fix applies, then the link.
const triageExcerptBytes = 400

var (
	errTriageEmpty   = errors.New("there is no text to read: paste the alert or describe the symptoms")
	errTriageTooLong = fmt.Errorf("the text is longer than %d KiB (%d bytes): paste the alert and the symptoms, not the whole log", maxTriageBytes>>10, maxTriageBytes)
)

type (
	triageEvidence struct {
		Sentence string   `json:"sentence"`
		Phrases  []string `json:"phrases"`
	}
	triageChecklistItem struct {
		Text  string `json:"text"` // Markdown
		Phase string `json:"phase"`
	}
	triagePattern struct {
		Slug       string  `json:"slug"`
		Name       string  `json:"name"`
		URL        string  `json:"url"`
		Confidence float64 `json:"confidence"`
		// Why names the phrases of the text that matched, in the sentence
		// they were found in; Evidence lists every such sentence.
		Why       string                `json:"why"`
		Evidence  []triageEvidence      `json:"evidence"`
		Checklist []triageChecklistItem `json:"checklist"`
	}
	triageResolution struct {
		Heading string `json:"heading"`
		Excerpt string `json:"excerpt"` // plain text, cut at a word
		URL     string `json:"url"`     // the section on the postmortem's page
	}
	triagePostmortem struct {
		Slug         string `json:"slug"`
		Title        string `json:"title"`
		URL          string `json:"url"`
		Organization string `json:"organization"`
		IncidentDate string `json:"incident_date"`
		Severity     string `json:"severity,omitempty"`
		Summary      string `json:"summary"`
		// Why says what found it: the matched patterns it is tagged with,
		// and whether it has the words of the text.
		Why        string            `json:"why"`
		Patterns   []apiTag          `json:"patterns"`
		TextMatch  bool              `json:"text_match"`
		Resolution *triageResolution `json:"resolution"`
	}
	triageResult struct {
		Patterns    []triagePattern    `json:"patterns"`
		Postmortems []triagePostmortem `json:"postmortems"`
		// SearchURL is the search the text was looked up with, to see
		// every incident it finds.
		SearchURL string `json:"search_url"`
	}
)

// triagePage is /triage: the box, and once text is sent, what it looks like.
type triagePage struct {
	basePage
	Text   string
	Error  string
	Asked  bool
	Result triageResult
}

func (h *Handler) showTriage(w http.ResponseWriter, r *http.Request) {
	h.render(w, r, http.StatusOK, "triage", triagePage{basePage: h.triageBase(r)})
}

func (h *Handler) triageBase(r *http.Request) basePage {
	return h.base(r, "Have we seen this?", "Paste an alert or the symptoms of an incident: the failure patterns it looks like, their remediation checklists, and past incidents of that kind with how they were resolved.")
}

// runTriage answers the form: the same page with the results, or with
// the problem beside the box and the text kept.
func (h *Handler) runTriage(w http.ResponseWriter, r *http.Request) {
	page := triagePage{basePage: h.triageBase(r), Text: r.PostFormValue("text")}
	res, err := h.triage(r, page.Text)
	switch {
	case errors.Is(err, errTriageEmpty):
		page.Error = "There is no text to read: paste the alert or describe the symptoms."
		h.render(w, r, http.StatusBadRequest, "triage", page)
		return
	case errors.Is(err, errTriageTooLong):
		page.Error = "The text is longer than 32 KiB: paste the alert and the symptoms, not the whole log."
		h.render(w, r, http.StatusRequestEntityTooLarge, "triage", page)
		return
	case err != nil:
		h.error(w, r, err)
		return
	}
	page.Asked, page.Result = true, res
	h.render(w, r, http.StatusOK, "triage", page)
}

// apiTriage is POST /api/triage: {"text": ...} in, the patterns and past
// incidents out. Bad input is a 400 or 413 with a message, never a 500.
func (h *Handler) apiTriage(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Text *string `json:"text"`
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxTriageBody))
	if err := dec.Decode(&req); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeJSON(w, http.StatusRequestEntityTooLarge, map[string]string{"error": errTriageTooLong.Error()})
			return
		}
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": `the request body must be a JSON object with "text", a string: ` + jsonProblem(err)})
		return
	}
	if req.Text == nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": `the request body must be a JSON object with "text", a string: "text" is missing`})
		return
	}
	res, err := h.triage(r, *req.Text)
	switch {
	case errors.Is(err, errTriageEmpty):
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": errTriageEmpty.Error()})
		return
	case errors.Is(err, errTriageTooLong):
		writeJSON(w, http.StatusRequestEntityTooLarge, map[string]string{"error": errTriageTooLong.Error()})
		return
	case err != nil:
		h.error(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

// triage reads text for patterns (the classifier) and past incidents (the
// patterns' tagged postmortems and the search), as r's reader sees them.
func (h *Handler) triage(r *http.Request, text string) (triageResult, error) {
	res := triageResult{Patterns: []triagePattern{}, Postmortems: []triagePostmortem{}}
	if len(text) > maxTriageBytes {
		return res, errTriageTooLong
	}
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, "\uFFFD")
	}
	if strings.TrimSpace(text) == "" {
		return res, errTriageEmpty
	}
	return h.triageCache.answers.Get(r.Context(), triageKey(r, text), func() (triageResult, error) { return h.readTriage(r, text) })
}

// readTriage answers text for r's reader: triage without the kept answers.
func (h *Handler) readTriage(r *http.Request, text string) (triageResult, error) {
	res := triageResult{Patterns: []triagePattern{}, Postmortems: []triagePostmortem{}}
	ctx := r.Context()
	sugs, err := h.suggest(r, classify.Document{Body: text})
	if err != nil {
		return res, err
	}
	shown := classify.Shown(sugs)
	slugs := make([]string, len(shown))
	for i, s := range shown {
		slugs[i] = s.Slug
	}
	checklists, err := h.store.Checklists(ctx, slugs)
	if err != nil {
		return res, err
	}
	var evidencePhrases []string
	for _, s := range shown {
		p := triagePattern{Slug: s.Slug, Name: h.patternNames[s.Slug], URL: "/patterns/" + s.Slug,
			Confidence: round2(s.Confidence), Why: s.Reason, Evidence: []triageEvidence{}, Checklist: []triageChecklistItem{}}
		for _, e := range s.Evidence {
			p.Evidence = append(p.Evidence, triageEvidence{Sentence: e.Sentence, Phrases: append([]string{}, e.Phrases...)})
			evidencePhrases = append(evidencePhrases, e.Phrases...)
		}
		for _, it := range checklists[s.Slug] {
			p.Checklist = append(p.Checklist, triageChecklistItem{Text: it.Text, Phase: it.Phase})
		}
		res.Patterns = append(res.Patterns, p)
	}

	// Candidates: the incidents tagged with each pattern (weighed by the
	// pattern's confidence, more as its trigger), and the search's hits
	// for the matched phrases or the text's first words (weighed by rank).
	type candidate struct {
		slug      string
		score     float64
		tags      []apiTag
		textMatch bool
		words     []string // the text's words its snippet shows
	}
	var cands []*candidate
	bySlug := map[string]*candidate{}
	add := func(slug string) *candidate {
		c := bySlug[slug]
		if c == nil {
			c = &candidate{slug: slug}
			bySlug[slug] = c
			cands = append(cands, c)
		}
		return c
	}
	for _, s := range shown {
		refs, _, err := h.store.PatternPostmortems(ctx, s.Slug, patternPageRefs)
		if err != nil {
			return res, err
		}
		for _, ref := range refs {
			c := add(ref.Slug)
			weight := s.Confidence
			if ref.Role == postmortem.RoleTrigger {
				weight *= 1.5
			}
			if !slices.ContainsFunc(c.tags, func(t apiTag) bool { return t.Slug == s.Slug }) {
				c.score += weight
			}
			c.tags = append(c.tags, apiTag{Slug: s.Slug, Role: ref.Role})
		}
	}
	q := search.Parse(triageQueryText(evidencePhrases, text))
	res.SearchURL = searchURL(q)
	if q.HasText() {
		found, err := h.runSearch(ctx, library.SearchParams{Query: q, Limit: triageSearchHits})
		if err != nil {
			return res, err
		}
		for i, hit := range found.Hits {
			var words, stems []string // "connection" and "connections" count once
			for _, f := range hit.Snippet {
				if !f.Match {
					continue // the text between the matches: folding it was a third of a request
				}
				w := strings.ToLower(strings.TrimSpace(f.Text))
				if stem := textnorm.Stem(hit.Language, textnorm.Fold(w)); w != "" && !slices.Contains(stems, stem) {
					words, stems = append(words, w), append(stems, stem)
				}
			}
			if found.AnyWords && len(words) < 2 && bySlug[hit.Slug] == nil {
				// It has some of the words, not all: one shared word
				// ("failing", "orders") is no sign of the same incident.
				continue
			}
			c := add(hit.Slug)
			c.textMatch, c.words = true, words
			c.score += 1 - float64(i)/float64(len(found.Hits))
		}
	}
	slices.SortStableFunc(cands, func(a, b *candidate) int { return cmp.Compare(b.score, a.score) })

	// The best few are read: versions of one incident and incidents
	// archived or restricted since they were kept are left out, and
	// reading every candidate (up to a hundred and seventy) cost three
	// quarters of a request.
	cands = cands[:min(len(cands), triageCandidates)]
	candSlugs := make([]string, len(cands))
	for i, c := range cands {
		candSlugs[i] = c.slug
	}
	briefs, err := h.store.PostmortemBriefs(ctx, candSlugs)
	if err != nil {
		return res, err
	}
	groups := map[int64]bool{}
	for _, c := range cands {
		if len(res.Postmortems) == triagePostmortems {
			break
		}
		p, ok := briefs[c.slug]
		if !ok || groups[p.GroupID] {
			continue // archived or restricted since it was listed; another version of one listed
		}
		groups[p.GroupID] = true
		tp := triagePostmortem{Slug: p.Slug, Title: p.Title, URL: "/postmortems/" + p.Slug, Organization: p.Organization,
			IncidentDate: p.IncidentDate, Severity: p.Severity, Summary: h.triageExcerpt(r, p.Slug, "summary", p.Summary),
			Patterns: append([]apiTag{}, c.tags...), TextMatch: c.textMatch}
		tp.Why = h.triageWhy(c.tags, c.words)
		if strings.TrimSpace(p.Resolution) != "" {
			tp.Resolution = &triageResolution{Heading: postmortem.Labels["resolution"],
				Excerpt: h.triageExcerpt(r, p.Slug, "resolution", p.Resolution), URL: tp.URL + "#section-resolution"}
		}
		res.Postmortems = append(res.Postmortems, tp)
	}
	return res, nil
}

// triageWhy says in words why an incident is listed: the patterns it is
// tagged with, and the words of the text it has (as its snippet shows
// them).
func (h *Handler) triageWhy(tags []apiTag, words []string) string {
	var why []string
	if len(tags) > 0 {
		parts := make([]string, len(tags))
		for i, t := range tags {
			parts[i] = h.patternNames[t.Slug] + " as " + strings.ToLower(postmortem.RoleLabel(t.Role))
		}
		why = append(why, "Tagged "+strings.Join(parts, ", "))
	}
	if len(words) > 0 {
		quoted := make([]string, len(words))
		for i, w := range words {
			quoted[i] = "“" + w + "”"
		}
		why = append(why, "mentions "+strings.Join(quoted, ", "))
	}
	if len(why) == 0 {
		return ""
	}
	out := strings.Join(why, "; ") + "."
	return strings.ToUpper(out[:1]) + out[1:]
}

// triageQueryText is the search for the text: the phrases the classifier
// matched, or the text's first words, as plain words and quoted phrases.
// Only letters and digits are kept, so nothing pasted is read as the query
// language (quotes, -exclusions, filters); words of fewer than three
// characters and bare numbers (times, counts) say little about which
// incident is meant.
func triageQueryText(phrases []string, text string) string {
	words := func(s string) []string {
		var out []string
		for w := range strings.FieldsFuncSeq(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
			if w = strings.ToLower(w); utf8.RuneCountInString(w) >= 3 && strings.IndexFunc(w, unicode.IsLetter) >= 0 {
				out = append(out, w)
			}
		}
		return out
	}
	var terms []string
	seen := map[string]bool{}
	longest := slices.Clone(phrases)
	slices.SortStableFunc(longest, func(a, b string) int { return cmp.Compare(len(words(b)), len(words(a))) })
	for _, ph := range longest {
		term := strings.Join(words(ph), " ")
		if len(terms) == triageQueryTerms || term == "" || seen[term] {
			continue
		}
		seen[term] = true
		if strings.Contains(term, " ") {
			term = `"` + term + `"`
		}
		terms = append(terms, term)
	}
	if len(terms) > 0 {
		return strings.Join(terms, " ")
	}
	for _, w := range words(text) {
		if len(terms) == triageQueryWords {
			break
		}
		if !seen[w] {
			seen[w] = true
			terms = append(terms, w)
		}
	}
	return strings.Join(terms, " ")
}

// During and After are the checklist's items by phase, as the page lists
// them.
func (p triagePattern) During() []triageChecklistItem { return p.phase(store.PhaseDuring) }
func (p triagePattern) After() []triageChecklistItem  { return p.phase(store.PhaseAfter) }

func (p triagePattern) phase(phase string) []triageChecklistItem {
	var out []triageChecklistItem
	for _, it := range p.Checklist {
		if it.Phase == phase {
			out = append(out, it)
		}
	}
	return out
}
