package classify_test

import (
	"cmp"
	"crypto/sha256"
	"flag"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"hindsight/classify"
	"hindsight/internal/corpustest"
	"hindsight/postmortem"
)

// The development pool (testdata/pool/README.md) is 137 more real reports,
// labelled blind by other people than the rules' writer. Its texts are not
// part of the project or of CI: a developer passes their folder with -pool.
var (
	poolTexts = flag.String("pool", "", "folder of the development pool's texts (testdata/pool/README.md); TestPoolEvaluation skips without it")
	poolCurve = flag.Bool("pool-curve", false, "also fit the sentence model on a quarter and a half of the pool (a learning curve)")
)

// poolDoc is one labelled report as the pool evaluation reads it.
type poolDoc struct {
	name     string
	labels   map[string]bool
	ruleConf map[string]float64 // pattern -> the shipped model's confidence; absent: no evidence
	shown    []string           // the shipped default suggestions
	roles    map[string]string  // their roles
	sents    []map[string]float64
	sentPos  []map[string]bool // patterns whose label quotes the sentence
}

// foldOf puts a report in one of five folds. Reports of one organization and
// day share a fold: some pages repeat each other.
func foldOf(name, salt string) int {
	key := name
	if parts := strings.SplitN(name, "-", 3); len(parts) == 3 && (parts[0] == "azure" || parts[0] == "wikitech") {
		key = parts[0] + "-" + parts[1]
	}
	h := sha256.Sum256([]byte(salt + key))
	return int(h[0]) % 5
}

func splitFold(docs []*poolDoc, salt string, f int) (train, test []*poolDoc) {
	for _, d := range docs {
		if foldOf(d.name, salt) == f {
			test = append(test, d)
		} else {
			train = append(train, d)
		}
	}
	return train, test
}

func loadPoolDoc(c *classify.Classifier, name string, doc classify.Document, labels []corpusLabel) *poolDoc {
	d := &poolDoc{name: name, labels: map[string]bool{}, ruleConf: map[string]float64{}, roles: map[string]string{}}
	for _, l := range labels {
		d.labels[l.pattern] = true
	}
	sugs := c.Suggest(doc)
	for _, s := range sugs {
		d.ruleConf[s.Slug] = s.Confidence
	}
	for _, s := range classify.Shown(sugs) {
		d.shown = append(d.shown, s.Slug)
		d.roles[s.Slug] = s.Role
	}
	for _, text := range append([]string{doc.Title}, classify.Sentences(doc.Body)...) {
		tf := map[string]float64{}
		for _, term := range classify.Terms(classify.Document{Body: text}) {
			tf[term]++
		}
		if len(tf) == 0 {
			continue
		}
		pos := map[string]bool{}
		ns := classify.Normalize(text)
		for _, l := range labels {
			q := classify.Normalize(l.evidence)
			if q != "" && (strings.Contains(ns, q) || len(ns) > 30 && strings.Contains(q, ns)) {
				pos[l.pattern] = true
			}
		}
		d.sents = append(d.sents, tf)
		d.sentPos = append(d.sentPos, pos)
	}
	return d
}

// scored is one report's patterns with a probability each.
type scored struct {
	d     *poolDoc
	probs map[string]float64
}

// decide shows the patterns of probability t or more, at most k, best first.
func decide(probs map[string]float64, t float64, k int) []string {
	var out []string
	for slug, p := range probs {
		if p >= t {
			out = append(out, slug)
		}
	}
	slices.SortFunc(out, func(a, b string) int { return cmp.Or(cmp.Compare(probs[b], probs[a]), strings.Compare(a, b)) })
	return out[:min(len(out), k)]
}

func countShown(ss []scored, pick func(scored) []string) counts {
	var c counts
	for _, s := range ss {
		got := pick(s)
		for _, g := range got {
			if s.d.labels[g] {
				c.tp++
			} else {
				c.fp++
			}
		}
		for l := range s.d.labels {
			if !slices.Contains(got, l) {
				c.fn++
			}
		}
	}
	return c
}

