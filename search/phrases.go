package search

// Phrases lists the phrases of an FTS5 expression built by MatchExpr or
// AnyExpr, in the order FTS5 numbers them (as written, repeats included),
// each as an expression of its own: the quoted string, with its prefix
// star. bm25 sums one term per phrase, so a score can be recomputed from
// them (see store's restricted ranking).
func Phrases(expr string) []string {
	var out []string
	for i := 0; i < len(expr); i++ {
		if expr[i] != '"' {
			continue
		}
		start := i
		for i++; i < len(expr); i++ {
			if expr[i] == '"' {
				if i+1 < len(expr) && expr[i+1] == '"' {
					i++ // an escaped quote
					continue
				}
				break
			}
		}
		end := min(i+1, len(expr))
		if end < len(expr) && expr[end] == '*' {
			end++
		}
		out = append(out, expr[start:end])
		i = end - 1
	}
	return out
}
