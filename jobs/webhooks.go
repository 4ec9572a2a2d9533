package jobs

import (
	"bytes"
	"cmp"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/riverqueue/river"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/jobview"
)

// WebhookConfig is what webhook delivery needs. Deliveries run on their
// own River queue with their own workers, so that they never take a slot
// from a job, nor a job from them; inside it, an account holds at most
// half of a node's delivery workers while another account's deliveries
// wait (the lanes' fair share, lanes.go).
type WebhookConfig struct {
	// Client sends deliveries: outbound's, which refuses internal
	// addresses, follows no redirect, caps answers and bounds each request
	// (10 s). Without it this node delivers nothing (it may still queue
	// deliveries if it works no jobs at all: an API node).
	Client *http.Client
	// Records renders the "data" of an event: the job record as GET
	// /v1/jobs/{id} returns it (the API's renderer). It renders inside the
	// store's transaction that finishes the job, which it may: it uses no
	// store. Without it this node queues no deliveries.
	Records *jobview.Renderer
	// Schedule are the delays before the second, third, ... attempt
	// (default RetrySchedule); a delivery is tried len(Schedule)+1 times.
	Schedule []time.Duration
	// Workers is how many deliveries this node makes at once (default 8).
	Workers int
}

// RetrySchedule is the default delays between the attempts of a delivery:
// seven attempts over about 17.5 hours.
var RetrySchedule = []time.Duration{
	5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour, 10 * time.Hour,
}

// webhookQueue is the River queue of deliveries.
const webhookQueue = "webhooks"

// webhookPoll is how often idle delivery workers look for deliveries: a
// new one wakes them (deliveriesCommitted, or PostgreSQL's NOTIFY), so
// the poll finds only retries falling due. It is the schedule's first
// delay, at most 5 s and at least the job workers' poll: an idle node
// then pays a fifth of a poll a second for webhooks (SQLite), and a
// retry is made at most that late.
func webhookPoll(cfg Config) time.Duration {
	return max(cmp.Or(cfg.PollInterval, time.Second), min(5*time.Second, cfg.Webhooks.Schedule[0]))
}

// maxRetryAfter bounds how long a receiver's Retry-After may put off the
// next attempt.
const maxRetryAfter = 24 * time.Hour

// DeliverArgs is the River job that delivers one event to one endpoint.
// Payload is rendered once, when the job finishes, so that every attempt
// sends the same body under the same webhook-id.
type DeliverArgs struct {
	MessageID string          `json:"message_id"`
	WebhookID string          `json:"webhook_id"`
	JobID     string          `json:"job_id"`
	Event     string          `json:"event"`
	Payload   json.RawMessage `json:"payload"`
	// AccountID is the endpoint's account, for the fair share of the
	// delivery workers (lanes.go); empty in deliveries queued before.
	AccountID string `json:"account_id,omitempty"`
}

// Kind names the River job kind.
func (DeliverArgs) Kind() string { return "docmill.webhook" }

// eventBody is the body of a delivery (Standard Webhooks' payload shape).
type eventBody struct {
	Type      string         `json:"type"`
	Timestamp string         `json:"timestamp"`
	Data      jobview.Record `json:"data"`
}

// delivers reports whether this node queues the deliveries a store hands
// it: it can render them, and either it works them itself or it works no
// jobs at all (an API node, whose River client accepts any kind).
func (q *Queue[TTx]) delivers() bool {
	wh := q.cfg.Webhooks
	return wh.Records != nil && (!q.works() || wh.Client != nil)
}

// DeliverTx queues deliveries inside tx, the store's transaction that
// moves their job to a final status; it is the store's delivery hook. The
// event's body is rendered here, once for every endpoint. A node that
// cannot deliver (no Records) drops them, with a warning: a delivery must
// never fail the job.
func (q *Queue[TTx]) DeliverTx(ctx context.Context, tx TTx, ds []docmill.WebhookDelivery) error {
	if !q.delivers() {
		q.cfg.Logger.Warn("webhook deliveries dropped: this node is not set up to deliver", "count", len(ds))
		return nil
	}
	params := make([]river.InsertManyParams, 0, len(ds))
	payloads := map[*docmill.Job][]byte{}
	for _, d := range ds {
		payload, ok := payloads[d.Job]
		if !ok {
			at := q.cfg.Now()
			if d.Job.FinishedAt != nil {
				at = *d.Job.FinishedAt
			}
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false) // as the API answers: result URLs keep a plain "&"
			err := enc.Encode(eventBody{Type: d.Event, Timestamp: jobview.Timestamp(at), Data: q.cfg.Webhooks.Records.Record(ctx, d.Job)})
			b := bytes.TrimSpace(buf.Bytes())
			if err != nil {
				q.cfg.Logger.Error("webhook deliveries dropped: rendering the event failed", "job_id", d.Job.ID, "err", err)
				return nil
			}
			payload, payloads[d.Job] = b, b
		}
		params = append(params, river.InsertManyParams{
			Args: DeliverArgs{MessageID: d.MessageID, WebhookID: d.WebhookID, JobID: d.Job.ID, Event: d.Event, Payload: payload,
				AccountID: d.Job.AccountID},
			InsertOpts: &river.InsertOpts{
				Queue:       webhookQueue,
				MaxAttempts: len(q.cfg.Webhooks.Schedule) + 1,
			},
		})
	}
	if _, err := q.client.InsertManyTx(ctx, tx, params); err != nil {
		return err
	}
	q.queuedDeliveries.Store(ds[0].Job.ID, struct{}{})
	return nil
}