// chooseF1 picks the threshold and cap of best F1 on ss.
func chooseF1(ss []scored) (float64, int) {
	bt, bk, bf := 0.5, 3, -1.0
	for t := 0.10; t <= 0.901; t += 0.025 {
		for k := 1; k <= 5; k++ {
			c := countShown(ss, func(s scored) []string { return decide(s.probs, t, k) })
			p, r := c.precision(), c.recall()
			if p+r == 0 {
				continue
			}
			if f := 2 * p * r / (p + r); f > bf {
				bt, bk, bf = t, k, f
			}
		}
	}
	return bt, bk
}

// vectorizer turns term counts into L2-normalised sublinear TF-IDF vectors
// over the terms of minDF documents or more.
type vectorizer struct {
	vocab map[string]int
	idf   []float64
}

type sparse struct {
	idx []int
	val []float64
}

func newVectorizer(docs []map[string]float64, minDF int) *vectorizer {
	df := map[string]int{}
	for _, d := range docs {
		for term := range d {
			df[term]++
		}
	}
	var terms []string
	for term, n := range df {
		if n >= minDF {
			terms = append(terms, term)
		}
	}
	sort.Strings(terms)
	v := &vectorizer{vocab: map[string]int{}}
	for _, term := range terms {
		v.vocab[term] = len(v.idf)
		v.idf = append(v.idf, math.Log(float64(len(docs)+1)/float64(df[term]+1))+1)
	}
	return v
}

func (v *vectorizer) vec(tf map[string]float64) sparse {
	var s sparse
	var norm float64
	for term, n := range tf {
		if i, ok := v.vocab[term]; ok {
			x := (1 + math.Log(n)) * v.idf[i]
			s.idx, s.val = append(s.idx, i), append(s.val, x)
			norm += x * x
		}
	}
	for i := range s.val {
		s.val[i] /= math.Sqrt(norm)
	}
	return s
}

// fitSparseLR fits a logistic regression (mean log loss plus lambda/2 |w|^2,
// bias unpenalised) by accelerated gradient descent; the rows have norm 1
// at most, which bounds the step.
func fitSparseLR(xs []sparse, ys []float64, dim int, lambda float64) ([]float64, float64) {
	w, prev, look, grad := make([]float64, dim), make([]float64, dim), make([]float64, dim), make([]float64, dim)
	var b, bPrev float64
	eta, n := 1/(0.5+lambda), float64(len(xs))
	for it := 1; it <= 300; it++ {
		mom := float64(it-1) / float64(it+2)
		for j := range w {
			look[j] = w[j] + mom*(w[j]-prev[j])
		}
		lb := b + mom*(b-bPrev)
		clear(grad)
		var gb float64
		for i, x := range xs {
			z := lb
			for k, j := range x.idx {
				z += look[j] * x.val[k]
			}
			r := (1/(1+math.Exp(-z)) - ys[i]) / n
			gb += r
			for k, j := range x.idx {
				grad[j] += r * x.val[k]
			}
		}
		copy(prev, w)
		bPrev = b
		for j := range w {
			w[j] = look[j] - eta*(grad[j]+lambda*look[j])
		}
		b = lb - eta*gb
	}
	return w, b
}

// sentModel is, per pattern, a logistic regression over the sentences that
// the labels quote (positive) and every other sentence (negative); a report's
// score for a pattern is its best sentence's.
type sentModel struct {
	v       *vectorizer
	weights map[string][]float64
	bias    map[string]float64
}

const sentLambda = 1e-5

func fitSentModel(docs []*poolDoc, slugs []string) *sentModel {
	var all []map[string]float64
	var pos []map[string]bool
	for _, d := range docs {
		all = append(all, d.sents...)
		pos = append(pos, d.sentPos...)
	}
	v := newVectorizer(all, 2)
	xs := make([]sparse, len(all))
	for i, tf := range all {
		xs[i] = v.vec(tf)
	}
	m := &sentModel{v: v, weights: map[string][]float64{}, bias: map[string]float64{}}
	for _, s := range slugs {
		ys := make([]float64, len(xs))
		n := 0
		for i := range xs {
			if pos[i][s] {
				ys[i], n = 1, n+1
			}
		}
		if n >= 2 {
			m.weights[s], m.bias[s] = fitSparseLR(xs, ys, len(v.idf), sentLambda)
		}
	}
	return m
}

func (m *sentModel) scores(d *poolDoc) map[string]float64 {
	out := map[string]float64{}
	for _, tf := range d.sents {
		x := m.v.vec(tf)
		for s, w := range m.weights {
			z := m.bias[s]
			for k, j := range x.idx {
				z += w[j] * x.val[k]
			}
			out[s] = max(out[s], 1/(1+math.Exp(-z)))
		}
	}
	return out
}

// The stacker combines the shipped confidence with the sentence model's
// score: a logistic regression over both logits, apart for patterns the
// rules find evidence for and those they do not. It is the shipped model's
// fit (classify.Fit) over four of its feature slots; the others stay zero,
// and a constant feature is ignored.
func logit(p float64) float64 {
	p = min(max(p, 0.005), 0.995)
	return math.Log(p / (1 - p))
}

func stackFeatures(d *poolDoc, slug string, sent float64) []float64 {
	x := make([]float64, len(classify.FeatureNames))
	if r, ok := d.ruleConf[slug]; ok {
		x[0], x[1], x[2] = logit(r), 1, logit(sent)
	} else {
		x[3] = logit(sent)
	}
	return x
}

func fitStacker(docs []*poolDoc, sent map[*poolDoc]map[string]float64, slugs []string) classify.Model {
	var xs [][]float64
	var ys []float64
	for _, d := range docs {
		for _, s := range slugs {
			xs = append(xs, stackFeatures(d, s, sent[d][s]))
			y := 0.0
			if d.labels[s] {
				y = 1
			}
			ys = append(ys, y)
		}
	}
	return classify.Fit(xs, ys, 0.01)
}

func stacked(docs []*poolDoc, sent map[*poolDoc]map[string]float64, slugs []string, m classify.Model) []scored {
	var out []scored
	for _, d := range docs {
		s := scored{d: d, probs: map[string]float64{}}
		for _, slug := range slugs {
			s.probs[slug] = m.Prob(stackFeatures(d, slug, sent[d][slug]))
		}
		out = append(out, s)
	}
	return out
}

// sentenceCV scores the pool by five-fold cross-validation of the rules plus
// the sentence model: inside each fold, the sentence model is fitted on the
// other folds' pool reports (only those of frac quarters of them) and the
// tuning half, and the stacker and the decision rule on the other folds'
// out-of-fold scores. It returns what the combination shows and what the
// sentence model scores alone.
func sentenceCV(pool, tune []*poolDoc, slugs []string, frac int) (combined counts, alone []scored) {
	for f := range 5 {
		trainP, testP := splitFold(pool, "outer", f)
		trainP = slices.DeleteFunc(trainP, func(d *poolDoc) bool { return foldOf(d.name, "frac")%4 >= frac })
		oof := map[*poolDoc]map[string]float64{}
		for g := range 5 {
			tr, te := splitFold(trainP, "inner", g)
			m := fitSentModel(append(tr, tune...), slugs)
			for _, d := range te {
				oof[d] = m.scores(d)
			}
		}
		w := fitStacker(trainP, oof, slugs)
		th, k := chooseF1(stacked(trainP, oof, slugs, w))
		m := fitSentModel(append(slices.Clone(trainP), tune...), slugs)
		sent := map[*poolDoc]map[string]float64{}
		for _, d := range testP {
			sent[d] = m.scores(d)
			alone = append(alone, scored{d: d, probs: sent[d]})
		}
		c := countShown(stacked(testP, sent, slugs, w), func(s scored) []string { return decide(s.probs, th, k) })
		combined.tp, combined.fp, combined.fn = combined.tp+c.tp, combined.fp+c.fp, combined.fn+c.fn
	}
	return combined, alone
}

