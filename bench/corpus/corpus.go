// Package corpus generates a synthetic collection of postmortems for
// benchmarks: Markdown files with front matter, as the batch import reads
// them. The same seed always gives the same files. The text is assembled
// from sentence templates per failure pattern, with the catalogue's
// detection phrases sprinkled in, so that search and suggestions meet the
// words they would meet in real write-ups.
package corpus

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"hindsight/postmortem"
	"hindsight/store"
)

// Shares of the collection; see Generator.Doc.
const (
	variantRate = 0.10 // a document is a version of the one before it
	spanishRate = 0.05 // an original is written in Spanish
	minSize     = 1000 // bytes of body, roughly
	maxSize     = 20000
)

// Generator makes the documents of one corpus.
type Generator struct {
	seed   uint64
	pats   []store.Pattern
	orgs   []string
	weight []float64 // cumulative pattern popularity
}

// New returns a generator for seed over the catalogue's patterns (as
// seeds.Catalogue returns them).
func New(seed uint64, pats []store.Pattern) *Generator {
	g := &Generator{seed: seed, pats: pats}
	r := rand.New(rand.NewPCG(seed, 0x6f726773)) // "orgs"
	for _, a := range orgFirst {
		for _, b := range orgSecond {
			g.orgs = append(g.orgs, a+" "+b)
		}
	}
	r.Shuffle(len(g.orgs), func(i, j int) { g.orgs[i], g.orgs[j] = g.orgs[j], g.orgs[i] })
	g.orgs = g.orgs[:400]
	// Change and load patterns are far more common than leap seconds.
	total := 0.0
	for i := range pats {
		total += 1 / math.Sqrt(float64(i%7+1)) * (1 + 2*r.Float64())
		g.weight = append(g.weight, total)
	}
	return g
}

// Doc is one generated postmortem file and what it says about itself.
type Doc struct {
	Name         string // file name: the index, zero-padded, so name order is index order
	Data         []byte
	Slug         string // the slug the import gives it
	Title        string
	Organization string
	Year         string
	Language     string
	Patterns     []string // slugs, trigger first
	VariantOf    string   // slug of the original, for a variant
	VariantKind  string
}

// incident is what all versions of one write-up share.
type incident struct {
	index     int
	org       string
	ref       string
	date      string
	published string
	severity  string
	duration  int
	svc, dep  string
	team      string
	region    string
	ver       string
	lang      string // of the original
	tags      []store.Tag
	size      int
}

// origin says whether document i is a version of an earlier one: it returns
// the original's index and how far back it is (0 for an original). A group
// holds at most the original, a translation and a repost.
func (g *Generator) origin(i int) (int, int) {
	if i == 0 || rand.New(rand.NewPCG(g.seed^0x76617269, uint64(i))).Float64() >= variantRate {
		return i, 0
	}
	o, d := g.origin(i - 1)
	if d >= 2 {
		return i, 0
	}
	return o, d + 1
}

func (g *Generator) incident(i int) incident {
	r := rand.New(rand.NewPCG(g.seed, uint64(i)))
	in := incident{index: i}
	zipf := rand.NewZipf(r, 1.1, 2, uint64(len(g.orgs)-1))
	in.org = g.orgs[zipf.Uint64()]
	in.ref = initials(in.org) + "-" + strconv.Itoa(1000+i)
	year := 2025 - int(math.Abs(r.NormFloat64())*5)
	year = max(year, 2008)
	day := r.IntN(365)
	month, dom := 1+day/31, 1+day%28
	in.date = fmt.Sprintf("%04d-%02d-%02d", year, month, dom)
	pub := day + 1 + r.IntN(14)
	in.published = fmt.Sprintf("%04d-%02d-%02d", year+pub/365, 1+(pub%365)/31, 1+(pub%365)%28)
	in.severity = pick(r, []string{"SEV1", "SEV2", "SEV2", "SEV2", "SEV3", "SEV3", "SEV3", "SEV3", "SEV4", ""})
	in.duration = 5 + int(r.ExpFloat64()*80)
	in.svc = pick(r, services)
	in.dep = pick(r, services)
	for in.dep == in.svc {
		in.dep = pick(r, services)
	}
	in.team, in.region = pick(r, teams), pick(r, regions)
	in.ver = fmt.Sprintf("%d.%d.%d", 1+r.IntN(9), r.IntN(40), r.IntN(10))
	in.lang = "en"
	if r.Float64() < spanishRate {
		in.lang = "es"
	}
	n := 1 + r.IntN(4)
	seen := map[string]bool{}
	for len(in.tags) < n {
		p := g.pattern(r)
		if seen[p] {
			continue
		}
		seen[p] = true
		role := postmortem.RoleTrigger
		if len(in.tags) > 0 {
			role = pick(r, []string{postmortem.RoleAmplifier, postmortem.RoleAmplifier, postmortem.RoleContributing, postmortem.RoleContributing,
				postmortem.RoleMissingDefence, postmortem.RoleMitigation})
		}
		in.tags = append(in.tags, store.Tag{PatternSlug: p, Role: role})
	}
	// Most write-ups are short; a few are long.
	in.size = min(minSize+int(r.ExpFloat64()*3500), maxSize)
	return in
}

func (g *Generator) pattern(r *rand.Rand) string {
	x := r.Float64() * g.weight[len(g.weight)-1]
	for i, w := range g.weight {
		if x < w {
			return g.pats[i].Slug
		}
	}
	return g.pats[len(g.pats)-1].Slug
}

// Doc returns document i (0-based). Documents are independent of each other
// except that a variant repeats its original's facts, so any document can be
// made alone and in any order.
func (g *Generator) Doc(i int) Doc {
	o, d := g.origin(i)
	in := g.incident(o)
	lang, kind := in.lang, ""
	if d > 0 {
		// The first version after an original is usually a translation,
		// the second the other kind.
		first := postmortem.KindTranslation
		if rand.New(rand.NewPCG(g.seed^0x6b696e64, uint64(o))).Float64() < 0.35 {
			first = postmortem.KindRewrite
		}
		kind = first
		if d == 2 {
			kind = map[string]string{postmortem.KindTranslation: postmortem.KindRewrite, postmortem.KindRewrite: postmortem.KindTranslation}[first]
		}
		if kind == postmortem.KindTranslation {
			lang = map[string]string{"en": "es", "es": "en"}[in.lang]
		}
	}
	w := &writer{r: rand.New(rand.NewPCG(g.seed^uint64(d+1)<<32, uint64(o))), in: in, lang: lang, g: g}
	doc := Doc{
		Name:         fmt.Sprintf("%07d.md", i),
		Organization: in.org,
		Year:         in.date[:4],
		Language:     lang,
		VariantKind:  kind,
	}
	for _, t := range in.tags {
		doc.Patterns = append(doc.Patterns, t.PatternSlug)
	}
	doc.Title = w.title(kind == postmortem.KindRewrite)
	doc.Slug = store.Slugify(doc.Title)
	if d > 0 {
		// The original's title comes first from its writer's random stream.
		ow := &writer{r: rand.New(rand.NewPCG(g.seed^1<<32, uint64(o))), in: in, lang: in.lang, g: g}
		doc.VariantOf = store.Slugify(ow.title(false))
	}
	doc.Data = w.file(doc)
	return doc
}

func initials(org string) string {
	var b strings.Builder
	for _, w := range strings.Fields(org) {
		b.WriteString(strings.ToUpper(w[:2]))
	}
	return b.String()
}

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }
