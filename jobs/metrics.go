package jobs

import (
	"context"
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/docmill/docmill"
)

type metrics struct {
	duration *prometheus.HistogramVec
	// finished counts jobs ended by this node, by tool, final status and
	// error code (empty unless failed).
	finished  *prometheus.CounterVec
	queueWait prometheus.Histogram
	// laneWait is queueWait by lane (lanemetrics.go).
	laneWait *prometheus.HistogramVec
	// shareYields counts jobs put back because their account held its
	// share of a lane's workers while another account waited.
	shareYields *prometheus.CounterVec
	waitWakes   *prometheus.CounterVec
	// waiting counts the requests waiting now for their job's end
	// (Wait): long polls and synchronous processing.
	waiting   prometheus.Gauge
	listening prometheus.Gauge
	// handedBack counts running jobs handed back to the queue because
	// their worker node was lost.
	handedBack prometheus.Counter
	// engineFailures counts engines that died by a signal during a job
	// (docmill.EngineFailure), by engine.
	engineFailures *prometheus.CounterVec
	// webhookAttempts counts webhook delivery attempts by outcome.
	webhookAttempts *prometheus.CounterVec
	// mailAttempts counts attempts to send a mail by outcome.
	mailAttempts *prometheus.CounterVec
}

func newMetrics(reg prometheus.Registerer, st docmill.JobMaintenance) *metrics {
	m := &metrics{
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "docmill_job_duration_seconds",
			Help:    "Processing time of jobs by tool and final status.",
			Buckets: prometheus.ExponentialBuckets(0.005, 2.5, 12),
		}, []string{"tool", "status"}),
		finished: counterVec("docmill_jobs_finished_total",
			"Jobs ended by this node, by tool, final status (done, failed, canceled) and error code (empty unless failed).", "tool", "status", "code"),
		queueWait: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "docmill_job_queue_wait_seconds",
			Help:    "Time from a job's acceptance to the start of its processing.",
			Buckets: prometheus.ExponentialBuckets(0.001, 2.5, 12),
		}),
		laneWait: prometheus.NewHistogramVec(laneWait, []string{"lane"}),
		shareYields: counterVec("docmill_fair_share_yields_total",
			"Jobs put back (snoozed) because their account held its share of a lane's workers on this node while another account waited, by queue (a lane, or webhooks).", "queue"),
		waitWakes: counterVec("docmill_job_wait_wakeups_total",
			"Wake-ups of requests waiting for their job, by cause: notification (a finish here or, with notifications, anywhere) or poll (a timer).", "by"),
		waiting: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "docmill_job_wait_requests",
			Help: "Requests waiting now for their job to end (long polls, synchronous processing), once they have found it unfinished.",
		}),
		listening: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "docmill_job_notifications_listening",
			Help: "1 while this node hears every job finish of the cluster (PostgreSQL LISTEN), else 0.",
		}),
		handedBack: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "docmill_jobs_handed_back_total",
			Help: "Running jobs this node handed back to the queue because their worker node died.",
		}),
		engineFailures: counterVec("docmill_engine_failures_total",
			"Engine processes that died by a signal during a job attempt (killed from outside, or crashed), by engine; each such attempt is retried.", "engine"),
		webhookAttempts: counterVec("docmill_webhook_attempts_total",
			"Webhook delivery attempts by outcome: delivered (2xx), retry (to be tried again), refused (final failure).", "outcome"),
		mailAttempts: counterVec("docmill_mail_attempts_total",
			"Attempts to send a mail by outcome: sent, retry (to be tried again), refused (the recipient, for good), given_up (the last attempt failed).", "outcome"),
	}
	if reg != nil {
		reg.MustRegister(m.duration, m.finished, m.queueWait, m.laneWait, m.shareYields, m.waitWakes, m.waiting, m.listening, m.handedBack, m.engineFailures, m.webhookAttempts, m.mailAttempts, &depthCollector{store: st})
	}
	return m
}

// counterVec is a counter of the given name and help, by labels.
func counterVec(name, help string, labels ...string) *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
}

// countEngineFailure counts err if an engine died by a signal in it.
func (m *metrics) countEngineFailure(err error) {
	var f *docmill.EngineFailure
	if errors.As(err, &f) {
		m.engineFailures.WithLabelValues(f.Engine).Inc()
	}
}

// depthCollector reports the queue depth from the store at scrape time, so
// every node reports the cluster-wide figure.
type depthCollector struct {
	store docmill.JobMaintenance
}

var depthDesc = prometheus.NewDesc("docmill_queue_depth", "Jobs not yet finished, by status.", []string{"status"}, nil)

func (c *depthCollector) Describe(ch chan<- *prometheus.Desc) { ch <- depthDesc }

func (c *depthCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	counts, err := c.store.CountByStatus(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(depthDesc, err)
		return
	}
	for _, s := range []docmill.Status{docmill.StatusQueued, docmill.StatusProcessing} {
		ch <- prometheus.MustNewConstMetric(depthDesc, prometheus.GaugeValue, float64(counts[s]), string(s))
	}
}
