package handlers

import (
	"net/http"
	"strings"

	"hindsight/markdown"
	"hindsight/store"
)

// Triage answers are kept while the data is unchanged, under the rule of
// every value derived from it (store.Cache): during an incident the same
// alert is pasted again and again, by one responder and by the next, and
// an answer read from the collection cannot change until the collection
// does. The key is the reader's groups (which postmortems they may read)
// and the text as sent; the answer names no reader.
//
// The quoted excerpts of the incidents listed (summary and resolution,
// Markdown rendered to text and cut) are kept too, per postmortem: a new
// text lists mostly the same incidents, and rendering their Markdown was a
// fifth of a request.

// triageCacheBytes bounds the memory the kept answers and excerpts hold
// (counted by their text); when full, those asked for least lately go
// (store.Cache).
const triageCacheBytes = 8 << 20

type triageCaches struct {
	answers  *store.Cache[triageResult]
	excerpts *store.Cache[string]
}

func newTriageCaches(st *store.Store) triageCaches {
	return triageCaches{
		answers:  store.NewCache(st, triageCacheBytes, triageResult.weight),
		excerpts: store.NewCache(st, triageCacheBytes, func(s string) int { return len(s) + 64 }),
	}
}

// weight is about the bytes an answer holds.
func (res triageResult) weight() int {
	n := 256 + len(res.SearchURL)
	for _, p := range res.Patterns {
		n += 256 + len(p.Why)
		for _, e := range p.Evidence {
			n += len(e.Sentence)
		}
		for _, it := range p.Checklist {
			n += len(it.Text)
		}
	}
	for _, p := range res.Postmortems {
		n += 256 + len(p.Title) + len(p.Summary) + len(p.Why)
		if p.Resolution != nil {
			n += len(p.Resolution.Excerpt)
		}
	}
	return n
}

// triageKey names an answer: the reader's groups and the text.
func triageKey(r *http.Request, text string) string {
	u := userOf(r)
	var b strings.Builder
	b.WriteString(u.Role.String())
	for _, g := range u.Groups {
		b.WriteByte(1)
		b.WriteString(g)
	}
	b.WriteByte(0)
	b.WriteString(text)
	return b.String()
}

// triageExcerpt is clip(markdown.Text(md)) for field of the postmortem at
// slug, kept while the data is unchanged.
func (h *Handler) triageExcerpt(r *http.Request, slug, field, md string) string {
	out, err := h.triageCache.excerpts.Get(r.Context(), field+"\x00"+slug, func() (string, error) {
		return clip(markdown.Text(md), triageExcerptBytes), nil
	})
	if err != nil { // the store could not tell whether the data changed
		return clip(markdown.Text(md), triageExcerptBytes)
	}
	return out
}
