package main

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
)

// addFollowUps gives the imported corpus what the import format does not
// carry: action items (none to three per postmortem, due around the
// incident, in every status), the incident's start, detection and
// resolution times, and a time zone; so that the follow-ups and insights
// pages are measured over a collection shaped like a real one. It writes
// the database directly, before the server starts.
func addFollowUps(ctx context.Context, path string) (int, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		return 0, err
	}
	defer db.Close()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `INSERT INTO action_items
			(postmortem_id, title, owner, kind, priority, status, due_date, ticket_url, created_at, updated_at)
		SELECT p.id, 'Follow-up ' || k.n || ' of ' || p.slug, 'owner-' || ((p.id + k.n) % 50),
			CASE (p.id + k.n) % 3 WHEN 0 THEN 'mitigate' WHEN 1 THEN 'prevent' ELSE 'process' END,
			'P' || ((p.id + k.n) % 4),
			CASE (p.id * 7 + k.n) % 5 WHEN 0 THEN 'open' WHEN 1 THEN 'in-progress' WHEN 2 THEN 'done' WHEN 3 THEN 'wont-do' ELSE 'open' END,
			CASE WHEN (p.id + k.n) % 6 = 0 THEN '' ELSE date(coalesce(nullif(p.incident_date, ''), '2020-01-01'), '+' || ((p.id * 13 + k.n) % 400) || ' days') END,
			'', p.created_at, p.created_at
		FROM postmortems p JOIN (SELECT 1 AS n UNION ALL SELECT 2 UNION ALL SELECT 3) k ON k.n <= p.id % 4`)
	if err != nil {
		return 0, fmt.Errorf("add action items: %w", err)
	}
	n, _ := res.RowsAffected()
	_, err = tx.ExecContext(ctx, `UPDATE postmortems SET
			time_zone = CASE id % 4 WHEN 1 THEN 'Europe/Madrid' WHEN 2 THEN 'America/Los_Angeles' WHEN 3 THEN 'Pacific/Auckland' ELSE '' END,
			started_at = incident_date || 'T10:00:00Z',
			detected_at = strftime('%Y-%m-%dT%H:%M:%SZ', incident_date || ' 10:00:00', '+' || (id * 7 % 180) || ' minutes'),
			resolved_at = strftime('%Y-%m-%dT%H:%M:%SZ', incident_date || ' 10:00:00', '+' || (180 + id * 13 % 3000) || ' minutes')
		WHERE incident_date != '' AND id % 3 != 0`)
	if err != nil {
		return 0, fmt.Errorf("add incident times: %w", err)
	}
	return int(n), tx.Commit()
}

// followUpPaths are the follow-ups and insights pages a run measures, with
// filters drawn from the catalogue and the corpus's top organization.
func followUpPaths(patterns []string, org string) (followUps, insights []string) {
	followUps = []string{"/action-items", "/action-items?overdue=1", "/action-items?status=open&sort=-due",
		"/action-items?owner=owner-7", "/action-items?type=process&priority=P1", "/action-items?page=20",
		// The widest filters on the items' own columns: a third of the
		// items, and the priority most imported items have.
		"/action-items?type=process", "/action-items?priority=P2",
		"/action-items?org=" + url.QueryEscape(org) + "&overdue=1", "/api/action-items?status=unfinished"}
	insights = []string{"/insights", "/insights?severity=SEV1", "/insights?from=2015-01-01&to=2018-12-31",
		"/insights?org=" + url.QueryEscape(org), "/api/insights"}
	for i, p := range patterns {
		if i%5 == 0 {
			followUps = append(followUps, "/action-items?pattern="+p)
		}
	}
	return followUps, insights
}
