package store

import (
	"context"
	"fmt"
	"time"
)

// RecountActionItems counts what f selects from the items, without the
// kept counts.
func (s *Store) RecountActionItems(ctx context.Context, f ActionItemFilter, now time.Time) (ActionItemTotals, error) {
	q, err := s.actionItemQuery(ctx, f, now)
	if err != nil {
		return ActionItemTotals{}, err
	}
	return q.countItems(ctx, s.db, ActionItemFilter{})
}

// RecountInsights counts what f selects from the base tables, whatever the
// filter, without the kept counts: what the kept counts must agree with.
func (s *Store) RecountInsights(ctx context.Context, f InsightFilter) (Insights, error) {
	acc, err := s.countInsights(ctx, s.db, f, "")
	if err != nil {
		return Insights{}, err
	}
	return s.buildInsights(ctx, acc)
}

// CheckInsightCounts compares the counts insights and follow-ups read in
// this generation of the data (publicInsights, followupCounts) with a
// recount of every incident and item anyone may read.
func (s *Store) CheckInsightCounts(ctx context.Context) error {
	got, err := s.publicInsights(ctx)
	if err != nil {
		return err
	}
	want, err := s.countInsights(WithReaderGroups(ctx, nil), s.db, InsightFilter{}, "")
	if err != nil {
		return err
	}
	for k, n := range want {
		if got[k] != n {
			return fmt.Errorf("%+v: kept %d, recounted %d", k, got[k], n)
		}
	}
	for k, n := range got {
		if want[k] != n {
			return fmt.Errorf("%+v: kept %d, recounted %d", k, n, want[k])
		}
	}
	return nil
}
