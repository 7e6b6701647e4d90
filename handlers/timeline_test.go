package handlers_test

import (
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

func TestTimelineRows(t *testing.T) {
	t.Parallel()
	h, st := newApp(t)
	rows := func(v url.Values, pairs ...string) url.Values {
		v.Del("timeline_time")
		v.Del("timeline_text")
		for i := 0; i+1 < len(pairs); i += 2 {
			v.Add("timeline_time", pairs[i])
			v.Add("timeline_text", pairs[i+1])
		}
		return v
	}
	tests := []struct {
		name, pasted string
		pairs        []string
		stored       string // "" when the form is refused
		err          string
	}{
		{"Rows", "", []string{"14:00", "deploy", "", "", "9:05", "next day's check"}, "14:00 deploy\n09:05 next day's check", ""},
		{"RowsAndLines", "- 14:20 UTC – rollback\n14:30 all clear", []string{"14:00", "deploy"}, "14:00 deploy\n14:20 rollback\n14:30 all clear", ""},
		{"FreeText", "We first saw errors at lunch.\nThen it got worse.", nil, "We first saw errors at lunch.\nThen it got worse.", ""},
		{"TimeWithoutEvent", "", []string{"14:00", ""}, "", "Say what happened at 14:00"},
		{"EventWithoutTime", "", []string{"", "deploy"}, "", "Give each event of the timeline its time"},
		{"BadTime", "", []string{"2pm", "deploy"}, "", "Write the times of the timeline like 14:02"},
		{"RowsAndProse", "Prose here.", []string{"14:00", "deploy"}, "", "Some pasted lines do not start with a time"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			form := rows(with(validForm(), "title", "Timeline "+tt.name, "timeline", tt.pasted), tt.pairs...)
			rec := postForm(t, h, "/postmortems", form)
			if tt.err != "" {
				if rec.Code != http.StatusUnprocessableEntity {
					t.Fatalf("status %d, want 422", rec.Code)
				}
				mustContain(t, htmlUnescape(rec.Body.String()), tt.err, `id="f-timeline-error"`)
				return
			}
			if rec.Code != http.StatusSeeOther {
				t.Fatalf("status %d, want 303:\n%.3000s", rec.Code, rec.Body)
			}
			p, err := st.GetPostmortem(t.Context(), strings.TrimPrefix(rec.Header().Get("Location"), "/postmortems/"))
			if err != nil {
				t.Fatal(err)
			}
			if p.Timeline != tt.stored {
				t.Errorf("stored timeline %q, want %q", p.Timeline, tt.stored)
			}
		})
	}

	// "More rows" without JavaScript: the same form, more empty rows, the
	// pasted lines read into rows, nothing saved.
	rec := postForm(t, h, "/postmortems/new/rows", rows(with(validForm(), "timeline", "14:20 rollback"), "14:00", "deploy"))
	if rec.Code != http.StatusOK {
		t.Fatalf("more rows: %d", rec.Code)
	}
	body := rec.Body.String()
	mustContain(t, body, `id="f-timeline-time-0" name="timeline_time" type="text" value="14:00"`, `id="f-timeline-time-1" name="timeline_time" type="text" value="14:20"`,
		`id="f-timeline-time-9"`, `name="blank_rows" value="8"`)
	mustNotContain(t, body, `id="f-timeline-time-10"`, "error-summary")
}

// A timeline row that cannot be saved is the field the error summary
// links to and the one marked invalid, its message shown once (one element
// with its id); an error of the pasted lines stays with their box.
func TestTimelineRowErrorPointsAtTheRow(t *testing.T) {
	t.Parallel()
	h, _ := newApp(t)
	for _, tt := range []struct {
		name, pasted string
		pairs        []string
		target       string // the id the summary links to and that is marked invalid
	}{
		{"EventWithoutTime", "", []string{"14:00", "deploy", "", "alert fires"}, "f-timeline-time-1"},
		{"TimeWithoutEvent", "", []string{"14:00", ""}, "f-timeline-text-0"},
		{"BadTime", "", []string{"14:00", "deploy", "14:05", "alert", "2pm", "rollback"}, "f-timeline-time-2"},
		{"RowsAndProse", "Prose here.", []string{"14:00", "deploy"}, "f-timeline"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			form := with(validForm(), "timeline", tt.pasted)
			form.Del("timeline_time")
			form.Del("timeline_text")
			for i := 0; i+1 < len(tt.pairs); i += 2 {
				form.Add("timeline_time", tt.pairs[i])
				form.Add("timeline_text", tt.pairs[i+1])
			}
			rec := postForm(t, h, "/postmortems", form)
			if rec.Code != http.StatusUnprocessableEntity {
				t.Fatalf("status %d, want 422", rec.Code)
			}
			body := rec.Body.String()
			if n := strings.Count(body, `id="f-timeline-error"`); n != 1 {
				t.Errorf("%d elements with the id f-timeline-error, want 1", n)
			}
			mustContain(t, body, `<li><a href="#`+tt.target+`">`)
			tag := regexp.MustCompile(`<(?:input|textarea) id="` + tt.target + `"[^>]*>`).FindString(body)
			if !strings.Contains(tag, `aria-invalid="true"`) || !strings.Contains(tag, "f-timeline-error") {
				t.Errorf("the field at fault is not marked invalid and described by the error: %s", tag)
			}
			if n := strings.Count(body, `aria-invalid="true"`); n != 1 {
				t.Errorf("%d fields marked invalid, want 1", n)
			}
		})
	}
}

