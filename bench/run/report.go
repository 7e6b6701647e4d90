package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

type report struct {
	n             int
	importTime    time.Duration // 0 when the database was reused
	importSummary string
	startups      []time.Duration
	pageBytes     int
	results       []result
	cold          []result // first request of each URL, one at a time
	peakRSS, rss  int64
	loadAfter     string
	pairs         []pair
}

// pair is one round of the kept postmortem page [0] and the bare handler
// ceiling [1], run one after the other: throughput and the server's CPU
// time per request.
type pair struct {
	clients int
	rate    [2]float64
	cpu     [2]time.Duration
}

// pairRatios are the page's throughput and CPU-efficiency ratios to the
// bare handler of the rounds at clients, each sorted.
func (r report) pairRatios(clients int) (rates, cpus []float64) {
	for _, p := range r.pairs {
		if p.clients == clients && p.rate[1] > 0 && p.cpu[0] > 0 {
			rates = append(rates, p.rate[0]/p.rate[1])
			cpus = append(cpus, float64(p.cpu[1])/float64(p.cpu[0]))
		}
	}
	slices.Sort(rates)
	slices.Sort(cpus)
	return rates, cpus
}

func median(xs []float64) float64 { return xs[len(xs)/2] }

func ratioList(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprintf("%.2f", x)
	}
	return strings.Join(parts, ", ")
}

func (r report) find(target string, clients int) (result, bool) {
	for _, x := range r.results {
		if x.target == target && x.clients == clients {
			return x, true
		}
	}
	return result{}, false
}

// firstSearch compares search's first requests (nothing kept, as after a
// restart or a write; one at a time) with the FTS ceiling at one client:
// the ratios of their p50 and p95.
func (r report) firstSearch() (first, fts result, p50, p95 float64, ok bool) {
	i := slices.IndexFunc(r.cold, func(x result) bool { return x.target == "search" })
	fts, found := r.find("FTS ceiling", 1)
	if i < 0 || !found {
		return result{}, result{}, 0, 0, false
	}
	first = r.cold[i]
	ratio := func(p float64) float64 { return float64(first.pct(p)) / float64(max(fts.pct(p), 1)) }
	return first, fts, ratio(0.50), ratio(0.95), true
}

