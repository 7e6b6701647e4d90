package search_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"hindsight/internal/corpustest"
	"hindsight/search"
	"hindsight/seeds"
)

// saysWords reports whether words holds entry's words in a row, each
// itself or its plural: how a synonym is said.
func saysWords(words, entry []string) bool {
	same := func(w, e string) bool { return w == e || w == e+"s" || w == e+"es" }
	for i := 0; i+len(entry) <= len(words); i++ {
		ok := true
		for k := range entry {
			if ok = same(words[i+k], entry[k]); !ok {
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// saysTerm reports whether a text, folded and stemmed as the index does,
// holds a typed term's words in a row, each as one of the forms search
// gives a typed word (its English or Spanish stem, or itself).
func saysTerm(stemmed []string, term search.Term) bool {
	forms := make([][]string, len(term.Words))
	for k, w := range term.Words {
		forms[k] = []string{search.IndexText(w, "en"), search.IndexText(w, "es"), w}
	}
	for i := 0; i+len(forms) <= len(stemmed); i++ {
		ok := true
		for k := range forms {
			if ok = slices.Contains(forms[k], stemmed[i+k]); !ok {
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// Every synonym is run against the seeds and the evaluation corpus: each
// postmortem a query for an entry of synonyms.txt finds must say the entry
// (as search reads a typed word) or one of its synonyms (as words). A
// synonym matched by its stem found false friends: "DNS" found every text
// where something was resolved ("resolver" stems to "resolv").
func TestSynonymsFindNoFalseFriends(t *testing.T) {
	type doc struct {
		name, text string
	}
	var docs []doc
	seedFiles, err := fs.Glob(seeds.FS, "documents/*")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range seedFiles {
		b, err := seeds.FS.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, doc{"seeds/" + name, string(b)})
	}
	dir := corpustest.Path()
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the evaluation corpus %s is missing: %v", dir, err)
		}
		t.Logf("the evaluation corpus %s is absent: the seeds alone are searched (set HINDSIGHT_CORPUS)", dir)
	} else {
		files, err := filepath.Glob(filepath.Join(dir, "*.txt"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			docs = append(docs, doc{"corpus/" + filepath.Base(f), string(b)})
		}
	}
	ftsDocs := make([]ftsDoc, len(docs))
	words := make([][]string, len(docs))
	stemmed := make([][]string, len(docs))
	for i, d := range docs {
		ftsDocs[i] = ftsDoc{id: i + 1, lang: "en", body: d.text}
		words[i] = search.Words(d.text)
		stemmed[i] = strings.Fields(search.IndexText(d.text, "en"))
	}
	db := openFTS(t, t.TempDir(), ftsDocs)
	syn := search.NewSynonyms(catalogue)

	same, _ := search.SynonymGroups()
	synonyms := map[string][]string{} // an entry may be in several groups
	for _, group := range same {
		for _, e := range group {
			synonyms[e] = append(synonyms[e], group...)
		}
	}
	queries, found := 0, 0
	for _, group := range same {
		for _, entry := range group {
			q := syn.Expand(search.Parse(entry))
			queries++
			for _, id := range matching(t, db, q) {
				found++
				i := id - 1
				// The words typed are terms that must all be there.
				typed := !slices.ContainsFunc(q.Terms, func(term search.Term) bool { return !saysTerm(stemmed[i], term) })
				if typed || slices.ContainsFunc(synonyms[entry], func(e string) bool { return saysWords(words[i], strings.Fields(e)) }) {
					continue
				}
				t.Errorf("%q finds %s, which says neither it nor a synonym (%s)", entry, docs[i].name, strings.Join(synonyms[entry], ", "))
			}
		}
	}
	t.Logf("%d synonym queries over %d documents: %d matches, each saying the word or a synonym", queries, len(docs), found)

	// DNS finds what says DNS or a synonym, never "resolved" alone.
	q := syn.Expand(search.Parse("DNS"))
	for _, id := range matching(t, db, q) {
		if !saysWords(words[id-1], []string{"dns"}) && !saysWords(words[id-1], []string{"resolver"}) &&
			!saysWords(words[id-1], []string{"name", "resolution"}) && !saysWords(words[id-1], []string{"domain", "name", "system"}) {
			t.Errorf("DNS finds %s", docs[id-1].name)
		}
	}
}
