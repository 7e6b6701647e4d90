package handlers

import (
	"net/http"
	"slices"
	"strings"

	"hindsight/classify"
	"hindsight/handlers/formfield"
	"hindsight/library"
	"hindsight/markdown"
	"hindsight/postmortem"
	"hindsight/store"
)

// The form's "Suggest patterns" step. Every control in it is a submit
// button of the postmortem form, so it works without JavaScript: the form
// comes back (200, nothing saved) with the suggestions, their evidence
// highlighted, and whatever the writer accepted ticked in the pattern list.
// A rejection is recorded so the phrases behind it can be tuned, and is
// carried in the form so the suggestion stays away; on a saved postmortem
// it also stays away on later edits, until the sentences that showed it
// change (library.StillRejected).

// suggestionsView is the suggestion panel of the form.
type suggestionsView struct {
	Patterns []suggestionView
	Similar  []similarView
	Rejected []string // pattern slugs, carried as hidden fields
}

type suggestionView struct {
	Slug, Name, Role, RoleLabel string
	Percent                     int // calibrated confidence
	Reason                      string
	Evidence                    [][]textPart
	Accepted                    bool
	// AcceptedAs is the role it was accepted in (the writer may choose
	// another than the suggested one); OtherRoles are those they may.
	AcceptedAs string
	OtherRoles []option
}

// textPart is a piece of an evidence sentence; Mark pieces are the matched
// phrases. The template marks them up, so no HTML is built here.
type textPart struct {
	Text string
	Mark bool
}

type similarView struct {
	store.Similar
	Percent int
	Linked  bool
}

// acceptInForm ticks the suggested pattern accept ("pattern:role").
func acceptInForm(page *postmortemFormPage, accept string) {
	slug, role, _ := strings.Cut(accept, ":")
	if knownPatterns(page.Families)[slug] && postmortem.ValidRole(role) {
		page.Form.Tags[accept] = true
	}
}

// linkInForm makes the form a variant as link ("slug:kind") says, when it
// may join a group.
func linkInForm(page *postmortemFormPage, link string) {
	slug, kind, _ := strings.Cut(link, ":")
	if page.CanJoinVariant && (kind == postmortem.KindRewrite || kind == postmortem.KindTranslation) {
		page.Form.VariantOf, page.Form.VariantKind = slug, kind
	}
}

