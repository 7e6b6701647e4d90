package store

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

var (
	postmortemsDesc = prometheus.NewDesc("hindsight_postmortems",
		"Live (not archived) postmortems, counting every language version and copy.", nil, nil)
	incidentsDesc = prometheus.NewDesc("hindsight_incidents",
		"Live incidents: variant groups of postmortems, as lists show them.", nil, nil)
	openActionItemsDesc = prometheus.NewDesc("hindsight_action_items_open",
		"Action items of live postmortems that are open or in progress.", nil, nil)
	overdueActionItemsDesc = prometheus.NewDesc("hindsight_action_items_overdue",
		"Open or in-progress action items of live postmortems past their due date in the postmortem's time zone.", nil, nil)
)

// Collector returns a Prometheus collector for the database: the connection
// pool's statistics (go_sql_*{db_name="hindsight"}) and the size of the
// collection, counted when scraped so the figures are never stale.
func (s *Store) Collector() prometheus.Collector {
	return &collector{s: s, pool: collectors.NewDBStatsCollector(s.db, "hindsight")}
}

type collector struct {
	s    *Store
	pool prometheus.Collector
}

func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	c.pool.Describe(ch)
	ch <- postmortemsDesc
	ch <- incidentsDesc
	ch <- openActionItemsDesc
	ch <- overdueActionItemsDesc
}

func (c *collector) Collect(ch chan<- prometheus.Metric) {
	c.pool.Collect(ch)
	// A scrape must not hang on a locked or sick database; the counts are
	// dropped from that scrape instead.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	var postmortems, incidents int
	err := c.s.db.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM postmortems WHERE archived_at = ''),
		(SELECT count(DISTINCT group_id) FROM postmortems WHERE archived_at = '')`).Scan(&postmortems, &incidents)
	var items ActionItemTotals
	if err == nil {
		items, err = c.s.CountActionItems(ctx, c.s.Now())
	}
	for _, m := range []struct {
		desc *prometheus.Desc
		n    int
	}{{postmortemsDesc, postmortems}, {incidentsDesc, incidents}, {openActionItemsDesc, items.Matching}, {overdueActionItemsDesc, items.Overdue}} {
		if err != nil {
			ch <- prometheus.NewInvalidMetric(m.desc, err)
			continue
		}
		ch <- prometheus.MustNewConstMetric(m.desc, prometheus.GaugeValue, float64(m.n))
	}
}
