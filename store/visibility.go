package store

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
)

// A postmortem may be restricted to some groups (security incidents,
// customer data): to anyone outside them it does not exist. Every query
// that lists, counts, searches or fetches postmortems for a reader keeps
// only those visibleSQL allows, and every cached result is kept per set of
// groups (see cached).

type readerKey struct{}

// WithReaderGroups returns ctx for a reader who belongs to groups: reads
// through it see the postmortems restricted to any of them. A context
// without groups sees only unrestricted postmortems.
func WithReaderGroups(ctx context.Context, groups []string) context.Context {
	var gs []string
	for _, g := range groups {
		if g = strings.TrimSpace(g); g != "" && !strings.ContainsFunc(g, func(r rune) bool { return r < ' ' }) {
			gs = append(gs, g)
		}
	}
	slices.Sort(gs)
	return context.WithValue(ctx, readerKey{}, slices.Compact(gs))
}

type everyGroupKey struct{}

// WithEveryGroup returns ctx for a reader who sees every postmortem,
// restricted or not: the administrator's command line (server export).
// The server never uses it for a request.
func WithEveryGroup(ctx context.Context) context.Context {
	return context.WithValue(ctx, everyGroupKey{}, true)
}

func everyGroup(ctx context.Context) bool {
	all, _ := ctx.Value(everyGroupKey{}).(bool)
	return all
}

func readerGroups(ctx context.Context) []string {
	gs, _ := ctx.Value(readerKey{}).([]string)
	return gs
}

// ReaderKey tells apart the readers of ctx who see different postmortems:
// a value computed for a reader is kept under it.
func ReaderKey(ctx context.Context) string {
	if everyGroup(ctx) {
		return "\x00every"
	}
	return strings.Join(readerGroups(ctx), "\x01")
}

// visibleSQL is the condition that the postmortem aliased alias is visible
// to ctx's reader. The groups are written into the SQL as quoted literals,
// so that the condition can be added to any query without renumbering its
// arguments; restricted_to is a JSON array of group names.
func visibleSQL(ctx context.Context, alias string) string {
	return restrictionVisibleSQL(ctx, alias+".restricted_to")
}

// restrictionVisibleSQL is the condition that the restriction in column
// (a JSON array of group names, empty for none) lets ctx's reader see what it
// covers.
func restrictionVisibleSQL(ctx context.Context, column string) string {
	if everyGroup(ctx) {
		return "(1)"
	}
	gs := readerGroups(ctx)
	if len(gs) == 0 {
		return "(" + column + " = '')"
	}
	quoted := make([]string, len(gs))
	for i, g := range gs {
		quoted[i] = "'" + strings.ReplaceAll(g, "'", "''") + "'"
	}
	return "(" + column + " = '' OR EXISTS (SELECT 1 FROM json_each(" + column + ") WHERE value IN (" +
		strings.Join(quoted, ", ") + ")))"
}

// CanSee reports whether a reader of ctx may see a postmortem restricted
// to restrictedTo.
func CanSee(ctx context.Context, restrictedTo []string) bool {
	if len(restrictedTo) == 0 || everyGroup(ctx) {
		return true
	}
	gs := readerGroups(ctx)
	for _, g := range restrictedTo {
		if slices.Contains(gs, g) {
			return true
		}
	}
	return false
}

// encodeRestriction is how restricted_to is stored: ” for none, else a
// sorted JSON array.
func encodeRestriction(groups []string) string {
	var gs []string
	for _, g := range groups {
		if g = strings.TrimSpace(g); g != "" {
			gs = append(gs, g)
		}
	}
	if len(gs) == 0 {
		return ""
	}
	slices.Sort(gs)
	b, _ := json.Marshal(slices.Compact(gs))
	return string(b)
}

func decodeRestriction(v string) []string {
	if v == "" {
		return nil
	}
	var gs []string
	json.Unmarshal([]byte(v), &gs)
	return gs
}
