package e2e_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// reviewServer is a server of the test's own where publishing needs one
// approval of the current version.
func reviewServer(t *testing.T) *server {
	t.Helper()
	srv, err := startServer(t.TempDir(), "-review-approvals", "1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.stop)
	return srv
}

// draftForReview is a draft written through the API by Ada.
const draftForReview = `{"title": "Checkout queue backed up", "summary": "Orders waited for an hour.", "author": "Ada",
	"impact": "Orders were delayed.", "detection": "A customer told us.", "resolved_at": "2024-03-05T16:00:00Z"}`

// openDetails unfolds the details element sel, if folded.
func openDetails(p *page, sel string) {
	p.t.Helper()
	if !eval[bool](p, `document.querySelector(`+jsString(sel)+`).open`) {
		p.run("open "+sel, chromedp.Click(chromedp.CSS(sel+" > summary"), chromedp.NodeVisible))
	}
}

// A writer asks for a review; a reviewer comments on a section, the writer
// replies, the thread is resolved, every review question is answered or
// waived, the reviewer approves and the writer publishes. Every step is a
// plain form: the same with JavaScript on and off.
func TestBothWaysReviewAPostmortem(t *testing.T) {
	t.Parallel()
	eachWay(t, reviewServer, func(t *testing.T, p *page, js bool) {
		slug := createPostmortem(t, p.srv, draftForReview)
		p.open("/postmortems/"+slug, 200)
		p.see(".review-notice", "Draft")

		p.run("name a reviewer", typeInto("#rv-reviewers", "Lin"), typeInto("#rv-request-author", "Ada"))
		p.press(`form[action$="/review/request"] button[type=submit]`, false)
		p.see(".flash", "Review requested")
		p.see(".review-notice", "In review")

		openDetails(p, "#section-impact ~ .comment-threads .add-comment")
		p.run("comment on the impact", typeInto("#c-impact-body", "How many **orders** were delayed?"), typeInto("#c-impact-author", "Lin"))
		p.press(`#section-impact ~ .comment-threads form button[type=submit]`, false)
		p.see(".flash", "Comment added")
		id := query[int64](t, p.srv, `SELECT c.id FROM review_comments c JOIN postmortems p ON p.id = c.postmortem_id WHERE p.slug = ?`, slug)
		thread := "#comment-" + strconv.FormatInt(id, 10)
		p.see(thread+" .comment", "Lin", "How many orders were delayed?")

		openDetails(p, thread+" .add-reply")
		p.run("reply", typeInto("#reply-"+strconv.FormatInt(id, 10), "About 2,000; now in the impact."), typeInto("#reply-"+strconv.FormatInt(id, 10)+"-author", "Ada"))
		p.press(thread+` .add-reply button[type=submit]`, false)
		p.see(".flash", "Reply added")
		p.see(thread+" .reply", "Ada", "About 2,000")
		// A page in review, with a thread open and the questions' forms
		// (axe runs in the page: with scripts on only).
		if js {
			for _, scheme := range []string{"light", "dark"} {
				p.theme(scheme)
				p.accessible()
			}
			p.theme("light")
		}

		p.press(thread+` form[action$="/resolve"] button`, false)
		p.see(".flash", "Thread resolved")
		if eval[bool](p, `document.querySelector(`+jsString("details"+thread)+`).open`) {
			t.Error("the resolved thread is not folded")
		}

		keys := eval[[]string](p, `Array.from(document.querySelectorAll(".review-questions > li")).map(li => li.id.replace("question-", ""))`)
		if len(keys) < 4 {
			t.Fatalf("the review asks %d questions, want the 4 general criteria at least", len(keys))
		}
		for _, key := range keys {
			li := "#question-" + key
			openDetails(p, li+" details.answer-form")
			if key == "impact" {
				p.run("point to the impact", setSelect("#q-impact-section", "impact"))
			} else {
				p.run("waive "+key, typeInto("#q-"+key+"-waived", "Discussed in the review meeting."))
			}
			p.run("sign", typeInto("#q-"+key+"-author", "Lin"))
			p.press(li+` form button[type=submit]`, false)
			p.see(".flash", "Question")
			p.see(li+" .answer", "by Lin")
		}

		p.run("sign the approval", typeInto("#rv-approve-author", "Lin"))
		p.press(`form[action$="/review/approve"] button[type=submit]`, false)
		p.see(".flash", "Approved")
		p.see(".review .approved", "Lin approved version 1")

		p.run("sign", typeInto("#rv-publish-author", "Ada"))
		p.press(`form[action$="/review/publish"] button[type=submit]`, false)
		p.see(".flash", "Published")
		if n := p.count(".review-notice"); n != 0 {
			t.Error("a published postmortem is still marked as not published")
		}
		if s := query[string](t, p.srv, `SELECT status FROM review_status r JOIN postmortems p ON p.id = r.postmortem_id WHERE p.slug = ?`, slug); s != "published" {
			t.Errorf("the database says %q, want published", s)
		}
		if js {
			return
		}
		p.open("/reviews", 200)
		p.see("main", "Reviews")
	})
}

// An approval is of the version read: a change saved meanwhile makes the
// approval stale, and it is refused with what changed, the comment typed
// kept on the page.
func TestBothWaysStaleApprovalIsRefused(t *testing.T) {
	t.Parallel()
	eachScriptWay(t, func(t *testing.T, js bool) {
		srv := reviewServer(t)
		p := scriptPage(t, srv, js)
		p.expectConsole("409") // the browser logs the status of the refused approval
		slug := createPostmortem(t, srv, draftForReview)
		res, err := http.Post(srv.url+"/api/postmortems/"+slug+"/review", "application/json",
			strings.NewReader(`{"action": "request", "reviewers": ["Lin"], "author": "Ada"}`))
		if err != nil || res.StatusCode != 200 {
			t.Fatalf("request a review: %v %v", res, err)
		}
		res.Body.Close()
		p.open("/postmortems/"+slug, 200)
		p.see(`form[action$="/review/approve"] button`, "Approve version 1")

		// Ada changes the text while Lin reads version 1.
		req, _ := http.NewRequest("PUT", srv.url+"/api/postmortems/"+slug, strings.NewReader(
			`{"title": "Checkout queue backed up", "summary": "Orders waited for an hour and ten minutes.", "author": "Ada", "version": 1}`))
		req.Header.Set("Content-Type", "application/json")
		res, err = http.DefaultClient.Do(req)
		if err != nil || res.StatusCode != 200 {
			t.Fatalf("edit: %v %v", res, err)
		}
		res.Body.Close()

		p.run("approve version 1", typeInto("#rv-approve-comment", "Clear and complete."), typeInto("#rv-approve-author", "Lin"))
		if status := p.submit(`form[action$="/review/approve"] button[type=submit]`); status != http.StatusConflict {
			t.Fatalf("a stale approval: status %d, want 409", status)
		}
		p.see("main", "Version 1 is not the current one", "version 2 now")
		if v := eval[string](p, `Array.from(document.querySelectorAll("textarea[readonly]")).map(t => t.value).join("|")`); !strings.Contains(v, "Clear and complete.") {
			t.Errorf("the refused page does not keep the comment typed: %q", v)
		}
		if n := query[int](t, srv, `SELECT count(*) FROM review_events WHERE action = 'approve'`); n != 0 {
			t.Errorf("%d approvals recorded, want none", n)
		}
		p.follow(`a[href$="#review"]`)
		p.see(`form[action$="/review/approve"] button`, "Approve version 2")
	})
}