// suggestInForm fills the suggestion panel from the form's text, after
// recording the rejection of the pattern rej when it is one not rejected
// yet. The patterns rejected before are carried in the form (rejected).
func (h *Handler) suggestInForm(r *http.Request, page *postmortemFormPage, rej string) error {
	f := &page.Form
	known := knownPatterns(page.Families)
	rejected := map[string]bool{}
	for _, slug := range r.PostForm["rejected"] {
		if known[slug] {
			rejected[slug] = true
		}
	}
	sugs, err := h.suggest(r, formDocument(page))
	if err != nil {
		return err
	}
	if page.Editing {
		// Rejected on an earlier edit, and shown by the same sentences.
		before, err := h.store.RejectedEvidence(r.Context(), page.Postmortem.Slug)
		if err != nil {
			return err
		}
		for _, s := range sugs {
			if known[s.Slug] && s.Slug != rej && library.StillRejected(before, s) {
				rejected[s.Slug] = true
			}
		}
	}
	if known[rej] && !rejected[rej] {
		rejection := store.Rejection{Title: f.Title, PatternSlug: rej}
		switch {
		case page.Editing:
			rejection.PostmortemSlug = page.Postmortem.Slug
		case h.proxyMode():
			// A draft to be restricted is listed only to its groups.
			rejection.RestrictedTo = postmortem.ParseRestriction(f.RestrictedTo)
		}
		for _, s := range sugs {
			if s.Slug == rej {
				rejection.Score = s.Score
				for _, e := range s.Evidence {
					rejection.Phrases = append(rejection.Phrases, e.Phrases...)
				}
				rejection.Evidence = library.EvidenceSentences(s)
			}
		}
		if err := h.store.RecordRejection(r.Context(), rejection); err != nil {
			return err
		}
		rejected[rej] = true
	}
	view := &suggestionsView{Patterns: []suggestionView{}}
	for _, s := range classify.Shown(sugs) {
		if rejected[s.Slug] {
			continue
		}
		sv := suggestionView{Slug: s.Slug, Name: h.patternNames[s.Slug], Role: s.Role, RoleLabel: postmortem.RoleLabel(s.Role),
			Percent: int(s.Confidence*100 + 0.5), Reason: s.Reason}
		for _, role := range postmortem.RoleChoices {
			switch {
			case f.HasTag(s.Slug, role.Value):
				sv.Accepted, sv.AcceptedAs = true, role.Label
			case role.Value != s.Role:
				sv.OtherRoles = append(sv.OtherRoles, role)
			}
		}
		for _, e := range s.Evidence {
			sv.Evidence = append(sv.Evidence, highlight(readerEvidence(e)))
		}
		view.Patterns = append(view.Patterns, sv)
	}
	for slug := range rejected {
		view.Rejected = append(view.Rejected, slug)
	}
	slices.Sort(view.Rejected)
	q := library.SimilarQuery{Text: formText(f), Language: f.Language, Organization: f.Organization, IncidentDate: f.IncidentDate}
	if page.Editing {
		q.Exclude = page.Postmortem.Slug
	}
	sims, err := h.lib.FindSimilar(r.Context(), q)
	if err != nil {
		return err
	}
	for _, s := range sims {
		view.Similar = append(view.Similar, similarView{Similar: s, Percent: int(s.Score*100 + 0.5), Linked: f.VariantOf == s.Slug})
	}
	page.Suggestions = view
	page.Form.Errors = formfield.Errors{} // nothing is being saved: no field is wrong yet
	return nil
}

// formText is the write-up as variant detection reads it: every section,
// without the title, as the store fingerprints saved postmortems.
func formText(f *postmortemForm) string {
	var parts []string
	texts := []string{f.Summary, f.Body}
	for _, sec := range postmortem.SectionList {
		texts = append(texts, *sec.Of(&f.sections))
	}
	for _, s := range texts {
		if strings.TrimSpace(s) != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "\n\n")
}

// formDocument is the form as the classifier reads it; the action items of
// a postmortem being edited are read as lessons.
func formDocument(page *postmortemFormPage) classify.Document {
	doc := classify.Document{Title: page.Form.Title, Body: formText(&page.Form)}
	if page.Editing {
		var items []string
		for _, a := range page.Postmortem.ActionItems {
			items = append(items, a.Title)
		}
		doc.ActionItems = strings.Join(items, "\n")
	}
	return doc
}

// readerEvidence is an evidence sentence as a reader sees it: the
// classifier reads the Markdown as written (**, links' targets, list
// marks), the page shows it rendered to text, its phrases marked again
// where they are found in it, in order.
func readerEvidence(e classify.Evidence) classify.Evidence {
	out := classify.Evidence{Sentence: markdown.Text(e.Sentence), Phrases: e.Phrases}
	at := 0
	for _, h := range e.Highlights {
		phrase := markdown.Text(e.Sentence[h.Start:h.End])
		i := strings.Index(out.Sentence[at:], phrase)
		if phrase == "" || i < 0 {
			continue
		}
		out.Highlights = append(out.Highlights, classify.Span{Start: at + i, End: at + i + len(phrase)})
		at += i + len(phrase)
	}
	return out
}

// highlight cuts an evidence sentence at its matched phrases.
func highlight(e classify.Evidence) []textPart {
	var out []textPart
	at := 0
	for _, h := range e.Highlights {
		if h.Start > at {
			out = append(out, textPart{Text: e.Sentence[at:h.Start]})
		}
		out = append(out, textPart{Text: e.Sentence[h.Start:h.End], Mark: true})
		at = h.End
	}
	if at < len(e.Sentence) {
		out = append(out, textPart{Text: e.Sentence[at:]})
	}
	return out
}
