package ingest

import (
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"hindsight/postmortem"
)

// The fields of the SRE postmortem template that sections go into, named as
// the domain names them (postmortem.SectionList). Summary and action items
// are apart: they have fields of their own in the draft.
const (
	SectionImpact       = postmortem.SectionImpact
	SectionTrigger      = postmortem.SectionTrigger
	SectionContributing = postmortem.SectionContributing
	SectionDetection    = postmortem.SectionDetection
	SectionResolution   = postmortem.SectionResolution
	SectionTimeline     = postmortem.SectionTimeline
	SectionWentWell     = postmortem.SectionWentWell
	SectionWentWrong    = postmortem.SectionWentWrong
	SectionGotLucky     = postmortem.SectionGotLucky

	sectionSummary = "summary"
	sectionActions = "action_items"
	sectionAuthor  = "author_box" // cut from the text
	sectionSurvey  = "survey"     // a request for the reader's feedback: cut
	sectionReplies = "comments"   // set apart as reader comments
	sectionLessons = "lessons"    // a parent heading: its own text goes to went_wrong
	sectionBody    = "body"       // a heading that ends a section and stays in the body
	// sectionRemediation: its list items are action items, its prose the
	// resolution.
	sectionRemediation = "remediation"
	sectionRelated     = "related_posts" // a list of other posts: cut
	sectionNewsletter  = "newsletter"    // a newsletter box: cut
)

// sectionNames maps a heading, folded by headingKey, to the field its
// section goes into. English and Spanish, as SRE templates and real
// write-ups name them.
var sectionNames = func() map[string]string {
	m := map[string]string{}
	for field, names := range map[string][]string{
		sectionSummary: {"summary", "executive summary", "incident summary", "summary of the incident", "summary of incident",
			"overview", "incident overview", "issue summary", "tl;dr", "tldr", "tl dr", "abstract",
			"resumen", "resumen ejecutivo", "resumen del incidente", "sumario", "descripción general"},
		SectionImpact: {"impact", "customer impact", "user impact", "summary of impact", "impact summary", "business impact",
			"detailed description of impact", "impact and scope", "scope and impact", "who was affected",
			"impacto", "impacto en clientes", "impacto en los clientes", "impacto en los usuarios", "alcance e impacto"},
		SectionTrigger: {"root cause", "root causes", "root cause analysis", "trigger", "triggers", "cause", "causes",
			"what caused it", "what caused the incident", "root cause and trigger", "trigger and root cause",
			"causa raíz", "causa raiz", "causas raíz", "causa", "causas", "análisis de causa raíz", "desencadenante", "detonante"},
		SectionContributing: {"contributing factors", "contributing factor", "contributing causes", "factors",
			"factores contribuyentes", "factores que contribuyeron", "factores contribuyentes"},
		SectionDetection: {"detection", "how we detected it", "how it was detected", "how was it detected", "discovery",
			"detección", "deteccion", "cómo se detectó"},
		sectionRemediation: {"remediation", "remediations", "remediation and prevention", "remediation steps", "remediation plan"},
		SectionResolution: {"resolution", "mitigation", "mitigations", "resolution and recovery", "recovery",
			"mitigation and resolution", "resolution and mitigation", "workaround", "how we fixed it", "fix",
			"resolution and root cause",
			"resolución", "resolucion", "mitigación", "mitigacion", "solución", "solucion", "recuperación", "remediación"},
		SectionTimeline: {"timeline", "timeline of events", "incident timeline", "detailed timeline", "chronology",
			"sequence of events", "timeline (all times utc)", "cronología", "cronologia", "línea de tiempo", "linea de tiempo", "línea temporal"},
		SectionWentWell: {"what went well", "things that went well", "went well", "what worked",
			"lo que salió bien", "qué salió bien", "que salio bien", "lo que funcionó"},
		SectionWentWrong: {"what went wrong", "things that went wrong", "went wrong", "what didn't go well", "what did not go well",
			"what could have gone better", "lo que salió mal", "qué salió mal", "que salio mal"},
		SectionGotLucky: {"where we got lucky", "where we were lucky", "what we got lucky with", "lucky",
			"dónde tuvimos suerte", "donde tuvimos suerte", "en qué tuvimos suerte"},
		sectionLessons: {"lessons learned", "lessons learnt", "lessons", "learnings", "key learnings", "takeaways",
			"lecciones aprendidas", "aprendizajes", "lecciones"},
		sectionActions: {"action items", "action item", "actions", "next steps", "follow-up", "follow-ups", "follow up",
			"follow-up actions", "follow-up items", "corrective actions", "corrective and preventive actions",
			"preventive actions", "remediation items", "action plan", "todo", "to do",
			"what we're doing", "what we are doing", "what we're doing about it", "what we are doing about it",
			"what we're doing next", "what we will do", "what we'll do", "going forward",
			"moving forward", "preventing recurrence", "preventing this from happening again", "prevention",
			"how we're preventing this", "how we are preventing this", "improvements", "follow-up work", "our next steps",
			"what we're changing", "what we are changing", "what we're changing as a result",
			"acciones", "acciones correctivas", "acciones de seguimiento", "próximos pasos", "proximos pasos",
			"tareas", "tareas pendientes", "elementos de acción", "plan de acción"},
		sectionBody: {"feedback", "references", "appendix", "glossary", "background", "update", "updates",
			"what happened", "details", "detailed description", "incident details", "context", "further reading", "links",
			"antecedentes", "contexto", "detalles", "qué pasó", "referencias", "apéndice"},
		sectionSurvey: {"provide feedback", "give feedback", "send feedback", "share your feedback", "rate this article",
			"was this helpful", "was this page helpful", "danos tu opinión", "envíanos tus comentarios"},
		sectionAuthor: {"about the author", "about the authors", "about me", "sobre el autor", "acerca del autor", "written by", "meet the author"},
		sectionRelated: {"related posts", "related articles", "related", "related reading", "you might also like", "you may also like",
			"more from the blog", "more from our blog", "read next", "recommended", "recommended posts", "recent posts",
			"more posts", "popular posts", "keep reading", "artículos relacionados", "entradas relacionadas"},
		sectionNewsletter: {"subscribe to our newsletter", "subscribe to the newsletter", "newsletter", "sign up for our newsletter",
			"get the newsletter", "stay in the loop", "stay up to date", "subscribe", "join our newsletter", "suscríbete"},
		sectionReplies: {"comments", "reader comments", "leave a comment", "leave a reply", "join the discussion",
			"responses", "discussion", "comentarios", "deja un comentario"},
	} {
		for _, n := range names {
			m[n] = field
		}
	}
	return m
}()

