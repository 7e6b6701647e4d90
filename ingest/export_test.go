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

// WordAnchoredFinds is what each wordAnchored expression finds in s, and
// what its plain search finds.
func WordAnchoredFinds(s string) (got, want [][]string) {
	for _, a := range []wordAnchored{sevLevelRe, beganEndedRe, betweenRe, allTimesRe, processWordsRe, mitigateWordsRe} {
		_, m := a.find(s)
		got = append(got, m)
		want = append(want, a.all.FindStringSubmatch(s))
	}
	return got, want
}

// VendorHosts are the hosts of the vendors table.
func VendorHosts() (hosts []string) {
	for _, v := range vendors {
		hosts = append(hosts, v.hosts...)
	}
	return hosts
}

var IsHostByte = isHostByte
