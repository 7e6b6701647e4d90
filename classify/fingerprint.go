package classify

import (
	"encoding/binary"
	"errors"
	"math"
	"math/bits"
)

// Near-duplicate detection: a text is reduced to the set of its word pairs
// (2-shingles over stemmed, accent-folded words; pairs of two stopwords are
// dropped, they occur everywhere) and the set to a MinHash signature.
// Spun copies such as seeds 000 and 001 keep about half of their word pairs
// while unrelated postmortems share around a tenth, so pairs separate them
// better than single words (which unrelated texts share too) or triples
// (which rewording breaks).

const (
	numHashes = 128
	// bandRows is the number of hashes per LSH band: two rows in 64 bands
	// make a pair with Jaccard 0.3 a candidate with probability 0.998 and a
	// pair with 0.05 with probability 0.15.
	bandRows = 2

	// VariantThreshold is the Similarity above which two texts are offered
	// as variants of one write-up.
	VariantThreshold = 0.3
)

// Signature is a MinHash sketch of a text's word pairs.
type Signature struct {
	Size uint32 // number of distinct word pairs
	Mins [numHashes]uint32
}

// signatureVersion prefixes the encoding so that a change of shingling can
// be detected in stored blobs.
const signatureVersion = 1

// signatureLen is the length of Bytes: version, size, mins.
const signatureLen = 1 + 4 + 4*numHashes

var stopwords = func() map[string]bool {
	m := make(map[string]bool)
	for _, w := range []string{"the", "of", "a", "an", "and", "or", "to", "in", "on", "at", "for", "with", "by", "from", "as", "is", "was", "were", "be", "been", "it", "this", "that", "we", "our", "they", "their", "had", "has", "have", "not", "but", "so", "if", "then", "than", "which", "who",
		"de", "la", "el", "los", "las", "y", "en", "un", "una", "que", "por", "para", "con", "se", "del", "al", "lo", "es", "fue"} {
		m[englishStemOf(w)] = true
	}
	return m
}()

// Fingerprint computes the signature of a text.
func Fingerprint(text string) Signature {
	return fingerprintOf(wordsOf(text))
}

// FingerprintAndFacts is Fingerprint and ExtractFacts of text, which it
// reads once: a batch import needs both of every postmortem.
func FingerprintAndFacts(text string) (Signature, DocFacts) {
	words := wordsOf(text)
	return fingerprintOf(words), factsOf(text, words)
}

// fingerprintOf is the signature of a text's words.
func fingerprintOf(words textWords) Signature {
	vocab := make([]pairWord, len(words.distinct))
	for i, w := range words.distinct {
		stem := englishStemOf(w)
		vocab[i] = pairWord{stem: stem, head: fnvString(fnvOffset, stem) * fnvPrime, stopword: stopwords[stem]}
	}
	pairs := newPairSet(len(words.ids))
	for i := 0; i+1 < len(words.ids); i++ {
		a, b := &vocab[words.ids[i]], &vocab[words.ids[i+1]]
		if a.stopword && b.stopword {
			continue
		}
		pairs.add(fnvString(a.head, b.stem))
	}
	sig := Signature{Size: uint32(len(pairs.distinct))}
	// Mins[k] is the least top half of mix(x^seeds[k]) over the pairs x,
	// which is 128 hashes a pair: most of the fingerprint's time. mix's
	// first step distributes over the xor (mixTail's comment), so it is
	// taken once a pair and once a seed; top halves order as the whole
	// values do, so the minimum is taken over whole values. One seed at a
	// time, two pairs a round: the two minima stay in registers, and the
	// hashes, independent of one another, overlap.
	firsts := pairs.distinct
	for i, x := range firsts {
		firsts[i] = x ^ x>>30
	}
	for k, seed := range seeds {
		s := seed ^ seed>>30
		m0, m1 := uint64(math.MaxUint64), uint64(math.MaxUint64)
		i := 0
		for ; i+1 < len(firsts); i += 2 {
			m0 = min(m0, mixTail(firsts[i]^s))
			m1 = min(m1, mixTail(firsts[i+1]^s))
		}
		if i < len(firsts) {
			m0 = min(m0, mixTail(firsts[i]^s))
		}
		sig.Mins[k] = uint32(min(m0, m1) >> 32)
	}
	return sig
}