// knnCV scores the pool by five-fold cross-validation of a vote of the
// k labelled reports most like each (TF-IDF cosine over whole reports,
// fitted inside the fold with the tuning half): a pattern's score is the
// similarity-weighted share of them that carry it.
func knnCV(pool, tune []*poolDoc, k int) []scored {
	whole := func(d *poolDoc) map[string]float64 {
		m := map[string]float64{}
		for _, s := range d.sents {
			for term, n := range s {
				m[term] += n
			}
		}
		return m
	}
	var out []scored
	for f := range 5 {
		trainP, testP := splitFold(pool, "outer", f)
		train := append(trainP, tune...)
		docs := make([]map[string]float64, len(train))
		for i, d := range train {
			docs[i] = whole(d)
		}
		v := newVectorizer(docs, 2)
		vecs := make([]map[int]float64, len(train))
		for i := range train {
			x := v.vec(docs[i])
			vecs[i] = make(map[int]float64, len(x.idx))
			for j, idx := range x.idx {
				vecs[i][idx] = x.val[j]
			}
		}
		for _, d := range testP {
			x := v.vec(whole(d))
			sims := make([]float64, len(train))
			order := make([]int, len(train))
			for i := range train {
				order[i] = i
				for j, idx := range x.idx {
					sims[i] += x.val[j] * vecs[i][idx]
				}
			}
			slices.SortFunc(order, func(a, b int) int { return cmp.Compare(sims[b], sims[a]) })
			probs, total := map[string]float64{}, 0.0
			for _, i := range order[:k] {
				total += sims[i]
				for l := range train[i].labels {
					probs[l] += sims[i]
				}
			}
			for l := range probs {
				probs[l] /= max(total, 1e-9)
			}
			out = append(out, scored{d: d, probs: probs})
		}
	}
	return out
}

