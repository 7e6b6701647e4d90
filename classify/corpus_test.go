package classify_test

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"hindsight/classify"
	"hindsight/internal/corpustest"
	"hindsight/postmortem"
)

// corpusDir is the evaluation corpus (corpustest.Path).
var corpusDir = corpustest.Path()

// corpusLabel is one row of labels-tune.tsv or labels-heldout.tsv.
type corpusLabel struct{ file, pattern, role, evidence string }

// loadCorpusLabels reads a label file into file -> expected patterns ("-"
// rows give a file with no pattern).
func loadCorpusLabels(t *testing.T, path string) map[string][]corpusLabel {
	t.Helper()
	out := map[string][]corpusLabel{}
	if _, err := os.Stat(path); err != nil {
		return out
	}
	for _, r := range corpustest.ReadTSV(t, path) {
		if len(r) < 3 {
			t.Fatalf("%s: row %q: want file, pattern, role, evidence", path, strings.Join(r, "\t"))
		}
		l := corpusLabel{file: r[0], pattern: r[1], role: r[2]}
		if len(r) > 3 {
			l.evidence = r[3]
		}
		if _, ok := out[l.file]; !ok {
			out[l.file] = nil
		}
		if l.pattern != "-" {
			out[l.file] = append(out[l.file], l)
		}
	}
	return out
}

// corpusDocument reads a corpus file as an imported postmortem: its first
// line is the title, the rest the body.
func corpusDocument(t *testing.T, name string) classify.Document {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(corpusDir, name))
	if err != nil {
		t.Fatal(err)
	}
	title, body, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	return classify.Document{Title: strings.TrimSpace(title), Body: body}
}

// counts holds true positives, false positives and misses.
type counts struct{ tp, fp, fn int }

func (c counts) precision() float64 { return ratio(c.tp, c.tp+c.fp) }
func (c counts) recall() float64    { return ratio(c.tp, c.tp+c.fn) }

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// halfResult is the evaluation of one half of the corpus.
type halfResult struct {
	files      int
	micro      counts
	perPattern map[string]*counts
	roles      struct{ agree, total int }
	lines      []string // per-file detail for the log
}

// given is one pattern a labeller (or the classifier) gives a file; shown
// is how a wrong one is listed in the per-file detail.
type given struct{ slug, role, shown string }

// score compares what one file was given (got) with its labels (want:
// pattern -> role), pattern by pattern; roles are reported, not scored.
func (res *halfResult) score(name string, want map[string]string, got []given) {
	pc := func(slug string) *counts {
		if res.perPattern[slug] == nil {
			res.perPattern[slug] = &counts{}
		}
		return res.perPattern[slug]
	}
	res.files++
	var tps, fps, fns []string
	for _, g := range got {
		role, ok := want[g.slug]
		if !ok {
			res.micro.fp++
			pc(g.slug).fp++
			fps = append(fps, g.shown)
			continue
		}
		res.micro.tp++
		pc(g.slug).tp++
		res.roles.total++
		if role == g.role {
			res.roles.agree++
		}
		tps = append(tps, g.slug)
	}
	for slug := range want {
		if !slices.ContainsFunc(got, func(g given) bool { return g.slug == slug }) {
			res.micro.fn++
			pc(slug).fn++
			fns = append(fns, slug)
		}
	}
	slices.Sort(fns)
	res.lines = append(res.lines, fmt.Sprintf("  %s: right %v, wrong %v, missed %v", name, tps, fps, fns))
}

// wantOf is a file's labels as pattern -> role.
func wantOf(labels []corpusLabel) map[string]string {
	want := map[string]string{}
	for _, l := range labels {
		want[l.pattern] = l.role
	}
	return want
}

