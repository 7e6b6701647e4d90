package e2e_test

import (
	"slices"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestTeamNotificationSettings: a signed-in person reaches their
// notification settings from the header, unticks two kinds and saves,
// with JavaScript on and off; the page shows what was saved.
func TestTeamNotificationSettings(t *testing.T) {
	t.Parallel()
	teamWays(t, func(t *testing.T, p *page, js bool) {
		p.signIn("nina", "sre")
		p.open("/", 200)
		p.follow(`.signed-in a[href="/settings/notifications"]`)
		p.see("h1", "Notification settings")
		if got := eval[int](p, `document.querySelectorAll('input[name="on"]:checked').length`); got != 10 {
			t.Fatalf("%d kinds ticked, want all 10", got)
		}
		p.run("untick the digest and comments",
			chromedp.Click(chromedp.CSS(`label[for="kind-digest"]`), chromedp.NodeVisible),
			chromedp.Click(chromedp.CSS(`label[for="kind-comment.created"]`), chromedp.NodeVisible))
		if status := p.submit(`.notification-settings button[type="submit"]`); status != 200 {
			t.Fatalf("save: %d", status)
		}
		p.see(".flash", "saved")
		off := eval[[]string](p, `Array.from(document.querySelectorAll('input[name="on"]:not(:checked)')).map(e => e.value).sort()`)
		if !slices.Equal(off, []string{"comment.created", "digest"}) {
			t.Errorf("unticked after saving: %v, want comment.created and digest", off)
		}
		if js { // axe runs as a script
			p.accessible()
		}
		p.viewport(360, 740)
		if wide := sticksOut(p); len(wide) > 0 {
			t.Errorf("at 360 px the settings scroll sideways: %v", wide)
		}
	})
}
