package storetest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/docmill/docmill"
)

// webhookTests are the tests of docmill.Webhooks.
var webhookTests = []test{
	{"Webhooks", testWebhooks},
	{"WebhookAttempts", testWebhookAttempts},
	{"ConcurrentWebhookLimit", testConcurrentWebhookLimit},
}

// newWebhook returns an unsaved endpoint of account a.
func newWebhook(a *docmill.Account, events ...string) *docmill.Webhook {
	return &docmill.Webhook{
		ID: docmill.NewID("wh_"), AccountID: a.ID, URL: "https://hooks.example.com/docmill",
		Events: events, Secret: docmill.NewWebhookSecret(), CreatedAt: t0,
	}
}

func createWebhook(t *testing.T, s docmill.Store, a *docmill.Account, events ...string) *docmill.Webhook {
	t.Helper()
	w := newWebhook(a, events...)
	if err := s.CreateWebhook(t.Context(), w, 100); err != nil {
		t.Fatalf("CreateWebhook: %v", err)
	}
	return w
}

func testWebhooks(t *testing.T, s docmill.Store) {
	ctx := t.Context()
	a, _, _ := NewAccount(t, s, docmill.PlanPro)
	other, _, _ := NewAccount(t, s, docmill.PlanPro)
	w1 := newWebhook(a, docmill.EventJobDone, docmill.EventJobFailed)
	w2 := newWebhook(a, docmill.WebhookEvents...)
	w2.CreatedAt = t0.Add(time.Second)
	for _, w := range []*docmill.Webhook{w1, w2} {
		if err := s.CreateWebhook(ctx, w, 2); err != nil {
			t.Fatalf("CreateWebhook: %v", err)
		}
	}
	if err := s.CreateWebhook(ctx, newWebhook(a), 2); !errors.Is(err, docmill.ErrTooManyWebhooks) {
		t.Fatalf("CreateWebhook past the plan's limit: %v, want ErrTooManyWebhooks", err)
	}
	createWebhook(t, s, other)
	missing := newWebhook(&docmill.Account{ID: "acct_missing"})
	if err := s.CreateWebhook(ctx, missing, 5); !errors.Is(err, docmill.ErrNotFound) {
		t.Errorf("CreateWebhook of an unknown account: %v, want ErrNotFound", err)
	}

	got, err := s.Webhook(ctx, w1.ID)
	if err != nil {
		t.Fatalf("Webhook: %v", err)
	}
	if !reflect.DeepEqual(got, w1) {
		t.Errorf("Webhook = %+v, want %+v", got, w1)
	}
	list, err := s.ListWebhooks(ctx, a.ID)
	if err != nil || len(list) != 2 || list[0].ID != w1.ID || list[1].ID != w2.ID {
		t.Fatalf("ListWebhooks = %v, %v; want [%s %s], oldest first", list, err, w1.ID, w2.ID)
	}
	if _, err := s.Webhook(ctx, "wh_missing"); !errors.Is(err, docmill.ErrNotFound) {
		t.Errorf("Webhook(missing): %v, want ErrNotFound", err)
	}

	// Rotation: the old secret becomes the previous one, until the time given.
	secret := docmill.NewWebhookSecret()
	until := t0.Add(docmill.SecretRotationOverlap)
	r, err := s.RotateWebhookSecret(ctx, w1.ID, secret, until)
	if err != nil {
		t.Fatalf("RotateWebhookSecret: %v", err)
	}
	if r.Secret != secret || r.PreviousSecret != w1.Secret || r.PreviousSecretExpiresAt == nil || !r.PreviousSecretExpiresAt.Equal(until) {
		t.Errorf("rotated = %+v; want secret %s, previous %s until %v", r, secret, w1.Secret, until)
	}
	if got := r.SigningSecrets(until.Add(-time.Second)); !slices.Equal(got, []string{secret, w1.Secret}) {
		t.Errorf("SigningSecrets during the overlap = %v", got)
	}
	if got := r.SigningSecrets(until); !slices.Equal(got, []string{secret}) {
		t.Errorf("SigningSecrets after the overlap = %v", got)
	}
	if _, err := s.RotateWebhookSecret(ctx, "wh_missing", secret, until); !errors.Is(err, docmill.ErrNotFound) {
		t.Errorf("RotateWebhookSecret(missing): %v, want ErrNotFound", err)
	}

	if err := s.DeleteWebhook(ctx, w2.ID); err != nil {
		t.Fatalf("DeleteWebhook: %v", err)
	}
	if err := s.DeleteWebhook(ctx, w2.ID); !errors.Is(err, docmill.ErrNotFound) {
		t.Errorf("DeleteWebhook twice: %v, want ErrNotFound", err)
	}
	// A deleted endpoint frees its place under the plan's limit.
	if err := s.CreateWebhook(ctx, newWebhook(a), 2); err != nil {
		t.Errorf("CreateWebhook after a delete: %v", err)
	}
}