// pairWord is what a word pair needs of each of its words.
type pairWord struct {
	stem     string // English stem (englishStemOf)
	head     uint64 // the pair's hash so far when the word comes first
	stopword bool
}

// pairSet is the set of a text's pair hashes, in the order they first
// came: open addressing in a table sized for every pair the text can have,
// so it never grows.
type pairSet struct {
	slots    []int32 // an index in distinct + 1, or 0 for an empty slot
	shift    uint    // 64 - log2(len(slots))
	distinct []uint64
}

func newPairSet(maxPairs int) *pairSet {
	size := uint(bits.Len(uint(maxPairs))) + 1 // log2 of the slots: at most half full
	return &pairSet{slots: make([]int32, 1<<size), shift: 64 - size, distinct: make([]uint64, 0, maxPairs)}
}

func (s *pairSet) add(x uint64) {
	mask := uint64(len(s.slots) - 1)
	// FNV's low bits are its weakest: take the slot from the high bits of
	// a multiplicative hash.
	for i := (x * 0x9e3779b97f4a7c15) >> s.shift; ; i = (i + 1) & mask {
		n := s.slots[i]
		if n == 0 {
			s.distinct = append(s.distinct, x)
			s.slots[i] = int32(len(s.distinct))
			return
		}
		if s.distinct[n-1] == x {
			return
		}
	}
}

// seeds give each of the hash functions its own permutation.
var seeds = func() [numHashes]uint64 {
	var s [numHashes]uint64
	x := uint64(0x9e3779b97f4a7c15)
	for i := range s {
		x = mix(x + uint64(i))
		s[i] = x
	}
	return s
}()

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// fnvString continues an FNV-1a hash with the bytes of s.
func fnvString(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime
	}
	return h
}

// mix is the splitmix64 finaliser: a cheap, well-distributed permutation.
func mix(x uint64) uint64 {
	return mixTail(x ^ x>>30)
}

// mixTail is mix after its first step. That step distributes over xor:
// (x^y) ^ (x^y)>>30 = (x ^ x>>30) ^ (y ^ y>>30), so mix(x^y) is
// mixTail((x ^ x>>30) ^ (y ^ y>>30)).
func mixTail(x uint64) uint64 {
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// Similarity estimates how much of the shorter text's word pairs also occur
// in the other: 1 for a copy or an excerpt, about 0.5 for seeds 000 and 001,
// about 0.1 for unrelated postmortems. It is symmetric.
func Similarity(a, b Signature) float64 {
	if a.Size == 0 || b.Size == 0 {
		return 0
	}
	same := 0
	for i := range a.Mins {
		if a.Mins[i] == b.Mins[i] {
			same++
		}
	}
	j := float64(same) / numHashes
	// |A∩B| = J(|A|+|B|)/(1+J) for sets with Jaccard index J.
	inter := j * float64(a.Size+b.Size) / (1 + j)
	return min(1, inter/float64(min(a.Size, b.Size)))
}

// Bands returns the locality-sensitive hashes of the signature: texts whose
// signatures share a band are candidates for Similarity. An empty text has
// none.
func (s Signature) Bands() []int64 {
	if s.Size == 0 {
		return nil
	}
	out := make([]int64, 0, numHashes/bandRows)
	for b := 0; b < numHashes/bandRows; b++ {
		h := mix(uint64(b) + 1)
		for r := range bandRows {
			h = mix(h ^ uint64(s.Mins[b*bandRows+r]))
		}
		out = append(out, int64(h))
	}
	return out
}

// Bytes encodes the signature for storage (517 bytes).
func (s Signature) Bytes() []byte {
	b := make([]byte, signatureLen)
	b[0] = signatureVersion
	binary.LittleEndian.PutUint32(b[1:], s.Size)
	for i, m := range s.Mins {
		binary.LittleEndian.PutUint32(b[5+4*i:], m)
	}
	return b
}

// ErrSignature reports a stored signature that cannot be decoded.
var ErrSignature = errors.New("classify: bad signature encoding")

// ParseSignature decodes the output of Signature.Bytes.
func ParseSignature(b []byte) (Signature, error) {
	var s Signature
	if len(b) != signatureLen || b[0] != signatureVersion {
		return s, ErrSignature
	}
	s.Size = binary.LittleEndian.Uint32(b[1:])
	for i := range s.Mins {
		s.Mins[i] = binary.LittleEndian.Uint32(b[5+4*i:])
	}
	return s, nil
}
