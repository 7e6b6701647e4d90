// Package seeds carries what a fresh Hindsight holds: the failure-pattern
// catalogue (patterns.md) and the seed postmortems (documents/, verbatim, with
// their curated metadata in manifest.json).
package seeds

import "embed"

//go:embed patterns.md review-questions.md manifest.json documents/*.txt
var FS embed.FS
