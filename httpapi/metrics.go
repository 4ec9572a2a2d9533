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
	}
	if reg != nil {
		reg.MustRegister(m.requests, m.latency, m.received)
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
