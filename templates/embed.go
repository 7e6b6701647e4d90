// Package templates holds the HTML templates: layout.html wraps every page,
// partials/ holds shared pieces, pages/ one file per page.
package templates

import "embed"

//go:embed layout.html partials/*.html pages/*.html
var FS embed.FS
