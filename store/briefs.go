package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// PostmortemBriefs returns, by slug, the live postmortems among slugs that
// the reader of ctx may see, with what a list of them shows and their
// resolution section, in one query: no write-up, source, tags or action
// items (what GetPostmortem reads in six). Slugs that name none are left
// out. Reading the resolution means reading past the write-up stored
// before it in the row, so the result is kept until the data changes
// (the same symptom is pasted again and again during an incident);
// callers must not modify it.
func (s *Store) PostmortemBriefs(ctx context.Context, slugs []string) (map[string]Postmortem, error) {
	if len(slugs) == 0 {
		return map[string]Postmortem{}, nil
	}
	return cached(ctx, s, "briefs\x00"+strings.Join(slugs, "\x00"), func() (map[string]Postmortem, error) {
		return s.postmortemBriefs(ctx, slugs)
	})
}

func (s *Store) postmortemBriefs(ctx context.Context, slugs []string) (map[string]Postmortem, error) {
	out := make(map[string]Postmortem, len(slugs))
	err := scanRows(ctx, s.db, `SELECT p.id, p.slug, p.title, p.organization, p.incident_date, p.severity,
			p.summary, p.resolution, p.group_id
		FROM postmortems p
		WHERE p.slug IN (`+placeholders(len(slugs))+`) AND p.archived_at = '' AND `+visibleSQL(ctx, "p"),
		anys(slugs), func(rs *sql.Rows) error {
			var p Postmortem
			err := rs.Scan(&p.ID, &p.Slug, &p.Title, &p.Organization, &p.IncidentDate, &p.Severity,
				&p.Summary, &p.Resolution, &p.GroupID)
			out[p.Slug] = p
			return err
		})
	if err != nil {
		return nil, fmt.Errorf("read postmortem briefs: %w", err)
	}
	return out, nil
}