var (
	atxHeadingRe = regexp.MustCompile(`^(#{1,6})\s+(.+?)\s*#*\s*$`)
	// A heading numbered as in many templates: "1. Summary", "2) Impact", "IV. Timeline".
	headingNumberRe = regexp.MustCompile(`^(?:\d{1,2}(?:\.\d{1,2})*[.)]?|[ivx]{1,4}[.)])\s+`)
	// A count before a comments heading: "3 comments", "12 Responses".
	headingCountRe = regexp.MustCompile(`^\d{1,5}\s+`)
)

// atxHeading is atxHeadingRe's submatches in line, or nil. Every match
// starts with "#": other lines are not searched.
func atxHeading(line string) []string {
	if !strings.HasPrefix(line, "#") {
		return nil
	}
	return atxHeadingRe.FindStringSubmatch(line)
}

// headingKey folds a heading for the lookup in sectionNames: lower case,
// without Markdown emphasis, numbering, a count, a trailing colon or
// surrounding punctuation.
func headingKey(h string) string {
	h = strings.ToLower(strings.TrimSpace(h))
	h = strings.ReplaceAll(h, "’", "'")
	h = strings.Trim(h, "*_` ")
	h = strings.TrimRight(h, ":：.-–— ")
	h = strings.Trim(h, "*_` ")
	// Both expressions are anchored and start with a digit or (a number)
	// i, v or x: most headings need neither.
	if h != "" && strings.IndexByte("0123456789ivx", h[0]) >= 0 {
		h = headingNumberRe.ReplaceAllString(h, "")
		h = headingCountRe.ReplaceAllString(h, "")
	}
	// Most keys are already words with one space between them; the trims
	// and the prefixes' \s+ leave no space at either end.
	if strings.Contains(h, "  ") || strings.ContainsFunc(h, isSpaceButSpace) {
		h = strings.Join(strings.Fields(h), " ")
	}
	return h
}

// isSpaceButSpace reports white space other than the plain space.
func isSpaceButSpace(r rune) bool { return r != ' ' && unicode.IsSpace(r) }

// heading is a paragraph read as a section heading.
type heading struct {
	level int    // 1-6 for Markdown headings, 7 for labels in plain text
	text  string // as written, without the markup
	field string // from sectionNames, when known
	known bool   // the text is in sectionNames
	rest  string // the paragraph's text after an inline label ("Root cause: The …")
}

// maxLabelRunes bounds what is looked up as a label: headings are short.
const maxLabelRunes = 80

// readHeading reports whether paragraph p opens a section: a Markdown
// heading, a line in bold alone, a known name alone on its line ("ROOT
// CAUSE:"), or a known name as a label before the paragraph's text ("Root
// cause: The …").
func readHeading(p string) (heading, bool) {
	first, after, multi := strings.Cut(p, "\n")
	if m := atxHeading(first); m != nil {
		h := heading{level: len(m[1]), text: strings.Trim(m[2], "*_ ")}
		h.field, h.known = lookupSection(h.text)
		if multi {
			h.rest = after
		}
		return h, true
	}
	if utf8.RuneCountInString(first) <= maxLabelRunes+4 {
		t := strings.TrimSpace(first)
		bold := len(t) > 4 && (strings.HasPrefix(t, "**") && strings.HasSuffix(strings.TrimRight(t, ":"), "**") ||
			strings.HasPrefix(t, "__") && strings.HasSuffix(strings.TrimRight(t, ":"), "__"))
		field, known := lookupSection(t)
		if known || (bold && !multi && !strings.Contains(strings.Trim(t, "*_:"), "**")) {
			h := heading{level: 7, text: strings.Trim(t, "*_: "), field: field, known: known}
			if multi {
				h.rest = after
			}
			return h, true
		}
	}
	// "Root cause: The …" or "**Root cause:** The …"
	if i := labelColon(first); i > 0 {
		label := first[:i]
		if field, known := lookupSection(label); known {
			rest := strings.TrimLeft(first[i:], ":： *_")
			if strings.HasPrefix(label, "**") {
				rest = strings.TrimLeft(strings.TrimPrefix(strings.TrimLeft(first[i:], ":："), "**"), " ")
			}
			if multi {
				rest += "\n" + after
			}
			return heading{level: 7, text: strings.Trim(label, "*_ "), field: field, known: true, rest: strings.TrimSpace(rest)}, true
		}
	}
	return heading{}, false
}

// labelColon is the index of the first colon, ASCII or full-width, of
// line, or -1 when none starts in its first maxLabelRunes*2 bytes, as far
// as a label goes. Only those are searched, for each colon on its own:
// strings.IndexAny decodes every rune when its set is not ASCII.
func labelColon(line string) int {
	head := line[:min(len(line), maxLabelRunes*2+len("："))]
	i := strings.IndexByte(head, ':')
	if j := strings.Index(head, "："); j >= 0 && (i < 0 || j < i) {
		i = j
	}
	if i > maxLabelRunes*2 {
		return -1
	}
	return i
}

func lookupSection(h string) (string, bool) {
	if utf8.RuneCountInString(h) > maxLabelRunes {
		return "", false
	}
	f, ok := sectionNames[headingKey(h)]
	return f, ok
}

// asHeading writes a heading of plain text ("What happened" alone on its
// line, or in bold) as a Markdown heading, so that it reads as one.
func asHeading(h heading, p string) string {
	if h.level < 7 || h.rest != "" {
		return p
	}
	return "## " + h.text
}

// sectionText is what the draft holds of one template section.
type sectionText struct {
	field  string
	paras  []string
	inline bool // opened by a label before its first paragraph ("Next steps: We …")
}

