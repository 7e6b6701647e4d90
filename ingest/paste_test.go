package ingest_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hindsight/ingest"
	"hindsight/postmortem"
)

// lead is a paragraph of prose, so that a test's text reads as a post.
const lead = "On 2 May 2024 the primary database ran out of disk and writes failed for twenty minutes. We are sorry."

// pasted cleans text as /import reads pasted text.
func pasted(t *testing.T, text string) ingest.Draft {
	t.Helper()
	d, err := ingest.Clean([]byte(text), "")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestPasteTitle(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, text, want string }{
		{"first line", "Disk full on the primary database\n\n" + lead, "Disk full on the primary database"},
		{"logo line", "Acme\n\nDisk full on the primary database\n\n" + lead, "Disk full on the primary database"},
		{"logo and blog name", "Acme\nEngineering Blog\n\nDisk full on the primary database\n\n" + lead, "Disk full on the primary database"},
		{"blog name and menu", "The Acme Tech Blog\nHome | Posts | About | Careers\n\nDisk full on the primary database\nBy Ana Ruiz\n\n" + lead, "Disk full on the primary database"},
		{"engineering blog alone", "Engineering Blog\n\nHow a full disk stopped our writes\n\n" + lead, "How a full disk stopped our writes"},
		{"short title kept", "Acme status\n\n" + lead, "Acme status"},
		{"logo of two words", "Acme Corp\nEngineering Blog\n\nDisk full on the primary database\n\n" + lead, "Disk full on the primary database"},
		{"a short title over a subtitle", "Redis outage\n\nWhat happened on May 2 and what we learned\n\n" + lead, "Redis outage"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if d := pasted(t, tt.text); d.Title != tt.want {
				t.Errorf("title = %q, want %q", d.Title, tt.want)
			}
		})
	}
}

func TestPasteAuthors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, byline, want string }{
		{"by", "By Priya Raman", "Priya Raman"},
		{"posted by with date", "Posted by Daniel Osei · March 15, 2024 · 6 min read", "Daniel Osei"},
		{"written by two", "Written by Ana Ruiz and Tom Lee", "Ana Ruiz, Tom Lee"},
		{"with job title", "By Priya Raman, Staff Site Reliability Engineer", "Priya Raman"},
		{"authors label", "Authors: Ana Ruiz, Tom Lee", "Ana Ruiz, Tom Lee"},
		{"a time is no author", "By 5:30 AM PDT the errors were back.", ""},
		{"a weekday is no author", "By Tuesday, every host had been patched", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := pasted(t, "Disk full on the primary database\n"+tt.byline+"\n\n"+lead)
			if d.Authors != tt.want {
				t.Errorf("authors = %q, want %q", d.Authors, tt.want)
			}
			if tt.want != "" && strings.Contains(d.Body, tt.byline) {
				t.Errorf("the byline stayed in the text: %q", d.Body)
			}
		})
	}
}

func TestPasteSeverity(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ text, want string }{
		{"The incident was declared as SEV1 at 14:09.", "SEV1"},
		{"We declared a P1 and paged the database team.", "SEV1"},
		{"It was handled as a Sev 2 incident.", "SEV2"},
		{"Severity: 3. Writes were slow.", "SEV3"},
		{"This was a severity 2 incident.", "SEV2"},
		{"The outage (P2) lasted an hour.", "SEV2"},
		{"A SEV-0 was declared.", "SEV1"},
		{"p99 latency rose to 2 s; several hosts failed.", ""},
		{"The highest severity level was reached by the vendor.", ""},
		{"Port P1 of the switch failed.", ""},
		// The earlier of a priority and a severity wins, either way round.
		{"We declared a P2; the vendor called it SEV1.", "SEV2"},
		{"It was a SEV3 for us and a P1 for the vendor.", "SEV3"},
	} {
		t.Run(tt.text, func(t *testing.T) {
			if d := pasted(t, "Disk full on the primary database\n\n"+lead+" "+tt.text); d.Severity != tt.want {
				t.Errorf("severity = %q, want %q", d.Severity, tt.want)
			}
		})
	}
}