// evaluateHalf runs the classifier on every labelled file of a half and
// compares the suggestions it shows by default with the labels, pattern by
// pattern (roles are reported, not required to match).
func evaluateHalf(t *testing.T, c *classify.Classifier, labels map[string][]corpusLabel) halfResult {
	t.Helper()
	res := halfResult{perPattern: map[string]*counts{}}
	for _, name := range slices.Sorted(maps.Keys(labels)) {
		var got []given
		for _, s := range classify.Shown(c.Suggest(corpusDocument(t, name))) {
			got = append(got, given{s.Slug, s.Role, fmt.Sprintf("%s(%.2f)", s.Slug, s.Confidence)})
		}
		res.score(name, wantOf(labels[name]), got)
	}
	return res
}

func (r halfResult) report(name string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s half: %d files, micro precision %.2f, recall %.2f (tp %d, fp %d, fn %d); roles agree on %d of %d right patterns\n",
		name, r.files, r.micro.precision(), r.micro.recall(), r.micro.tp, r.micro.fp, r.micro.fn, r.roles.agree, r.roles.total)
	slugs := slices.Collect(maps.Keys(r.perPattern))
	slices.SortFunc(slugs, func(a, b string) int {
		ca, cb := r.perPattern[a], r.perPattern[b]
		return cmp.Or(cmp.Compare(cb.tp+cb.fn, ca.tp+ca.fn), strings.Compare(a, b))
	})
	fmt.Fprintf(&b, "  %-26s %9s %6s %6s %3s %3s %3s\n", "pattern", "precision", "recall", "", "tp", "fp", "fn")
	for _, s := range slugs {
		c := r.perPattern[s]
		fmt.Fprintf(&b, "  %-26s %9s %6s %6s %3d %3d %3d\n", s, fmtRatio(c.tp, c.tp+c.fp), fmtRatio(c.tp, c.tp+c.fn), "", c.tp, c.fp, c.fn)
	}
	return b.String()
}

func fmtRatio(a, b int) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", float64(a)/float64(b))
}

// TestCorpusEvaluation measures the default suggestions on the real
// postmortems of ../shared/corpus against our hand labels, for the tuning
// half (an upper bound: the classifier was tuned on it) and the held-out
// half (the honest figure, never tuned on). Run it with -v to see both.
func TestCorpusEvaluation(t *testing.T) {
	corpustest.Dir(t)
	split := map[string]string{}
	for _, r := range corpustest.ReadTSV(t, "testdata/corpus/split.tsv") {
		split[r[0]] = r[1]
	}
	tune := loadCorpusLabels(t, "testdata/corpus/labels-tune.tsv")
	heldout := loadCorpusLabels(t, "testdata/corpus/labels-heldout.tsv")
	var missing []string
	for file, half := range split {
		labels := tune
		if half == "heldout" {
			labels = heldout
		}
		if _, ok := labels[file]; !ok {
			missing = append(missing, half+"/"+file)
		}
	}
	for name, labels := range map[string]map[string][]corpusLabel{"tune": tune, "heldout": heldout} {
		for file := range labels {
			if split[file] != name {
				t.Errorf("labels-%s.tsv labels %s, which split.tsv puts in %q", name, file, split[file])
			}
		}
	}
	slices.Sort(missing)
	if len(missing) > 0 {
		t.Errorf("%d corpus files have no labels: %v", len(missing), missing)
	}

	c := classify.Compile(testCatalogue(t))
	rt := evaluateHalf(t, c, tune)
	rh := evaluateHalf(t, c, heldout)
	t.Logf("default suggestions: confidence >= %.2f, at most %d per postmortem", classify.ShowConfidence, classify.MaxShown)
	t.Logf("tuning half, file by file:\n%s", strings.Join(rt.lines, "\n"))
	t.Logf("%s", rt.report("tuning (upper bound)"))
	t.Logf("%s", rh.report("held-out (honest)"))
	if rh.files == 0 {
		t.Fatal("no held-out labels to measure")
	}
	// Issue 12's bar for the held-out half is micro precision 0.80 at recall
	// 0.70. The classifier does not reach it yet: 0.60 at 0.42 when the
	// held-out labels were first read, 0.63 (47 right, 28 wrong) at 0.41 (69
	// missed) after the rules were reworked to generalize, 0.62 (51 right,
	// 31 wrong) at 0.44 (65 missed) with the shared model over the rules'
	// evidence (model.go), read once after it was frozen (2026-12-01); 0.63
	// (51 right, 30 wrong) at 0.44 once suggestions on common words alone
	// were no longer shown (common.go; the tuning half went from 0.87, 92
	// right and 14 wrong, to 0.88, 13 wrong, at recall 0.88). CI
	// must not fail on a target we have not met: the test logs the distance
	// to the bar and fails when the held-out figures fall below the last
	// measurement, so a change can keep or improve them but never silently
	// lose ground. The floor only ever rises.
	p, r := rh.micro.precision(), rh.micro.recall()
	if p < 0.80 || r < 0.70 {
		t.Logf("held-out half: micro precision %.2f, recall %.2f: BELOW the bar of 0.80 at 0.70", p, r)
	}
	if p < 0.62 || r < 0.43 {
		t.Errorf("held-out half: micro precision %.2f, recall %.2f: below the 0.62/0.43 last measured", p, r)
	}
}