// splitSections moves the sections named like the SRE template into their
// fields: their paragraphs leave the body, an "Action items" list becomes
// action items, a summary section becomes the summary when none was given,
// an author box is cut and a comments section is set apart. Everything else
// stays in the body in order, other headings included. It is one pass over
// the paragraphs. It returns the body and how many of its paragraphs are
// the document's own text in its order: prose found under an "Action items"
// heading follows them, moved to the end.
func (d *Draft) splitSections(paras []string) (body []string, text int) {
	paras = splitRunInLabels(paras)
	var actionProse []string
	var cur *sectionText
	curLevel := 0
	var moved []string
	var sections []*sectionText
	// The timeline headings' text, added to d.timelineZoneHint once: a
	// text of many such headings stays linear.
	var zoneHint strings.Builder
	for _, p := range paras {
		h, ok := readHeading(p)
		if ok && (h.known || cur != nil && h.level <= curLevel) {
			// A known heading opens a section; an ordinary one at the same
			// level or above closes the current one.
			cur = nil
			if h.known && h.field == sectionBody {
				body = append(body, asHeading(h, p))
				continue
			}
			if h.known && h.field == sectionSummary && h.level == 7 && h.rest != "" {
				// "TL;DR: …" or "Summary: …" is one paragraph of the text:
				// it stays there, and is the summary when none is given.
				if d.Summary == "" {
					d.Summary = clipSentences(h.rest, maxSummaryRunes)
					d.note("summary taken from the %q paragraph", h.text)
				}
				body = append(body, p)
				continue
			}
			if h.known {
				if h.field == SectionTimeline {
					zoneHint.WriteString(h.text)
					zoneHint.WriteByte('\n')
				}
				cur = &sectionText{field: h.field, inline: h.level == 7 && h.rest != ""}
				curLevel = h.level
				sections = append(sections, cur)
				moved = append(moved, h.text)
				if h.rest != "" {
					cur.paras = append(cur.paras, h.rest)
				}
				continue
			}
		}
		if cur != nil && !cur.holds(p) {
			cur = nil // a list of posts or a newsletter box ends where the text goes on
		}
		if cur != nil {
			cur.paras = append(cur.paras, p)
			continue
		}
		if ok {
			p = asHeading(h, p)
		}
		body = append(body, p)
	}
	d.timelineZoneHint += zoneHint.String()

	fields := map[string][]string{}
	for _, s := range sections {
		switch s.field {
		case sectionAuthor:
			d.note("removed the author box")
			d.drop(DropAuthorBio, strings.Join(s.paras, " "))
		case sectionSurvey:
			d.note("removed a request for feedback (%s)", clip(strings.Join(s.paras, " "), 80))
			d.drop(DropFeedback, strings.Join(s.paras, " "))
		case sectionRelated:
			d.note("removed a list of related posts (%d)", len(s.paras))
			for _, p := range s.paras {
				d.drop(DropRelated, p)
			}
		case sectionNewsletter:
			d.note("removed a newsletter box")
			d.drop(DropNewsletter, strings.Join(s.paras, " "))
		case sectionRemediation:
			// A list is what will be done; prose is how it was resolved.
			items, rest := markedItems(s.paras)
			d.ActionItems = append(d.ActionItems, items...)
			fields[SectionResolution] = append(fields[SectionResolution], rest...)
		case sectionReplies:
			if cs := commentsOf(s.paras); len(cs) > 0 {
				d.Comments = append(d.Comments, cs...)
				d.note("set apart %d reader comment(s) under the comments heading", len(cs))
			}
		case sectionActions:
			items, rest := actionItems(s.paras, s.inline)
			d.ActionItems = append(d.ActionItems, items...)
			if len(rest) > 0 {
				// Prose under the heading: kept in the body, under it, at
				// the end.
				actionProse = append(actionProse, rest...)
			}
		case sectionLessons:
			fields[SectionWentWrong] = append(fields[SectionWentWrong], s.paras...)
		default:
			fields[s.field] = append(fields[s.field], s.paras...)
		}
	}
	if sum := fields[sectionSummary]; len(sum) > 0 {
		text := strings.Join(sum, "\n\n")
		switch {
		case d.Summary == "" && utf8.RuneCountInString(text) <= maxSectionSummaryRunes:
			d.Summary = text
			d.note("summary taken from the Summary section")
		case d.Summary == "":
			// Too long for a summary: the section stays in the text and
			// its opening sentences are the summary.
			d.Summary = clipSentences(text, maxSummaryRunes)
			d.note("summary taken from the start of the Summary section")
			fallthrough
		default:
			// The given summary wins; the section's text stays.
			body = append(append([]string{"## Summary"}, sum...), body...)
		}
		delete(fields, sectionSummary)
	}
	for f, ps := range fields {
		if text := strings.TrimSpace(strings.Join(ps, "\n\n")); text != "" {
			if d.Sections == nil {
				d.Sections = map[string]string{}
			}
			d.Sections[f] = text
		}
	}
	if len(moved) > 0 {
		d.note("sections moved into the template's fields: %s", quoteList(moved))
	}
	if len(d.ActionItems) > 0 {
		d.note("%d action item(s) read from the Action items list", len(d.ActionItems))
	}
	text = len(body)
	if len(actionProse) > 0 {
		body = append(body, "## Action items")
		body = append(body, actionProse...)
	}
	return body, text
}

var (
	listMarkerRe = regexp.MustCompile(`^\s*(?:[-*+•▪◦]|\d{1,3}[.)])\s+`)
	checkboxRe   = regexp.MustCompile(`^\[([ xX✓])\]\s*`)
)

// splitNumbered cuts text, the rest of a line whose list marker is
// marker, at the next numbers written inline after a sentence: after "1. ",
// "Fix A. 2. Fix B. 3. Fix C." is three items. The numbers must follow
// each other, so "costs 2. Then" after "4. " is no cut.
func splitNumbered(marker, text string) []string {
	n, err := strconv.Atoi(strings.TrimRight(strings.TrimSpace(marker), ".)"))
	if err != nil {
		return []string{text}
	}
	var out []string
	next, from := strconv.Itoa(n+1), 0
	// One pass: each cut is looked for after the last.
	for i := 0; i+1 < len(text); i++ {
		if c := text[i]; c != '.' && c != ';' || text[i+1] != ' ' {
			continue
		}
		rest, ok := strings.CutPrefix(text[i+2:], next)
		if !ok || !strings.HasPrefix(rest, ". ") && !strings.HasPrefix(rest, ") ") {
			continue
		}
		out = append(out, strings.TrimSuffix(text[from:i+1], ";"))
		from = i + 2 + len(next) + 2
		n++
		next = strconv.Itoa(n + 1)
		i = from - 1
	}
	return append(out, text[from:])
}

