package handlers

import (
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"hindsight/handlers/formfield"
	"hindsight/postmortem"
	"hindsight/store"
	"hindsight/textdiff"
)

// fieldChange is how one field differs between two states of a postmortem.
type fieldChange struct {
	Name, Label string
	// Lines is the line diff of a text field, with context.
	Lines []diffLine
	// Removed and Added are the tags that went and came.
	Removed, Added []string
	// Full is the field's whole new text, shown with a conflict to copy from.
	Full string
	// Summary says in words what the change comes to (who may read now).
	Summary string
	// Coarse says some changed lines are marked whole, not word by word:
	// the field was too large to compare word by word.
	Coarse bool
}

// diffLine is one line of a diff: kept ("same"), removed ("del"), added
// ("ins"), or a run of unchanged lines left out ("gap").
type diffLine struct {
	Kind  string
	Parts []diffPart
	Gap   int
}

// diffPart is a run of text within a line; Changed marks the words that
// differ from the paired line on the other side.
type diffPart struct {
	Text    string
	Changed bool
}

// diffContext is how many unchanged lines are shown around a change.
const diffContext = 2

// Limits of the word-by-word comparison of one field: past them, changed
// lines are marked whole (the line diff is bounded by textdiff's own
// table size). Comparing two lines word by word costs the product of
// their word counts; maxWordCells bounds the sum of those products, and
// fields longer than maxWordDiffBytes are compared by lines only.
const (
	maxWordCells     = 1 << 20
	maxWordDiffBytes = 256 << 10
)

// diffText returns the line diff of a and b, with changed words marked
// inside lines that were edited rather than replaced, and whether some
// changed lines had to be marked whole (see maxWordCells).
func diffText(a, b string) ([]diffLine, bool) {
	es := textdiff.Lines(a, b)
	budget := maxWordCells
	if len(a)+len(b) > maxWordDiffBytes {
		budget = 0
	}
	coarse := false
	var lines []diffLine
	for i := 0; i < len(es); {
		if es[i].Op == textdiff.Equal {
			lines = append(lines, diffLine{Kind: "same", Parts: []diffPart{{Text: es[i].Text}}})
			i++
			continue
		}
		var dels, ins []string
		for ; i < len(es) && es[i].Op != textdiff.Equal; i++ {
			if es[i].Op == textdiff.Delete {
				dels = append(dels, es[i].Text)
			} else {
				ins = append(ins, es[i].Text)
			}
		}
		changed, whole := changedLines(dels, ins, &budget)
		lines, coarse = append(lines, changed...), coarse || whole
	}
	return withContext(lines), coarse
}

// changedLines renders a run of removed and added lines. When as many lines
// went as came, they are taken as edits of each other and their changed
// words are marked, while the budget of word comparisons lasts; otherwise
// whole lines are, and whole says so.
func changedLines(dels, ins []string, budget *int) (lines []diffLine, whole bool) {
	var out, added []diffLine
	for k, d := range dels {
		if len(dels) != len(ins) {
			out = append(out, diffLine{Kind: "del", Parts: []diffPart{{Text: d, Changed: true}}})
			continue
		}
		wa, wb := textdiff.SplitWords(d), textdiff.SplitWords(ins[k])
		if cost := len(wa) * len(wb); cost > *budget {
			whole = true
			out = append(out, diffLine{Kind: "del", Parts: []diffPart{{Text: d, Changed: true}}})
			added = append(added, diffLine{Kind: "ins", Parts: []diffPart{{Text: ins[k], Changed: true}}})
			continue
		} else {
			*budget -= cost
		}
		var del, in partsBuilder
		for _, e := range textdiff.Diff(wa, wb) {
			if e.Op != textdiff.Insert {
				del.add(e.Text, e.Op == textdiff.Delete)
			}
			if e.Op != textdiff.Delete {
				in.add(e.Text, e.Op == textdiff.Insert)
			}
		}
		out, added = append(out, diffLine{Kind: "del", Parts: del.parts()}), append(added, diffLine{Kind: "ins", Parts: in.parts()})
	}
	if len(dels) != len(ins) {
		for _, in := range ins {
			added = append(added, diffLine{Kind: "ins", Parts: []diffPart{{Text: in, Changed: true}}})
		}
	}
	return append(out, added...), whole
}

// partsBuilder merges consecutive runs of the same kind, so a changed
// phrase is one mark rather than one per word. It builds each run once
// (adding to a string word by word made a long line quadratic).
type partsBuilder struct {
	done    []diffPart
	run     strings.Builder
	changed bool
}

func (p *partsBuilder) add(text string, changed bool) {
	if p.run.Len() > 0 && p.changed != changed {
		p.done = append(p.done, diffPart{Text: p.run.String(), Changed: p.changed})
		p.run = strings.Builder{}
	}
	p.changed = changed
	p.run.WriteString(text)
}

func (p *partsBuilder) parts() []diffPart {
	if p.run.Len() > 0 {
		p.done = append(p.done, diffPart{Text: p.run.String(), Changed: p.changed})
	}
	return p.done
}

// withContext keeps unchanged lines near a change and folds the others.
func withContext(lines []diffLine) []diffLine {
	near := make([]bool, len(lines))
	for i, l := range lines {
		if l.Kind == "same" {
			continue
		}
		for j := max(0, i-diffContext); j <= min(len(lines)-1, i+diffContext); j++ {
			near[j] = true
		}
	}
	var out []diffLine
	for i, l := range lines {
		if near[i] {
			out = append(out, l)
			continue
		}
		if n := len(out); n > 0 && out[n-1].Kind == "gap" {
			out[n-1].Gap++
		} else {
			out = append(out, diffLine{Kind: "gap", Gap: 1})
		}
	}
	return out
}

func newFieldChange(name, label, a, b string) fieldChange {
	lines, coarse := diffText(a, b)
	return fieldChange{Name: name, Label: label, Lines: lines, Coarse: coarse}
}

// diffFields lists the fields that differ from a to b, in form order.
func diffFields(a, b store.PostmortemFields, names map[string]string) []fieldChange {
	fa, fb := formFromFields(a), formFromFields(b)
	var out []fieldChange
	for _, s := range postmortemSpecs {
		if s.Value == nil || s.Type == "" || s.Name == "author" || s.Name == "note" || s.Name == "restricted_to" {
			continue
		}
		va, vb := *s.Value(&fa), *s.Value(&fb)
		if va != vb {
			out = append(out, newFieldChange(s.Name, s.Label, va, vb))
		}
	}
	if fa.TimeZone != fb.TimeZone && (a.TimeZone != "" || b.TimeZone != "") {
		out = append(out, newFieldChange("time_zone", specTimeZone.Label, a.TimeZone, b.TimeZone))
	}
	for _, simple := range []struct {
		spec pmSpec
		a, b string
	}{{specSeverity, a.Severity, b.Severity}, {specLanguage, a.Language, b.Language}} {
		if simple.a != simple.b {
			out = append(out, newFieldChange(simple.spec.Name, simple.spec.Label, simple.a, simple.b))
		}
	}
	label := func(key string) string {
		slug, role, _ := strings.Cut(key, ":")
		name := names[slug]
		if name == "" {
			name = slug
		}
		return name + " (" + postmortem.RoleLabel(role) + ")"
	}
	var tc fieldChange
	for k := range fa.Tags {
		if !fb.Tags[k] {
			tc.Removed = append(tc.Removed, label(k))
		}
	}
	for k := range fb.Tags {
		if !fa.Tags[k] {
			tc.Added = append(tc.Added, label(k))
		}
	}
	if len(tc.Removed)+len(tc.Added) > 0 {
		slices.Sort(tc.Removed)
		slices.Sort(tc.Added)
		tc.Name, tc.Label = "tags", specTags.Label
		out = append(out, tc)
	}
	return out
}

func specOf(name string) (pmSpec, bool) {
	for _, s := range postmortemSpecs {
		if s.Name == name && s.Value != nil {
			return s, true
		}
	}
	return pmSpec{}, false
}