// deliveriesCommitted is told that the transaction that ended job id has
// committed. If it queued deliveries (DeliverTx), this node's delivery
// workers are woken where the driver does not (SQLite); a finish that
// queued none costs nothing, not even a fetch.
func (q *Queue[TTx]) deliveriesCommitted(id string) {
	if _, ok := q.queuedDeliveries.LoadAndDelete(id); ok {
		q.wakeQueue(webhookQueue)
	}
}

type deliverWorker[TTx any] struct {
	river.WorkerDefaults[DeliverArgs]
	q *Queue[TTx]
	// retries holds, from Work to NextRetry (River calls both, in turn,
	// on the same node), when a failed attempt's next one is due, by
	// River job id.
	retries sync.Map
}

// Timeout bounds an attempt: the request's own limit (the client's)
// and the recording around it.
func (w *deliverWorker[TTx]) Timeout(*river.Job[DeliverArgs]) time.Duration { return time.Minute }

// NextRetry is the time Work chose for the next attempt: the schedule's
// delay, or the receiver's Retry-After when that is longer.
func (w *deliverWorker[TTx]) NextRetry(rj *river.Job[DeliverArgs]) time.Time {
	if t, ok := w.retries.LoadAndDelete(rj.ID); ok {
		return t.(time.Time)
	}
	return time.Time{} // the client's policy: a failure before any request
}

