package httpapi

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

type httpMetrics struct {
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	// received counts request body bytes read, by route: uploads are
	// those of the process route.
	received *prometheus.CounterVec
	// refused counts what a client address had over
	// Config.MaxConnsPerIP: connections closed at accept, requests
	// behind a trusted proxy answered 429.
	refused *prometheus.CounterVec
}

func newHTTPMetrics(reg prometheus.Registerer) *httpMetrics {
	m := &httpMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "docmill_http_requests_total",
			Help: "HTTP requests by route pattern and status.",
		}, []string{"route", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "docmill_http_request_duration_seconds",
			Help:    "HTTP request latency by route pattern and status.",
			Buckets: prometheus.ExponentialBuckets(0.001, 2.5, 12),
		}, []string{"route", "status"}),
		received: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "docmill_http_request_body_bytes_total",
			Help: "Request body bytes read, by route pattern; the process route's are the uploads.",
		}, []string{"route"}),
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "docmill_http_client_cap_refused_total",
			Help: "What a client address had over --max-conns-per-ip: connections closed at accept (what=connection), requests behind a trusted proxy answered 429 (what=request).",
		}, []string{"what"}),
	}
	if reg != nil {
		reg.MustRegister(m.requests, m.latency, m.received, m.refused)
	}
	return m
}

func (m *httpMetrics) observe(route string, status int, d time.Duration, received int64) {
	s := strconv.Itoa(status)
	m.requests.WithLabelValues(route, s).Inc()
	m.latency.WithLabelValues(route, s).Observe(d.Seconds())
	if received > 0 {
		m.received.WithLabelValues(route).Add(float64(received))
	}
}

func (s *Server) metricsHandler() http.Handler {
	if s.cfg.Gatherer == nil {
		return http.NotFoundHandler()
	}
	return promhttp.HandlerFor(s.cfg.Gatherer, promhttp.HandlerOpts{})
}
