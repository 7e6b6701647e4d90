package handlers

import (
	"errors"
	"net/http"
	"slices"
	"strings"

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

// diffText returns the line diff of a and b, with changed words marked
// inside lines that were edited rather than replaced.
func diffText(a, b string) []diffLine {
	es := textdiff.Lines(a, b)
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
		lines = append(lines, changedLines(dels, ins)...)
	}
	return withContext(lines)
}

// changedLines renders a run of removed and added lines. When as many lines
// went as came, they are taken as edits of each other and their changed
// words are marked; otherwise whole lines are.
func changedLines(dels, ins []string) []diffLine {
	var out, added []diffLine
	for k, d := range dels {
		if len(dels) != len(ins) {
			out = append(out, diffLine{Kind: "del", Parts: []diffPart{{Text: d, Changed: true}}})
			continue
		}
		del, in := diffLine{Kind: "del"}, diffLine{Kind: "ins"}
		for _, e := range textdiff.Words(d, ins[k]) {
			if e.Op != textdiff.Insert {
				del.Parts = appendPart(del.Parts, e.Text, e.Op == textdiff.Delete)
			}
			if e.Op != textdiff.Delete {
				in.Parts = appendPart(in.Parts, e.Text, e.Op == textdiff.Insert)
			}
		}
		out, added = append(out, del), append(added, in)
	}
	if len(dels) != len(ins) {
		for _, in := range ins {
			added = append(added, diffLine{Kind: "ins", Parts: []diffPart{{Text: in, Changed: true}}})
		}
	}
	return append(out, added...)
}

// appendPart merges consecutive runs of the same kind, so a changed phrase
// is one mark rather than one per word.
func appendPart(parts []diffPart, text string, changed bool) []diffPart {
	if n := len(parts); n > 0 && parts[n-1].Changed == changed {
		parts[n-1].Text += text
		return parts
	}
	return append(parts, diffPart{Text: text, Changed: changed})
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

// diffFields lists the fields that differ from a to b, in form order.
func diffFields(a, b store.PostmortemFields, names map[string]string) []fieldChange {
	fa, fb := formFromFields(a), formFromFields(b)
	var out []fieldChange
	for _, s := range postmortemSpecs {
		if s.value == nil || s.Type == "" || s.Name == "author" || s.Name == "note" || s.Name == "restricted_to" {
			continue
		}
		va, vb := *s.value(&fa), *s.value(&fb)
		if va != vb {
			out = append(out, fieldChange{Name: s.Name, Label: s.Label, Lines: diffText(va, vb)})
		}
	}
	if fa.TimeZone != fb.TimeZone && (a.TimeZone != "" || b.TimeZone != "") {
		out = append(out, fieldChange{Name: "time_zone", Label: specTimeZone.Label, Lines: diffText(a.TimeZone, b.TimeZone)})
	}
	for _, simple := range []struct {
		spec pmSpec
		a, b string
	}{{specSeverity, a.Severity, b.Severity}, {specLanguage, a.Language, b.Language}} {
		if simple.a != simple.b {
			out = append(out, fieldChange{Name: simple.spec.Name, Label: simple.spec.Label, Lines: diffText(simple.a, simple.b)})
		}
	}
	label := func(key string) string {
		slug, role, _ := strings.Cut(key, ":")
		name := names[slug]
		if name == "" {
			name = slug
		}
		return name + " (" + store.RoleLabel(role) + ")"
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
		if s.Name == name && s.value != nil {
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
		return c, nil
	}
	if err != nil {
		return nil, err
	}
	c.Theirs = diffFields(base.Fields, cur.Fields(), names)
	now := formFromFields(cur.Fields())
	for i, ch := range c.Theirs {
		if s, ok := specOf(ch.Name); ok && s.multiline() {
			c.Theirs[i].Full = displayText(*s.value(&now))
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