// Work makes one attempt to deliver an event, records it, and tells River
// whether to try again. Network errors, 5xx, 429 (and redirects, which are
// not followed) are retried on the schedule; other answers are final, and
// so is a destination the client refuses (an internal address). A
// 410 Gone disables the endpoint, and so does an endpoint failing every
// attempt for docmill.WebhookDisableAfter. A deleted or disabled endpoint
// gets nothing more.
func (w *deliverWorker[TTx]) Work(ctx context.Context, rj *river.Job[DeliverArgs]) error {
	q, a := w.q, rj.Args
	// One account's slow endpoints hold at most half the delivery
	// workers while another account's deliveries wait.
	release, ok := q.takeShare(ctx, rj.Queue, a.AccountID, q.laneWorkers(rj.Queue))
	if !ok {
		return river.JobSnooze(shareSnooze)
	}
	defer release()
	hook, err := q.cfg.Store.Webhook(ctx, a.WebhookID)
	if errors.Is(err, docmill.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if hook.DisabledAt != nil {
		return nil
	}
	now := q.cfg.Now()
	res := w.send(ctx, hook, a, now)
	if ctx.Err() != nil && errors.Is(context.Cause(ctx), context.Canceled) {
		return river.JobSnooze(time.Second) // shutdown: the same attempt again, on the next start
	}
	at := &docmill.WebhookAttempt{
		WebhookID: a.WebhookID, MessageID: a.MessageID, Event: a.Event, JobID: a.JobID, Attempt: rj.Attempt,
		AttemptedAt: now, StatusCode: res.status, Error: res.err, Duration: res.duration,
	}
	retry := res.retry && rj.Attempt < rj.MaxAttempts
	disable := ""
	switch {
	case res.status == http.StatusGone:
		disable = "The endpoint answered 410 Gone."
	case !at.Succeeded() && hook.FailingSince != nil && now.Sub(*hook.FailingSince) >= docmill.WebhookDisableAfter:
		disable = fmt.Sprintf("Every delivery failed since %s; the last: %s.", hook.FailingSince.UTC().Format(time.RFC3339), at.Error)
		retry = false
	}
	var next time.Time
	if retry {
		delay := q.cfg.Webhooks.Schedule[min(rj.Attempt, len(q.cfg.Webhooks.Schedule))-1]
		if res.retryAfter > delay {
			delay = min(res.retryAfter, maxRetryAfter)
		}
		next = time.Now().Add(delay) // River's clock, not a test's
		nextAt := now.Add(delay)
		at.NextRetryAt = &nextAt
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	hook, err = q.cfg.Store.RecordWebhookAttempt(rctx, at, disable)
	if errors.Is(err, docmill.ErrNotFound) {
		return nil // deleted meanwhile
	}
	if err != nil {
		return err
	}
	q.metrics.webhookAttempts.WithLabelValues(res.outcome()).Inc()
	if hook.DisabledAt != nil && disable != "" {
		q.cfg.Logger.Info("webhook endpoint disabled", "webhook_id", hook.ID, "reason", hook.DisabledReason)
	}
	if !retry || hook.DisabledAt != nil {
		return nil
	}
	w.retries.Store(rj.ID, next)
	return fmt.Errorf("webhook delivery failed: %s", at.Error)
}

// sendResult is the outcome of one request.
type sendResult struct {
	status int
	// err says what failed, for the endpoint's owner: no detail of ours.
	err        string
	retry      bool
	retryAfter time.Duration
	duration   time.Duration
}

func (r sendResult) outcome() string {
	switch {
	case r.status >= 200 && r.status < 300:
		return "delivered"
	case r.retry:
		return "retry"
	}
	return "refused"
}

// send posts the event, signed with the endpoint's secrets at now.
func (w *deliverWorker[TTx]) send(ctx context.Context, hook *docmill.Webhook, a DeliverArgs, now time.Time) sendResult {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, hook.URL, bytes.NewReader(a.Payload))
	if err != nil {
		return sendResult{err: "The endpoint's URL is not valid."}
	}
	sig, err := Sign(hook.SigningSecrets(now), a.MessageID, now, a.Payload)
	if err != nil {
		return sendResult{err: "The endpoint's secret is not valid."}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("webhook-id", a.MessageID)
	req.Header.Set("webhook-timestamp", strconv.FormatInt(now.Unix(), 10))
	req.Header.Set("webhook-signature", sig)
	started := time.Now()
	resp, err := w.q.cfg.Webhooks.Client.Do(req)
	if err != nil {
		// A refused destination (an internal address, plain http) stays
		// refused: not retried.
		refused := errors.Is(err, docmill.ErrInternalAddress) || errors.Is(err, docmill.ErrInsecureURL)
		return sendResult{err: describeSendError(err), retry: !refused, duration: time.Since(started)}
	}
	_, _ = io.Copy(io.Discard, resp.Body) // bounded by the client
	resp.Body.Close()
	res := sendResult{status: resp.StatusCode, duration: time.Since(started)}
	switch c := resp.StatusCode; {
	case c >= 200 && c < 300:
		return res
	case c == http.StatusTooManyRequests || c >= 500 || (c >= 300 && c < 400):
		res.retry = true
		res.retryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
	}
	res.err = fmt.Sprintf("HTTP %d", resp.StatusCode)
	if c := resp.StatusCode; c >= 300 && c < 400 {
		res.err += " (redirects are not followed)"
	}
	return res
}

// describeSendError says why a request got no answer, without the
// details of this node's network (resolver addresses, local ports).
func describeSendError(err error) string {
	var dnsErr *net.DNSError
	var opErr *net.OpError
	switch {
	case errors.Is(err, context.DeadlineExceeded) || isTimeout(err):
		return "The endpoint did not answer in time."
	case errors.Is(err, docmill.ErrInternalAddress):
		return "The endpoint's address is private or internal; docmill does not send there."
	case errors.Is(err, docmill.ErrInsecureURL):
		return "The endpoint's URL is not https."
	case errors.As(err, &dnsErr):
		return "The endpoint's host name does not resolve."
	case strings.Contains(err.Error(), "tls:") || strings.Contains(err.Error(), "x509:"):
		return "The TLS handshake with the endpoint failed."
	case errors.As(err, &opErr) && opErr.Op == "dial":
		return "The connection to the endpoint failed."
	}
	return "The request to the endpoint failed."
}

func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}

// parseRetryAfter reads a Retry-After header: seconds, or an HTTP date;
// zero when absent or unreadable.
func parseRetryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n > 0 {
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// Sign returns the webhook-signature header of a message per Standard
// Webhooks: for each secret, "v1," and the base64 of the HMAC-SHA256,
// keyed with the secret's bytes, of "id.timestamp.body"; space-separated.
func Sign(secrets []string, msgID string, at time.Time, body []byte) (string, error) {
	sigs := make([]string, 0, len(secrets))
	for _, s := range secrets {
		key, err := docmill.WebhookSecretKey(s)
		if err != nil {
			return "", err
		}
		mac := hmac.New(sha256.New, key)
		fmt.Fprintf(mac, "%s.%d.", msgID, at.Unix())
		mac.Write(body)
		sigs = append(sigs, "v1,"+base64.StdEncoding.EncodeToString(mac.Sum(nil)))
	}
	return strings.Join(sigs, " "), nil
}