func testWebhookAttempts(t *testing.T, s docmill.Store) {
	ctx := t.Context()
	a, _, _ := NewAccount(t, s, docmill.PlanPro)
	w := createWebhook(t, s, a, docmill.WebhookEvents...)
	j := finish(t, s, create(t, s, a), docmill.StatusDone, t0)
	next := t0.Add(5 * time.Second)
	a1 := docmill.WebhookAttempt{WebhookID: w.ID, MessageID: "msg_1", Event: docmill.EventJobDone, JobID: j.ID,
		Attempt: 1, AttemptedAt: t0, StatusCode: 0, Error: "connection refused", Duration: 12 * time.Millisecond, NextRetryAt: &next}
	if got := recordAttempt(t, s, a1, ""); got.FailingSince == nil || !got.FailingSince.Equal(t0) || got.DisabledAt != nil {
		t.Errorf("after a failure: failing since %v, disabled %v; want %v, nil", got.FailingSince, got.DisabledAt, t0)
	}
	a2 := a1
	a2.Attempt, a2.AttemptedAt, a2.StatusCode, a2.Error, a2.NextRetryAt = 2, t0.Add(time.Minute), 503, "HTTP 503", ptr(t0.Add(time.Hour))
	if got := recordAttempt(t, s, a2, ""); !got.FailingSince.Equal(t0) {
		t.Errorf("a second failure moved failing_since to %v, want %v", got.FailingSince, t0)
	}
	recordAttempt(t, s, a2, "") // recorded twice (a retried recording): the first stands
	a3 := a1
	a3.Attempt, a3.AttemptedAt, a3.StatusCode, a3.Error, a3.NextRetryAt = 3, t0.Add(2*time.Minute), 204, "", nil
	if got := recordAttempt(t, s, a3, ""); got.FailingSince != nil {
		t.Errorf("after a success: failing since %v, want nil", got.FailingSince)
	}

	got, err := s.WebhookAttempts(ctx, w.ID, 10)
	if err != nil {
		t.Fatalf("WebhookAttempts: %v", err)
	}
	want := []*docmill.WebhookAttempt{&a3, &a2, &a1}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("WebhookAttempts =\n%+v\nwant (newest first)\n%+v", deref(got), deref(want))
	}
	if got, err := s.WebhookAttempts(ctx, w.ID, 1); err != nil || len(got) != 1 || got[0].Attempt != 3 {
		t.Errorf("WebhookAttempts(limit 1) = %v, %v", deref(got), err)
	}

	// Disabling records the first reason and time only.
	a4 := docmill.WebhookAttempt{WebhookID: w.ID, MessageID: "msg_2", Event: docmill.EventJobDone, JobID: j.ID,
		Attempt: 1, AttemptedAt: t0.Add(time.Hour), StatusCode: 410, Error: "HTTP 410"}
	if got := recordAttempt(t, s, a4, "gone"); got.DisabledAt == nil || !got.DisabledAt.Equal(a4.AttemptedAt) || got.DisabledReason != "gone" {
		t.Errorf("disabled at %v for %q; want %v for gone", got.DisabledAt, got.DisabledReason, a4.AttemptedAt)
	}
	a4.MessageID = "msg_3"
	if got := recordAttempt(t, s, a4, "again"); got.DisabledReason != "gone" {
		t.Errorf("disabled again: reason %q, want the first one", got.DisabledReason)
	}
	if got, err := s.EnableWebhook(ctx, w.ID); err != nil || got.DisabledAt != nil || got.DisabledReason != "" || got.FailingSince != nil {
		t.Errorf("EnableWebhook = %+v, %v; want enabled and healthy", got, err)
	}
	if _, err := s.EnableWebhook(ctx, "wh_missing"); !errors.Is(err, docmill.ErrNotFound) {
		t.Errorf("EnableWebhook(missing): %v, want ErrNotFound", err)
	}
	a4.WebhookID = "wh_missing"
	if _, err := s.RecordWebhookAttempt(ctx, &a4, ""); !errors.Is(err, docmill.ErrNotFound) {
		t.Errorf("RecordWebhookAttempt of a deleted endpoint: %v, want ErrNotFound", err)
	}

	// Attempts go with their job's record, and with their endpoint.
	if _, err := s.DeleteJobsCreatedBefore(ctx, t0.Add(time.Second), 10); err != nil {
		t.Fatalf("DeleteJobsCreatedBefore: %v", err)
	}
	if got, err := s.WebhookAttempts(ctx, w.ID, 10); err != nil || len(got) != 0 {
		t.Errorf("attempts after their job was deleted: %v, %v", deref(got), err)
	}
	j2 := finish(t, s, create(t, s, a), docmill.StatusDone, t0)
	a1.JobID, a1.MessageID = j2.ID, "msg_4"
	recordAttempt(t, s, a1, "")
	if err := s.DeleteWebhook(ctx, w.ID); err != nil {
		t.Fatal(err)
	}
	if got, err := s.WebhookAttempts(ctx, w.ID, 10); err != nil || len(got) != 0 {
		t.Errorf("attempts after their endpoint was deleted: %v, %v", deref(got), err)
	}
}

