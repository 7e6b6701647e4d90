package handlers_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"hindsight/handlers"
)

// reviewedPostmortem is the postmortem JSON's review part, as a client
// reads it.
type reviewedPostmortem struct {
	Slug    string `json:"slug"`
	Status  string `json:"status"`
	Version int    `json:"version"`
	Review  struct {
		Reviewers []string `json:"reviewers"`
		Approvals []struct {
			By      string `json:"by"`
			Version int    `json:"version"`
			Current bool   `json:"current"`
		} `json:"approvals"`
		DueDate   string `json:"due_date"`
		Questions []struct {
			Key      string `json:"key"`
			Pattern  string `json:"pattern"`
			Answered bool   `json:"answered"`
		} `json:"questions"`
	} `json:"review"`
}

func TestReviewThroughTheAPI(t *testing.T) {
	t.Parallel()
	h, _ := newTeamApp(t, handlers.ReviewPolicy(1, 5))
	// ed writes it, a client that never mentions status: a draft.
	rec := sendJSON(t, h, editor, "POST", "/api/postmortems",
		`{"title": "Queue backlog", "summary": "The queue backed up.", "resolved_at": "2024-03-01T10:00:00Z", "patterns": [{"slug": "retry-storm", "role": "trigger"}]}`)
	if rec.Code != http.StatusCreated {
		t.Fatalf("create: %d %s", rec.Code, rec.Body)
	}
	p := decode[reviewedPostmortem](t, rec)
	if p.Status != "draft" {
		t.Fatalf("created status = %q, want draft", p.Status)
	}
	slug := p.Slug
	review := func(who person, body string) *httptest.ResponseRecorder {
		return sendJSON(t, h, who, "POST", "/api/postmortems/"+slug+"/review", body)
	}
	step := func(t *testing.T, who person, body string, want int, says ...string) reviewedPostmortem {
		t.Helper()
		rec := review(who, body)
		if rec.Code != want {
			t.Fatalf("%s: %d, want %d: %s", body, rec.Code, want, rec.Body)
		}
		mustContain(t, rec.Body.String(), says...)
		if want != http.StatusOK {
			return reviewedPostmortem{}
		}
		return decode[reviewedPostmortem](t, rec)
	}

	t.Run("ViewersDoNotReview", func(t *testing.T) {
		step(t, viewer, `{"action": "request"}`, http.StatusForbidden)
	})
	t.Run("UnknownAction", func(t *testing.T) {
		step(t, editor, `{"action": "merge"}`, http.StatusUnprocessableEntity, "action")
	})
	t.Run("Request", func(t *testing.T) {
		got := step(t, editor, `{"action": "request", "reviewers": ["ada"]}`, http.StatusOK)
		if got.Status != "in_review" || len(got.Review.Reviewers) != 1 || got.Review.DueDate != "2024-03-08" {
			t.Errorf("after request: %+v", got)
		}
		if len(got.Review.Questions) < 4 {
			t.Errorf("questions = %d, want the 4 general criteria at least", len(got.Review.Questions))
		}
	})
	t.Run("AuthorApprovingOwnIs403", func(t *testing.T) {
		step(t, editor, `{"action": "approve", "version": 1}`, http.StatusForbidden, "cannot approve")
	})
	t.Run("StaleVersionIs409", func(t *testing.T) {
		step(t, admin, `{"action": "approve", "version": 7}`, http.StatusConflict, "version 1")
	})
	t.Run("PublishWithoutApprovalSaysWhatIsMissing", func(t *testing.T) {
		step(t, editor, `{"action": "publish"}`, http.StatusConflict, "1 more approval(s) of version 1")
	})
	t.Run("CommentsReplyResolve", func(t *testing.T) {
		rec := sendJSON(t, h, viewer, "POST", "/api/postmortems/"+slug+"/comments", `{"body": "How many users? cc @ed", "section": "impact"}`)
		if rec.Code != http.StatusCreated {
			t.Fatalf("comment: %d %s", rec.Code, rec.Body)
		}
		c := decode[struct {
			ID int64 `json:"id"`
		}](t, rec)
		rec = sendJSON(t, h, editor, "POST", "/api/postmortems/"+slug+"/comments", fmt.Sprintf(`{"body": "About 2,000.", "reply_to": %d}`, c.ID))
		if rec.Code != http.StatusCreated {
			t.Fatalf("reply: %d %s", rec.Code, rec.Body)
		}
		if rec := sendJSON(t, h, viewer, "POST", "/api/postmortems/"+slug+"/comments", `{"body": "x", "section": "nope"}`); rec.Code != http.StatusUnprocessableEntity {
			t.Errorf("a comment on no section: %d, want 422", rec.Code)
		}
		if rec := sendJSON(t, h, editor, "PUT", fmt.Sprintf("/api/postmortems/%s/comments/%d", slug, c.ID), `{"body": "mine now"}`); rec.Code != http.StatusForbidden {
			t.Errorf("editing another's comment: %d, want 403", rec.Code)
		}
		if rec := sendJSON(t, h, viewer, "POST", fmt.Sprintf("/api/postmortems/%s/comments/%d/resolve", slug, c.ID), ""); rec.Code != http.StatusOK {
			t.Errorf("resolve: %d %s", rec.Code, rec.Body)
		}
		rec = sendJSON(t, h, viewer, "GET", "/api/postmortems/"+slug+"/comments", "")
		list := decode[struct {
			Items []struct {
				ID       int64  `json:"id"`
				Author   string `json:"author"`
				Section  string `json:"section"`
				ReplyTo  int64  `json:"reply_to"`
				Resolved bool   `json:"resolved"`
			} `json:"items"`
		}](t, rec)
		if len(list.Items) != 2 || list.Items[0].Author != "vera" || !list.Items[0].Resolved ||
			list.Items[1].ReplyTo != c.ID || list.Items[1].Section != "impact" {
			t.Errorf("comments = %+v", list.Items)
		}
	})
	t.Run("ApproveAnswerPublish", func(t *testing.T) {
		step(t, admin, `{"action": "approve", "version": 1}`, http.StatusOK, `"current": true`)
		step(t, editor, `{"action": "publish"}`, http.StatusConflict, "review question")
		cur := decode[reviewedPostmortem](t, sendJSON(t, h, editor, "GET", "/api/postmortems/"+slug, ""))
		for _, q := range cur.Review.Questions {
			rec := sendJSON(t, h, editor, "POST", "/api/postmortems/"+slug+"/review/questions/"+q.Key,
				`{"waived": "Covered in the incident review meeting."}`)
			if rec.Code != http.StatusOK {
				t.Fatalf("answer %s: %d %s", q.Key, rec.Code, rec.Body)
			}
		}
		got := step(t, editor, `{"action": "publish"}`, http.StatusOK)
		if got.Status != "published" {
			t.Errorf("status after publish = %q", got.Status)
		}
		feed := as(t, h, viewer, "GET", "/feed.atom", nil)
		mustContain(t, feed.Body.String(), "/postmortems/"+slug)
		audit := as(t, h, admin, "GET", "/api/audit?postmortem="+slug+"&limit=100", nil).Body.String()
		mustContain(t, audit, "review.request", "review.approve", "review.publish", "review.answer", "comment.create", "comment.resolve",
			"approved version 1 of")
	})
	t.Run("StatusFilter", func(t *testing.T) {
		for _, tc := range []struct {
			query string
			code  int
			want  bool
		}{{"status=published", 200, true}, {"status=draft", 200, false}, {"status=nope", 400, false}} {
			rec := sendJSON(t, h, viewer, "GET", "/api/postmortems?limit=100&"+tc.query, "")
			if rec.Code != tc.code {
				t.Errorf("%s: %d, want %d", tc.query, rec.Code, tc.code)
				continue
			}
			if got := strings.Contains(rec.Body.String(), `"slug": "`+slug+`"`); tc.code == 200 && got != tc.want {
				t.Errorf("%s lists it: %v, want %v", tc.query, got, tc.want)
			}
		}
	})
}

