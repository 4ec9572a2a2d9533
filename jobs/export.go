package jobs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/docmill/docmill"
)

// ExportConfig is what the export of results (export_url) needs.
type ExportConfig struct {
	// Client sends the results: outbound's, which refuses internal
	// addresses at dial time and follows no redirect (a redirected PUT
	// would be lost). Without it this node exports nothing: a job's
	// export fails with a reason saying so.
	Client *http.Client
	// Schedule are the delays before the second, third, ... attempt
	// (default ExportSchedule); an export is tried len(Schedule)+1 times.
	Schedule []time.Duration
}

// ExportSchedule is the default delays between the attempts of an
// export: four attempts within about 42 s.
var ExportSchedule = []time.Duration{2 * time.Second, 10 * time.Second, 30 * time.Second}

// export sends the result of j, just recorded done, to its export URL and
// records how that went (Store.SetExport); it runs in the job's own River
// job, after the job is done, so the record already reads done with
// export_status pending, and a failed export never fails the job.
//
// An answer of 5xx or 429, or no answer (a network error, a timeout), is
// tried again on ExportConfig.Schedule; any other answer is final, and so
// is a destination the client refuses (an internal address). After a
// successful export without KeepResult the result file is deleted. A
// shutdown (ctx canceled) ends the export as failed: it is not resumed.
// Once the export ends, the record keeps the URL without its query (the
// presigned signature).
func (q *Queue[TTx]) export(ctx context.Context, j *docmill.Job) {
	e := *j.Export
	// A job canceled or deleted meanwhile is not exported.
	if cur, err := q.cfg.Store.Job(ctx, j.ID); err != nil || cur.Status != docmill.StatusDone {
		return
	}
	const interrupted = "the export was interrupted by a shutdown of the server"
	for attempt := 1; ; attempt++ {
		e.Attempts = attempt
		reason, retry := q.putResult(ctx, e.URL, j.Result)
		if reason == "" {
			e.Status = docmill.ExportDone
			break
		}
		if ctx.Err() != nil {
			reason, retry = interrupted, false
		}
		if !retry || attempt > len(q.cfg.Exports.Schedule) {
			e.Status, e.Reason = docmill.ExportFailed, reason
			break
		}
		q.cfg.Logger.Info("export failed; retrying", "job_id", j.ID, "attempt", attempt, "reason", reason)
		if !sleep(ctx, q.cfg.Exports.Schedule[attempt-1]) {
			e.Status, e.Reason = docmill.ExportFailed, interrupted
			break
		}
	}
	e.URL = e.Destination()
	rctx, rcancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer rcancel()
	if e.Status == docmill.ExportDone && !e.KeepResult {
		if err := deleteResult(rctx, q.cfg.Blob, j.ID, j.Result); err != nil {
			q.cfg.Logger.Warn("delete exported result", "job_id", j.ID, "err", err) // the janitor removes it at expiry
		} else if err := q.cfg.Store.MarkResultDeleted(rctx, j.ID, q.cfg.Now()); err != nil {
			q.cfg.Logger.Warn("mark exported result deleted", "job_id", j.ID, "err", err)
		}
	}
	if err := q.cfg.Store.SetExport(rctx, j.ID, &e); err != nil {
		q.cfg.Logger.Error("record export", "job_id", j.ID, "err", err)
	}
	q.cfg.Logger.Info("export finished", "job_id", j.ID, "status", e.Status, "attempts", e.Attempts, "reason", e.Reason)
}

// noExport records the export of j, which ended other than done, failed
// (nothing to send), and drops its signature from the record.
func (q *Queue[TTx]) noExport(ctx context.Context, j *docmill.Job) {
	e := *j.Export
	e.URL, e.Status, e.Reason = e.Destination(), docmill.ExportFailed, "the job did not finish done; there is no result to export"
	if err := q.cfg.Store.SetExport(ctx, j.ID, &e); err != nil {
		q.cfg.Logger.Warn("record export", "job_id", j.ID, "err", err)
	}
}

// putResult makes one attempt to PUT the result at url, streamed from the
// blob store with its Content-Type and Content-Length. It returns "" on
// success, else the reason, safe to show the client, and whether another
// attempt may succeed.
func (q *Queue[TTx]) putResult(ctx context.Context, url string, res *docmill.Result) (reason string, retry bool) {
	if q.cfg.Exports.Client == nil {
		return "this server does not export results", false
	}
	var body io.ReadCloser = http.NoBody
	if res.Size > 0 {
		r, err := q.cfg.Blob.NewRangeReader(ctx, res.Key, 0, -1)
		if err != nil {
			q.cfg.Logger.Warn("open result for export", "key", res.Key, "err", err)
			return "the result could not be read (it may have been deleted)", false
		}
		body = r
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, url, body)
	if err != nil {
		body.Close()
		return "the export URL is not valid", false
	}
	req.ContentLength = res.Size
	req.Header.Set("Content-Type", res.ContentType)
	resp, err := q.cfg.Exports.Client.Do(req)
	if err != nil {
		refused := errors.Is(err, docmill.ErrInternalAddress) || errors.Is(err, docmill.ErrInsecureURL)
		return exportReason(err), !refused
	}
	_, _ = io.Copy(io.Discard, resp.Body) // bounded by the client
	resp.Body.Close()
	switch c := resp.StatusCode; {
	case c >= 200 && c < 300:
		return "", false
	case c == http.StatusTooManyRequests || c >= 500:
		return fmt.Sprintf("the destination answered HTTP %d", c), true
	case c >= 300 && c < 400:
		return fmt.Sprintf("the destination answered HTTP %d (redirects are not followed)", c), false
	}
	return fmt.Sprintf("the destination answered HTTP %d", resp.StatusCode), false
}

// exportReason says why a PUT got no answer, without the details of
// this node's network (resolver addresses, local ports).
func exportReason(err error) string {
	var dnsErr *net.DNSError
	var opErr *net.OpError
	switch {
	case errors.Is(err, docmill.ErrInternalAddress):
		return "the destination's address is private, loopback, link-local or otherwise internal; docmill does not send there"
	case errors.Is(err, docmill.ErrInsecureURL):
		return "the destination's URL is not https"
	case errors.Is(err, context.DeadlineExceeded) || isTimeout(err):
		return "the destination did not answer in time"
	case errors.As(err, &dnsErr):
		return "the destination's host name does not resolve"
	case strings.Contains(err.Error(), "tls:") || strings.Contains(err.Error(), "x509:"):
		return "the TLS handshake with the destination failed"
	case errors.As(err, &opErr) && opErr.Op == "dial":
		return "the connection to the destination failed"
	}
	return "the request to the destination failed"
}

// sleep waits d, or until ctx is done (false).
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// shutdownOnly is ctx without its deadline (the tool's timeout, which
// does not bound an export) but still canceled when ctx is canceled (a
// shutdown).
func shutdownOnly(ctx context.Context) (context.Context, context.CancelFunc) {
	out, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, func() {
		if errors.Is(ctx.Err(), context.Canceled) {
			cancel()
		}
	})
	return out, func() { stop(); cancel() }
}