func testConcurrentWebhookLimit(t *testing.T, s docmill.Store) {
	a, _, _ := NewAccount(t, s, docmill.PlanFree)
	created := concurrentWins(t, "CreateWebhook(past the plan's count)", 8, docmill.ErrTooManyWebhooks, func() error {
		return s.CreateWebhook(t.Context(), newWebhook(a), 3)
	})
	if list, _ := s.ListWebhooks(t.Context(), a.ID); created != 3 || len(list) != 3 {
		t.Errorf("%d created, %d stored; want 3 and 3", created, len(list))
	}
}

// recordAttempt records a, disabling its endpoint for disable if not
// empty, and returns the endpoint as it then stands.
func recordAttempt(t *testing.T, s docmill.Store, a docmill.WebhookAttempt, disable string) *docmill.Webhook {
	t.Helper()
	got, err := s.RecordWebhookAttempt(t.Context(), &a, disable)
	if err != nil {
		t.Fatalf("RecordWebhookAttempt: %v", err)
	}
	return got
}

func deref(as []*docmill.WebhookAttempt) []docmill.WebhookAttempt {
	out := make([]docmill.WebhookAttempt, len(as))
	for i, a := range as {
		out[i] = *a
	}
	return out
}

// DeliverHook is a delivery hook (the DeliverFunc of store/sqlite and
// store/postgres) seen through Tx.
type DeliverHook func(ctx context.Context, tx Tx, ds []docmill.WebhookDelivery) error

