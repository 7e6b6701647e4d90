package textnorm

import (
	"bytes"
	"hash/maphash"
)

// Vocabulary numbers the distinct words of a text in the order they first
// come, so that what is computed of a word (its stem, say) is computed once
// however often the text repeats it. It is an open-addressing table over
// the words' bytes, which it keeps one after another in one buffer: a map
// would hash as well, but also copy each new word into a string of its own
// and grow through more steps, and this is the hottest loop of indexing and
// fingerprinting. The zero Vocabulary is empty and ready to use.
type Vocabulary struct {
	slots []int32 // a word's number + 1, or 0 for an empty slot
	ends  []int32 // where each word ends in buf
	buf   []byte  // the words' bytes
}

// vocabularySeed seeds the vocabularies' hash: any seed numbers words the
// same.
var vocabularySeed = maphash.MakeSeed()

// ID returns the number of w, adding it if it is new; w is not kept.
func (v *Vocabulary) ID(w []byte) int32 {
	if 2*len(v.ends) >= len(v.slots) { // at most half full
		v.grow()
	}
	mask := len(v.slots) - 1
	for i := int(maphash.Bytes(vocabularySeed, w)) & mask; ; i = (i + 1) & mask {
		n := v.slots[i]
		if n == 0 {
			v.buf = append(v.buf, w...)
			v.ends = append(v.ends, int32(len(v.buf)))
			v.slots[i] = int32(len(v.ends))
			return int32(len(v.ends)) - 1
		}
		if bytes.Equal(v.word(n-1), w) {
			return n - 1
		}
	}
}

// word returns the bytes of word number id.
func (v *Vocabulary) word(id int32) []byte {
	start := int32(0)
	if id > 0 {
		start = v.ends[id-1]
	}
	return v.buf[start:v.ends[id]]
}

// grow doubles the table (at first, makes it) and puts the words back.
func (v *Vocabulary) grow() {
	if v.slots == nil {
		v.slots = make([]int32, 256)
		return
	}
	v.slots = make([]int32, 2*len(v.slots))
	mask := len(v.slots) - 1
	for id := range v.ends {
		i := int(maphash.Bytes(vocabularySeed, v.word(int32(id)))) & mask
		for v.slots[i] != 0 {
			i = (i + 1) & mask
		}
		v.slots[i] = int32(id) + 1
	}
}

// Words returns the words in the order of their numbers.
func (v *Vocabulary) Words() []string {
	all := string(v.buf)
	out := make([]string, len(v.ends))
	start := int32(0)
	for id, end := range v.ends {
		out[id] = all[start:end]
		start = end
	}
	return out
}
