package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/docmill/docmill/sandbox"
)

// opsFlags are how a node reports on itself: its log and its metrics.
type opsFlags struct {
	logLevel    string
	logFormat   string
	metricsAddr string
}

func (o *opsFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&o.logLevel, "log-level", "info", "debug, info, warn or error")
	fs.StringVar(&o.logFormat, "log-format", "text", "text (logfmt-like key=value lines) or json (one JSON object a line), on standard error")
	fs.StringVar(&o.metricsAddr, "metrics-addr", "", "serve GET /metrics on this address (such as 127.0.0.1:9090) instead of the API's; empty: on the API's listener")
}

// newLogger makes the node's logger, writing to w in the format and from
// the level the flags ask for.
func (o *opsFlags) newLogger(w io.Writer) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(o.logLevel)); err != nil {
		return nil, fmt.Errorf("--log-level %q: want debug, info, warn or error", o.logLevel)
	}
	opts := &slog.HandlerOptions{Level: l, ReplaceAttr: durationsInMs}
	switch o.logFormat {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("--log-format %q: want text or json", o.logFormat)
}

// durationsInMs writes a duration attribute, in either format, as
// KEY_ms, a number of milliseconds (to the microsecond), the unit of the
// other times in the log ("ms" of a request, of a finished job): slog
// would write nanoseconds in JSON and "1.5s" in text. Some libraries
// (River) log time.Duration values.
func durationsInMs(_ []string, a slog.Attr) slog.Attr {
	if a.Value.Kind() != slog.KindDuration {
		return a
	}
	key := a.Key
	if !strings.HasSuffix(key, "_ms") && key != "ms" {
		key += "_ms"
	}
	return slog.Float64(key, float64(a.Value.Duration().Microseconds())/1000)
}

// newMetrics makes the node's metrics registry, with the Go runtime's and
// the process's collectors, docmill_build_info, and the engine runs
// (engineRuns.observe, for sandbox.Options.Observe).
func newMetrics() (*prometheus.Registry, *engineRuns) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	b := buildIdentity() // version.go
	info := prometheus.NewGauge(prometheus.GaugeOpts{
		Name:        "docmill_build_info",
		Help:        "Always 1; its labels say which build of docmill runs.",
		ConstLabels: prometheus.Labels{"version": b.Version, "revision": b.Revision, "build_time": b.BuildTime, "goversion": b.Go},
	})
	info.Set(1)
	runs := &engineRuns{
		count: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "docmill_engine_runs_total",
			Help: "Runs of engine programs in the jail, by engine and outcome: ok, exit (non-zero status), signal (a crash, or a limit such as the memory cap), timeout, canceled, output_too_large, error (did not start).",
		}, []string{"engine", "outcome"}),
		seconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "docmill_engine_run_seconds",
			Help:    "Time of engine program runs, from start to exit, by engine.",
			Buckets: prometheus.ExponentialBuckets(0.005, 2.5, 12),
		}, []string{"engine"}),
	}
	reg.MustRegister(info, runs.count, runs.seconds)
	return reg, runs
}

// poolMetrics returns the function that registers a warm pool's gauges,
// docmill_pool_size and docmill_pool_busy, read at scrape time.
func poolMetrics(reg prometheus.Registerer) func(name string, usage func() (size, busy int)) {
	return func(name string, usage func() (size, busy int)) {
		labels := prometheus.Labels{"pool": name}
		reg.MustRegister(
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "docmill_pool_size", Help: "Processes (or Chromium tabs) a warm engine pool may run at once.", ConstLabels: labels},
				func() float64 { s, _ := usage(); return float64(s) }),
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "docmill_pool_busy", Help: "Of those, how many are working now.", ConstLabels: labels},
				func() float64 { _, b := usage(); return float64(b) }),
		)
	}
}

// engineRuns counts and times the engines' runs.
type engineRuns struct {
	count   *prometheus.CounterVec
	seconds *prometheus.HistogramVec
}

func (m *engineRuns) observe(r sandbox.RunReport) {
	m.count.WithLabelValues(r.Engine, r.Outcome).Inc()
	m.seconds.WithLabelValues(r.Engine).Observe(r.Duration.Seconds())
}

// apiGatherer is what the API listener serves at /metrics: reg, or
// nothing (404) when --metrics-addr serves it elsewhere.
func (o *opsFlags) apiGatherer(reg prometheus.Gatherer) prometheus.Gatherer {
	if o.metricsAddr != "" {
		return nil
	}
	return reg
}

// serveMetrics serves GET /metrics of reg on --metrics-addr, if set, until
// stop is called; a port that cannot be opened stops the start-up.
func (o *opsFlags) serveMetrics(reg prometheus.Gatherer, log *slog.Logger) (stop func(), err error) {
	if o.metricsAddr == "" {
		return func() {}, nil
	}
	ln, err := net.Listen("tcp", o.metricsAddr)
	if err != nil {
		return nil, fmt.Errorf("--metrics-addr %q: %w", o.metricsAddr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("metrics listener failed", "addr", o.metricsAddr, "err", err)
		}
	}()
	log.Info("serving metrics", "addr", ln.Addr().String())
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	}, nil
}
