// Package templates holds the HTML templates: layout.html wraps every page,
// partials/ holds shared pieces, pages/ one file per page.
package templates

import "embed"

//go:embed layout.html partials/*.html pages/*.html
var FS embed.FS

// EmailFS holds the notification emails (package notify): each as HTML
// (html/template) and as plain text (text/template).
//
//go:embed email/*.html email/*.txt
var EmailFS embed.FS
