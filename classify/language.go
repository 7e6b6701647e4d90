package classify

import "github.com/abadojack/whatlanggo"

// DetectLanguage returns the ISO 639-1 code of the language text is written
// in, or "" when the text is too short or mixed to tell. It uses whatlanggo's
// trigram profiles: they cover 84 languages (a hand-made stopword list would
// cover only the few we thought of) and are compiled in, with no data to load.
func DetectLanguage(text string) string {
	info := whatlanggo.Detect(text)
	if info.Lang == -1 {
		return ""
	}
	return info.Lang.Iso6391()
}