// holds reports whether p still belongs to the section: a list of
// related posts holds their titles, a newsletter box a few short lines;
// the other sections run to the next heading.
func (s *sectionText) holds(p string) bool {
	switch s.field {
	case sectionRelated:
		for _, line := range strings.Split(p, "\n") {
			if _, ok := titleLike(strings.TrimSpace(listMarkerRe.ReplaceAllString(line, ""))); !ok {
				return false
			}
		}
		return true
	case sectionNewsletter:
		return utf8.RuneCountInString(p) <= maxNewsletterRunes
	}
	return true
}

// markedItems reads the list items of paragraphs as action items, only
// those written with list markers; the rest is prose.
func markedItems(paras []string) ([]ActionItem, []string) {
	var listed, rest []string
	for _, p := range paras {
		if listMarkerRe.MatchString(p) && !pageLinks(p) {
			listed = append(listed, p)
		} else {
			rest = append(rest, p)
		}
	}
	if len(listed) == 0 {
		return nil, rest
	}
	items, prose := actionItems(listed, false)
	return items, append(rest, prose...)
}

// pageLinks reports a list of the page's own links and notes ("All times
// are US/Pacific", "[Send Feedback]()"), not of things to do.
func pageLinks(p string) bool {
	return emptyTargetRe.MatchString(p) || siteLinkRe.MatchString(p) || strings.Contains(strings.ToLower(p), "all times are")
}

var emptyTargetRe = regexp.MustCompile(`\]\(\s*\)`)

// inlineListRe finds a numbered list run into a sentence, as pages
// scraped onto one line have them: "In this case, we will: 1. Repair …
// 2. Implement …".
var inlineListRe = regexp.MustCompile(`[:.]\s+1[.)]\s+\S`)

// splitInlineLists starts a list item where a numbered list is run into a
// paragraph, when its second item follows.
func splitInlineLists(paras []string) []string {
	var out []string
	for _, p := range paras {
		var loc []int
		if strings.Contains(p, "1.") || strings.Contains(p, "1)") { // in every match
			loc = inlineListRe.FindStringIndex(p)
		}
		if loc == nil || listMarkerRe.MatchString(p) || !strings.Contains(p[loc[1]:], " 2. ") && !strings.Contains(p[loc[1]:], " 2) ") {
			out = append(out, p)
			continue
		}
		cut := loc[0] + 1
		out = append(out, strings.TrimSpace(p[:cut]), strings.TrimSpace(p[cut:]))
	}
	return out
}

// maxActionTitleRunes keeps an action item a title, not an essay.
const maxActionTitleRunes = 300

// actionItems reads the list items of an action items section: one item per
// top-level list entry (continuation lines and nested items join it). What
// is not a list stays prose.
func actionItems(paras []string, inline bool) ([]ActionItem, []string) {
	var items []ActionItem
	var rest []string
	paras = splitInlineLists(paras)
	marked := false
	for _, p := range paras {
		if listMarkerRe.MatchString(p) {
			marked = true
		}
	}
	for i, p := range paras {
		if !marked && (i > 0 || !inline) && !strings.Contains(p, "\n") && utf8.RuneCountInString(p) <= maxActionTitleRunes {
			// Plain text without list markers: one item per line, after
			// the heading's own sentence.
			items = append(items, ActionItem{Title: p})
			continue
		}
		var cur *ActionItem
		listed := false
		for _, line := range strings.Split(p, "\n") {
			indent := len(line) - len(strings.TrimLeft(line, " \t"))
			if loc := listMarkerRe.FindStringIndex(line); loc != nil && indent < 2 {
				listed = true
				text := strings.TrimSpace(line[loc[1]:])
				// "1. Fix A. 2. Fix B." on one line (a page scraped flat) is
				// two items.
				for _, text := range splitNumbered(line[:loc[1]], text) {
					a := ActionItem{}
					if m := checkboxRe.FindStringSubmatch(text); m != nil {
						a.Done = m[1] != " "
						text = text[len(m[0]):]
					}
					a.Title = text
					items = append(items, a)
				}
				cur = &items[len(items)-1]
				continue
			}
			if cur != nil && strings.TrimSpace(line) != "" && len(cur.Title) < 4*maxActionTitleRunes {
				// Continuation lines join the item, up to what its title
				// can keep: a huge item stays linear.
				t := strings.TrimSpace(listMarkerRe.ReplaceAllString(line, ""))
				cur.Title += "; " + t
			}
		}
		if !listed {
			rest = append(rest, p)
		}
	}
	out := items[:0]
	for _, a := range items {
		a.Title = strings.TrimSpace(a.Title)
		if a.Title == "" {
			continue
		}
		// An owner and a due date are written in brackets closing the
		// title; most titles have none.
		if endsInBracket(a.Title) {
			readOwnerAndDue(&a)
		}
		a.Title = clip(a.Title, maxActionTitleRunes)
		a.Kind = actionKind(a.Title)
		if !a.Done {
			a.Done, a.Status = actionStatus(a.Title)
		}
		out = append(out, a)
	}
	return out, rest
}