func TestReviewThroughForms(t *testing.T) {
	t.Parallel()
	h, _ := newApp(t, handlers.ReviewPolicy(1, 5))
	slug := createViaForm(t, h, validForm()) // signed Ada; authors Ada, Grace
	page := get(t, h, "/postmortems/"+slug).Body.String()
	mustContain(t, page, "Draft:", `action="/postmortems/`+slug+`/review/request"`, `action="/postmortems/`+slug+`/comments"`)
	list := get(t, h, "/postmortems?status=draft").Body.String()
	mustContain(t, list, "/postmortems/"+slug, `class="review-status status-draft"`)

	sendForm := func(path string, form url.Values, want int) *httptest.ResponseRecorder {
		t.Helper()
		rec := postForm(t, h, "/postmortems/"+slug+path, form)
		if rec.Code != want {
			t.Fatalf("%s: %d, want %d\n%.2000s", path, rec.Code, want, rec.Body)
		}
		return rec
	}
	sendForm("/review/request", url.Values{"reviewers": {"Lin, Sam"}, "author": {"Ada"}}, http.StatusSeeOther)
	sendForm("/review/approve", url.Values{"version": {"1"}, "author": {"Grace"}}, http.StatusForbidden)
	rec := sendForm("/comments", url.Values{"body": {"Is the **impact** complete?"}, "section": {"impact"}, "author": {"Lin"}}, http.StatusSeeOther)
	page = follow(t, h, rec).Body.String()
	mustContain(t, page, "Comment added.", "<strong>impact</strong>", "Resolve<span")

	// An edit after the approval makes it stale: a new one is needed.
	sendForm("/review/approve", url.Values{"version": {"1"}, "author": {"Lin"}}, http.StatusSeeOther)
	edit := editForm(t, h, slug)
	edit.Set("impact", "Half of checkouts failed.")
	if rec := postForm(t, h, "/postmortems/"+slug+"/edit", edit); rec.Code != http.StatusSeeOther {
		t.Fatalf("edit: %d", rec.Code)
	}
	rec = sendForm("/review/approve", url.Values{"version": {"1"}, "author": {"Sam"}, "comment": {"Looks good"}}, http.StatusConflict)
	mustContain(t, rec.Body.String(), "at version 2 now", "Looks good", "Back to the postmortem")
	page = get(t, h, "/postmortems/"+slug).Body.String()
	mustContain(t, page, "Lin approved version 1, before the last changes", `/compare?from=1&amp;to=2`)
	rec = sendForm("/review/publish", url.Values{"author": {"Ada"}}, http.StatusConflict)
	mustContain(t, rec.Body.String(), "1 more approval(s) of version 2")
}

