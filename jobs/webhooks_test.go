package jobs_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/riverqueue/river/riverdriver/riversqlite"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/internal/poll"
	"github.com/docmill/docmill/jobs"
	"github.com/docmill/docmill/jobview"
	"github.com/docmill/docmill/outbound"
	"github.com/docmill/docmill/store/sqlite"
)

// hookReceiver answers each request with status (and Retry-After when
// retryAfter is set), and records when each came.
type hookReceiver struct {
	*httptest.Server
	mu   sync.Mutex
	at   []time.Time
	ids  []string
	sigs []string
}

func newHookReceiver(t *testing.T, status int, retryAfter string) *hookReceiver {
	rc := &hookReceiver{}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc.mu.Lock()
		rc.at = append(rc.at, time.Now())
		rc.ids = append(rc.ids, r.Header.Get("webhook-id"))
		rc.sigs = append(rc.sigs, r.Header.Get("webhook-signature"))
		rc.mu.Unlock()
		if retryAfter != "" {
			w.Header().Set("Retry-After", retryAfter)
		}
		w.WriteHeader(status)
	}))
	t.Cleanup(rc.Close)
	return rc
}

func (rc *hookReceiver) times() []time.Time {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]time.Time(nil), rc.at...)
}

// deliveringQueue starts a working queue on a new store that delivers
// webhooks on schedule, with clk as its clock, and returns the store and
// a function that finishes a new job of an account (failed), queuing its
// deliveries.
func deliveringQueue(t *testing.T, schedule []time.Duration, clk *clock, client ...*http.Client) (*sqlite.Store, func(*docmill.Account) *docmill.Job) {
	t.Helper()
	hc := &http.Client{Timeout: 5 * time.Second}
	if len(client) > 0 {
		hc = client[0]
	}
	st, bucket := openData(t)
	newQueue(t, st, bucket, clk) // River's tables
	q, err := jobs.New(riversqlite.New(st.WriteDB()), jobs.Config{
		Store: st, Blob: bucket, Registry: docmill.NewRegistry(), Workers: 1, SoleWorker: true,
		PollInterval: 20 * time.Millisecond, ScratchDir: t.TempDir(), Now: clk.now,
		Webhooks: jobs.WebhookConfig{
			Client:   hc,
			Records:  jobview.New(jobview.Config{}),
			Schedule: schedule,
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	st.SetEnqueue(nil) // jobs are finished by hand here, never worked
	st.SetDeliver(q.DeliverTx)
	if err := q.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Stop(context.Background()) })
	return st, func(a *docmill.Account) *docmill.Job { return failedJob(t, st, a, clk.t) }
}

// failedJob creates a job of a, charged to 2026-11, and finishes it
// failed at at, by hand: its webhook deliveries are made in the finish's
// transaction.
func failedJob(t *testing.T, st docmill.Store, a *docmill.Account, at time.Time) *docmill.Job {
	t.Helper()
	j, err := st.CreateJob(t.Context(), &docmill.Job{AccountID: a.ID, Tool: "x", CreatedAt: at}, docmill.Admission{Period: "2026-11"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.StartJob(t.Context(), j.ID, at); err != nil {
		t.Fatal(err)
	}
	j.Status, j.FinishedAt = docmill.StatusFailed, &at
	j.Error = &docmill.JobError{Code: docmill.CodeInvalidDocument, Message: "bad"}
	if _, err := st.FinishJob(t.Context(), j); err != nil {
		t.Fatal(err)
	}
	return j
}

func addHook(t *testing.T, st docmill.Store, a *docmill.Account, url string, at time.Time) *docmill.Webhook {
	t.Helper()
	wh := &docmill.Webhook{ID: docmill.NewID("wh_"), AccountID: a.ID, URL: url, Events: docmill.WebhookEvents,
		Secret: docmill.NewWebhookSecret(), CreatedAt: at}
	if err := st.CreateWebhook(t.Context(), wh, 10); err != nil {
		t.Fatal(err)
	}
	return wh
}

// attempts waits until the endpoint has n recorded attempts and returns
// them, newest first.
func attempts(t *testing.T, st docmill.Store, id string, n int) []*docmill.WebhookAttempt {
	t.Helper()
	var as []*docmill.WebhookAttempt
	poll.Until(t, 20*time.Second, func() (bool, string) {
		var err error
		if as, err = st.WebhookAttempts(t.Context(), id, 100); err != nil {
			t.Fatal(err)
		}
		return len(as) >= n, fmt.Sprintf("%d attempts recorded, want %d", len(as), n)
	})
	return as
}

// riverSettled waits until st's queue holds no River job of kind (a
// webhook delivery, a mail) that may still run: each is completed,
// discarded or cancelled, so no attempt can come after.
func riverSettled(t *testing.T, st *sqlite.Store, kind string) {
	t.Helper()
	poll.Until(t, 20*time.Second, func() (bool, string) {
		var live int
		err := st.WriteDB().QueryRowContext(t.Context(), `SELECT count(*) FROM river_job
WHERE kind = ? AND state NOT IN ('completed', 'discarded', 'cancelled')`, kind).Scan(&live)
		if err != nil {
			t.Fatal(err)
		}
		return live == 0, fmt.Sprintf("%d River jobs of kind %s still live", live, kind)
	})
}

// TestWebhookRetryAfter: a 429's Retry-After, longer than the schedule's
// delay, puts the next attempt off that long; the attempts run out after
// the schedule, the last one with no next retry.
func TestWebhookRetryAfter(t *testing.T) {
	t.Parallel()
	clk := &clock{t: time.Now()}
	st, finish := deliveringQueue(t, []time.Duration{10 * time.Millisecond, 10 * time.Millisecond}, clk)
	a := newAccount(t, st, clk)
	busy := newHookReceiver(t, http.StatusTooManyRequests, "1")
	failing := newHookReceiver(t, http.StatusBadGateway, "")
	busyHook := addHook(t, st, a, busy.URL, clk.t)
	failingHook := addHook(t, st, a, failing.URL, clk.t)
	finish(a)

	as := attempts(t, st, busyHook.ID, 3)
	at := busy.times()
	if len(at) != 3 || at[1].Sub(at[0]) < 900*time.Millisecond || at[2].Sub(at[1]) < 900*time.Millisecond {
		t.Fatalf("attempts at %v: want them a second apart (Retry-After: 1), not 10 ms", at)
	}
	if as[0].Attempt != 3 || as[0].NextRetryAt != nil || as[1].NextRetryAt == nil || as[1].NextRetryAt.Sub(as[1].AttemptedAt) != time.Second {
		t.Fatalf("attempts %+v %+v: want the last without a retry, the one before retried after 1 s", *as[0], *as[1])
	}
	fs := attempts(t, st, failingHook.ID, 3)
	if fs[0].StatusCode != http.StatusBadGateway || fs[0].NextRetryAt != nil || fs[0].Error != "HTTP 502" {
		t.Fatalf("last attempt %+v", *fs[0])
	}
	riverSettled(t, st, (jobs.DeliverArgs{}).Kind())
	if n := len(failing.times()); n != 3 {
		t.Fatalf("%d attempts, want 3 (a schedule of two delays)", n)
	}
	for _, sig := range append(busy.sigs, failing.sigs...) {
		if !strings.HasPrefix(sig, "v1,") || strings.Contains(sig, " ") {
			t.Fatalf("webhook-signature %q: want one v1 signature", sig)
		}
	}
}

// TestWebhookDisabledAfterDays: an endpoint that has failed every attempt
// for docmill.WebhookDisableAfter is disabled at its next failure, with
// the reason, and not retried.
func TestWebhookDisabledAfterDays(t *testing.T) {
	t.Parallel()
	clk := &clock{t: time.Now()}
	st, finish := deliveringQueue(t, []time.Duration{10 * time.Millisecond}, clk)
	a := newAccount(t, st, clk)
	down := newHookReceiver(t, http.StatusServiceUnavailable, "")
	hook := addHook(t, st, a, down.URL, clk.t.Add(-10*24*time.Hour))
	since := clk.t.Add(-docmill.WebhookDisableAfter - time.Hour)
	if _, err := st.RecordWebhookAttempt(t.Context(), &docmill.WebhookAttempt{WebhookID: hook.ID, MessageID: "msg_old",
		Event: docmill.EventJobDone, JobID: "job_old", Attempt: 1, AttemptedAt: since, StatusCode: 503}, ""); err != nil {
		t.Fatal(err)
	}
	finish(a)
	attempts(t, st, hook.ID, 2)
	got, err := st.Webhook(t.Context(), hook.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.DisabledAt == nil || !strings.Contains(got.DisabledReason, "failed since") {
		t.Fatalf("endpoint %+v: want it disabled for failing 5 days", got)
	}
	as := attempts(t, st, hook.ID, 2)
	if as[0].NextRetryAt != nil {
		t.Fatalf("the disabling attempt has a next retry at %v", as[0].NextRetryAt)
	}
	riverSettled(t, st, (jobs.DeliverArgs{}).Kind())
	// A healthy endpoint added now gets the next event: once it has, the
	// disabled one would have had it too (both are chosen as the job ends).
	up := newHookReceiver(t, http.StatusOK, "")
	upHook := addHook(t, st, a, up.URL, clk.t)
	finish(a) // a disabled endpoint gets no more events
	attempts(t, st, upHook.ID, 1)
	riverSettled(t, st, (jobs.DeliverArgs{}).Kind())
	if n := len(down.times()); n != 1 {
		t.Fatalf("the endpoint got %d requests, want 1", n)
	}
}

// TestWebhookRefusedAtDial: an endpoint whose address is internal when
// the delivery is made (its name was public when it was created: DNS
// rebinding) gets nothing; the attempt is recorded as refused and not
// retried.
func TestWebhookRefusedAtDial(t *testing.T) {
	t.Parallel()
	clk := &clock{t: time.Now()}
	st, finish := deliveringQueue(t, []time.Duration{10 * time.Millisecond}, clk, outbound.New(outbound.Config{}).HTTPClient())
	a := newAccount(t, st, clk)
	rc := newHookReceiver(t, http.StatusOK, "")
	hook := addHook(t, st, a, strings.Replace(rc.URL, "http://", "https://", 1), clk.t) // as if it had passed CheckURL
	finish(a)
	as := attempts(t, st, hook.ID, 1)
	if as[0].StatusCode != 0 || !strings.Contains(as[0].Error, "private or internal") || as[0].NextRetryAt != nil {
		t.Fatalf("attempt %+v: want refused, no retry", *as[0])
	}
	riverSettled(t, st, (jobs.DeliverArgs{}).Kind())
	if n := len(rc.times()); n != 0 || len(attempts(t, st, hook.ID, 1)) != 1 {
		t.Fatalf("the internal endpoint got %d requests, want none, and one attempt recorded", n)
	}
}