func TestPasteIncidentTimes(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, text                             string
		started, detected, mitigated, resolved string
	}{
		{"between, Azure's way", "Summary of impact: Between 1:48 and 5:15 UTC on June 11, 2017, a subset of customers could not reach their resources.",
			"2017-06-11T01:48:00Z", "", "", "2017-06-11T05:15:00Z"},
		{"began and ended, Google's way", "Incident began at **2016-02-23 19:55** and ended at **2016-02-23 20:45** (all times are **US/Pacific**).",
			"2016-02-23T19:55:00-08:00", "", "", "2016-02-23T20:45:00-08:00"},
		{"prose with a zone", "On September 2, 2021 the network failed. Beginning 7:30 AM JST, customers saw packet loss. Customers saw recovery by 12:30 PM JST and by 1:42 PM JST the issues were fully resolved.",
			"2021-09-02T07:30:00+09:00", "", "", "2021-09-02T13:42:00+09:00"},
		{"timeline rows", "On 8 April 2025 photo uploads failed for most users for 47 minutes.\n\nTimeline (all times UTC)\n\n14:02 — Deploy starts and flushes the cache\n14:06 — Error rate alert fires; on-call paged\n14:31 — Coalescing enabled; errors start to fall\n14:49 — Back to normal; incident resolved",
			"2025-04-08T14:02:00Z", "2025-04-08T14:06:00Z", "2025-04-08T14:31:00Z", "2025-04-08T14:49:00Z"},
		{"no zone, no times", "On 8 April 2025 photo uploads failed for most users for 47 minutes.\n\nTimeline\n\n14:02 Deploy starts\n14:06 Alert fires\n14:49 Incident resolved", "", "", "", ""},
		{"no date, no times", "Uploads failed for a while.\n\nTimeline (UTC)\n\n14:02 Deploy starts\n14:06 Alert fires\n14:49 Incident resolved", "", "", "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := pasted(t, "Uploads failed for 47 minutes\n\n"+tt.text)
			for _, c := range []struct{ field, got, want string }{
				{"started", d.StartedAt, tt.started}, {"detected", d.DetectedAt, tt.detected},
				{"mitigated", d.MitigatedAt, tt.mitigated}, {"resolved", d.ResolvedAt, tt.resolved},
			} {
				if c.got != c.want {
					t.Errorf("%s = %q, want %q", c.field, c.got, c.want)
				}
			}
		})
	}
}

func TestPasteTimelineRows(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, text string
		rows       int
		first      string
	}{
		{"under a heading", "Timeline\n\n14:02 — Deploy starts\n14:06 — Alert fires\n14:49 — Resolved", 3, "14:02"},
		{"am and pm", "Timeline\n\n2:14 PM - Deploy starts\n2:20 PM - Alert fires\n3:05 PM - Resolved", 3, "14:14"},
		{"bullets with colons, no heading", "• 01:05: Puppet run updates the tree\n• 01:23: Puppet resets the repositories\n• expectation: nothing changes\n• 07:30: The old tag is checked out", 3, "01:05"},
		{"one row a paragraph", "15:02: Maintenance starts\n\n15:18: The proxy marks the host down\n\n15:28: Service is back", 3, "15:02"},
		{"dated rows", "Timeline\n\n• 2018-07-28 16:01 - First alarm fires\n• 2018-07-28 17:26 - Restart\n• 2018-07-29 09:09 - Stack traces read", 3, "16:01"},
		{"two times in prose are no timeline", "At 14:02 the deploy started.\n\nAt 14:49 it was over.", 0, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := pasted(t, "Disk full on the primary database\n\n"+lead+"\n\n"+tt.text)
			rows, ok := postmortem.ParseTimeline(d.Sections[postmortem.SectionTimeline])
			if tt.rows == 0 {
				if len(rows) > 0 {
					t.Errorf("timeline = %q, want none", d.Sections[postmortem.SectionTimeline])
				}
				return
			}
			if !ok || len(rows) != tt.rows || rows[0].Time != tt.first {
				t.Errorf("timeline = %q (rows %v), want %d rows from %s", d.Sections[postmortem.SectionTimeline], ok, tt.rows, tt.first)
			}
		})
	}
}

