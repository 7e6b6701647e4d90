package ingest_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"hindsight/ingest"
)

func TestNormalize(t *testing.T) {
	for _, tt := range []struct {
		name, in, want string
	}{
		{"CRLF", "a\r\nb\r\n", "a\nb\n"},
		{"lone CR", "a\rb", "a\nb"},
		{"BOM", "\uFEFFtitle", "title"},
		{"no-break space", "was.\u00a0 Nothing", "was.  Nothing"},
		{"zero-width space", "fee\u200bdback", "feedback"},
		{"trailing spaces", "a  \nb\t\n", "a\nb\n"},
		{"control characters", "a\x07b\x1bc", "abc"},
		{"text-direction controls", "invoice\u202Etxt.exe \u2066x\u2069", "invoicetxt.exe x"},
		{"right-to-left marks stay", "\u05e9\u05dc\u05d5\u05dd\u200f 5", "\u05e9\u05dc\u05d5\u05dd\u200f 5"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := ingest.Normalize(tt.in); got != tt.want {
				t.Errorf("Normalize(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestRemoveAvatars(t *testing.T) {
	for _, tt := range []struct {
		name, in, want string
		users          []string
	}{
		{
			name: "alone on a line",
			in:   "![[site community profile]](https://www.dreamwidth.org/img/comm_staff.png){kind=small}\nTonight's site interruptions",
			want: "\nTonight's site interruptions",
		},
		{
			name:  "glued to a date and to the user name",
			in:    "May. 25th, 2020 09:48 pm![[staff profile]](https://www.dreamwidth.org/img/silk/identity/user_staff.png){kind=small}\nmarkHi all,",
			want:  "May. 25th, 2020 09:48 pm mark\nHi all,",
			users: []string{"mark"},
		},
		{
			name:  "user name on the next line goes on the sentence",
			in:    "Big thanks to![[personal profile]](https://www.dreamwidth.org/img/silk/identity/user.png)\njennifer and alierak for the help",
			want:  "Big thanks to jennifer and alierak for the help",
			users: []string{"jennifer"},
		},
		{
			name: "inside a line",
			in:   "thanks to![avatar](https://x.example/a.png)bob",
			want: "thanks to bob",
		},
		{
			name: "linked avatar leaves no empty link",
			in:   "[![userpic](https://x.example/u.png)](https://x.example/~bob) wrote",
			want: " wrote",
		},
		{
			name: "a diagram is not an avatar",
			in:   "![load on the routers](https://x.example/routers.png)",
			want: "![load on the routers](https://x.example/routers.png)",
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, users := ingest.RemoveAvatars(tt.in)
			if got != tt.want {
				t.Errorf("text = %q, want %q", got, tt.want)
			}
			if !reflect.DeepEqual(users, tt.users) {
				t.Errorf("users = %q, want %q", users, tt.users)
			}
		})
	}
}

func TestRemoveChrome(t *testing.T) {
	for _, tt := range []struct {
		name, in, want string
		removed        []string
	}{
		{"trailing Tweet", "We take reliability seriously.\n\nTweet", "We take reliability seriously.\n", []string{"Tweet"}},
		{"share bar", "Share | Like | Pin it\nBody.", "Body.", []string{"Share | Like | Pin it"}},
		{"navigation", "Skip to content\nHome » About us\nBody.", "Body.", []string{"Skip to content", "Home » About us"}},
		{"sentence mentioning a chrome word", "We did not tweet faster.", "We did not tweet faster.", nil},
		{"heading Next steps", "Next steps\nDo it.", "Next steps\nDo it.", nil},
		{"inside a code fence", "```\nshare\n```", "```\nshare\n```", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, removed := ingest.RemoveChrome(tt.in)
			if got != tt.want {
				t.Errorf("text = %q, want %q", got, tt.want)
			}
			if !reflect.DeepEqual(removed, tt.removed) {
				t.Errorf("removed = %q, want %q", removed, tt.removed)
			}
		})
	}
}

func sentences(n int, prefix string) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(prefix)
		b.WriteString(" sentence number ")
		b.WriteString(strings.Repeat("x", i%7+1))
		b.WriteString(" says something about load and routers.\n")
	}
	return b.String()
}