func TestPatternReviewQuestionsEditing(t *testing.T) {
	t.Parallel()
	h, _ := newApp(t)
	api := decode[struct {
		ReviewQuestions []string `json:"review_questions"`
	}](t, get(t, h, "/api/patterns/retry-storm"))
	if n := len(api.ReviewQuestions); n < 2 || n > 4 {
		t.Fatalf("review_questions = %v, want 2 to 4", api.ReviewQuestions)
	}
	mustContain(t, get(t, h, "/patterns/retry-storm").Body.String(), "Review questions", `href="/patterns/retry-storm/review-questions"`)
	page := get(t, h, "/patterns/retry-storm/review-questions").Body.String()
	m := regexp.MustCompile(`action="(/patterns/retry-storm/review-questions/[0-9]+)"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no question form on the edit page")
	}
	action := m[1]
	form := formValues(page, action)
	if form.Get("version") == "" {
		t.Fatalf("the question form carries no version")
	}
	first := url.Values{"version": {form.Get("version")}, "text": {"Was the retry budget stated?"}}
	if rec := postForm(t, h, action, first); rec.Code != http.StatusSeeOther {
		t.Fatalf("save: %d", rec.Code)
	}
	// A second writer, on the version they read before the first save.
	rec := postForm(t, h, action, url.Values{"version": {form.Get("version")}, "text": {"Were retries capped?"}})
	if rec.Code != http.StatusConflict {
		t.Fatalf("stale save: %d, want 409", rec.Code)
	}
	mustContain(t, rec.Body.String(), "Someone changed this question", "Was the retry budget stated?", "Were retries capped?")
	if rec := postForm(t, h, "/patterns/retry-storm/review-questions", url.Values{"text": {""}}); rec.Code != http.StatusUnprocessableEntity {
		t.Errorf("an empty question: %d, want 422", rec.Code)
	}
}

func TestReviewsPage(t *testing.T) {
	t.Parallel()
	h, _ := newTeamApp(t, handlers.ReviewPolicy(1, 5), handlers.Clock(func() time.Time { return time.Date(2024, 3, 20, 12, 0, 0, 0, time.UTC) }))
	create := func(title string) string {
		rec := sendJSON(t, h, editor, "POST", "/api/postmortems", `{"title": "`+title+`", "summary": "x", "resolved_at": "2024-03-01T10:00:00Z"}`)
		if rec.Code != http.StatusCreated {
			t.Fatalf("create: %d %s", rec.Code, rec.Body)
		}
		return decode[reviewedPostmortem](t, rec).Slug
	}
	asked := create("Asked of Ada")
	create("Still a draft")
	if rec := sendJSON(t, h, editor, "POST", "/api/postmortems/"+asked+"/review", `{"action": "request", "reviewers": ["ada"]}`); rec.Code != http.StatusOK {
		t.Fatalf("request: %d %s", rec.Code, rec.Body)
	}
	section := func(body, id string) string {
		_, after, _ := strings.Cut(body, `id="`+id+`"`)
		before, _, _ := strings.Cut(after, "</section>")
		return before
	}
	ada := as(t, h, admin, "GET", "/reviews", nil).Body.String()
	mustContain(t, section(ada, "waiting-heading"), "Asked of Ada")
	mustNotContain(t, section(ada, "waiting-heading"), "Still a draft")
	mustContain(t, section(ada, "overdue-heading"), "Asked of Ada", "Still a draft", "Overdue: due")
	ed := as(t, h, editor, "GET", "/reviews", nil).Body.String()
	mustContain(t, section(ed, "mine-heading"), "Asked of Ada", "Still a draft")
	mustNotContain(t, section(ed, "waiting-heading"), "Asked of Ada")
	// Approved by Ada, it no longer waits for her.
	if rec := sendJSON(t, h, admin, "POST", "/api/postmortems/"+asked+"/review", `{"action": "approve", "version": 1}`); rec.Code != http.StatusOK {
		t.Fatalf("approve: %d %s", rec.Code, rec.Body)
	}
	ada = as(t, h, admin, "GET", "/reviews", nil).Body.String()
	mustNotContain(t, section(ada, "waiting-heading"), "Asked of Ada")
	// Lists mark them.
	mustContain(t, as(t, h, viewer, "GET", "/postmortems?status=in_review", nil).Body.String(), "Asked of Ada", "In review", "Overdue: due")
}

func TestSearchByReviewStatus(t *testing.T) {
	t.Parallel()
	h, _ := newTeamApp(t)
	rec := sendJSON(t, h, editor, "POST", "/api/postmortems", `{"title": "Zanzibar queue stalled", "summary": "The zanzibar queue stalled."}`)
	if rec.Code != http.StatusCreated {
		t.Fatalf("create: %d %s", rec.Code, rec.Body)
	}
	for _, tc := range []struct {
		query string
		code  int
		found bool
	}{
		{"q=zanzibar", 200, true},
		{"q=zanzibar&status=draft", 200, true},
		{"q=zanzibar&status=published", 200, false},
		{"q=zanzibar&status=nope", 400, false},
	} {
		rec := as(t, h, viewer, "GET", "/api/search?"+tc.query, nil)
		if rec.Code != tc.code {
			t.Errorf("%s: %d, want %d", tc.query, rec.Code, tc.code)
			continue
		}
		if got := strings.Contains(rec.Body.String(), "zanzibar-queue-stalled"); tc.code == 200 && got != tc.found {
			t.Errorf("%s finds the draft: %v, want %v", tc.query, got, tc.found)
		}
	}
	mustContain(t, as(t, h, viewer, "GET", "/search?q=zanzibar&status=draft", nil).Body.String(), "Zanzibar queue stalled", "status-draft")
	mustNotContain(t, as(t, h, viewer, "GET", "/search?q=retry&status=draft", nil).Body.String(), "gmail-2009")
}