// TestPoolEvaluation measures the shipped classifier on the development pool,
// reports how many of its tags the rules find any evidence for, and scores
// the learned sentence model that was tried (testdata/pool/README.md). It
// needs the pool's texts:
//
//	HINDSIGHT_CORPUS=/work/shared/corpus go test ./classify -run TestPoolEvaluation -v -args -pool DIR
func TestPoolEvaluation(t *testing.T) {
	if *poolTexts == "" {
		t.Skip("the development pool's texts are not part of the project: pass -args -pool DIR (testdata/pool/README.md)")
	}
	corpustest.Dir(t)
	cat := testCatalogue(t)
	c := classify.Compile(cat)
	var slugs []string
	for _, p := range cat {
		slugs = append(slugs, p.Slug)
	}
	var pool, tune []*poolDoc
	shipped := halfResult{perPattern: map[string]*counts{}}
	labels := loadCorpusLabels(t, "testdata/pool/labels.tsv")
	for _, name := range slices.Sorted(maps.Keys(labels)) {
		b, err := os.ReadFile(filepath.Join(*poolTexts, name))
		if err != nil {
			t.Fatal(err)
		}
		title, body, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
		d := loadPoolDoc(c, name, classify.Document{Title: strings.TrimSpace(title), Body: body}, labels[name])
		pool = append(pool, d)
		var got []given
		for _, s := range d.shown {
			got = append(got, given{slug: s, role: d.roles[s], shown: s})
		}
		shipped.score(name, wantOf(labels[name]), got)
	}
	for name, ls := range loadCorpusLabels(t, "testdata/corpus/labels-tune.tsv") {
		tune = append(tune, loadPoolDoc(c, name, corpusDocument(t, name), ls))
	}
	t.Logf("%s", shipped.report("development pool, shipped classifier"))

	var found, tags int
	var byRules []scored
	for _, d := range pool {
		byRules = append(byRules, scored{d: d, probs: d.ruleConf})
		for l := range d.labels {
			tags++
			if _, ok := d.ruleConf[l]; ok {
				found++
			}
		}
	}
	t.Logf("the rules find evidence for %d of the pool's %d tags (%.2f): no threshold shows more", found, tags, ratio(found, tags))
	for _, th := range []float64{0.10, 0.30, 0.45} {
		for _, k := range []int{3, 5} {
			r := countShown(byRules, func(s scored) []string { return decide(s.probs, th, k) })
			t.Logf("  shipped confidence >= %.2f, at most %d: precision %.2f, recall %.2f", th, k, r.precision(), r.recall())
		}
	}

	near := knnCV(pool, tune, 10)
	for _, th := range []float64{0.3, 0.5} {
		a := countShown(near, func(s scored) []string { return decide(s.probs, th, 3) })
		u := countShown(near, func(s scored) []string { return withShipped(s, decide(s.probs, th, 2)) })
		t.Logf("the 10 most similar labelled reports vote, share >= %.1f (at most 3): precision %.2f, recall %.2f; added to the shipped suggestions (at most 2): %.2f, %.2f",
			th, a.precision(), a.recall(), u.precision(), u.recall())
	}

	fracs := []int{4}
	if *poolCurve {
		fracs = []int{1, 2, 4}
	}
	for _, frac := range fracs {
		comb, alone := sentenceCV(pool, tune, slugs, frac)
		t.Logf("rules + sentence model, %d/4 of the pool to fit, 5-fold CV: precision %.2f, recall %.2f (tp %d, fp %d, fn %d)",
			frac, comb.precision(), comb.recall(), comb.tp, comb.fp, comb.fn)
		for _, th := range []float64{0.05, 0.10, 0.20} {
			a := countShown(alone, func(s scored) []string { return decide(s.probs, th, 3) })
			u := countShown(alone, func(s scored) []string { return withShipped(s, decide(s.probs, th, 2)) })
			t.Logf("  sentence model >= %.2f (at most 3): precision %.2f, recall %.2f; added to the shipped suggestions (at most 2): %.2f, %.2f",
				th, a.precision(), a.recall(), u.precision(), u.recall())
		}
	}
}

// TestPoolLabels checks the development pool's labels without its texts:
// every row names a file of sources.tsv, a catalogue pattern and a role, and
// every file of sources.tsv is labelled.
func TestPoolLabels(t *testing.T) {
	known := map[string]bool{"-": true}
	for _, p := range testCatalogue(t) {
		known[p.Slug] = true
	}
	roles := map[string]bool{"-": true}
	for _, r := range postmortem.Roles {
		roles[r] = true
	}
	sources := map[string]bool{}
	for _, r := range corpustest.ReadTSV(t, "testdata/pool/sources.tsv") {
		sources[r[0]] = true
	}
	labelled := map[string]bool{}
	for _, r := range corpustest.ReadTSV(t, "testdata/pool/labels.tsv") {
		if len(r) != 4 || !sources[r[0]] || !known[r[1]] || !roles[r[2]] || r[3] == "" {
			t.Errorf("labels.tsv row %q: want a file of sources.tsv, a catalogue slug, a role and a quote", strings.Join(r, "\t"))
			continue
		}
		labelled[r[0]] = true
	}
	for f := range sources {
		if !labelled[f] {
			t.Errorf("%s is in sources.tsv but has no label", f)
		}
	}
	if len(labelled) != 137 {
		t.Errorf("%d files labelled, want the pool's 137", len(labelled))
	}
}

// withShipped adds the shipped default suggestions of s's report to out.
func withShipped(s scored, out []string) []string {
	for _, slug := range s.d.shown {
		if !slices.Contains(out, slug) {
			out = append(out, slug)
		}
	}
	return out
}