func TestRemoveRepeats(t *testing.T) {
	body := sentences(10, "This")
	for _, tt := range []struct {
		name, in, want string
		words          int
	}{
		{"body twice", body + body, body, 100},
		{
			name:  "second copy differs at the edges",
			in:    "Hi all,\n" + body + "-Mark\n" + strings.TrimSuffix(body, "\n") + "-Mark",
			want:  "Hi all,\n" + body + "-Mark\n",
			words: 101,
		},
		{
			name:  "second copy re-wrapped",
			in:    body + strings.ReplaceAll(body, ".\n", ". "),
			want:  body,
			words: 100,
		},
		{"short repeat is kept", "We are sorry. " + body + "We are sorry.", "We are sorry. " + body + "We are sorry.", 0},
		{"no repeat", body, body, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, words := ingest.RemoveRepeats(tt.in)
			if got != tt.want {
				t.Errorf("text = %q\nwant   %q", got, tt.want)
			}
			if words != tt.words {
				t.Errorf("words = %d, want %d", words, tt.words)
			}
		})
	}
}

func TestParagraphs(t *testing.T) {
	for _, tt := range []struct {
		name   string
		in     string
		reflow bool
		want   []string
	}{
		{
			name:   "hard-wrapped paragraph is joined",
			in:     "However, as we now know, we had\nslightly underestimated the load. Then\nIMAP continued\nto work.",
			reflow: true,
			want:   []string{"However, as we now know, we had slightly underestimated the load. Then IMAP continued to work."},
		},
		{
			name:   "one paragraph per line",
			in:     "First sentence.\nSecond sentence.\nThird one!",
			reflow: true,
			want:   []string{"First sentence.", "Second sentence.", "Third one!"},
		},
		{
			name:   "line cut before a lowercase word is joined",
			in:     "Big thanks to\njennifer for the help.\nThen more.",
			reflow: true,
			want:   []string{"Big thanks to jennifer for the help.", "Then more."},
		},
		{
			name:   "title above text stays apart",
			in:     "Tonight's site interruptions\nHi all,\nWe are sorry.",
			reflow: true,
			want:   []string{"Tonight's site interruptions", "Hi all,", "We are sorry."},
		},
		{
			name:   "list stays a list",
			in:     "We will do this:\n- add capacity\n- isolate routers\nThat is all.",
			reflow: true,
			want:   []string{"We will do this:", "- add capacity\n- isolate routers", "That is all."},
		},
		{
			name:   "blank lines separate paragraphs, spaces collapse",
			in:     "one  two\n\n\nthree",
			reflow: true,
			want:   []string{"one two", "three"},
		},
		{
			name: "markdown kept as written",
			in:   "# Title\n\nline one\nline two\n\n```\ncode\n\nmore code\n```",
			want: []string{"# Title", "line one\nline two", "```\ncode\n\nmore code\n```"},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := ingest.Paragraphs(tt.in, tt.reflow); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Paragraphs = %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestParseDate(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want time.Time
		ok   bool
	}{
		{"May. 25th, 2020 09:48 pm", time.Date(2020, 5, 25, 21, 48, 0, 0, time.UTC), true},
		{"September 02, 2009 at 9:55am", time.Date(2009, 9, 2, 9, 55, 0, 0, time.UTC), true},
		{"September 02, 2009 at 4:53am", time.Date(2009, 9, 2, 4, 53, 0, 0, time.UTC), true},
		{"2010-09-23", time.Date(2010, 9, 23, 0, 0, 0, 0, time.UTC), true},
		{"23 September 2010", time.Date(2010, 9, 23, 0, 0, 0, 0, time.UTC), true},
		{"Sept. 1st, 2009", time.Time{}, false}, // "Sept" is not a Go month abbreviation
		{"Jan 32, 2020", time.Time{}, false},
		{"uberduke", time.Time{}, false},
		{"This morning we took servers offline", time.Time{}, false},
	} {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := ingest.ParseDate(tt.in)
			if ok != tt.ok || !got.Equal(tt.want) {
				t.Errorf("ParseDate(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestParseByline(t *testing.T) {
	for _, tt := range []struct {
		in         string
		wantDate   string
		wantAuthor string
		ok         bool
	}{
		{"May. 25th, 2020 09:48 pm mark", "2020-05-25", "mark", true},
		{"Posted on 2 June 2021", "2021-06-02", "", true},
		{"June 2, 2021 by Jane Doe", "2021-06-02", "Jane Doe", true},
		{"Hi all,", "", "", false},
	} {
		t.Run(tt.in, func(t *testing.T) {
			d, author, ok := ingest.ParseByline(tt.in)
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v", ok, tt.ok)
			}
			if !ok {
				return
			}
			if got := d.Format(time.DateOnly); got != tt.wantDate || author != tt.wantAuthor {
				t.Errorf("ParseByline(%q) = %s, %q; want %s, %q", tt.in, got, author, tt.wantDate, tt.wantAuthor)
			}
		})
	}
}

func TestSplitThread(t *testing.T) {
	for _, tt := range []struct {
		name     string
		in       string
		body     string
		poster   string
		comments []string // author: text
	}{
		{
			name:     "repost with comments",
			in:       "uberduke\n\nSeptember 02, 2009 at 9:55am\n\nThe post.\n\nTekzel\n\nSeptember 02, 2009 at 7:03am\n\nFirst comment.\n\nfoamcup\nSeptember 02, 2009 at 5:24am\nThere have been\nproblems?",
			body:     "The post.",
			poster:   "uberduke",
			comments: []string{"Tekzel: First comment.", "foamcup: There have been problems?"},
		},
		{
			name:     "write-up then comments",
			in:       "The write-up.\n\nalice\n\n2021-06-02\n\nNice.\n\nbob\n\n2021-06-03\n\nThanks.",
			body:     "The write-up.\n",
			comments: []string{"alice: Nice.", "bob: Thanks."},
		},
		{
			name: "a single dated update is not a thread",
			in:   "The write-up.\n\nUpdate\n\n2021-06-02\n\nAll fixed.",
			body: "The write-up.\n\nUpdate\n\n2021-06-02\n\nAll fixed.",
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			body, poster, comments := ingest.SplitThread(tt.in)
			if body != tt.body {
				t.Errorf("body = %q, want %q", body, tt.body)
			}
			if poster != tt.poster {
				t.Errorf("poster = %q, want %q", poster, tt.poster)
			}
			var got []string
			for _, c := range comments {
				got = append(got, c.Author+": "+c.Text)
			}
			if !reflect.DeepEqual(got, tt.comments) {
				t.Errorf("comments = %q, want %q", got, tt.comments)
			}
		})
	}
}

func TestConvertHTML(t *testing.T) {
	for _, tt := range []struct {
		name, in, want, title string
		comments              int
	}{
		{
			name:  "page chrome stripped, structure kept",
			in:    `<html><head><title>Outage | Example</title><style>p{}</style><script>alert(1)</script></head><body><nav><a href="/">Home</a></nav><header>Site</header><main><h1>Outage report</h1><p>The <b>routers</b> were <a href="https://example.com/x">overloaded</a>.</p><h2>Timeline</h2><ul><li>12:30 alert</li><li>12:45 fix<ul><li>nested</li></ul></li></ul><div class="share-bar">Share</div></main><footer>© Example</footer></body></html>`,
			want:  "# Outage report\n\nThe **routers** were [overloaded](https://example.com/x) .\n\n## Timeline\n\n- 12:30 alert\n- 12:45 fix\n  - nested",
			title: "Outage report",
		},
		{
			name: "title from <title> without the site name",
			in: `<html><head><title>More details on today's outage - Example</title></head><body><p>Text.</p><pre>line 1
  line 2</pre><blockquote><p>quoted</p></blockquote></body></html>`,
			want:  "Text.\n\n```\nline 1\n  line 2\n```\n\n> quoted",
			title: "More details on today's outage",
		},
		{
			name:     "comment section set apart",
			in:       `<article><p>Body.</p><section id="comments"><div class="comment"><span class="comment-author">ann</span><time datetime="2020-05-26T10:00:00Z">26 May</time><div class="comment-content"><p>Thanks!</p></div></div></section></article>`,
			want:     "Body.",
			comments: 1,
		},
		{
			name: "javascript link loses its address",
			in:   `<p><a href="javascript:alert(1)">click</a> here</p>`,
			want: "click here",
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			md, title, comments := ingest.ConvertHTML(tt.in)
			if md != tt.want {
				t.Errorf("markdown = %q\nwant       %q", md, tt.want)
			}
			if title != tt.title {
				t.Errorf("title = %q, want %q", title, tt.title)
			}
			if len(comments) != tt.comments {
				t.Errorf("%d comments, want %d: %+v", len(comments), tt.comments, comments)
			}
		})
	}
}
