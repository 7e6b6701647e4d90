// Package e2e proves Hindsight in a real browser. Its tests build the server,
// start it on a loopback port over a fresh database, and drive Debian's
// Chromium (chromium-headless-shell when installed, else chromium) through
// the DevTools protocol (chromedp): reading journeys, accessibility
// (axe-core), valid HTML (the Nu HTML Checker), a crawl for broken links, and
// the layout at phone and desktop widths in both themes.
//
// The package has no code of its own; everything is in the _test.go files.
// Run it with `go test ./e2e/`. Without Chromium the browser tests skip,
// unless CI=true, where a missing browser is a failure.
package e2e