func TestPasteActionItems(t *testing.T) {
	t.Parallel()
	items := "- Alert on disk at 80% (owner: Storage team, due May 15, 2025)\n- Move the logs to their own volume\n- Write a runbook for a full disk"
	for _, tt := range []struct {
		heading string
		want    int
	}{
		{"What we're doing", 3}, {"What we’re doing", 3}, {"Action items", 3}, {"Next steps", 3}, {"Remediation", 3},
		{"Follow-up actions", 3}, {"Going forward", 3},
	} {
		t.Run(tt.heading, func(t *testing.T) {
			d := pasted(t, "Disk full on the primary database\n\n"+lead+"\n\n"+tt.heading+"\n\n"+items)
			if len(d.ActionItems) != tt.want {
				t.Fatalf("%d action items, want %d: %+v", len(d.ActionItems), tt.want, d.ActionItems)
			}
			a := d.ActionItems[0]
			if a.Title != "Alert on disk at 80%" || a.Owner != "Storage team" || a.DueDate != "2025-05-15" {
				t.Errorf("first item = %+v, want its title, owner and due date apart", a)
			}
		})
	}
	t.Run("remediation prose is the resolution", func(t *testing.T) {
		d := pasted(t, "Disk full on the primary database\n\n"+lead+"\n\nRemediation\n\nWe freed space on the volume and writes resumed at 03:30.")
		if len(d.ActionItems) != 0 || !strings.Contains(d.Sections[postmortem.SectionResolution], "freed space") {
			t.Errorf("items %+v, resolution %q", d.ActionItems, d.Sections[postmortem.SectionResolution])
		}
	})
	t.Run("numbered list run into a sentence", func(t *testing.T) {
		d := pasted(t, "Disk full on the primary database\n\n"+lead+"\n\nNext steps: We apologize. In this case, we will: 1. Alert on disk at 80%. 2. Move the logs to their own volume. 3. Write a runbook.")
		if len(d.ActionItems) != 3 {
			t.Errorf("%d action items, want 3: %+v", len(d.ActionItems), d.ActionItems)
		}
	})
	t.Run("status lines", func(t *testing.T) {
		d := pasted(t, "Disk full on the primary database\n\n"+lead+"\n\n• Status: Done - Alert on disk at 80%\n• Status: Pending - Move the logs to their own volume")
		if len(d.ActionItems) != 2 || !d.ActionItems[0].Done || d.ActionItems[1].Title != "Move the logs to their own volume" {
			t.Errorf("action items = %+v", d.ActionItems)
		}
	})
}

// TestPasteKeepsTheStory: sentences of the write-up that look like
// furniture stay.
func TestPasteKeepsTheStory(t *testing.T) {
	t.Parallel()
	for _, keep := range []string{
		"Ana Ruiz is a senior engineer on the storage team, and she noticed the disk alert first.",
		"We subscribe to the vendor's status feed, which said nothing.",
		"Related services such as billing kept working.",
		"The weekly newsletter job ran at 09:00 and filled the queue.",
		"The email address of the on-call rota was out of date.",
	} {
		d := pasted(t, "Disk full on the primary database\n\n"+lead+"\n\nWe moved the logs.\n\n"+keep)
		if !strings.Contains(d.Body, keep) {
			t.Errorf("%q left the text: %q (dropped %+v)", keep, d.Body, d.Dropped)
		}
	}
}

