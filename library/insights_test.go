package library_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"hindsight/library"
	"hindsight/store"
)

// TestInsightsNeverWrite: reading insights or follow-ups writes nothing.
// With groups marked by another program and that program holding the write
// lock, the pages' reads answer at once; the marks are folded at the
// store's next commit or start.
func TestInsightsNeverWrite(t *testing.T) {
	t.Parallel()
	st, path := newSeededStore(t)
	db, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := db.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(t.Context(), `UPDATE postmortems SET severity = 'SEV1'`); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(t.Context(), `BEGIN IMMEDIATE`); err != nil {
		t.Fatal(err)
	}
	defer conn.ExecContext(t.Context(), `ROLLBACK`)

	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
	defer cancel()
	if _, err := library.New(st).Insights(ctx, store.InsightFilter{}); err != nil {
		t.Errorf("Insights with another program holding the write lock: %v", err)
	}
	if _, _, err := st.ListActionItems(ctx, store.ActionItemFilter{Limit: 10}, time.Now()); err != nil {
		t.Errorf("ListActionItems with another program holding the write lock: %v", err)
	}
}
