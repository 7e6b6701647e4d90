package library

import (
	"context"

	"hindsight/classify"
	"hindsight/store"
)

// printer fingerprints texts for the store (store.Printer): a MinHash
// signature of the text's word pairs, its LSH bands, and the numbers and
// names it mentions (classify).
type printer struct{}

func (printer) Print(text string) store.Print {
	sig, facts := classify.FingerprintAndFacts(text)
	keys := facts.Keys()
	return store.Print{Signature: sig.Bytes(), Bands: sig.Bands(), Facts: keys, Lookup: distinctive(keys)}
}

func (printer) Bands(signature []byte) ([]int64, bool) {
	sig, err := classify.ParseSignature(signature)
	if err != nil {
		return nil, false
	}
	return sig.Bands(), true
}

// distinctive is the facts of keys that texts are looked up by: the others,
// such as small numbers, are too common to tell texts apart.
func distinctive(keys []string) []string {
	var out []string
	for _, k := range keys {
		if classify.Distinctive(k) {
			out = append(out, k)
		}
	}
	return out
}

// Fingerprints is the store.OpenOption that has a store fingerprint what
// it writes as the library compares texts.
func Fingerprints() store.OpenOption { return store.WithPrinter(printer{}) }

// Open opens the store at path as store.Open does, with Fingerprints.
func Open(ctx context.Context, path string, opts ...store.OpenOption) (*store.Store, error) {
	return store.Open(ctx, path, append(opts, Fingerprints())...)
}

// PrepareImport does ahead the part of importing p that needs no database:
// its fingerprint, then store.(*Postmortem).PrepareImport. p must not
// change afterwards.
func PrepareImport(p *store.Postmortem) {
	if p.Print == nil {
		pr := printer{}.Print(p.VariantText())
		p.Print = &pr
	}
	p.PrepareImport()
}
