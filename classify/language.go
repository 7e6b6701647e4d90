package classify

import (
	"unicode/utf8"

	"github.com/abadojack/whatlanggo"
)

// languageSample is how much of a text DetectLanguage reads: trigram
// counts settle within a few kilobytes, and the rest of a long text only
// costs time.
const languageSample = 64 << 10

// DetectLanguage returns the ISO 639-1 code of the language text is written
// in, or "" when the text is too short or mixed to tell. It uses whatlanggo's
// trigram profiles: they cover 84 languages (a hand-made stopword list would
// cover only the few we thought of) and are compiled in, with no data to load.
// It reads the first languageSample bytes.
func DetectLanguage(text string) string {
	if len(text) > languageSample {
		cut := languageSample
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text = text[:cut]
	}
	info := whatlanggo.Detect(text)
	if info.Lang == -1 {
		return ""
	}
	return info.Lang.Iso6391()
}