// deliver checks that a finished job's webhook deliveries are handed to
// the delivery hook in the transaction that finishes it: one per enabled
// endpoint of the account subscribed to the event, the job as finished,
// and a hook's failure rolls the finish back.
func deliver(t *testing.T, s DriverStore) {
	ctx := t.Context()
	boom := errors.New("queue is down")
	var fail bool
	var got []docmill.WebhookDelivery
	s.SetDeliver(func(ctx context.Context, tx Tx, ds []docmill.WebhookDelivery) error {
		for _, d := range ds {
			status, err := tx.QueryString(ctx, `SELECT status FROM jobs WHERE id = $1`, d.Job.ID)
			if err != nil {
				return err
			}
			if status != string(d.Job.Status) || docmill.JobEvent(d.Job.Status) != d.Event {
				return fmt.Errorf("delivery of %s for a job %s (%s in the transaction)", d.Event, d.Job.Status, status)
			}
		}
		if fail {
			return boom
		}
		got = append(got, ds...)
		return nil
	})
	a, _, _ := NewAccount(t, s, docmill.PlanPro)
	other, _, _ := NewAccount(t, s, docmill.PlanPro)
	all := createWebhook(t, s, a, docmill.WebhookEvents...)
	doneOnly := createWebhook(t, s, a, docmill.EventJobDone)
	off := createWebhook(t, s, a, docmill.WebhookEvents...)
	otherHook := createWebhook(t, s, other, docmill.WebhookEvents...)
	recordAttempt(t, s, docmill.WebhookAttempt{WebhookID: off.ID, MessageID: "msg_x", Event: docmill.EventJobDone,
		JobID: "job_x", Attempt: 1, AttemptedAt: t0, StatusCode: 410}, "gone")

	type sent struct{ webhook, event string }
	check := func(what string, want ...sent) {
		t.Helper()
		var have []sent
		ids := map[string]bool{}
		for _, d := range got {
			have = append(have, sent{d.WebhookID, d.Event})
			if ids[d.MessageID] || len(d.MessageID) < 10 {
				t.Errorf("%s: message id %q repeated or short", what, d.MessageID)
			}
			ids[d.MessageID] = true
		}
		order := func(a, b sent) int { return strings.Compare(a.webhook+a.event, b.webhook+b.event) }
		slices.SortFunc(have, order)
		slices.SortFunc(want, order)
		if !slices.Equal(have, want) {
			t.Errorf("%s: deliveries %v, want %v", what, have, want)
		}
		got = nil
	}
	done := finish(t, s, create(t, s, a), docmill.StatusDone, t0)
	check("done", sent{all.ID, docmill.EventJobDone}, sent{doneOnly.ID, docmill.EventJobDone})
	if len(done.ID) == 0 {
		t.Fatal("no job")
	}
	finish(t, s, create(t, s, a), docmill.StatusFailed, t0)
	check("failed", sent{all.ID, docmill.EventJobFailed})
	if _, err := s.CancelJob(ctx, create(t, s, a).ID, t0); err != nil {
		t.Fatal(err)
	}
	check("canceled", sent{all.ID, docmill.EventJobCanceled})
	finish(t, s, create(t, s, other), docmill.StatusCanceled, t0)
	check("another account's job", sent{otherHook.ID, docmill.EventJobCanceled})

	// A failing hook fails the finish: the job stays processing.
	fail = true
	j := create(t, s, a)
	if _, err := s.StartJob(ctx, j.ID, t0); err != nil {
		t.Fatal(err)
	}
	j.Status, j.FinishedAt = docmill.StatusFailed, &t0
	j.Error = &docmill.JobError{Code: docmill.CodeInternal, Message: "x"}
	if _, err := s.FinishJob(ctx, j); !errors.Is(err, boom) {
		t.Fatalf("FinishJob with a failing hook: %v, want %v", err, boom)
	}
	if stood, err := s.Job(ctx, j.ID); err != nil || stood.Status != docmill.StatusProcessing {
		t.Errorf("job after a failed finish: %v, %v; want processing", stood, err)
	}
}
