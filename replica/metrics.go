package replica

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"
)

var (
	lagDesc = prometheus.NewDesc("hindsight_replica_lag_seconds",
		"How long the replica has been missing a committed transaction; 0 while it holds them all.", []string{"replica"}, nil)
	behindDesc = prometheus.NewDesc("hindsight_replica_behind_transactions",
		"Committed transactions the replica does not hold yet.", []string{"replica"}, nil)
	errorsDesc = prometheus.NewDesc("hindsight_replica_errors_total",
		"Failed calls to the replica (uploads and listings) since start; Litestream retries them with back-off.", []string{"replica"}, nil)
	failingDesc = prometheus.NewDesc("hindsight_replica_failing_seconds",
		"How long calls to the replica have failed without a success in between; 0 when the last one succeeded.", []string{"replica"}, nil)
	uploadDesc = prometheus.NewDesc("hindsight_replica_last_upload_timestamp_seconds",
		"When the last upload to the replica succeeded (Unix time); 0 before the first.", []string{"replica"}, nil)
	healthyDesc = prometheus.NewDesc("hindsight_replica_healthy",
		"1 while the replica passes its readiness check (-replica-fail-after), 0 once it fails it.", []string{"replica"}, nil)
)

// Collector returns a Prometheus collector of every replica's health.
func (r *Replicator) Collector() prometheus.Collector { return collector{r} }

type collector struct{ r *Replicator }

func (c collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{lagDesc, behindDesc, errorsDesc, failingDesc, uploadDesc, healthyDesc} {
		ch <- d
	}
}

func (c collector) Collect(ch chan<- prometheus.Metric) {
	for _, t := range c.r.targets {
		s := t.Status()
		var upload float64
		if !s.LastUploadAt.IsZero() {
			upload = float64(s.LastUploadAt.UnixNano()) / 1e9
		}
		healthy := 1.0
		if _, err := t.Check(context.Background()); err != nil {
			healthy = 0
		}
		ch <- prometheus.MustNewConstMetric(lagDesc, prometheus.GaugeValue, s.Lag.Seconds(), s.Name)
		ch <- prometheus.MustNewConstMetric(behindDesc, prometheus.GaugeValue, float64(s.Behind), s.Name)
		ch <- prometheus.MustNewConstMetric(errorsDesc, prometheus.CounterValue, float64(s.Errors), s.Name)
		ch <- prometheus.MustNewConstMetric(failingDesc, prometheus.GaugeValue, s.FailingFor.Seconds(), s.Name)
		ch <- prometheus.MustNewConstMetric(uploadDesc, prometheus.GaugeValue, upload, s.Name)
		ch <- prometheus.MustNewConstMetric(healthyDesc, prometheus.GaugeValue, healthy, s.Name)
	}
}