func TestPasteFurniture(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, text, kind, gone string
	}{
		{"navigation", "Home | Blog | Careers | Sign in\n\nDisk full on the primary database\n\n" + lead, "navigation", "Careers"},
		{"masthead", "Acme\nEngineering Blog\n\nDisk full on the primary database\n\n" + lead, "masthead", "Engineering Blog"},
		{"share bar", "Disk full on the primary database\n\n" + lead + "\n\nShare on X\nLinkedIn\nCopy link", "share", "Copy link"},
		{"byline", "Disk full on the primary database\nBy Ana Ruiz\nStaff Engineer\nMay 3, 2024 · 5 min read\n\n" + lead, "byline", "5 min read"},
		{"about the author", "Disk full on the primary database\n\n" + lead + "\n\nAbout the author\n\nAna Ruiz runs the storage team at Acme.", "author_bio", "runs the storage team"},
		{"bio without a byline", "Disk full on the primary database\n\n" + lead + "\n\nWe moved the logs.\n\nAna Ruiz is a staff engineer at Acme. She writes about storage.", "author_bio", "She writes about storage"},
		{"bio after the post", "Disk full on the primary database\nBy Ana Ruiz\n\n" + lead + "\n\nWe moved the logs.\n\nAna Ruiz is a staff engineer at Acme. She writes about storage.", "author_bio", "She writes about storage"},
		{"related posts", "Disk full on the primary database\n\n" + lead + "\n\nRelated posts\nHow we sharded the queue\nOur on-call handbook", "related_posts", "on-call handbook"},
		{"newsletter", "Disk full on the primary database\n\n" + lead + "\n\nSubscribe to our newsletter\nGet the best of the Acme blog in your inbox every month.", "newsletter", "inbox"},
		{"cookie banner", "We use cookies to improve your experience. By continuing to browse you accept our cookie policy.\n\nDisk full on the primary database\n\n" + lead, "cookie_banner", "cookie policy"},
		{"comment form", "Disk full on the primary database\n\n" + lead + "\n\nWe moved the logs.\n\nLeave a Reply\n\nYour email address will not be published. Required fields are marked *\n\nName *\n\nEmail *\n\nPost Comment", "comment_form", "will not be published"},
		{"footer", "Disk full on the primary database\n\n" + lead + "\n\n© 2024 Acme Inc. All rights reserved.", "footer", "All rights reserved"},
		{"footer in capitals", "Disk full on the primary database\n\n" + lead + "\n\nCOPYRIGHT 2024 ACME INC. ALL RIGHTS RESERVED.", "footer", "ALL RIGHTS RESERVED"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := pasted(t, tt.text)
			found := false
			for _, x := range d.Dropped {
				found = found || x.Kind == tt.kind
			}
			if !found {
				t.Errorf("dropped %+v has no %s", d.Dropped, tt.kind)
			}
			var all strings.Builder
			all.WriteString(d.Title + "\n" + d.Summary + "\n" + d.Body)
			for _, s := range d.Sections {
				all.WriteString("\n" + s)
			}
			for _, a := range d.ActionItems {
				all.WriteString("\n" + a.Title)
			}
			if strings.Contains(all.String(), tt.gone) {
				t.Errorf("%q is still in the draft: %q", tt.gone, all.String())
			}
		})
	}
}

// TestPasteBlogPost: our invented blog post, pasted as text and saved as
// HTML, gives the same draft, its furniture dropped and its reader
// comments set apart (not the newsletter box).
func TestPasteBlogPost(t *testing.T) {
	t.Parallel()
	for _, file := range []string{"lumora.txt", "lumora.html"} {
		t.Run(file, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join("testdata", "paste", file))
			if err != nil {
				t.Fatal(err)
			}
			name := ""
			if strings.HasSuffix(file, ".html") {
				name = file
			}
			d, err := ingest.Clean(raw, name)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct{ field, got, want string }{
				{"title", d.Title, "Cache stampede takes down photo uploads for 47 minutes"},
				{"organization", d.Organization, "Lumora"},
				{"authors", d.Authors, "Priya Raman"},
				{"severity", d.Severity, "SEV1"},
				{"incident date", d.IncidentDate.Format(time.DateOnly), "2025-04-08"},
				{"started", d.StartedAt, "2025-04-08T14:02:00Z"},
				{"resolved", d.ResolvedAt, "2025-04-08T14:49:00Z"},
				{"trigger", d.Sections[postmortem.SectionTrigger], "The metadata cache had no request coalescing, so a cold cache sent every miss to the database at the same time."},
			} {
				if c.got != c.want {
					t.Errorf("%s = %q, want %q", c.field, c.got, c.want)
				}
			}
			if rows, ok := postmortem.ParseTimeline(d.Sections[postmortem.SectionTimeline]); !ok || len(rows) != 5 {
				t.Errorf("timeline = %q, want 5 rows", d.Sections[postmortem.SectionTimeline])
			}
			if len(d.ActionItems) != 3 {
				t.Errorf("%d action items, want 3", len(d.ActionItems))
			}
			if len(d.Comments) != 2 {
				t.Errorf("comments = %+v, want the 2 reader comments", d.Comments)
			}
			for _, c := range d.Comments {
				if strings.Contains(c.Text, "newsletter") || strings.Contains(c.Text, "inbox") {
					t.Errorf("the newsletter box was kept as a comment: %+v", c)
				}
				if c.Author == "" || c.Date.Format(time.DateOnly) != "2025-04-10" || strings.Contains(c.Text, "April 10") {
					t.Errorf("comment %+v: want its author and date apart from its text", c)
				}
			}
		})
	}
}
