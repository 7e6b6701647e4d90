package textnorm_test

import (
	"fmt"
	"slices"
	"testing"

	"hindsight/textnorm"
)

// A Vocabulary numbers words in the order they first come, gives a word
// seen again its number, and keeps its words past the table's growth.
func TestVocabulary(t *testing.T) {
	var v textnorm.Vocabulary
	var want []string
	for i := range 1000 {
		w := fmt.Sprint("w", i%700)
		if i < 700 {
			want = append(want, w)
		}
		if got := v.ID([]byte(w)); got != int32(i%700) {
			t.Fatalf("ID(%q) = %d, want %d", w, got, i%700)
		}
	}
	if got := v.ID(nil); got != 700 {
		t.Errorf("ID of the empty word = %d, want 700", got)
	}
	want = append(want, "")
	if got := v.Words(); !slices.Equal(got, want) {
		t.Errorf("Words() = %q, want %q", got, want)
	}
}
