package search

// MarkdownSnippet cuts a search hit's snippet for q, of about 240 runes,
// from md, Markdown written in lang, as text (markdown.Text).
func MarkdownSnippet(md, lang string, q Query) []Fragment {
	return NewSnippetText(md).Snippet(lang, q)
}

// Snippet picks the window of about maxRunes runes of text (written in lang,
// an ISO 639-1 code) that shows the most of the query's terms, and marks the
// words (or whole phrases) that match them, comparing folded and stemmed forms
// as the index does. Runs of white space become one space; "…" marks cut ends.
func Snippet(text, lang string, q Query, maxRunes int) []Fragment {
	return snippet(collapseSpace(text), lang, q, maxRunes)
}

// SynonymGroups are the entries of synonyms.txt that mean the same, group
// by group, and what each entry is a kind of.
func SynonymGroups() (same [][]string, broader map[string][]string) {
	fs := loadFieldSynonyms()
	return fs.same, fs.broader
}
