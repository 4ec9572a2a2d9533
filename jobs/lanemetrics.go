package jobs

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/riverqueue/river/riverdriver"

	"github.com/docmill/docmill"
)

// The lanes' metrics are what an autoscaler of a lane's worker nodes
// needs: how many jobs wait in it and how long they waited (the whole
// cluster), and how many run (the cluster, and this node of its workers).

// laneWait is the histogram of the time from a job's acceptance to the
// start of its processing, by lane.
var laneWait = prometheus.HistogramOpts{
	Name:    "docmill_lane_wait_seconds",
	Help:    "Time from a job's acceptance to the start of its processing, by lane.",
	Buckets: prometheus.ExponentialBuckets(0.001, 2.5, 14),
}

var (
	laneDepthDesc = prometheus.NewDesc("docmill_lane_queue_depth",
		"Jobs waiting in a lane (River's available jobs), the whole cluster.", []string{"lane"}, nil)
	laneRunningDesc = prometheus.NewDesc("docmill_lane_running",
		"Jobs running in a lane, the whole cluster.", []string{"lane"}, nil)
	laneNodeDesc = prometheus.NewDesc("docmill_lane_node_running",
		"Jobs of a lane running on this node.", []string{"lane"}, nil)
	laneWorkersDesc = prometheus.NewDesc("docmill_lane_workers",
		"Jobs of a lane this node works at once (0: it does not serve the lane).", []string{"lane"}, nil)
)

// laneCounts is, by River queue, how many jobs are available and running,
// from River's table.
func (q *Queue[TTx]) laneCounts(ctx context.Context) (map[docmill.Lane][2]int64, error) {
	names := make([]string, len(docmill.Lanes))
	for i, l := range docmill.Lanes {
		names[i] = string(l)
	}
	rows, err := q.client.Driver().GetExecutor().JobCountByQueueAndState(ctx, &riverdriver.JobCountByQueueAndStateParams{QueueNames: names})
	if err != nil {
		return nil, err
	}
	out := map[docmill.Lane][2]int64{}
	for _, r := range rows {
		out[docmill.Lane(r.Queue)] = [2]int64{r.CountAvailable, r.CountRunning}
	}
	return out, nil
}

// laneCollector reports the lanes' figures at scrape time.
type laneCollector struct {
	lanes  map[docmill.Lane]int
	shares *laneShares
	counts func(context.Context) (map[docmill.Lane][2]int64, error)
}

func (c *laneCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- laneDepthDesc
	ch <- laneRunningDesc
	ch <- laneNodeDesc
	ch <- laneWorkersDesc
}

func (c *laneCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	// Without River's table (a database no node has migrated for River)
	// the cluster's figures are left out, not the whole scrape failed.
	counts, err := c.counts(ctx)
	for _, l := range docmill.Lanes {
		if err != nil {
			break
		}
		n := counts[l]
		ch <- prometheus.MustNewConstMetric(laneDepthDesc, prometheus.GaugeValue, float64(n[0]), string(l))
		ch <- prometheus.MustNewConstMetric(laneRunningDesc, prometheus.GaugeValue, float64(n[1]), string(l))
	}
	for _, l := range docmill.Lanes {
		ch <- prometheus.MustNewConstMetric(laneNodeDesc, prometheus.GaugeValue, float64(c.shares.running(l)), string(l))
		ch <- prometheus.MustNewConstMetric(laneWorkersDesc, prometheus.GaugeValue, float64(c.lanes[l]), string(l))
	}
}

// registerLanes registers the lanes' collector; the wait histogram is
// registered with the other metrics.
func (m *metrics) registerLanes(reg prometheus.Registerer, lanes map[docmill.Lane]int, shares *laneShares, counts func(context.Context) (map[docmill.Lane][2]int64, error)) {
	if reg != nil {
		reg.MustRegister(&laneCollector{lanes: lanes, shares: shares, counts: counts})
	}
}