// peak is the highest throughput of target over the concurrency levels.
func (r report) peak(target string) float64 {
	best := 0.0
	for _, x := range r.results {
		if x.target == target {
			best = max(best, x.rate())
		}
	}
	return best
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f", float64(d)/float64(time.Millisecond)) }

func (r report) print(out io.Writer) {
	fmt.Fprintf(out, "| target | clients | req/s | p50 ms | p95 ms | p99 ms | errors |\n|---|---:|---:|---:|---:|---:|---:|\n")
	for _, x := range r.results {
		fmt.Fprintf(out, "| %s | %d | %.0f | %s | %s | %s | %d |\n", x.target, x.clients, x.rate(),
			ms(x.pct(0.50)), ms(x.pct(0.95)), ms(x.pct(0.99)), x.errors)
	}
	fmt.Fprintf(out, "\nFirst request of each URL (nothing kept from an earlier request), one at a time:\n\n")
	fmt.Fprintf(out, "| target | URLs | p50 ms | p95 ms | max ms |\n|---|---:|---:|---:|---:|\n")
	for _, x := range r.cold {
		fmt.Fprintf(out, "| %s | %d | %s | %s | %s |\n", x.target, x.requests, ms(x.pct(0.50)), ms(x.pct(0.95)), ms(x.pct(1)))
	}
	fmt.Fprintf(out, "\naverage postmortem page: %.1f kB\n\n", float64(r.pageBytes)/1024)

	fmt.Fprintf(out, "| ratio | clients | app | ceiling | app/ceiling |\n|---|---:|---:|---:|---:|\n")
	var levels []int
	for _, x := range r.results {
		if !slices.Contains(levels, x.clients) {
			levels = append(levels, x.clients)
		}
	}
	for _, c := range levels {
		a, ok1 := r.find("postmortem page", c)
		s, ok2 := r.find("static ceiling", c)
		if ok1 && ok2 {
			fmt.Fprintf(out, "| postmortem page throughput (req/s) | %d | %.0f | %.0f | %.2f |\n", c, a.rate(), s.rate(), a.rate()/s.rate())
		}
	}
	for _, c := range levels {
		a, ok1 := r.find("postmortem page", c)
		b, ok2 := r.find("bare handler ceiling", c)
		if ok1 && ok2 {
			fmt.Fprintf(out, "| postmortem page vs bare handler (req/s) | %d | %.0f | %.0f | %.2f |\n", c, a.rate(), b.rate(), a.rate()/b.rate())
		}
	}
	for _, c := range levels {
		rates, cpus := r.pairRatios(c)
		if len(rates) > 0 {
			fmt.Fprintf(out, "| postmortem page vs bare handler, alternating rounds (median req/s ratio; each round) | %d | | | %.2f (%s) |\n", c, median(rates), ratioList(rates))
			fmt.Fprintf(out, "| postmortem page vs bare handler, server CPU per request (median bare/page; each round) | %d | | | %.2f (%s) |\n", c, median(cpus), ratioList(cpus))
		}
	}
	for _, c := range levels {
		a, ok1 := r.find("search", c)
		f, ok2 := r.find("FTS ceiling", c)
		if ok1 && ok2 {
			fmt.Fprintf(out, "| search p95 (ms) | %d | %s | %s | %.3f |\n", c, ms(a.pct(0.95)), ms(f.pct(0.95)), float64(a.pct(0.95))/float64(max(f.pct(0.95), 1)))
		}
	}
	if first, fts, p50, p95, ok := r.firstSearch(); ok {
		fmt.Fprintf(out, "| search first request p50 (ms) | 1 | %s | %s | %.2f |\n", ms(first.pct(0.50)), ms(fts.pct(0.50)), p50)
		fmt.Fprintf(out, "| search first request p95 (ms) | 1 | %s | %s | %.2f |\n", ms(first.pct(0.95)), ms(fts.pct(0.95)), p95)
	}

	fmt.Fprintf(out, "\n| target | goal | measured | |\n|---|---|---|---|\n")
	verdict := func(ok bool) string {
		if ok {
			return "met"
		}
		return "**missed**"
	}
	row := func(name, goal, measured string, ok bool) {
		fmt.Fprintf(out, "| %s | %s | %s | %s |\n", name, goal, measured, verdict(ok))
	}
	if pp, sp := r.peak("postmortem page"), r.peak("static ceiling"); sp > 0 {
		row("postmortem page vs static ceiling (peak throughput)", "≥ 50 %", fmt.Sprintf("%.0f %% (%.0f vs %.0f req/s)", 100*pp/sp, pp, sp), pp >= 0.5*sp)
	}
	if pp, bp := r.peak("postmortem page"), r.peak("bare handler ceiling"); bp > 0 {
		row("postmortem page vs bare net/http handler (peak throughput)", "≥ 80 %", fmt.Sprintf("%.0f %% (%.0f vs %.0f req/s)", 100*pp/bp, pp, bp), pp >= 0.8*bp)
	}
	best, bestAt := 0.0, 0
	for _, c := range levels {
		if rates, _ := r.pairRatios(c); len(rates) > 0 && median(rates) > best {
			best, bestAt = median(rates), c
		}
	}
	if bestAt > 0 {
		row("postmortem page vs bare net/http handler (alternating rounds, best median)", "≥ 80 %", fmt.Sprintf("%.0f %% at %d clients", 100*best, bestAt), best >= 0.8)
	}
	if a, ok := r.find("search", 16); ok {
		row("search p95 at 16 clients", "≤ 20 ms", ms(a.pct(0.95))+" ms", a.pct(0.95) <= 20*time.Millisecond)
		if f, ok := r.find("FTS ceiling", 16); ok {
			ratio := float64(a.pct(0.95)) / float64(max(f.pct(0.95), 1))
			row("search p95 vs direct FTS at 16 clients", "≤ 2×", fmt.Sprintf("%.3f× (%s vs %s ms)", ratio, ms(a.pct(0.95)), ms(f.pct(0.95))), ratio <= 2)
		}
	}
	if first, fts, p50, p95, ok := r.firstSearch(); ok {
		row("search first request vs direct FTS at 1 client (p50, p95)", "≤ 2×",
			fmt.Sprintf("%.2f× (%s vs %s ms), %.2f× (%s vs %s ms)", p50, ms(first.pct(0.50)), ms(fts.pct(0.50)), p95, ms(first.pct(0.95)), ms(fts.pct(0.95))),
			p50 <= 2 && p95 <= 2)
	}
	if a, ok := r.find("triage", 16); ok {
		row("triage (POST /api/triage) p95 at 16 clients", "< 100 ms", ms(a.pct(0.95))+" ms", a.pct(0.95) < 100*time.Millisecond)
	}
	if i := slices.IndexFunc(r.cold, func(x result) bool { return x.target == "triage" }); i >= 0 {
		first := r.cold[i]
		row("triage first request of each text at 1 client (p95)", "< 100 ms", ms(first.pct(0.95))+" ms", first.pct(0.95) < 100*time.Millisecond)
	}
	for _, t := range []string{"filtered list", "pattern page"} {
		if a, ok := r.find(t, 16); ok {
			row(t+" p95 at 16 clients", "≤ 10 ms", ms(a.pct(0.95))+" ms", a.pct(0.95) <= 10*time.Millisecond)
		}
	}
	if r.importTime > 0 {
		rate := float64(r.n) / r.importTime.Seconds()
		row("import", "≥ 2,000 postmortems/s", fmt.Sprintf("%.0f /s (%d in %s; %s)", rate, r.n, r.importTime.Round(time.Millisecond), r.importSummary), rate >= 2000)
	}
	if len(r.startups) > 0 {
		s := slices.Clone(r.startups)
		slices.Sort(s)
		med := s[len(s)/2]
		var all []string
		for _, d := range r.startups {
			all = append(all, ms(d))
		}
		row("start-up to /readyz 200 (median of 3)", "≤ 1 s", fmt.Sprintf("%s ms (runs: %v ms)", ms(med), all), med <= time.Second)
	}
	row("server peak RSS under load (VmHWM)", "≤ 150 MB", fmt.Sprintf("%.0f MB (VmRSS at end %.0f MB)", float64(r.peakRSS)/(1<<20), float64(r.rss)/(1<<20)), r.peakRSS <= 150<<20)
	fmt.Fprintf(out, "\nload average after: %s\n", r.loadAfter)
}