// readOwnerAndDue moves the owner and due date written at the end of a's
// title into their fields.
func readOwnerAndDue(a *ActionItem) {
	if m := actionOwnerDueRe.FindStringSubmatch(bracketTail(a.Title)); m != nil && len(m[0]) < len(a.Title) {
		if f, ok := firstDate(m[3], time.Time{}); ok {
			a.Owner = clip(strings.TrimSpace(m[1]+m[2]), maxActionOwnerRunes)
			a.DueDate = f.date.Format(time.DateOnly)
			a.Title = strings.TrimSpace(strings.TrimSuffix(a.Title, m[0]))
		}
	}
	if m := actionDueRe.FindStringSubmatch(bracketTail(a.Title)); m != nil && len(m[0]) < len(a.Title) && a.DueDate == "" {
		if f, ok := firstDate(m[1], time.Time{}); ok {
			a.DueDate = f.date.Format(time.DateOnly)
			a.Title = strings.TrimSpace(strings.TrimSuffix(a.Title, m[0]))
		}
	}
	if m := actionOwnerRe.FindStringSubmatch(bracketTail(a.Title)); m != nil && len(m[0]) < len(a.Title) {
		a.Owner = clip(strings.TrimSpace(m[1]+m[2]), maxActionOwnerRunes)
		a.Title = strings.TrimSpace(strings.TrimSuffix(a.Title, m[0]))
	}
}

// bracketTail is the end of title from the spaces before its last opening
// bracket, where every match of actionOwnerRe, actionOwnerDueRe,
// actionDueRe and actionStatusEndRe starts: each runs to the end of the
// title and holds one opening bracket. Searched there, they find what they
// find in the whole title without trying every byte before it.
func bracketTail(title string) string {
	i := strings.LastIndexAny(title, "([")
	if i < 0 {
		return ""
	}
	return title[len(strings.TrimRight(title[:i], regexpSpace)):]
}

// endsInBracket reports whether title ends with ")" or "]", before white
// space, "." or ";": as every match of actionOwnerRe, actionOwnerDueRe,
// actionDueRe and actionStatusEndRe does.
func endsInBracket(title string) bool {
	t := strings.TrimRight(title, " \t\n\r\f\v.;")
	return strings.HasSuffix(t, ")") || strings.HasSuffix(t, "]")
}

// actionOwnerRe finds the owner written at the end of an action item:
// "(owner: Tom)", "[Owner - Ana Ruiz]", "(assignee: @tom)", "(responsable:
// Ana)", "(@tom)".
var actionOwnerRe = regexp.MustCompile(`(?i)\s*[(\[]\s*(?:(?:(?:owners?|assignee|dri|responsable|dueño)\s*[:=\-–]|(?:assigned to|owned by)\s)\s*(@?[\p{L}][\p{L}\p{N}._' -]{0,60}?)|(@[\p{L}\p{N}._-]{1,60}))\s*[)\]]\s*[.;]?$`)

// actionOwnerDueRe finds an owner and a due date written together at the
// end of an action item: "(owner: Storage team, due May 15, 2025)",
// "[Owner: @ana; due 2025-05-15]". actionDueRe finds a due date alone:
// "(due: 2025-05-15)", "(by June 1, 2025)".
var (
	actionOwnerDueRe = regexp.MustCompile(`(?i)\s*[(\[]\s*(?:(?:owners?|assignee|dri|responsable)\s*[:=\-–]\s*(@?[\p{L}][\p{L}\p{N}._' -]{0,60}?)|(@[\p{L}\p{N}._-]{1,60}))\s*[,;]\s*(?:due(?:\s+date)?|by|deadline)\s*[:=]?\s*([^()\[\]]{4,40}?)\s*[)\]]\s*[.;]?$`)
	actionDueRe      = regexp.MustCompile(`(?i)\s*[(\[]\s*(?:due(?:\s+date)?|deadline)\s*[:=]?\s*([^()\[\]]{4,40}?)\s*[)\]]\s*[.;]?$`)
)

// actionStatusStartRe and actionStatusEndRe find a status written beside
// an action item, in brackets at its start or end: "[Completed]",
// "(done)", "(in progress)", "[En curso]". The note stays in the title;
// the item takes its status, from the start first. A status at the end
// holds no bracket, so it is looked for in bracketTail only.
var (
	actionStatusStartRe = regexp.MustCompile(`(?i)^[\[(]\s*([\p{L} -]{4,20}?)\s*[\])]`)
	actionStatusEndRe   = regexp.MustCompile(`(?i)[\[(]\s*([\p{L} -]{4,20}?)\s*[\])]\s*[.;]?$`)
)

