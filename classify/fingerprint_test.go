package classify_test

import (
	"slices"
	"testing"

	"hindsight/classify"
	"hindsight/internal/corpustest"
	"hindsight/internal/cpuclock"
	"hindsight/seeds/seedtest"
)

func TestSimilaritySeedVariants(t *testing.T) {
	a := classify.Fingerprint(seedtest.Document(t, "000"))
	b := classify.Fingerprint(seedtest.Document(t, "001"))
	sim := classify.Similarity(a, b)
	t.Logf("000~001 similarity %.2f", sim)
	if sim < classify.VariantThreshold {
		t.Errorf("Similarity(000, 001) = %.2f, want >= %.2f", sim, classify.VariantThreshold)
	}
	if got := classify.Similarity(b, a); got != sim {
		t.Errorf("Similarity is not symmetric: %.3f vs %.3f", got, sim)
	}
	if !shareBand(a, b) {
		t.Error("000 and 001 share no LSH band: the store would not find them")
	}
}

func shareBand(a, b classify.Signature) bool {
	bands := map[int64]bool{}
	for _, h := range a.Bands() {
		bands[h] = true
	}
	for _, h := range b.Bands() {
		if bands[h] {
			return true
		}
	}
	return false
}

// TestSimilarityUnrelated: no two different incidents among the seeds and
// the labelled postmortems look like variants.
func TestSimilarityUnrelated(t *testing.T) {
	texts := map[string]string{
		"000": seedtest.Document(t, "000"), "003": seedtest.Document(t, "003"), "004": seedtest.Document(t, "004"), "002": seedtest.Document(t, "002"),
	}
	for _, l := range loadLabelled(t) {
		texts[l.name] = l.doc.Title + "\n" + l.doc.Body
	}
	sigs := map[string]classify.Signature{}
	for name, text := range texts {
		sigs[name] = classify.Fingerprint(text)
	}
	worst := 0.0
	for a, sa := range sigs {
		for b, sb := range sigs {
			if a >= b {
				continue
			}
			sim := classify.Similarity(sa, sb)
			worst = max(worst, sim)
			if sim >= classify.VariantThreshold {
				t.Errorf("Similarity(%s, %s) = %.2f, want < %.2f", a, b, sim, classify.VariantThreshold)
			}
		}
	}
	t.Logf("highest similarity between different incidents: %.2f", worst)
}

func TestSimilarityCopies(t *testing.T) {
	text := seedtest.Document(t, "004")
	full := classify.Fingerprint(text)
	tests := []struct {
		name string
		text string
		min  float64
	}{
		{"identical", text, 0.99},
		{"excerpt", text[:len(text)/2], 0.8},
		{"reflowed and recased", "  " + string(upper(text)) + "\n\n", 0.99},
	}
	for _, tt := range tests {
		if got := classify.Similarity(full, classify.Fingerprint(tt.text)); got < tt.min {
			t.Errorf("%s: Similarity = %.2f, want >= %.2f", tt.name, got, tt.min)
		}
	}
	if got := classify.Similarity(full, classify.Fingerprint("")); got != 0 {
		t.Errorf("Similarity with an empty text = %.2f, want 0", got)
	}
	if got := classify.Fingerprint("").Bands(); len(got) != 0 {
		t.Errorf("empty text has %d bands, want none", len(got))
	}
}

func upper(s string) []byte {
	b := []byte(s)
	for i, c := range b {
		if 'a' <= c && c <= 'z' {
			b[i] = c - 32
		}
	}
	return b
}

func TestSignatureBytes(t *testing.T) {
	sig := classify.Fingerprint(seedtest.Document(t, "003"))
	b := sig.Bytes()
	got, err := classify.ParseSignature(b)
	if err != nil {
		t.Fatal(err)
	}
	if got != sig {
		t.Error("ParseSignature(Bytes()) differs from the signature")
	}
	t.Logf("signature: %d bytes", len(b))
	for _, bad := range [][]byte{nil, b[:10], append([]byte{9}, b[1:]...)} {
		if _, err := classify.ParseSignature(bad); err == nil {
			t.Errorf("ParseSignature(%d bytes, version %v) succeeded", len(bad), bad)
		}
	}
}

