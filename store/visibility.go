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

// A variant group is shown to a reader through one member: its main
// version if they may see it, else its first live version they may see
// (to them the main one does not exist, the group does). Both lookups read
// covering indexes: a row's own restricted_to and archived_at sit after
// its texts.

// shownMemberSQL is the id of the member of variant group g (an alias of
// variant_groups) that ctx's reader is shown, NULL when there is none.
func shownMemberSQL(ctx context.Context, g string) string {
	return `coalesce(
		(SELECT v.id FROM postmortems v INDEXED BY postmortems_search WHERE v.id = ` + g + `.canonical_id AND ` + visibleSQL(ctx, "v") + `),
		` + firstVisibleMemberSQL(ctx, g) + `)`
}

// shownInsteadOfMainSQL is the condition that postmortem p, a member of
// variant group g, is shown in place of g's main version, which ctx's
// reader may not see.
func shownInsteadOfMainSQL(ctx context.Context, p, g string) string {
	return `(NOT EXISTS (SELECT 1 FROM postmortems c INDEXED BY postmortems_search WHERE c.id = ` + g + `.canonical_id AND ` + visibleSQL(ctx, "c") + `)
		AND ` + p + `.id = ` + firstVisibleMemberSQL(ctx, g) + `)`
}

func firstVisibleMemberSQL(ctx context.Context, g string) string {
	return `(SELECT v.id FROM postmortems v INDEXED BY postmortems_group WHERE v.group_id = ` + g + `.id AND v.archived_at = '' AND ` + visibleSQL(ctx, "v") + ` ORDER BY v.id LIMIT 1)`
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
