package e2e_test

import (
	"strings"
	"testing"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// The first Tab on a page reaches the skip link, which shows itself; Enter
// moves focus to the main content, and the next Tab lands inside it.
func TestKeyboardSkipLink(t *testing.T) {
	t.Parallel()
	p := newPage(t)
	p.open("/postmortems/facebook-2010-09-23-outage", 200)
	p.run("press Tab", chromedp.KeyEvent(kb.Tab))
	got := eval[struct {
		Class   string
		Text    string
		Visible bool
	}](p, `(() => {
		const e = document.activeElement, r = e.getBoundingClientRect();
		return {class: e.className, text: e.textContent.trim(), visible: r.top >= 0 && r.bottom <= innerHeight && r.width > 0 && r.height > 0};
	})()`)
	if got.Class != "skip-link" {
		t.Fatalf("the first Tab focuses %q (class %q), want the skip link", got.Text, got.Class)
	}
	if !got.Visible {
		t.Errorf("the focused skip link %q is not visible on screen", got.Text)
	}
	p.run("press Enter", chromedp.KeyEvent(kb.Enter))
	if id := eval[string](p, `document.activeElement.id`); id != "main" {
		t.Errorf("after the skip link, focus is on #%s, want #main", id)
	}
	p.run("press Tab", chromedp.KeyEvent(kb.Tab))
	if inMain := eval[bool](p, `document.querySelector("main").contains(document.activeElement)`); !inMain {
		t.Errorf("after the skip link, Tab focuses %s, outside the main content", eval[string](p, `document.activeElement.outerHTML.slice(0, 120)`))
	}
}

// tabStep moves nothing itself: it reports the element that has focus after
// a Tab, whether it shows a focus ring and is on screen, and marks it seen.
// Tab stays on one element while it moves through the parts of a date or
// time field; the walk ends when focus comes back to an element seen before.
const tabStep = `(() => {
	const e = document.activeElement;
	if (!e || e === document.body || e === document.documentElement) return {done: true};
	if (e === window.e2eLast) return {done: false, again: true};
	window.e2eLast = e;
	if (e.dataset.e2eSeen) return {done: true};
	e.dataset.e2eSeen = "1";
	const s = getComputedStyle(e), r = e.getBoundingClientRect();
	return {
		done: false,
		what: e.tagName.toLowerCase() + " " + JSON.stringify((e.textContent || e.getAttribute("aria-label") || e.name || "").trim().replace(/\s+/g, " ").slice(0, 50)),
		ring: (s.outlineStyle !== "none" && parseFloat(s.outlineWidth) >= 2) || s.boxShadow !== "none",
		onScreen: r.width > 0 && r.height > 0 && r.bottom > 0 && r.top < innerHeight,
	};
})()`

// unreached lists the interactive elements a person can see that Tab never
// reached. checkVisibility leaves out the insides of a closed <details>; a
// radio group is one Tab stop, its other buttons are reached with arrows.
const unreached = `Array.from(document.querySelectorAll(
	'a[href], button, input:not([type=hidden]), select, textarea, summary, [tabindex]:not([tabindex="-1"])'))
	.filter(e => !e.disabled && !e.dataset.e2eSeen && e.checkVisibility({visibilityProperty: true, contentVisibilityAuto: true}))
	.filter(e => !(e.type === "radio" && Array.from(document.getElementsByName(e.name)).some(r => r.form === e.form && r.dataset.e2eSeen)))
	.map(e => e.tagName.toLowerCase() + (e.name ? "[name=" + e.name + "]" : "") + " " + JSON.stringify(e.textContent.trim().replace(/\s+/g, " ").slice(0, 50)))`

// Tab alone reaches every link, button and field of every page type, in
// turn, and each shows a visible focus ring when it has focus.
func TestKeyboardReachesEverything(t *testing.T) {
	t.Parallel()
	tab := newPage(t)
	eachPageType(t, tab, func(t *testing.T, p *page, pt pageType) {
		var noRing, offScreen []string
		steps := 0
		for ; steps < 800; steps++ {
			p.run("press Tab", chromedp.KeyEvent(kb.Tab))
			s := eval[struct {
				Done     bool
				Again    bool
				What     string
				Ring     bool
				OnScreen bool
			}](p, tabStep)
			if s.Done {
				break
			}
			if s.Again {
				continue
			}
			if !s.Ring {
				noRing = append(noRing, s.What)
			}
			if !s.OnScreen {
				offScreen = append(offScreen, s.What)
			}
		}
		if steps < 3 {
			t.Fatalf("Tab reached only %d elements on %s", steps, pt.path)
		}
		if len(noRing) > 0 {
			t.Errorf("on %s these show no focus ring when focused: %s", pt.path, strings.Join(noRing, ", "))
		}
		if len(offScreen) > 0 {
			t.Errorf("on %s these are off screen when focused: %s", pt.path, strings.Join(offScreen, ", "))
		}
		if missed := eval[[]string](p, unreached); len(missed) > 0 {
			t.Errorf("on %s Tab never reaches: %s", pt.path, strings.Join(missed, ", "))
		}
	})
}

// "/" jumps to the search box from anywhere but a text field.
func TestKeyboardSlashFocusesSearch(t *testing.T) {
	t.Parallel()
	p := newPage(t)
	p.open("/patterns", 200)
	// One keyDown that carries its text, as a real keyboard sends it, so
	// that the page's preventDefault stops the character as it would in
	// use. (chromedp.KeyEvent sends the character as a separate event.)
	for _, typ := range []input.DispatchKeyEventType{input.DispatchKeyEventTypeKeyDown, input.DispatchKeyEventTypeKeyUp} {
		ev := input.DispatchKeyEventParams{Type: typ, Key: "/", Code: "Slash", WindowsVirtualKeyCode: 191}
		if typ == input.DispatchKeyEventTypeKeyDown {
			ev.Text = "/"
		}
		if _, err := chromedp.Call(p.ctx, input.DispatchKeyEvent, ev); err != nil {
			t.Fatalf("press /: %v", err)
		}
	}
	if id := eval[string](p, `document.activeElement.id`); id != "site-search" {
		t.Errorf("after /, focus is on #%s, want the search box", id)
	}
	if v := eval[string](p, `document.activeElement.value`); v != "" {
		t.Errorf("the / was typed into the search box: %q", v)
	}
}