// conflictView explains a refused stale save.
type conflictView struct {
	// Since are the saves made after the version the writer started from.
	Since []store.Revision
	// Theirs is what those saves changed; when the starting version is not
	// in the history, it is the difference between the saved text and the
	// writer's instead (Mine).
	Theirs []fieldChange
	Mine   bool
	// Overlap names the fields both sides changed: the ones to merge by hand.
	Overlap []string
}

func (h *Handler) conflictOf(r *http.Request, cur store.Postmortem, f postmortemForm, names map[string]string) (*conflictView, error) {
	revs, err := h.store.ListRevisions(r.Context(), cur.ID)
	if err != nil {
		return nil, err
	}
	c := &conflictView{}
	for _, rev := range revs {
		if rev.Version > f.Version {
			c.Since = append(c.Since, rev)
		}
	}
	mine := f.fields()
	base, err := h.store.GetRevision(r.Context(), cur.ID, f.Version)
	if errors.Is(err, store.ErrNotFound) {
		c.Theirs, c.Mine = diffFields(cur.Fields(), mine, names), true
		if ch, ok := restrictionChange(cur.RestrictedTo, f.restricted); ok && f.setsRestriction {
			c.Theirs = append(c.Theirs, ch)
		}
		return c, nil
	}
	if err != nil {
		return nil, err
	}
	c.Theirs = diffFields(base.Fields, cur.Fields(), names)
	// Who could read it at the version the writer started from: recorded
	// with it, else what the form was loaded with.
	wasKnown, was := base.RestrictionKnown || f.restrictedWasSent, base.RestrictedTo
	if !base.RestrictionKnown {
		was = postmortem.ParseRestriction(f.RestrictedWas)
	}
	if ch, ok := restrictionChange(was, cur.RestrictedTo); ok && wasKnown {
		c.Theirs = append(c.Theirs, ch)
		if _, mineChanged := restrictionChange(was, f.restricted); mineChanged && f.setsRestriction {
			c.Overlap = append(c.Overlap, ch.Label)
		}
	}
	now := formFromFields(cur.Fields())
	for i, ch := range c.Theirs {
		if s, ok := specOf(ch.Name); ok && s.Multiline() {
			c.Theirs[i].Full = formfield.DisplayText(*s.Value(&now))
		}
	}
	changedByMe := map[string]bool{}
	for _, ch := range diffFields(base.Fields, mine, names) {
		changedByMe[ch.Name] = true
	}
	for _, ch := range c.Theirs {
		if changedByMe[ch.Name] {
			c.Overlap = append(c.Overlap, ch.Label)
		}
	}
	return c, nil
}

// restrictionChange is a change of who may read a postmortem, from the
// groups it was restricted to to the ones it is (none: everyone), as the
// groups that went and came; ok is false when they are the same.
func restrictionChange(from, to []string) (ch fieldChange, ok bool) {
	for _, g := range from {
		if !slices.Contains(to, g) {
			ch.Removed = append(ch.Removed, g)
		}
	}
	for _, g := range to {
		if !slices.Contains(from, g) {
			ch.Added = append(ch.Added, g)
		}
	}
	if len(ch.Removed)+len(ch.Added) == 0 {
		return ch, false
	}
	slices.Sort(ch.Removed)
	slices.Sort(ch.Added)
	ch.Name, ch.Label, ch.Summary = specRestricted.Name, specRestricted.Label, whoMayRead(to)
	return ch, true
}

// whoMayRead says who may read a postmortem restricted to groups.
func whoMayRead(groups []string) string {
	if len(groups) == 0 {
		return "Now open to everyone."
	}
	return "Now only members of " + strings.Join(groups, ", ") + " may read it."
}

// whoCouldRead is whoMayRead of an earlier version.
func whoCouldRead(version int, groups []string) string {
	if len(groups) == 0 {
		return "At version " + strconv.Itoa(version) + ", everyone could read it."
	}
	return "At version " + strconv.Itoa(version) + ", only members of " + strings.Join(groups, ", ") + " could read it."
}
