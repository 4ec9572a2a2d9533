package main

import (
	"errors"
	"flag"
	"fmt"
	"net/netip"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/diskspace"
	"github.com/docmill/docmill/jobs"
	"github.com/docmill/docmill/replica"
)

// serveFlags are the flags of `docmill serve`, registered by register and
// checked by validate before anything starts.
type serveFlags struct {
	data            dataFlags
	addr            string
	baseURL         string
	cdnURL          string
	signup          string
	plansFile       string
	role            string
	nodeID          string
	workers         int
	lanes           laneFlags
	syncBudget      time.Duration
	jobTimeout      time.Duration
	rescueMargin    time.Duration
	pollInterval    time.Duration
	janitorInterval time.Duration
	shutdownTimeout time.Duration
	replicateTo     string
	maxUploadMB     int64
	uploadIdle      time.Duration
	uploadMinRate   int64
	uploadWindow    time.Duration
	maxConnsPerIP   int
	trustedProxies  []netip.Prefix
	toolTimeouts    map[string]time.Duration
	engines         toolOptions
	jail            jailFlags
	ops             opsFlags
	redisURL        string
	devKey          bool
	migrate         bool
	minFree         diskspace.Threshold
	// Webhooks and other requests to users' URLs.
	allowPrivateURLs bool
	webhookSchedule  []time.Duration
	// file_url and export_url.
	transferTimeout time.Duration
	exportSchedule  []time.Duration
	// Mail (mail.go).
	mail mailFlags
}

func (f *serveFlags) register(fs *flag.FlagSet) {
	f.data.register(fs)
	fs.StringVar(&f.addr, "addr", ":8080", "address to listen on")
	fs.StringVar(&f.baseURL, "base-url", "", "public URL of the API, used in job links (default: http://localhost:<port>)")
	fs.StringVar(&f.cdnURL, "cdn-url", "", "public URL that result files are downloaded from (default: --base-url; with an s3:// --blob-url, presigned links to the bucket)")
	fs.StringVar(&f.signup, "signup", "open", "open: anyone may sign up for a Free account by a mailed link (POST /v1/signup); closed: accounts come only from `docmill accounts create`, and the web page offers no sign-up")
	fs.StringVar(&f.plansFile, "plans", "", "plan configuration: a JSON file that changes the default plans' limits and prices, such as {\"pro\": {\"price\": {\"amount\": 590, \"currency\": \"RUB\", \"period\": \"month\"}}} (GET /v1/config shows the result)")
	fs.StringVar(&f.role, "role", "all", "all: API and workers; api: API only; worker: workers only")
	fs.StringVar(&f.nodeID, "node-id", "", "name of this server's own scratch directory, --data-dir/tmp/<node-id>, emptied at start-up (what a killed server left there) and locked while it runs; default: the host name, or host-2, host-3, ... when servers share --data-dir")
	fs.IntVar(&f.workers, "workers", runtime.NumCPU(), "jobs of the pdf lane, and of the render lane, worked at once by this process (see --lane-workers)")
	f.lanes.register(fs)
	fs.DurationVar(&f.syncBudget, "sync-budget", 10*time.Second, "how long a process call waits for its job before answering 202")
	fs.DurationVar(&f.jobTimeout, "job-timeout", 10*time.Minute, "limit of one job attempt for tools that set none")
	fs.DurationVar(&f.rescueMargin, "rescue-margin", 30*time.Second, "a running job older than its timeout plus this margin has lost its worker and is retried")
	fs.DurationVar(&f.pollInterval, "poll-interval", time.Second, "SQLite only: how often idle workers look for jobs as a safety net; a job sent to this server wakes them at once, so this bounds only the pickup of jobs made available otherwise (retries, jobs handed back); each poll costs CPU while idle (PostgreSQL notifies workers; the flag does not apply)")
	fs.StringVar(&f.replicateTo, "replicate-to", "", "SQLite only: ship every committed change of the database, within seconds, to file:///dir or a bucket in --blob-url's s3://bucket[/prefix]?... form (default prefix replica/); docmill restore --from the same URL makes a data directory of it. The server keeps serving while the target is down (/readyz and /metrics show the lag) and catches up when it returns")
	fs.BoolVar(&f.migrate, "migrate", false, "PostgreSQL: apply pending migrations at start-up (under an advisory lock, so nodes may start at once); without it an unmigrated database is refused (SQLite always migrates)")
	fs.DurationVar(&f.janitorInterval, "janitor-interval", time.Minute, "how often expired results and old records are removed")
	fs.DurationVar(&f.shutdownTimeout, "shutdown-timeout", 30*time.Second, "on SIGTERM, how long the node may take to stop: requests waiting for their jobs are answered (202 with the job) a fifth of it, and at least 1s, before the end; jobs still running then go back to the queue")
	fs.Int64Var(&f.maxUploadMB, "max-upload-mb", 4096, "hard cap in MB on the files of one request, each and in total, whatever the plan allows")
	f.toolTimeouts = map[string]time.Duration{}
	fs.Var(repeatable(func(v string) error {
		slug, d, ok := strings.Cut(v, "=")
		dur, err := time.ParseDuration(d)
		if !ok || err != nil || dur <= 0 {
			return fmt.Errorf("want slug=duration, such as ocr-pdf=20m")
		}
		f.toolTimeouts[slug] = dur
		return nil
	}), "tool-timeout", "limit of one run of a tool, as slug=duration (repeatable; comma-separated in DOCMILL_TOOL_TIMEOUT; within --job-timeout), e.g. ocr-pdf=20m")
	fs.IntVar(&f.engines.officeWorkers, "office-workers", runtime.NumCPU(), "warm LibreOffice processes for the Office tools")
	fs.BoolVar(&f.engines.officePrestart, "office-prestart", false, "start the LibreOffice workers at start-up instead of on the first conversion")
	registerLimits(fs, &f.engines.limits)
	f.jail.register(fs)
	fs.DurationVar(&f.uploadIdle, "upload-idle-timeout", time.Minute, "cut an upload that sends nothing for this long (408 upload_too_slow)")
	fs.Int64Var(&f.uploadMinRate, "upload-min-rate", 1024, "bytes a second an upload must bring over each --upload-rate-window of waiting for it, or be cut (408 upload_too_slow); 0: only --upload-idle-timeout")
	fs.IntVar(&f.maxConnsPerIP, "max-conns-per-ip", 64, "connections one client address may hold at once (an IPv6 client counted by its /64); more are closed as they are accepted; behind --trusted-proxies, requests in flight per forwarded address (more: 429); 0: no cap")
	fs.Func("trusted-proxies", "comma-separated addresses or CIDR ranges of reverse proxies whose X-Forwarded-For names the client: their connections are not capped by --max-conns-per-ip, the clients they forward are, and mailed sign-up and sign-in links are limited per client", func(v string) error {
		ps, err := parsePrefixes(v)
		f.trustedProxies = ps
		return err
	})
	fs.DurationVar(&f.uploadWindow, "upload-rate-window", 30*time.Second, "the window over which --upload-min-rate is measured; each window must bring its own bytes")
	f.ops.register(fs)
	fs.StringVar(&f.redisURL, "redis-url", "", "Redis URL (redis://host:6379/0) for rate limits shared by every API node; empty: limits kept in this process")
	fs.BoolVar(&f.devKey, "dev-key", true, "on first start with no keys, create a Pro key named dev and print it, when stdout is a terminal (else no key: the log says how to make one)")
	fs.BoolVar(&f.allowPrivateURLs, "allow-private-urls", false, "development and tests only: let webhook URLs, file_url, export_url and the pages of url-to-pdf and url-to-image be http:// and reach loopback, private and link-local addresses")
	fs.DurationVar(&f.transferTimeout, "transfer-timeout", 30*time.Minute, "limit of one file_url download or export_url upload, whole body included (connecting and the answer's header: 30 s)")
	f.exportSchedule = jobs.ExportSchedule
	fs.Func("export-retry-schedule", "delays between the attempts of an export_url upload that failed with 5xx, 429 or a network error, comma-separated (default 2s,10s,30s: four attempts)", func(v string) error {
		ds, err := parseDurations(v)
		f.exportSchedule = ds
		return err
	})
	f.webhookSchedule = jobs.RetrySchedule
	fs.Func("webhook-retry-schedule", "delays between the attempts of a webhook delivery, comma-separated (default 5s,5m,30m,2h,5h,10h: seven attempts)", func(v string) error {
		var ds []time.Duration
		for _, part := range strings.Split(v, ",") {
			d, err := time.ParseDuration(strings.TrimSpace(part))
			if err != nil || d <= 0 {
				return fmt.Errorf("want durations such as 5s,5m,30m")
			}
			ds = append(ds, d)
		}
		f.webhookSchedule = ds
		return nil
	})
	f.mail.register(fs)
	f.minFree = diskspace.DefaultThreshold
	fs.Var(&f.minFree, "min-free-space", "free space to keep on the local file store and scratch directory: a size (1GB, 512MB), a percentage of the file system (5%), or both (the smaller wins); below it /readyz is not ready and uploads that would not fit are refused with 507")
}

