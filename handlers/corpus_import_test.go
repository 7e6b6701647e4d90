package handlers_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"hindsight/handlers"
	"hindsight/internal/corpustest"
)

// corpusFiles lists the corpus's postmortems (see corpustest.Dir).
func corpusFiles(t *testing.T) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(corpustest.Dir(t), "*.txt"))
	return files
}

// corpusFacts is one row of a facts file: what a person read in the file.
type corpusFacts struct {
	org, date, lang, title string
}

// readFacts reads file<TAB>organization<TAB>incident_date<TAB>language<TAB>title
// rows; "-" is "the text does not say".
func readFacts(t *testing.T, path string) map[string]corpusFacts {
	t.Helper()
	if _, err := os.Stat(path); os.IsNotExist(err) {
		return nil
	}
	out := map[string]corpusFacts{}
	for _, c := range corpustest.ReadTSV(t, path) {
		if len(c) != 5 {
			t.Fatalf("%s: %q has %d columns, want 5", path, strings.Join(c, "\t"), len(c))
		}
		out[c[0]] = corpusFacts{org: c[1], date: c[2], lang: c[3], title: c[4]}
	}
	return out
}

// sameOrg accepts the names people use for one organization: "AWS" or
// "Amazon" for Amazon Web Services, "Azure" for Microsoft Azure.
func sameOrg(got, want string) bool {
	g, w := strings.ToLower(got), strings.ToLower(want)
	if g == "" || want == "-" {
		return false
	}
	if g == w || slices.Contains(strings.Fields(w), g) || slices.Contains(strings.Fields(g), w) {
		return true
	}
	initials := ""
	for _, f := range strings.Fields(w) {
		initials += string([]rune(f)[0])
	}
	return g == initials
}

// chromeTitleRe matches titles made of page chrome: a navigation bar, a
// link, an image, a date alone.
var chromeTitleRe = regexp.MustCompile(`(?i)^(?:[^|]*\|[^|]*\|)|^\[|^!\[|^(?:home|menu|blog|status|sign in|skip to)`)

func sensibleTitle(title string) bool {
	n := len([]rune(title))
	return n >= 8 && n <= 200 && !chromeTitleRe.MatchString(title) && strings.ContainsFunc(title, unicode.IsLetter)
}

// TestImportCorpus posts every postmortem of the evaluation corpus to POST
// /api/postmortems as Markdown with no summary, as a script would, and
// requires each to be created with a title that is the document's, not page
// chrome. It prints how many got an organization and an incident date, and,
// against facts read by hand, how many of those are right: the tuning half's
// facts are ours (ingest/testdata/corpus-facts-tune.tsv); the held-out
// half's (classify/testdata/corpus/facts-heldout.tsv) were written by
// someone else and are only measured, never tuned on.
func TestImportCorpus(t *testing.T) {
	t.Parallel()
	files := corpusFiles(t)
	// One client sends them all at once, as a script would: no per-client cap.
	h, _ := newApp(t, handlers.ClientLimits(0, 0))
	halves := map[string]map[string]corpusFacts{
		"tune":     readFacts(t, filepath.Join("..", "ingest", "testdata", "corpus-facts-tune.tsv")),
		"held-out": readFacts(t, filepath.Join("..", "classify", "testdata", "corpus", "facts-heldout.tsv")),
	}
	type tally struct{ files, org, date, orgRight, dateRight, titleRight, dated int }
	counts := map[string]*tally{"all": {}, "tune": {}, "held-out": {}}
	for _, path := range files {
		name := filepath.Base(path)
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		rec := post(t, h, "/api/postmortems", "text/markdown", bytes.NewBuffer(raw))
		if rec.Code != http.StatusCreated {
			t.Errorf("%s: status %d, want 201: %s", name, rec.Code, rec.Body)
			continue
		}
		var got struct {
			Title, Organization, Summary string
			IncidentDate                 string `json:"incident_date"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		if !sensibleTitle(got.Title) {
			t.Errorf("%s: title %q is not the document's", name, got.Title)
		}
		if strings.TrimSpace(got.Summary) == "" {
			t.Errorf("%s: no summary was derived", name)
		}
		if testing.Verbose() {
			t.Logf("%-70s org=%-22q date=%-10s title=%q", name, got.Organization, got.IncidentDate, got.Title)
		}
		for half, facts := range halves {
			want, ok := facts[name]
			if !ok {
				continue
			}
			c := counts[half]
			c.files++
			if got.Organization != "" {
				c.org++
			}
			if got.IncidentDate != "" {
				c.date++
			}
			if sameOrg(got.Organization, want.org) {
				c.orgRight++
			}
			if want.date != "-" {
				c.dated++
				if got.IncidentDate == want.date {
					c.dateRight++
				}
			}
			if strings.EqualFold(strings.Join(strings.Fields(got.Title), " "), want.title) {
				c.titleRight++
			}
		}
		all := counts["all"]
		all.files++
		if got.Organization != "" {
			all.org++
		}
		if got.IncidentDate != "" {
			all.date++
		}
	}
	all := counts["all"]
	t.Logf("corpus: %d files imported; %d got an organization, %d an incident date", all.files, all.org, all.date)
	for _, half := range []string{"tune", "held-out"} {
		c := counts[half]
		if c.files == 0 {
			t.Logf("%s half: no facts file", half)
			continue
		}
		t.Logf("%s half: %d files; organization given %d, right %d; incident date given %d, right %d of %d the text states; title as labelled %d",
			half, c.files, c.org, c.orgRight, c.date, c.dateRight, c.dated, c.titleRight)
	}
}
