package corpus

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"hindsight/postmortem"
	"hindsight/store"
)

// writer renders one version of an incident.
type writer struct {
	r    *rand.Rand
	g    *Generator
	in   incident
	lang string
}

func (w *writer) es() bool { return w.lang == "es" }

func (w *writer) choose(t struct{ en, es []string }) string {
	if w.es() {
		return pick(w.r, t.es)
	}
	return pick(w.r, t.en)
}

// fill replaces the slots of a template; phrase comes from pattern slug.
func (w *writer) fill(tmpl, slug string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(tmpl, '{')
		if i < 0 {
			b.WriteString(tmpl)
			break
		}
		j := strings.IndexByte(tmpl[i:], '}')
		if j < 0 {
			b.WriteString(tmpl)
			break
		}
		b.WriteString(tmpl[:i])
		b.WriteString(w.slot(tmpl[i+1:i+j], slug))
		tmpl = tmpl[i+j+1:]
	}
	// A sentence may open with a slot such as a service name.
	out := b.String()
	if r, n := utf8.DecodeRuneInString(out); unicode.IsLower(r) {
		out = string(unicode.ToUpper(r)) + out[n:]
	}
	return out
}

func (w *writer) slot(name, slug string) string {
	switch name {
	case "svc":
		return w.in.svc
	case "dep":
		return w.in.dep
	case "team":
		return w.in.team
	case "region":
		return w.in.region
	case "ver":
		return w.in.ver
	case "n":
		return strconv.Itoa(2 + w.r.IntN(40))
	case "pct":
		return strconv.Itoa(5 + w.r.IntN(90))
	case "min":
		return strconv.Itoa(w.in.duration)
	case "phrase":
		return w.phrase(slug)
	}
	return name
}

func (w *writer) phrase(slug string) string {
	for _, p := range w.g.pats {
		if p.Slug != slug {
			continue
		}
		if w.es() && len(p.PhrasesES) > 0 {
			return pick(w.r, p.PhrasesES)
		}
		return pick(w.r, p.PhrasesEN)
	}
	return slug
}

func (w *writer) title(repost bool) string {
	h := headline[w.in.tags[0].PatternSlug]
	t := h.en
	if w.es() {
		t = h.es
	}
	t = w.fill(t, "")
	t = strings.ToUpper(t[:1]) + t[1:]
	title := w.in.ref + ": " + t
	if repost {
		if w.es() {
			return "Republicado: " + title
		}
		return "Repost: " + title
	}
	return title
}

func (w *writer) heading(key string) string {
	n := sectionNames[key]
	if w.es() {
		return "## " + n.es
	}
	return "## " + n.en
}

// sample returns n distinct sentences of list (fewer if it is shorter),
// filled in.
func (w *writer) sample(list []string, n int, slug string) []string {
	idx := w.r.Perm(len(list))[:min(n, len(list))]
	out := make([]string, len(idx))
	for i, k := range idx {
		out[i] = w.fill(list[k], slug)
	}
	return out
}

func (w *writer) lang2(t struct{ en, es []string }) []string {
	if w.es() {
		return t.es
	}
	return t.en
}

// paragraph strings together n distinct sentences of t.
func (w *writer) paragraph(t struct{ en, es []string }, n int) string {
	return strings.Join(w.sample(w.lang2(t), n, w.in.tags[w.r.IntN(len(w.in.tags))].PatternSlug), " ")
}

// cause tells one tagged pattern's part, with a detection phrase or two.
func (w *writer) cause(t store.Tag) string {
	m := mechanism[t.PatternSlug]
	list := m.en
	if w.es() {
		list = m.es
	}
	s := w.sample(list, 2+w.r.IntN(2), t.PatternSlug)
	s = append(s, w.sample(w.lang2(quoting), 1+w.r.IntN(2), t.PatternSlug)...)
	w.r.Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] })
	return strings.Join(s, " ")
}

// timeline lists the incident's events in order, with n investigating
// steps in the middle.
func (w *writer) timeline(n int) string {
	events := w.lang2(timelineText)
	var lines []string
	for _, e := range events[:6] {
		if w.r.IntN(3) > 0 {
			lines = append(lines, w.fill(e, ""))
		}
	}
	inv := w.lang2(investigatingText)
	for range n {
		lines = append(lines, w.fill(pick(w.r, inv), ""))
	}
	for _, e := range events[6:] {
		if w.r.IntN(4) > 0 {
			lines = append(lines, w.fill(e, ""))
		}
	}
	h, m := w.r.IntN(24), w.r.IntN(60)
	for i, l := range lines {
		lines[i] = fmt.Sprintf("- **%02d:%02d UTC**: %s", h, m, l)
		m += 1 + w.r.IntN(12)
		h, m = (h+m/60)%24, m%60
	}
	return strings.Join(lines, "\n")
}