func (f *serveFlags) validate() error {
	switch f.role {
	case "all", "api", "worker":
	default:
		return fmt.Errorf("--role must be all, api or worker, not %q", f.role)
	}
	if f.signup != "open" && f.signup != "closed" {
		return fmt.Errorf("--signup must be open or closed, not %q", f.signup)
	}
	if f.workers < 1 {
		return errors.New("--workers must be at least 1")
	}
	if f.maxConnsPerIP < 0 {
		return errors.New("--max-conns-per-ip must be 0 or more")
	}
	if f.uploadMinRate < 0 || f.uploadWindow <= 0 || f.uploadIdle <= 0 {
		return errors.New("--upload-min-rate must be 0 or more, --upload-rate-window and --upload-idle-timeout above 0")
	}
	if f.replicateTo != "" && f.data.databaseURL != "" {
		return errors.New("--replicate-to replicates the embedded SQLite database; with --database-url, back up PostgreSQL with its own tools (pg_dump, WAL archiving)")
	}
	if f.replicateTo != "" {
		if _, err := replica.ParseTarget(f.replicateTo); err != nil {
			return fmt.Errorf("--replicate-to: %w", err)
		}
	}
	return f.mail.check(f.baseURL)
}

// parsePrefixes parses comma-separated addresses (each its own range)
// and CIDR ranges.
func parsePrefixes(v string) ([]netip.Prefix, error) {
	var ps []netip.Prefix
	for _, part := range strings.Split(v, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if a, err := netip.ParseAddr(part); err == nil {
			ps = append(ps, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(part)
		if err != nil {
			return nil, fmt.Errorf("want addresses or CIDR ranges such as 10.0.0.0/8,192.0.2.7, not %q", part)
		}
		ps = append(ps, p.Masked())
	}
	return ps, nil
}

// plans are the default plans as --plans changes them.
func (f *serveFlags) plans() (map[string]docmill.Plan, error) {
	plans := docmill.DefaultPlans()
	if f.plansFile == "" {
		return plans, nil
	}
	b, err := os.ReadFile(f.plansFile)
	if err != nil {
		return nil, fmt.Errorf("--plans: %w", err)
	}
	return plans, docmill.ApplyPlanConfig(plans, b)
}