// actionStatus reads an action item's status from its title: done, in
// progress (Status), or neither.
func actionStatus(title string) (done bool, status string) {
	if !strings.HasPrefix(title, "[") && !strings.HasPrefix(title, "(") && !endsInBracket(title) {
		return false, "" // no bracket where a status can be
	}
	m := actionStatusStartRe.FindStringSubmatch(title)
	if m == nil {
		m = actionStatusEndRe.FindStringSubmatch(bracketTail(title))
	}
	if m == nil {
		return false, ""
	}
	switch strings.Join(strings.Fields(strings.ToLower(m[1])), " ") {
	case "done", "complete", "completed", "finished", "fixed", "resolved", "hecho", "completado", "completada", "terminado", "terminada", "resuelto":
		return true, ""
	case "in progress", "in-progress", "ongoing", "wip", "en curso", "en progreso":
		return false, postmortem.StatusInProgress
	}
	return false, ""
}

// maxActionOwnerRunes is the longest owner kept: a name or a handle.
const maxActionOwnerRunes = 60

// ActionItem is one entry of an "Action items" list.
type ActionItem struct {
	Title string
	Kind  string // mitigate, prevent or process, guessed from the words
	Done  bool   // ticked in the document ("[x]")
	// The rest only a front matter's action_items give.
	Owner, Priority, Status, DueDate, TicketURL string
	FromChecklist                               ChecklistRef
}

var (
	processWordsRe  = anchorAtWords(`(runbook|playbook|process|training|train|document|documentation|review|postmortem|communicat\w*|on-?call|escalat\w*|procedure|checklist|policy|proceso|documentar|documentación|capacitación|revisar|revisión|procedimiento)\b`, "runbook", "playbook", "process", "train", "document", "review", "postmortem", "communicat", "on-call", "oncall", "escalat", "procedure", "checklist", "policy", "proceso", "capacitaci", "revis", "procedimiento")
	mitigateWordsRe = anchorAtWords(`(mitigat\w*|rollback|roll back|revert|restore|failover|temporar\w*|workaround|hotfix|mitigar|revertir|restaurar)\b`, "mitiga", "rollback", "roll back", "revert", "restor", "failover", "temporar", "workaround", "hotfix", "restaurar")
)

// actionKind guesses the kind of an action item from its words: process
// work, a mitigation, or (the usual case) prevention.
func actionKind(title string) string {
	switch {
	case processWordsRe.FindStringSubmatch(title) != nil:
		return "process"
	case mitigateWordsRe.FindStringSubmatch(title) != nil:
		return "mitigate"
	}
	return "prevent"
}

// leadParagraph is the first paragraph of prose: not a heading, list,
// quote, code block, table, a template's instruction left in, or a line
// too short to say anything (unless it answers such an instruction).
func leadParagraph(paras []string) string {
	answer := false // the paragraph after a template's prompt answers it
	for i, p := range paras {
		if i >= 40 {
			break
		}
		t := strings.TrimSpace(p)
		if _, ok := readHeading(t); ok {
			continue
		}
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, ">") || strings.HasPrefix(t, "|") ||
			listItemRe.MatchString(t) || strings.Count(t, "|") >= 2 {
			continue
		}
		if templatePrompt(t) {
			answer = true
			continue
		}
		afterPrompt := answer
		answer = false
		if utf8.RuneCountInString(t) < 60 || strings.Count(t, " ") < 6 {
			if !afterPrompt || strings.Count(t, " ") < 3 {
				continue // a label or a line of chrome, unless it answers a prompt
			}
		}
		if _, ok := parseDate(t); ok {
			continue
		}
		return t
	}
	return ""
}

// promptCueRe finds what a report template says to its writer ("Please
// ensure to remove private information", "Be as specific as you can"):
// a page written from a template whose instructions were left in.
var promptCueRe = regexp.MustCompile(`(?i)\b(?:please (?:ensure|add|remove|include|describe|explain|list|link|fill)|try to (?:avoid|differentiate|keep|be)|be as specific as (?:you can|possible)|do not assume the reader|(?:to|in|under) this section|(?:this|the following) (?:section|sub-?sections?) should|step[- ]by[- ]step outline|por favor (?:incluye|indica|describe|añade|elimina)|sé tan específico)`)

// templatePrompt reports whether p is a template's instruction to its
// writer rather than the report's text: two cues or more, so that a report
// asking its readers something ("please add retries") is not one.
func templatePrompt(p string) bool {
	return len(promptCueRe.FindAllStringIndex(p, 2)) >= 2
}