func TestTranslationScore(t *testing.T) {
	en := classify.ExtractFacts(seedtest.Document(t, "000"))
	en.Language = "en"
	es := classify.ExtractFacts(seedtest.Document(t, "002"))
	es.Language = "es"
	gm := classify.ExtractFacts(seedtest.Document(t, "004"))
	gm.Language = "en"
	tests := []struct {
		name string
		a, b classify.DocFacts
		want bool
	}{
		{"Facebook en and es by numbers and names", en, es, true},
		{"Gmail en and Facebook es", gm, es, false},
		{"same language is not a translation", en, en, false},
		{"same organization and date", classify.DocFacts{Language: "de", Organization: "Acme", IncidentDate: "2024-03-01"},
			classify.DocFacts{Language: "en", Organization: "acme", IncidentDate: "2024-03-01"}, true},
		{"same organization, other date", classify.DocFacts{Language: "de", Organization: "Acme", IncidentDate: "2024-03-01"},
			classify.DocFacts{Language: "en", Organization: "Acme", IncidentDate: "2024-05-09"}, false},
	}
	for _, tt := range tests {
		score := classify.TranslationScore(tt.a, tt.b)
		if got := score >= classify.TranslationThreshold; got != tt.want {
			t.Errorf("%s: TranslationScore = %.2f, candidate %v, want %v", tt.name, score, got, tt.want)
		}
	}
	t.Logf("000 facts %v %v; 002 facts %v %v", en.Numbers, en.Names, es.Numbers, es.Names)
	var back classify.DocFacts
	back.SetKeys(en.Keys())
	if !slices.Equal(back.Numbers, en.Numbers) || !slices.Equal(back.Names, en.Names) {
		t.Errorf("SetKeys(Keys()) = %v %v, want %v %v", back.Numbers, back.Names, en.Numbers, en.Names)
	}
}

func BenchmarkFingerprint20kB(b *testing.B) {
	text := benchText(b)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		classify.Fingerprint(text)
	}
}

// TestFingerprintAndFacts: reading a text once for both gives what
// Fingerprint and ExtractFacts give apart, with names, numbers and
// title-case lines on any line.
func TestFingerprintAndFacts(t *testing.T) {
	texts := []string{
		"",
		"\n\n",
		"One line. Then Facebook fell over for 2.5 hours",
		"We saw IMAP fail.\nGmail Was Down For Everyone Today\nthe Gmail\nteam paged SRE at 12:30, after four retries\n",
		"didn't\nrestart; keep-alive 2,5\n3 servers\n",
	}
	for _, name := range []string{"000", "001", "002", "003", "004"} {
		texts = append(texts, seedtest.Document(t, name))
	}
	for _, text := range texts {
		sig, facts := classify.FingerprintAndFacts(text)
		if sig != classify.Fingerprint(text) {
			t.Errorf("%.40q: signature differs from Fingerprint's", text)
		}
		want := classify.ExtractFacts(text)
		if !slices.Equal(facts.Keys(), want.Keys()) {
			t.Errorf("%.40q: facts %v, ExtractFacts %v", text, facts.Keys(), want.Keys())
		}
	}
}

// BenchmarkFingerprintAndFactsCorpus is what an import computes of each
// text for variant detection, over the 85 real postmortems of the
// evaluation corpus (1.5 to 40 kB each): an op is the whole corpus.
func BenchmarkFingerprintAndFactsCorpus(b *testing.B) {
	texts := corpustest.Texts(b)
	size := 0
	for _, t := range texts {
		size += len(t)
	}
	b.SetBytes(int64(size))
	c := cpuclock.Used()
	for b.Loop() {
		for _, t := range texts {
			classify.FingerprintAndFacts(t)
		}
	}
	reportCPU(b, cpuclock.Used()-c)
}
