package main

import (
	"context"
	"log/slog"
	"slices"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/blob"
	"github.com/docmill/docmill/httpapi"
	"github.com/docmill/docmill/jobs"
	"github.com/docmill/docmill/jobview"
	"github.com/docmill/docmill/replica"
	"github.com/docmill/docmill/sandbox"
	"github.com/docmill/docmill/web"
)

// nodeData is where a node keeps its data: the database, the file store
// and the node's scratch directory.
type nodeData struct {
	db      database
	replica *replica.Replicator // nil without --replicate-to
	bucket  *blob.Bucket
	scratch *jobs.Scratch
}

// openData takes the data directory's lock (lockData) and opens the
// node's data; closeData closes them in the reverse order, the lock last.
func (f *serveFlags) openData(ctx context.Context, log *slog.Logger) (d nodeData, closeData func(), err error) {
	unlock, err := f.lockData()
	if err != nil {
		return nodeData{}, nil, err
	}
	closers := []func(){unlock}
	closeAll := func() {
		for _, c := range slices.Backward(closers) {
			c()
		}
	}
	existed := fileExists(f.data.dbPath())
	if d.db, err = openDatabase(ctx, &f.data, f.migrate); err != nil {
		closeAll()
		return nodeData{}, nil, err
	}
	if d.replica, err = f.startReplica(ctx, existed, log); err != nil {
		d.db.Close()
		closeAll()
		return nodeData{}, nil, err
	}
	if d.replica != nil {
		// Stopped after the store closes: its last commits are shipped,
		// and its file handles, which hold the process's locks, go last.
		closers = append(closers, stopReplica(d.replica, log))
	}
	closers = append(closers, d.db.Close)
	if d.bucket, err = f.data.openBlob(ctx); err != nil {
		closeAll()
		return nodeData{}, nil, err
	}
	closers = append(closers, func() { _ = d.bucket.Close() })
	if d.scratch, err = jobs.ClaimScratch(f.data.scratch(), f.nodeID); err != nil {
		closeAll()
		return nodeData{}, nil, err
	}
	closers = append(closers, func() { _ = d.scratch.Close() })
	return d, closeAll, nil
}

// apiParts are the parts serve opened that the HTTP API is built on.
type apiParts struct {
	st       docmill.Store
	blob     docmill.BlobStore
	queue    nodeQueue
	registry *docmill.Registry
	records  *jobview.Renderer
	limiter  docmill.Limiter
	checks   map[string]func(context.Context) error
	reports  map[string]func() (string, any)
	plans    map[string]docmill.Plan
	baseURL  string
	jail     *sandbox.Jail
	log      *slog.Logger
	reg      *prometheus.Registry
	urls     userURLClients
}

// apiConfig is the HTTP API's configuration: the flags, over p.
func (f *serveFlags) apiConfig(p apiParts) httpapi.Config {
	b := buildIdentity() // version.go
	return httpapi.Config{
		Store: p.st, Blob: p.blob, Queue: p.queue, Outbox: p.queue, Registry: p.registry, Limiter: p.limiter, Checks: p.checks, Reports: p.reports,
		Build: httpapi.Build{Version: b.Version, Revision: b.Revision, BuildTime: b.BuildTime},
		Plans: p.plans, BaseURL: p.baseURL, Records: p.records,
		Signup: f.signup == "open", SyncBudget: f.syncBudget, MaxUploadBytes: f.maxUploadMB << 20, UploadIdleTimeout: f.uploadIdle,
		UploadMinRate: f.uploadMinRate, UploadRateWindow: f.uploadWindow,
		MaxConnsPerIP: f.maxConnsPerIP, TrustedProxies: f.trustedProxies,
		Limits: f.engines.limits, Ready: engineChecks(p.registry, p.jail), Logger: p.log, Registerer: p.reg, Gatherer: f.ops.apiGatherer(p.reg),
		Web: web.Handler(), Space: f.space(),
		CheckWebhookURL: p.urls.webhooks.CheckURL, URLs: p.urls.imports, Trace: stageTrace,
	}
}
