package handlers

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"net/http"
	"slices"
	"strconv"
	"time"

	"hindsight/postmortem"
	"hindsight/store"
)

// feedLink is a feed a page names in its <head>.
type feedLink struct{ Title, URL string }

// siteFeed is the feed every page links.
var siteFeed = feedLink{"New and updated postmortems", "/feed.atom"}

// feedSize is how many entries a feed holds.
const feedSize = 50

// Atom 1.0 (RFC 4287), the elements we write.
type (
	atomFeed struct {
		XMLName   xml.Name    `xml:"http://www.w3.org/2005/Atom feed"`
		ID        string      `xml:"id"`
		Title     string      `xml:"title"`
		Subtitle  string      `xml:"subtitle,omitempty"`
		Updated   string      `xml:"updated"`
		Links     []atomLink  `xml:"link"`
		Author    atomPerson  `xml:"author"`
		Generator string      `xml:"generator"`
		Entries   []atomEntry `xml:"entry"`
	}
	atomLink struct {
		Rel      string `xml:"rel,attr,omitempty"`
		Type     string `xml:"type,attr,omitempty"`
		Hreflang string `xml:"hreflang,attr,omitempty"`
		Href     string `xml:"href,attr"`
	}
	atomPerson struct {
		Name string `xml:"name"`
	}
	atomText struct {
		Type string `xml:"type,attr"`
		Body string `xml:",chardata"`
	}
	atomCategory struct {
		Term  string `xml:"term,attr"`
		Label string `xml:"label,attr,omitempty"`
	}
	atomEntry struct {
		ID         string         `xml:"id"`
		Title      string         `xml:"title"`
		Updated    string         `xml:"updated"`
		Published  string         `xml:"published,omitempty"`
		Links      []atomLink     `xml:"link"`
		Authors    []atomPerson   `xml:"author"`
		Summary    *atomText      `xml:"summary,omitempty"`
		Categories []atomCategory `xml:"category"`
	}
)

// atomTime is how Atom dates are written (RFC 3339, UTC).
func atomTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// writeFeed fills in the feed's id, updated time and links, and sends it.
func (h *Handler) writeFeed(w http.ResponseWriter, r *http.Request, f atomFeed, page string) {
	origin := h.origin(r)
	f.ID = origin + r.URL.RequestURI()
	f.Links = []atomLink{{Rel: "self", Type: "application/atom+xml", Href: f.ID}, {Rel: "alternate", Type: "text/html", Href: origin + page}}
	f.Author = atomPerson{Name: "Hindsight"}
	f.Generator = "Hindsight"
	// The feed changed when its newest entry did; an empty feed says now.
	latest := ""
	for _, e := range f.Entries {
		latest = max(latest, e.Updated)
	}
	if latest == "" {
		latest = atomTime(h.now())
	}
	f.Updated = latest
	b, err := xml.MarshalIndent(f, "", "  ")
	if err != nil {
		h.error(w, r, err)
		return
	}
	body := append(append([]byte(xml.Header), b...), '\n')
	// Feed readers poll: one that sends back the ETag of what it has gets
	// a 304 while the feed is the same. The tag is the body's hash, so it
	// changes with anything the reader would see (an entry gone, an item
	// now overdue, what the reader's groups may read). No Last-Modified:
	// the newest entry's time stays the same when an older one is removed.
	sum := sha256.Sum256(body)
	w.Header().Set("ETag", `"`+hex.EncodeToString(sum[:16])+`"`)
	w.Header().Set("Content-Type", "application/atom+xml; charset=utf-8")
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body))
}

// postmortemEntries are postmortems as feed entries.
func postmortemEntries(origin string, ps []store.Postmortem) []atomEntry {
	out := make([]atomEntry, 0, len(ps))
	for _, p := range ps {
		url := origin + "/postmortems/" + p.Slug
		e := atomEntry{ID: url, Title: p.Title, Updated: atomTime(p.UpdatedAt), Published: atomTime(p.CreatedAt),
			Links: []atomLink{{Rel: "alternate", Type: "text/html", Hreflang: p.Language, Href: url}}}
		author := p.Organization
		if p.Authors != "" {
			author = p.Authors
		}
		if author != "" {
			e.Authors = []atomPerson{{Name: author}}
		}
		if p.Summary != "" {
			e.Summary = &atomText{Type: "text", Body: p.Summary}
		}
		for _, t := range p.Tags {
			e.Categories = append(e.Categories, atomCategory{Term: t.PatternSlug, Label: t.PatternName})
		}
		out = append(out, e)
	}
	return out
}

// postmortemsFeed is /feed.atom: the postmortems created or changed last.
func (h *Handler) postmortemsFeed(w http.ResponseWriter, r *http.Request) {
	ps, err := h.store.RecentPostmortems(r.Context(), "", feedSize)
	if err != nil {
		h.error(w, r, err)
		return
	}
	h.writeFeed(w, r, atomFeed{Title: "Hindsight: new and updated postmortems",
		Entries: postmortemEntries(h.origin(r), ps)}, "/postmortems")
}

// patternFeed is /patterns/{slug}/feed.atom: the postmortems tagged with
// the pattern, created or changed last.
func (h *Handler) patternFeed(w http.ResponseWriter, r *http.Request) {
	p, err := h.store.GetPattern(r.Context(), r.PathValue("slug"))
	if err != nil {
		h.error(w, r, err)
		return
	}
	ps, err := h.store.RecentPostmortems(r.Context(), p.Slug, feedSize)
	if err != nil {
		h.error(w, r, err)
		return
	}
	h.writeFeed(w, r, atomFeed{Title: "Hindsight: postmortems showing " + p.Name, Subtitle: p.Headline,
		Entries: postmortemEntries(h.origin(r), ps)}, "/patterns/"+p.Slug)
}

// followUpsFeed is /action-items/feed.atom, with the filters of
// /action-items (overdue=1 for the overdue ones). An entry changes when
// the item does, or when it becomes overdue, so a reader sees it again
// then.
func (h *Handler) followUpsFeed(w http.ResponseWriter, r *http.Request) {
	f, _ := followUpFilterFromQuery(r.URL.Query())
	if err := h.followUpFilterErr(r.Context(), f); err != nil {
		h.error(w, r, err)
		return
	}
	// The items due last are the ones that changed (or fell due) last.
	f.Sort, f.Limit, f.Offset = "-due", feedSize, 0
	now := h.now()
	items, _, err := h.store.ListActionItems(r.Context(), f, now)
	if err != nil {
		h.error(w, r, err)
		return
	}
	origin := h.origin(r)
	var entries []atomEntry
	for _, it := range items {
		updated := it.UpdatedAt
		if it.Overdue {
			if fell := becameOverdue(it.DueDate, it.TimeZone); fell.After(updated) {
				updated = fell
			}
		}
		title := it.Title
		if it.Overdue {
			title = "Overdue: " + title
		}
		summary := postmortem.Label(postmortem.ActionStatuses, it.Status) + " · " + postmortem.Label(postmortem.ActionKinds, it.Kind) + " · " + it.Priority
		if it.Owner != "" {
			summary += " · owner " + it.Owner
		}
		if it.DueDate != "" {
			summary += " · due " + it.DueDate
		}
		summary += " · from “" + it.PostmortemTitle + "”"
		url := origin + "/postmortems/" + it.PostmortemSlug + "#actions-heading"
		e := atomEntry{ID: origin + "/action-items/" + strconv.FormatInt(it.ID, 10), Title: title, Updated: atomTime(updated), Published: atomTime(it.CreatedAt),
			Links: []atomLink{{Rel: "alternate", Type: "text/html", Href: url}}, Summary: &atomText{Type: "text", Body: summary}}
		if it.Owner != "" {
			e.Authors = []atomPerson{{Name: it.Owner}}
		}
		entries = append(entries, e)
	}
	slices.SortStableFunc(entries, func(a, b atomEntry) int {
		if a.Updated != b.Updated {
			if a.Updated > b.Updated {
				return -1
			}
			return 1
		}
		return 0
	})
	title := "Hindsight: follow-ups"
	if f.Overdue {
		title = "Hindsight: overdue follow-ups"
	}
	q := r.URL.Query()
	page := "/action-items"
	if len(q) > 0 {
		page += "?" + q.Encode()
	}
	h.writeFeed(w, r, atomFeed{Title: title, Entries: entries}, page)
}

// becameOverdue is the moment an item due on date (YYYY-MM-DD) in time
// zone tz becomes overdue: the start of the next day there.
func becameOverdue(date, tz string) time.Time {
	d, err := time.ParseInLocation("2006-01-02", date, store.Location(tz))
	if err != nil {
		return time.Time{}
	}
	return d.AddDate(0, 0, 1)
}
