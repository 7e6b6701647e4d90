package store

import (
	"context"
	"fmt"
	"strings"
)

// KnownNames are the names users have signed in through the proxy with
// and written under (the audit trail's actors), and the groups
// postmortems are restricted to, each lower-cased: what the server checks
// its role lists against at start-up.
func (s *Store) KnownNames(ctx context.Context) (users, groups map[string]bool, err error) {
	users, groups = map[string]bool{}, map[string]bool{}
	rows, err := s.db.QueryContext(ctx, `SELECT DISTINCT actor FROM audit_log WHERE via = 'proxy'`)
	if err != nil {
		return nil, nil, fmt.Errorf("store: known users: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, nil, fmt.Errorf("store: known users: %w", err)
		}
		users[strings.ToLower(name)] = true
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("store: known users: %w", err)
	}
	rows, err = s.db.QueryContext(ctx, `SELECT DISTINCT restricted_to FROM postmortems WHERE restricted_to != ''`)
	if err != nil {
		return nil, nil, fmt.Errorf("store: known groups: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var restricted string
		if err := rows.Scan(&restricted); err != nil {
			return nil, nil, fmt.Errorf("store: known groups: %w", err)
		}
		for _, g := range decodeRestriction(restricted) {
			groups[strings.ToLower(g)] = true
		}
	}
	return users, groups, rows.Err()
}
