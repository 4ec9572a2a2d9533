package main

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/diskspace"
	"github.com/docmill/docmill/httpapi"
	"github.com/docmill/docmill/jobs"
	"github.com/docmill/docmill/jobview"
	"github.com/docmill/docmill/outbound"
	"github.com/docmill/docmill/ratelimit"
	"github.com/docmill/docmill/sandbox"
)

// serve runs the API and the workers until ctx is canceled, then shuts down
// gracefully within --shutdown-timeout (node.shutdown): no new requests,
// every request in progress answered, jobs in progress finished or handed
// back, and anything still queued stays queued for the next start.
func serve(ctx context.Context, env *environment, args []string) error {
	f, log, err := parseServe(env, args)
	if err != nil {
		return err
	}
	data, closeData, err := f.openData(ctx, log)
	if err != nil {
		return err
	}
	defer closeData() // last: after the engines and the queue stopped
	db, st, bucket, scratch := data.db, data.db.Store(), data.bucket, data.scratch
	jail := f.jail.open(scratch.Dir, log, env.stderr)
	f.engines.limits.EngineMemory = f.jail.memory
	f.engines.scratch = scratch.Dir
	reg, runs := newMetrics()
	var reports map[string]func() (string, any)
	if data.replica != nil {
		registerReplicaMetrics(reg, data.replica)
		reports = map[string]func() (string, any){"replica": replicaReport(data.replica)}
	}
	f.engines.pools = poolMetrics(reg)
	f.engines.allowPrivateURLs = f.allowPrivateURLs
	registry, closeTools, err := f.registry(jail, runs.observe)
	if err != nil {
		return err
	}
	defer closeTools() // after the queue stopped: conversions in progress end first

	secret, err := f.setUp(ctx, st, env, log)
	if err != nil {
		return err
	}
	plans, err := f.plans()
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		return err
	}
	baseURL := cmp.Or(f.baseURL, localURL(ln.Addr()))
	// One renderer of job records for the API and the queue's webhook
	// events, so that an event's data is the record a poll returns.
	records := jobview.New(jobview.Config{BaseURL: baseURL, CDNURL: f.cdnURL, SigningKey: []byte(secret), Blob: bucket, Logger: log})

	urls := f.userURLClients(log)
	cfg := f.queueConfig(scratch, urls, records)
	cfg.Store, cfg.Blob, cfg.Registry, cfg.Logger, cfg.Registerer = st, bucket, registry, log, reg
	cfg.Mail = f.mail.open(f.role, log)
	q, err := db.queue(cfg)
	if err != nil {
		return err
	}
	n := &node{f: f, log: log, q: q, where: db.describe()}
	limiter, checks, err := f.limiter()
	if err != nil {
		return err
	}
	defer limiter.Close()
	api := httpapi.NewServer(f.apiConfig(apiParts{st: st, blob: bucket, queue: q, registry: registry, records: records,
		limiter: limiter, checks: checks, reports: reports, plans: plans, baseURL: baseURL, jail: jail, log: log, reg: reg, urls: urls}))
	n.drain = api.Drain
	n.srv = f.httpServer(api)
	n.conns = newBusyConns()
	n.srv.ConnState = n.conns.track
	ln = api.Listener(ln) // --max-conns-per-ip
	stopMetrics, err := f.ops.serveMetrics(reg, log)
	if err != nil {
		return err
	}
	defer stopMetrics()
	return n.run(ctx, env, ln, baseURL)
}

// userURLClients are the clients of every request to a user's URL, each
// held to outbound's rules: --allow-private-urls alone opens loopback,
// private and link-local addresses, and says so in the log.
type userURLClients struct {
	// webhooks delivers events and checks the URLs given for them.
	webhooks *outbound.Client
	// imports fetches file_url inputs: whole files, so no bound on a
	// transfer but 30 s to connect and get the answer's header (and
	// --fetch-timeout overall), no cap on the body (the plan's limit is
	// enforced while it streams); redirects followed, each target
	// checked again.
	imports *outbound.Client
	// exports PUTs results to export_url: as imports, but following no
	// redirect (a PUT redirected would be lost).
	exports *outbound.Client
}

func (f *serveFlags) userURLClients(log *slog.Logger) userURLClients {
	if f.allowPrivateURLs {
		log.Warn("--allow-private-urls: webhooks, file_url, export_url and url-to-pdf's pages may reach loopback, private and link-local addresses over plain http; for development only")
	}
	return userURLClients{
		webhooks: outbound.New(outbound.Config{AllowPrivate: f.allowPrivateURLs, UserAgent: "docmill-webhooks/" + docmill.Version}),
		imports: outbound.New(outbound.Config{AllowPrivate: f.allowPrivateURLs, Timeout: f.transferTimeout,
			HeaderTimeout: 30 * time.Second, MaxResponseBytes: -1, MaxRedirects: 5}),
		exports: outbound.New(outbound.Config{AllowPrivate: f.allowPrivateURLs, Timeout: f.transferTimeout,
			HeaderTimeout: 30 * time.Second}),
	}
}

// queueConfig is the queue's configuration from the flags, scratch and
// urls: webhook events rendered by records, exports PUT through urls. The
// caller adds the store, blob store, registry, logger and metrics.
func (f *serveFlags) queueConfig(scratch *jobs.Scratch, urls userURLClients, records *jobview.Renderer) jobs.Config {
	return jobs.Config{
		Webhooks:   jobs.WebhookConfig{Client: urls.webhooks.HTTPClient(), Records: records, Schedule: f.webhookSchedule},
		Lanes:      f.queueLanes(),
		JobTimeout: f.jobTimeout, RescueMargin: f.rescueMargin, PollInterval: f.pollInterval,
		// Unique to this life of the node: its heartbeats and River's
		// record of what it runs must not be taken for a previous life's.
		NodeID:     scratch.ID + "_" + randomHex(6),
		ScratchDir: scratch.Dir, Limits: f.engines.limits, JanitorInterval: f.janitorInterval,
		Exports: jobs.ExportConfig{Client: urls.exports.HTTPClient(), Schedule: f.exportSchedule},
		Trace:   stageTrace,
	}
}

// stageTrace, when a benchmark sets it before a server starts in its
// process, is told each stage of every job the server runs (jobs.Config
// and httpapi.Config's Trace). Nil in production.
var stageTrace func(jobID, stage string)

// httpServer is the node's HTTP server of api: the whole API, or on a
// worker node only its operations endpoints.
//
// It has no WriteTimeout or ReadTimeout: long polls (GET
// /v1/jobs/{id}?wait, up to 60 s), sync waits (Prefer: wait, up to 5
// min), uploads and downloads of gigabytes outlast any fixed one.
// Stalled uploads are cut by --upload-idle-timeout, waits by their own
// bound and the drain.
func (f *serveFlags) httpServer(api *httpapi.Server) *http.Server {
	var handler http.Handler = api
	if f.role == "worker" {
		handler = opsOnly(api)
	}
	return &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
}

// setUp returns the deployment's URL signing key, made on the first start
// of any node, and creates the development key (--dev-key) on a node that
// serves the API, when stdout is a terminal (createDevKey).
func (f *serveFlags) setUp(ctx context.Context, st docmill.Store, env *environment, log *slog.Logger) (secret string, err error) {
	secret, err = st.Setting(ctx, "url_signing_key", randomHex(32))
	if err != nil {
		return "", err
	}
	if f.devKey && f.role != "worker" {
		if err := createDevKey(ctx, st, env, log); err != nil {
			return "", err
		}
	}
	return secret, nil
}

// lockData takes the data directory's lock (lockDataDir) on a node that
// works the jobs of an embedded (SQLite) data directory; elsewhere unlock
// does nothing.
func (f *serveFlags) lockData() (unlock func(), err error) {
	if f.data.databaseURL != "" || f.role == "api" {
		return func() {}, nil
	}
	return lockDataDir(f.data.dataDir)
}

// space is the guard of this node's local areas, or nil when it writes to
// none: the file store when it is a directory (uploads land there), and
// the scratch directory on a node that works jobs. A bucket (S3) has no
// free space to watch.
func (f *serveFlags) space() docmill.SpaceGuard {
	var areas []diskspace.Area
	if f.data.blobURL == "" {
		areas = append(areas, diskspace.Area{Name: "files", Path: f.data.blobDir(), Uploads: true})
	}
	if f.role != "api" {
		areas = append(areas, diskspace.Area{Name: "scratch", Path: f.data.scratch()})
	}
	if len(areas) == 0 {
		return nil
	}
	return &diskspace.Guard{Min: f.minFree, Areas: areas}
}

// parseServe reads serve's flags and makes the logger they ask for.
func parseServe(env *environment, args []string) (*serveFlags, *slog.Logger, error) {
	fs := newFlags("serve", "serve [flags]  (run the API and the workers)")
	f := &serveFlags{}
	f.register(fs)
	if err := env.parse(fs, args); err != nil {
		return nil, nil, err
	}
	if err := f.validate(); err != nil {
		return nil, nil, &usageError{err}
	}
	log, err := f.ops.newLogger(env.stderr)
	if err != nil {
		return nil, nil, err
	}
	return f, log, nil
}

// closingLimiter is a rate limiter the node closes when it stops.
type closingLimiter interface {
	docmill.Limiter
	Close() error
}

type memoryLimiter struct{ *ratelimit.Memory }

func (memoryLimiter) Close() error { return nil }

// limiter is Redis at --redis-url, shared by every API node and checked by
// /readyz, or else an in-process limiter. A Redis that is down at start-up
// does not stop the node: requests pass unlimited (quotas and jobs in
// flight are the database's) and /readyz reports it until it is back.
func (f *serveFlags) limiter() (closingLimiter, map[string]func(context.Context) error, error) {
	if f.redisURL == "" || f.role == "worker" {
		return memoryLimiter{ratelimit.NewMemory(nil)}, nil, nil
	}
	r, err := ratelimit.DialRedis(f.redisURL)
	if err != nil {
		return nil, nil, err
	}
	return r, map[string]func(context.Context) error{"redis": r.Ping}, nil
}

// registry finds the engines and builds the tool registry, with
// --tool-timeout applied, and the pipeline over its tools; closeTools stops the engines' warm processes.
func (f *serveFlags) registry(jail *sandbox.Jail, observe func(sandbox.RunReport)) (_ *docmill.Registry, closeTools func(), _ error) {
	tools, closeTools, err := toolset(findEngines(jail, observe), f.engines)
	if err != nil {
		return nil, nil, err
	}
	if err := setTimeouts(tools, f.toolTimeouts); err != nil {
		closeTools()
		return nil, nil, err
	}
	// The pipeline runs the other tools: it is declared over them.
	tools = append(tools, jobs.PipelineTool(docmill.NewRegistry(tools...), f.jobTimeout))
	return docmill.NewRegistry(tools...), closeTools, nil
}

// node is a started server: its HTTP side and its queue.
type node struct {
	f   *serveFlags
	log *slog.Logger
	srv *http.Server
	q   nodeQueue
	// drain makes the API answer every request it holds (httpapi's
	// Server.Drain).
	drain func()
	// conns tells shutdown when the last answer has been written.
	conns *busyConns
	// where says where the data is, for the start-up line.
	where string
}

// run serves on ln until ctx is done, then stops gracefully (shutdown).
func (n *node) run(ctx context.Context, env *environment, ln net.Listener, baseURL string) error {
	f := n.f
	// An API node's queue works no jobs; it starts only to hear of jobs
	// finished elsewhere (on PostgreSQL).
	if err := n.q.Start(context.WithoutCancel(ctx)); err != nil {
		return err
	}
	serveErr := make(chan error, 1)
	go func() { serveErr <- n.srv.Serve(ln) }()
	listen := localURL(ln.Addr())
	if listen != baseURL {
		listen += " (public URL " + baseURL + ")"
	}
	fmt.Fprintf(env.stdout, "docmill: serving on %s, role %s, %s, node %s\n", listen, f.role, n.where, n.q.NodeID())
	n.log.Info("serving", "addr", ln.Addr().String(), "base_url", baseURL, "role", f.role)

	select {
	case <-ctx.Done():
	case err := <-serveErr:
		if !errors.Is(err, http.ErrServerClosed) {
			return err
		}
	}
	return n.shutdown()
}

// shutdown stops the node within --shutdown-timeout, answering every
// request it accepted:
//
//   - at once, the listener closes (no new connections) and idle
//     connections with it; requests in progress go on, and workers go on
//     working jobs, the queued ones too, so that sync calls waiting for
//     them may still get their 200;
//   - at the drain point (drainAfter), or as soon as no request is left,
//     the API drains (every sync wait answers 202 with its job, uploads
//     still arriving get 503) and the workers stop taking jobs;
//   - at the deadline, jobs still running are canceled and go back to the
//     queue (River snoozes them; they run again, and are charged once, on
//     the next start).
//
// The HTTP server gets the whole timeout, so the answers written at the
// drain point reach their clients before the process exits.
func (n *node) shutdown() error {
	timeout := n.f.shutdownTimeout
	n.log.Info("shutting down", "timeout", timeout, "drain_after", drainAfter(timeout))
	sctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	httpDone := make(chan error, 1)
	go func() { httpDone <- n.srv.Shutdown(sctx) }()
	drain := time.NewTimer(drainAfter(timeout))
	defer drain.Stop()
	var herr error
	answered := false
	select {
	case herr = <-httpDone:
		answered = true
	case <-drain.C:
		n.log.Info("draining: waiting requests are answered with their jobs")
	}
	n.drain()
	idleDone := make(chan error, 1)
	if !answered {
		// The close once the last answer is written (Shutdown would see
		// it only at its next poll), which also ends Shutdown; its error
		// is the stop's, since Shutdown's at the deadline would count a
		// connection that never carried a request.
		go func() { idleDone <- n.conns.closeWhenIdle(sctx, n.srv) }()
	}
	qerr := n.q.Stop(sctx)
	if !answered {
		herr = <-idleDone
	}
	n.log.Info("stopped")
	return errors.Join(herr, qerr)
}

// drainAfter is how long after SIGTERM the API stops waiting for jobs (the
// drain point): the shutdown timeout less a fifth of it, and less at
// least a second, so that the answers are written and the jobs in
// progress get the rest to finish.
func drainAfter(timeout time.Duration) time.Duration {
	return max(0, timeout-max(time.Second, timeout/5))
}

// parseDurations reads a comma-separated list of positive durations.
func parseDurations(v string) ([]time.Duration, error) {
	var ds []time.Duration
	for _, part := range strings.Split(v, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(part))
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("want durations such as 2s,10s,30s")
		}
		ds = append(ds, d)
	}
	return ds, nil
}

// setTimeouts applies --tool-timeout to the tools it names.
func setTimeouts(tools []*docmill.Tool, timeouts map[string]time.Duration) error {
	for slug, d := range timeouts {
		found := false
		for _, t := range tools {
			if t.Slug == slug {
				t.Timeout, found = d, true
			}
		}
		if !found {
			return fmt.Errorf("--tool-timeout: there is no tool %q", slug)
		}
	}
	return nil
}

// opsOnly serves only health and metrics, for worker nodes.
func opsOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/healthz", "/readyz", "/metrics":
			h.ServeHTTP(w, r)
		default:
			http.NotFound(w, r)
		}
	})
}

// engineChecks reports the engines of the registry's tools for /readyz:
// the external programs with path and version, the in-process ones, and
// the jail they all run in ("sandbox": unavailable, or UNSAFE).
func engineChecks(reg *docmill.Registry, jail *sandbox.Jail) func(context.Context) map[string]docmill.EngineStatus {
	return func(context.Context) map[string]docmill.EngineStatus {
		out := map[string]docmill.EngineStatus{"sandbox": jail.Status()}
		for _, t := range reg.All() {
			if t.Engines == nil {
				out[t.Engine] = docmill.EngineStatus{Name: t.Engine, Version: "in-process", Available: t.IsAvailable()}
				continue
			}
			for _, e := range t.Engines() {
				out[e.Name] = e
			}
		}
		return out
	}
}

func localURL(a net.Addr) string {
	host, port, err := net.SplitHostPort(a.String())
	if err != nil {
		return "http://" + a.String()
	}
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		host = "localhost"
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	return "http://" + host + ":" + port
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}