// TestCalibration checks the confidence the classifier shows against how
// often it is right, on the tuning half by leave-one-file-out
// cross-validation (each file scored by a model fitted on the others): in
// every band of confidence 0.2 wide holding 20 candidates or more, the
// share the labellers tag (1 for both, 0.5 for one) is within 0.10 of the
// band's mean confidence. The held-out half is never read.
func TestCalibration(t *testing.T) {
	ts := loadTuningSet(t)
	type band struct{ n, conf, right, first float64 }
	var bands [5]band
	for _, c := range cvProbs(ts, classify.FittedL2) {
		b := &bands[min(int(c.p*5), 4)]
		b.n++
		b.conf += c.p
		b.right += c.y
		if ts.first[c.file][c.slug] {
			b.first++
		}
	}
	for i, b := range bands {
		if b.n == 0 {
			continue
		}
		conf, got := b.conf/b.n, b.right/b.n
		t.Logf("confidence %.1f-%.1f: %3.0f candidates, mean confidence %.2f, tagged %.2f (first labeller %.2f)", float64(i)/5, float64(i+1)/5, b.n, conf, got, b.first/b.n)
		if b.n >= 20 && math.Abs(got-conf) > 0.10 {
			t.Errorf("confidence %.1f-%.1f is off: mean %.2f, tagged %.2f in cross-validation", float64(i)/5, float64(i+1)/5, conf, got)
		}
	}
}

// kappa is Cohen's kappa for one pattern over n files, from the counts of
// files both labellers tag (tp), only the second tags (fp) and only the first
// tags (fn); ok is false when chance agreement is total (nobody, or
// everybody, tags the pattern) and kappa says nothing.
func kappa(c counts, n int) (k float64, ok bool) {
	both, second, first := float64(c.tp), float64(c.tp+c.fp), float64(c.tp+c.fn)
	neither := float64(n) - both - float64(c.fp) - float64(c.fn)
	N := float64(n)
	po := (both + neither) / N
	pe := (first*second + (N-first)*(N-second)) / (N * N)
	if pe == 1 {
		return 0, false
	}
	return (po - pe) / (1 - pe), true
}

// TestLabellerAgreement measures how far two careful people agree when they
// label the same real postmortems: labels-tune-second.tsv was written blind
// (without reading labels-tune.tsv, the rules or any classifier output) by a
// second labeller of the tuning half. It scores the second labeller against
// the first the way TestCorpusEvaluation scores the classifier (pattern
// level, roles reported but not scored), and gives Cohen's kappa per
// pattern. The figures are logged, not asserted: they are a measurement of
// people. What it asserts is that the second file is well formed: every row
// names a tuning file, a catalogue slug and a role, and quotes its file.
func TestLabellerAgreement(t *testing.T) {
	corpustest.Dir(t)
	const secondPath = "testdata/corpus/labels-tune-second.tsv"
	split := map[string]string{}
	for _, r := range corpustest.ReadTSV(t, "testdata/corpus/split.tsv") {
		split[r[0]] = r[1]
	}
	slugs := map[string]bool{"-": true}
	for _, p := range testCatalogue(t) {
		slugs[p.Slug] = true
	}
	roles := []string{postmortem.RoleTrigger, postmortem.RoleAmplifier, postmortem.RoleContributing, postmortem.RoleMissingDefence, postmortem.RoleMitigation}
	texts := map[string]string{}
	for _, r := range corpustest.ReadTSV(t, secondPath) {
		if len(r) != 4 {
			t.Errorf("%s: row %q: want file, pattern, role, evidence", secondPath, strings.Join(r, "\t"))
			continue
		}
		file, pattern, role, evidence := r[0], r[1], r[2], r[3]
		if split[file] != "tune" {
			t.Errorf("%s labels %s, which split.tsv puts in %q, not the tuning half", secondPath, file, split[file])
			continue
		}
		if !slugs[pattern] {
			t.Errorf("%s: %s: %q is not a catalogue slug", secondPath, file, pattern)
		}
		if pattern == "-" {
			continue
		}
		if !slices.Contains(roles, role) {
			t.Errorf("%s: %s %s: role %q is not one of %v", secondPath, file, pattern, role, roles)
		}
		if _, ok := texts[file]; !ok {
			b, err := os.ReadFile(filepath.Join(corpusDir, file))
			if err != nil {
				t.Fatal(err)
			}
			texts[file] = strings.Join(strings.Fields(string(b)), " ")
		}
		if q := strings.Join(strings.Fields(evidence), " "); q == "" || !strings.Contains(texts[file], q) {
			t.Errorf("%s: %s %s: the evidence %q is not in the file", secondPath, file, pattern, evidence)
		}
	}

	first := loadCorpusLabels(t, "testdata/corpus/labels-tune.tsv")
	second := loadCorpusLabels(t, secondPath)
	if len(second) == 0 {
		t.Fatalf("%s labels no file", secondPath)
	}
	res := halfResult{perPattern: map[string]*counts{}}
	for _, name := range slices.Sorted(maps.Keys(second)) {
		if _, ok := first[name]; !ok {
			t.Errorf("%s is labelled by the second labeller but not in labels-tune.tsv", name)
			continue
		}
		var got []given
		for _, l := range second[name] {
			got = append(got, given{l.pattern, l.role, l.pattern})
		}
		res.score(name, wantOf(first[name]), got)
	}
	t.Logf("second labeller against the first, file by file:\n%s", strings.Join(res.lines, "\n"))
	t.Logf("%s", res.report("second labeller vs first, tuning"))

	// Cohen's kappa per pattern over the res.files files (each file is a
	// yes/no decision per pattern), and pooled over every pattern's decisions.
	var b strings.Builder
	fmt.Fprintf(&b, "Cohen's kappa per pattern over %d files (first tags / second tags / both):\n", res.files)
	var pooled counts
	for _, slug := range slices.Sorted(maps.Keys(slugs)) {
		if slug == "-" {
			continue
		}
		c := counts{}
		if pc := res.perPattern[slug]; pc != nil {
			c = *pc
		}
		pooled.tp, pooled.fp, pooled.fn = pooled.tp+c.tp, pooled.fp+c.fp, pooled.fn+c.fn
		k, ok := kappa(c, res.files)
		ks := "-"
		if ok {
			ks = fmt.Sprintf("%.2f", k)
		}
		fmt.Fprintf(&b, "  %-26s %5s  (%d / %d / %d)\n", slug, ks, c.tp+c.fn, c.tp+c.fp, c.tp)
	}
	if k, ok := kappa(pooled, res.files*(len(slugs)-1)); ok {
		fmt.Fprintf(&b, "  pooled over all %d pattern decisions: kappa %.2f\n", res.files*(len(slugs)-1), k)
	}
	t.Logf("%s", b.String())
}