func TestIncidentHeaderAndTimelineMarks(t *testing.T) {
	t.Parallel()
	h, _ := newApp(t)
	form := with(validForm(), "title", "Header check", "duration_minutes", "39")
	form.Del("timeline")
	for _, r := range [][2]string{{"14:05", "deploy"}, {"14:10", "first alert"}, {"15:00", "rollback"}} {
		form.Add("timeline_time", r[0])
		form.Add("timeline_text", r[1])
	}
	page := follow(t, h, postForm(t, h, "/postmortems", form)).Body.String()
	// The start gives the day: no separate "Incident" date; the durations
	// say what they measure.
	mustNotContain(t, page, "<dt>Incident</dt>", "<dt>Duration</dt>")
	mustContain(t, page, "<dt>Started</dt>", "<dt>Time to resolve</dt>", "until the impact on users ended", "until someone knew")
	// The timeline: the start added in its place, the detection marked on its row.
	mustContain(t, page, `<ol class="timeline">`, "Times in America/New_York.")
	start := strings.Index(page, "The incident started.")
	deploy := strings.Index(page, "deploy</span>")
	detected := strings.Index(page, `mark-Detected">Detected</strong> first alert`)
	if start < 0 || deploy < 0 || detected < 0 || !(start < deploy && deploy < detected) {
		t.Errorf("timeline order: started %d, deploy %d, detected %d", start, deploy, detected)
	}
}

func TestIncidentDateWarning(t *testing.T) {
	t.Parallel()
	h, _ := newApp(t)
	// A date outside the incident's days: a warning beside the field, on
	// a preview; it does not stop a save.
	form := with(validForm(), "incident_date", "2024-03-20")
	body := postForm(t, h, "/postmortems/new/preview", form).Body.String()
	mustContain(t, body, `id="f-incident_date-warning"`, "The incident date is 20 March 2024, but the incident started on 5 March 2024 (America/New_York).",
		`aria-describedby="f-incident_date-hint f-incident_date-warning"`)
	if rec := postForm(t, h, "/postmortems", with(form, "save", "save")); rec.Code != http.StatusSeeOther {
		t.Errorf("save with a doubtful date: %d, want 303", rec.Code)
	}
	body = postForm(t, h, "/postmortems/new/preview", with(form, "incident_date", "2024-03-05")).Body.String()
	mustNotContain(t, body, `id="f-incident_date-warning"`)
}

func TestLayoutFixes(t *testing.T) {
	t.Parallel()
	h, _ := newApp(t)
	// Pattern pages name related patterns, never by slug.
	page := get(t, h, "/patterns/feedback-loop").Body.String()
	mustContain(t, page, `Parent of <a href="/patterns/retry-storm" rel="nofollow">Retry storm</a>`)
	mustNotContain(t, page, "Parent of retry-storm")
	// One search box on the search page.
	if n := strings.Count(get(t, h, "/search?q=retry").Body.String(), `type="search"`); n != 1 {
		t.Errorf("the search page has %d search boxes, want 1", n)
	}
	// Chip colours are explained where chips show no role.
	for _, path := range []string{"/", "/postmortems"} {
		mustContain(t, get(t, h, path).Body.String(), `class="role-legend"`, `<span class="tag role-mitigation">Mitigation</span>`)
	}
}

func TestPreviewReadsBothEncodings(t *testing.T) {
	t.Parallel()
	h, _ := newApp(t)
	rec := postForm(t, h, "/preview", url.Values{"text": {"**bold**"}})
	mustContain(t, rec.Body.String(), "<strong>bold</strong>")

	var body strings.Builder
	mw := multipart.NewWriter(&body)
	mw.WriteField("text", "*slanted*")
	mw.Close()
	req := httptest.NewRequest(http.MethodPost, "/preview", strings.NewReader(body.String()))
	req.Header.Set("Content-Type", mw.FormDataContentType())
	res := httptest.NewRecorder()
	h.ServeHTTP(res, req)
	if res.Code != 200 {
		t.Fatalf("multipart preview: %d", res.Code)
	}
	mustContain(t, res.Body.String(), "<em>slanted</em>")
}
