package store

import (
	"context"
	"database/sql"
	"fmt"
)

// PostmortemBriefs returns, by slug, the live postmortems among slugs that
// the reader of ctx may see, with what a list of them shows and their
// resolution section, in one query: no write-up, source, tags or action
// items (what GetPostmortem reads in six). Slugs that name none are left
// out.
func (s *Store) PostmortemBriefs(ctx context.Context, slugs []string) (map[string]Postmortem, error) {
	out := make(map[string]Postmortem, len(slugs))
	if len(slugs) == 0 {
		return out, nil
	}
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