// maxSectionSummaryRunes is the longest Summary section taken whole as the
// summary: the form's limit.
const maxSectionSummaryRunes = 2000

// runInLabelRe finds a label of the template run into the text after a
// sentence, as pages scraped onto one line have them: "… period. Root
// cause and mitigation: Due to …".
var runInLabelRe = regexp.MustCompile(`[.!?)]\s+(\p{Lu}[\p{L}]*(?:\s[\p{Ll}]+){0,4})\s?:\s`)

// hasColonSpace reports whether p has a colon followed by a space of any
// kind, as runInLabelRe's labels end.
func hasColonSpace(p string) bool {
	for i := strings.IndexByte(p, ':'); i >= 0; {
		if r, _ := utf8.DecodeRuneInString(p[i+1:]); unicode.IsSpace(r) {
			return true
		}
		next := strings.IndexByte(p[i+1:], ':')
		if next < 0 {
			return false
		}
		i += 1 + next
	}
	return false
}

// runInLabels is the matches of runInLabelRe in p, as
// FindAllStringSubmatchIndex gives them. A match ends with the first
// colon after its start, and holds only letters and spaces between its
// first byte and that colon: so a colon followed by a space ends one only
// if the last other character before it is one of [.!?)], and the
// expression is tried from there alone instead of from every byte.
func runInLabels(p string) [][]int {
	var out [][]int
	for from := 0; ; {
		i := strings.IndexByte(p[from:], ':')
		if i < 0 {
			return out
		}
		colon := from + i
		seg := p[from:colon]
		from = colon + 1
		if colon+1 >= len(p) || !strings.ContainsRune(regexpSpace, rune(p[colon+1])) {
			continue
		}
		start := strings.LastIndexFunc(seg, func(r rune) bool { return !unicode.IsLetter(r) && !strings.ContainsRune(regexpSpace, r) })
		if start < 0 || !strings.ContainsRune(".!?)", rune(seg[start])) {
			continue
		}
		at := colon - len(seg) + start
		m := runInLabelRe.FindStringSubmatchIndex(p[at : colon+2])
		if m == nil {
			continue
		}
		out = append(out, shiftIndex(m, at))
	}
}

// splitRunInLabels starts a new paragraph at each known label run into a
// paragraph, so that it reads as the section it opens.
func splitRunInLabels(paras []string) []string {
	var out []string
	for _, p := range paras {
		if !hasColonSpace(p) { // what every label ends with; most paragraphs have none
			out = append(out, strings.TrimSpace(p))
			continue
		}
		start := 0
		for _, m := range runInLabels(p) {
			if _, known := lookupSection(p[m[2]:m[3]]); !known || m[2] <= start {
				continue
			}
			out = append(out, strings.TrimSpace(p[start:m[2]]))
			start = m[2]
		}
		out = append(out, strings.TrimSpace(p[start:]))
	}
	return out
}

// maxSummaryRunes is how long a derived summary may be: the form's limit
// is 2,000 characters, and a summary is two or three sentences.
const maxSummaryRunes = 600

// clipSentences shortens text to whole sentences within max runes, or
// to max runes with an ellipsis when its first sentence is longer.
func clipSentences(text string, max int) string {
	text = strings.Join(strings.Fields(text), " ")
	if utf8.RuneCountInString(text) <= max {
		return text
	}
	cut, n := 0, 0
	for i, r := range text {
		n++
		if n > max {
			break
		}
		if (r == '.' || r == '!' || r == '?' || r == '。') && (i+1 == len(text) || text[i+1] == ' ') {
			cut = i + 1
		}
	}
	if cut > max/4 {
		return text[:cut]
	}
	return strings.TrimRightFunc(clip(text, max-1), unicode.IsSpace)
}

// commentsOf reads the paragraphs under a comments heading: a short line
// with a name, optionally a date, then the comment's text.
func commentsOf(paras []string) []Comment {
	var out []Comment
	var next Comment
	for _, p := range paras {
		t := strings.TrimSpace(p)
		if t == "" {
			continue
		}
		if tm, ok := parseDate(t); ok {
			next.Date = tm
			continue
		}
		if tm, author, ok := parseByline(t); ok && author != "" {
			next.Date, next.Author = tm, author
			continue
		}
		if utf8.RuneCountInString(t) <= 40 && !strings.Contains(t, "\n") && !endsSentence(t) && len(strings.Fields(t)) <= 4 {
			if next.Author != "" && next.Text == "" {
				continue // a second short line, such as "Reply"
			}
			next = Comment{Author: strings.Trim(t, "*_ ")}
			continue
		}
		next.Text = t
		out = append(out, next)
		next = Comment{}
	}
	return out
}