func (w *writer) list(t struct{ en, es []string }, n int) string {
	return "- " + strings.Join(w.sample(w.lang2(t), n, w.in.tags[0].PatternSlug), "\n- ")
}

func (w *writer) actions() string {
	var lines []string
	for i := range 2 + w.r.IntN(4) {
		t := w.in.tags[i%len(w.in.tags)]
		kind := pick(w.r, []string{"prevent", "mitigate", "process"})
		lines = append(lines, fmt.Sprintf("- [ ] **P%d** %s (%s, owner: %s)", w.r.IntN(4),
			w.fill(w.choose(actionText), t.PatternSlug), kind, w.in.team))
	}
	return strings.Join(lines, "\n")
}

// body writes the sections, then lengthens the impact, the timeline and
// the cause until the body reaches the incident's size.
func (w *writer) body() string {
	summary := w.paragraph(summaryText, 2)
	impact := []string{w.paragraph(impactText, 2+w.r.IntN(2))}
	steps := 1 + w.r.IntN(3)
	var causes, lessons []string
	for _, t := range w.in.tags {
		if t.Role == postmortem.RoleMissingDefence {
			lessons = append(lessons, w.fill(w.choose(lessonText), t.PatternSlug))
			continue
		}
		causes = append(causes, w.cause(t))
	}
	if len(causes) == 0 {
		causes = append(causes, w.cause(w.in.tags[0]))
	}
	if w.r.IntN(4) == 0 {
		// Some write-ups quote the settings involved.
		causes = append(causes, fmt.Sprintf("```\n%s.max_connections = %d\n%s.timeout_ms = %d\n```",
			strings.ReplaceAll(w.in.svc, " ", "_"), 50+w.r.IntN(500), strings.ReplaceAll(w.in.dep, " ", "_"), 100*(1+w.r.IntN(50))))
	}
	detection := w.paragraph(detectionText, 1+w.r.IntN(2))
	resolution := w.paragraph(resolutionText, 1+w.r.IntN(2))
	well, wrong := w.list(wentWellText, 1+w.r.IntN(3)), w.list(wentWrongText, 1+w.r.IntN(3))
	var lucky string
	if w.r.IntN(3) == 0 {
		lucky = w.paragraph(luckyText, 1)
	}
	actions := w.actions()

	render := func() string {
		parts := []string{summary,
			w.heading("impact"), strings.Join(impact, "\n\n"),
			w.heading("timeline"), w.timeline(steps),
			w.heading("cause"), strings.Join(causes, "\n\n"),
			w.heading("detection"), detection,
			w.heading("resolution"), resolution,
			w.heading("well"), well,
			w.heading("wrong"), wrong}
		if lucky != "" {
			parts = append(parts, w.heading("lucky"), lucky)
		}
		parts = append(parts, w.heading("actions"), actions)
		if len(lessons) > 0 {
			parts = append(parts, w.heading("lessons"), strings.Join(lessons, " "))
		}
		return strings.Join(parts, "\n\n")
	}
	// Estimate the growth instead of rendering on every step; the timeline
	// grows by about 60 bytes a step.
	size := len(render())
	for size < w.in.size {
		var p string
		switch w.r.IntN(5) {
		case 0:
			p = w.paragraph(impactText, 2+w.r.IntN(3))
			impact = append(impact, p)
		case 1:
			steps += 3
			size += 180
		case 2:
			p = w.paragraph(discussionText, 2+w.r.IntN(3))
			causes = append(causes, p)
		default:
			p = w.cause(w.in.tags[w.r.IntN(len(w.in.tags))])
			causes = append(causes, p)
		}
		size += len(p) + 2
	}
	return render()
}

func (w *writer) file(d Doc) []byte {
	var b strings.Builder
	b.WriteString("---\n")
	fmt.Fprintf(&b, "title: %q\n", d.Title)
	fmt.Fprintf(&b, "organization: %s\n", w.in.org)
	fmt.Fprintf(&b, "incident_date: %s\n", w.in.date)
	fmt.Fprintf(&b, "published_date: %s\n", w.in.published)
	if w.in.severity != "" {
		fmt.Fprintf(&b, "severity: %s\n", w.in.severity)
	}
	fmt.Fprintf(&b, "language: %s\n", d.Language)
	fmt.Fprintf(&b, "summary: %q\n", w.fill(w.choose(summaryText), ""))
	b.WriteString("patterns:\n")
	for _, t := range w.in.tags {
		fmt.Fprintf(&b, "  - %s:%s\n", t.PatternSlug, t.Role)
	}
	if d.VariantOf != "" {
		fmt.Fprintf(&b, "variant_of: %s\n", d.VariantOf)
		fmt.Fprintf(&b, "variant_kind: %s\n", d.VariantKind)
	}
	b.WriteString("---\n\n")
	b.WriteString(w.body())
	b.WriteString("\n")
	return []byte(b.String())
}
