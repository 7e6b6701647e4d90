package textnorm_test

import (
	"strings"
	"testing"
	"unicode"

	"hindsight/textnorm"
)

func TestFold(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"Realimentación", "realimentacion"},
		{"ÀÉÎÕÜ ñ ç", "aeiou n c"},
		{"Straße", "strasse"},
		{"e\u0301xito", "exito"}, // decomposed accent
		{"Œuvre", "oeuvre"},
		{"日本", "日本"},
		// Letters without a decomposition are spelled out.
		{"Ørsted Łódź Đakovo Ħal æther ı", "orsted lodz dakovo hal aether i"},
		// Latin Extended-A, B and Additional fold like Latin-1.
		{"Ąćęńśźż Čeština", "acenszz cestina"},
		{"Ǎǐǒǔ ǿ ǣ", "aiou o ae"},
		{"Tiếng Việt", "tieng viet"},
		// Other scripts are only lower-cased.
		{"Ошибка Σφάλμα", "ошибка σφάλμα"},
	}
	for _, tt := range tests {
		if got := textnorm.Fold(tt.in); got != tt.want {
			t.Errorf("Fold(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestStem(t *testing.T) {
	t.Parallel()
	tests := []struct{ lang, word, want string }{
		{"en", "retries", "retri"},
		{"en", "having", "having"}, // stop words stay
		{"es", "realimentacion", "realiment"},
		{"es", "tecnologias", "tecnolog"},
		{"fr", "connexions", "connex"},
		{"de", "verbindungen", "verbindungen"}, // no stemmer: as it is
		{"en", "数据库", "数据库"},
	}
	for _, tt := range tests {
		if got := textnorm.Stem(tt.lang, tt.word); got != tt.want {
			t.Errorf("Stem(%q, %q) = %q, want %q", tt.lang, tt.word, got, tt.want)
		}
		// The cached answer is the same.
		if got := textnorm.Stem(tt.lang, tt.word); got != tt.want {
			t.Errorf("Stem(%q, %q) again = %q, want %q", tt.lang, tt.word, got, tt.want)
		}
	}
}

func TestSlug(t *testing.T) {
	t.Parallel()
	tests := []struct{ title, want string }{
		{"Más detalles sobre la caída de hoy", "mas-detalles-sobre-la-caida-de-hoy"},
		{"  Retry storm: API   down!  ", "retry-storm-api-down"},
		{"Straße in Ørsted", "strasse-in-orsted"},
		{"数据库", "postmortem"},
		{"", "postmortem"},
		{"a-very long title that keeps going well past the eighty bytes a slug may hold at most", "a-very-long-title-that-keeps-going-well-past-the-eighty-bytes-a-slug-may-hold-at"},
		// Cut after a whole word: the 80th byte falls inside "wikidatawiki".
		{"While codfw was the active DC (and writes were happening there), eqiad s8 wikidatawiki lagged", "while-codfw-was-the-active-dc-and-writes-were-happening-there-eqiad-s8"},
		// One word longer than 80 bytes is cut where it must be.
		{strings.Repeat("x", 100), strings.Repeat("x", 80)},
	}
	for _, tt := range tests {
		if got := textnorm.Slug(tt.title); got != tt.want {
			t.Errorf("Slug(%q) = %q, want %q", tt.title, got, tt.want)
		}
	}
}

// BidiControls lists exactly the runes IsBidiControl accepts, and
// DropBidiControls removes those and nothing else.
func TestBidiControls(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if listed := strings.ContainsRune(textnorm.BidiControls, r); listed != textnorm.IsBidiControl(r) {
			t.Errorf("U+%04X: listed %v, IsBidiControl %v", r, listed, !listed)
		}
	}
	if got := textnorm.DropBidiControls("a\u202Eb\u2067c\u200Fd"); got != "abc\u200Fd" {
		t.Errorf("DropBidiControls = %q, want the controls gone and the RLM kept", got)
	}
}

// A number is its own stem in every language.
func TestStemNumber(t *testing.T) {
	for _, lang := range []string{"en", "es", "fr", "ru", "sv", "no", "hu"} {
		for _, w := range []string{"0", "007", "2024", "1500000"} {
			if got := textnorm.Stem(lang, w); got != w {
				t.Errorf("Stem(%q, %q) = %q, want %q", lang, w, got, w)
			}
		}
	}
}
