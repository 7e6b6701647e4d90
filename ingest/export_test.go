package ingest

import "regexp"

// Exported for the table tests of each cleaning step in package ingest_test.
var (
	Normalize     = normalize
	RemoveChrome  = removeChrome
	RemoveRepeats = removeRepeats
	Paragraphs    = paragraphs
	ParseDate     = parseDate
	ParseByline   = parseByline
)

func RemoveAvatars(s string) (string, []string) {
	out, found := removeAvatars(s)
	return out, found.names
}

func SplitThread(s string) (body, poster string, comments []Comment) {
	t := splitThread(s)
	return t.body, t.poster, t.comments
}

func ConvertHTML(s string) (markdown, title string, comments []Comment) {
	p, _ := convertHTML(s)
	return p.markdown, p.title, p.comments
}

// For the tests that the prefiltered searches find what their plain
// regular expressions do.
var (
	OwnerExpr    = ownerExpr
	OwnerMatches = ownerMatches
	TextDateRe   = textDateRe
	MayHoldDate  = mayHoldDate
	RunInLabelRe = runInLabelRe
	RunInLabels  = runInLabels
	BracketTail  = bracketTail
	// The expressions searched from bracketTail.
	ActionTailRes = []*regexp.Regexp{actionOwnerRe, actionOwnerDueRe, actionDueRe, actionStatusEndRe}
)
