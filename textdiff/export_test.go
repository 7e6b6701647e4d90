package textdiff

// Words diffs two lines word by word. Tokens are runs of letters and digits,
// runs of spaces, and single other characters, so joining the texts of the
// edits gives back the inputs exactly.
func Words(a, b string) []Edit { return Diff(SplitWords(a), SplitWords(b)) }
