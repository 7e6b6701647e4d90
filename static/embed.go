// Package static holds the stylesheets, scripts and images, served under
// /static/ from the binary itself.
package static

import "embed"

//go:embed css js img
var FS embed.FS
