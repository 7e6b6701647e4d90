// Package migrations holds the database schema as numbered, forward-only SQL
// files. store.Open applies the ones a database has not seen yet, in name order.
package migrations

import "embed"

//go:embed *.sql
var FS embed.FS
