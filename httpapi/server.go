// Package httpapi is docmill's HTTP surface: the process, job, catalogue,
// account and sign-up endpoints, signed file downloads, health and metrics.
// routes.go lists every route on one screen.
package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/jobview"
)

// Config is everything the HTTP API needs; cmd/docmill builds it once.
type Config struct {
	Store docmill.Store
	Blob  docmill.BlobStore
	Queue docmill.Queue
	// Outbox queues the sign-up and sign-in mails (jobs' queue, which
	// sends them with retries; signin.go). nil: a request that would
	// mail is 503 service_unavailable.
	Outbox   docmill.Outbox
	Registry *docmill.Registry
	Limiter  docmill.Limiter
	Plans    map[string]docmill.Plan
	// Build is the node's version, revision and build time (/healthz).
	Build Build

	// BaseURL is where clients reach the API.
	BaseURL string
	// Records renders job records and signs their download links, which
	// GET /files/{job_id}/{filename} checks; the queue renders webhook
	// events with the same one. nil: a renderer over Blob linking to
	// BaseURL, with no signing key (for tests that download nothing).
	Records *jobview.Renderer
	// Signup enables POST /v1/signup.
	Signup bool
	// Trace, if set, is told each stage of a process request as it
	// reaches it, once its job has an id (process.go: stage names);
	// benchmarks time the stages with it. Nil in production.
	Trace func(jobID, stage string)
	// SyncBudget is how long a process request waits for its job before
	// answering 202 (default 10 s).
	SyncBudget time.Duration
	// MaxWait caps Prefer: wait=N (default 5 min).
	MaxWait time.Duration
	// MaxUploadBytes is the server's hard cap on the files of one request,
	// each and in total, whatever the plan says (default 4 GiB).
	MaxUploadBytes int64
	// UploadIdleTimeout drops an upload that sends nothing for this long
	// (default 1 min).
	UploadIdleTimeout time.Duration
	// UploadMinRate, when above zero, is the bytes a second an upload
	// must bring over each UploadRateWindow of the time spent waiting for
	// it (default window 30 s); below it the upload is cut with 408
	// upload_too_slow. Zero: no minimum rate, only the idle timeout.
	UploadMinRate    int64
	UploadRateWindow time.Duration
	// MaxConnsPerIP caps the connections one client address holds at
	// once (Listener; an IPv6 client counted by its /64), and behind a
	// trusted proxy the requests in flight of one forwarded address
	// (perClient). Zero: no cap.
	MaxConnsPerIP int
	// TrustedProxies are the peers whose X-Forwarded-For names the
	// client (clientAddr): their connections are not capped, the
	// clients they forward are, and sign-ups are counted by the client.
	TrustedProxies []netip.Prefix
	// Limits are the node's processing limits, shown by GET /v1/limits
	// (a zero field: its default).
	Limits docmill.Limits
	// Ready reports dependencies beyond store and blob (the engines), by
	// name; nil: none. Their state shows in /readyz; a missing engine makes
	// only its tools unavailable, not the node unready.
	Ready func(ctx context.Context) map[string]docmill.EngineStatus
	// Checks are further dependencies whose failure makes the node not
	// ready (Redis), by name.
	Checks map[string]func(context.Context) error
	// Reports are parts whose state /readyz shows without making the node
	// not ready (the database's replica: a target that is down must not
	// stop the service). Each returns its state for "checks" and a detail
	// shown under its own name.
	Reports map[string]func() (state string, detail any)
	// Space, when set, holds the node's local file systems (the embedded
	// file store, the scratch directory) to a minimum of free space:
	// /readyz reports them and is not ready while one is below it, and
	// an upload that would not fit with the minimum to spare is refused
	// with 507 before its body is read. nil: nothing local to watch.
	Space docmill.SpaceGuard
	// CheckWebhookURL vets the URL of a new webhook endpoint (outbound's
	// CheckURL: https, no internal address); its error is the answer.
	// nil: any URL is taken.
	CheckWebhookURL func(ctx context.Context, field, url string) error
	// URLs fetches a process request's file_url inputs and vets its
	// export_url (outbound's client for imports). nil: both fields are
	// refused as invalid_parameter.
	URLs URLClient
	// Web, when set, serves the web interface at "/" and "/static/".
	Web http.Handler

	Logger     *slog.Logger
	Registerer prometheus.Registerer
	Gatherer   prometheus.Gatherer
	Now        func() time.Time
}

// Server serves the API.
type Server struct {
	cfg Config
	log *slog.Logger
	// records renders job records (Config.Records).
	records *jobview.Renderer
	handler http.Handler
	metrics *httpMetrics
	// pace is what an upload must keep up (Config.UploadIdleTimeout,
	// UploadMinRate, UploadRateWindow).
	pace uploadPace
	// draining is done once Drain is called.
	draining context.Context
	drain    context.CancelFunc
	// reference is the API reference page, made at its first request.
	reference renderedReference
}

// NewServer returns the API's handler.
func NewServer(cfg Config) *Server {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.SyncBudget <= 0 {
		cfg.SyncBudget = 10 * time.Second
	}
	if cfg.MaxWait <= 0 {
		cfg.MaxWait = 5 * time.Minute
	}
	if cfg.MaxUploadBytes <= 0 {
		cfg.MaxUploadBytes = 4 << 30
	}
	if cfg.UploadIdleTimeout <= 0 {
		cfg.UploadIdleTimeout = time.Minute
	}
	if cfg.UploadRateWindow <= 0 {
		cfg.UploadRateWindow = 30 * time.Second
	}
	cfg.Limits = cfg.Limits.WithDefaults()
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	records := cfg.Records
	if records == nil {
		records = jobview.New(jobview.Config{BaseURL: cfg.BaseURL, Blob: cfg.Blob, Logger: cfg.Logger, Now: cfg.Now})
	}
	s := &Server{cfg: cfg, log: cfg.Logger, records: records,
		pace: uploadPace{idle: cfg.UploadIdleTimeout, minRate: max(cfg.UploadMinRate, 0), window: cfg.UploadRateWindow}}
	s.draining, s.drain = context.WithCancel(context.Background())
	s.metrics = newHTTPMetrics(cfg.Registerer)
	s.handler = s.routes()
	return s
}

// Drain tells the server that its node is shutting down, so that every
// request it has accepted gets an answer before the node exits: process
// calls waiting for their jobs stop waiting and answer with the job as it
// stands (202 with its Location while unfinished, as an async call), and
// uploads not yet received whole are cut short with 503
// service_unavailable and a Retry-After (nothing of them is kept or
// charged), as are those that start later. Call it some time before the
// shutdown deadline, leaving time to write those answers; calling it
// again does nothing.
func (s *Server) Drain() { s.drain() }

// untilDrain returns ctx, canceled as well when the server drains.
func (s *Server) untilDrain(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(s.draining, cancel)
	return ctx, func() { stop(); cancel() }
}

// ServeHTTP serves one request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }
