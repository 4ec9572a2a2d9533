// Package storetest is the conformance suite of docmill.Store: every store
// implementation (store/sqlite, store/postgres) runs Run from its own tests,
// so that they all keep the same contract. Its tests are grouped by the
// parts of docmill.Store (Accounts, Keys, Jobs, Webhooks...), each group
// in the file of its part.
//
// Beyond the doc comments of docmill.Store, the suite pins down:
//   - times come back in UTC, truncated to the millisecond;
//   - Job.Params, Job.Inputs and Job.Meta round-trip exactly, nil and empty
//     alike, except that Meta is JSON: its numbers come back as float64;
//   - Account.Limits round-trips (nil stays nil) with Limits.Name set to the
//     account's plan, and Limits.ResultTTL at second precision;
//   - missing records are docmill.ErrNotFound (errors.Is);
//   - CreateAccount with an email another account has fails with
//     docmill.ErrEmailTaken and stores nothing;
//   - RevokeKey accepts any non-empty prefix of a key's display
//     prefix (case-sensitive) or the whole key; revoking a revoked key
//     returns it unchanged;
//   - StartJob of a processing job (a retry) keeps its first StartedAt, and
//     so do RequeueJob and the StartJob after it, which keep Job.Used too;
//   - an idempotent replay is answered before admission, so a replay is not
//     refused for the quota its own job used.
//   - webhook endpoints round-trip exactly; the plan's endpoint count holds
//     under concurrent creations; an endpoint's attempts are deleted with
//     it and with their job's record; recording an attempt twice keeps the
//     first; a disabled endpoint keeps its first reason.
//   - a new account is active; suspending a suspended account keeps its
//     first SuspendedAt; a key's last use is written at most once a
//     minute and never moved back; a mailed token expires at ExpiresAt
//     exactly; revoking a revoked session keeps its first RevokedAt.
//   - DeleteAccount also removes the account's usage and the tokens mailed
//     to its email, and no row of the account is left in any table of
//     the schema (checked in the tables themselves).
package storetest

import (
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/docmill/docmill"
)

// test is one test of the suite, run on a new, empty store.
type test struct {
	name string
	fn   func(t *testing.T, s docmill.Store)
}

// groups are the suite's tests grouped by the entity, the part of
// docmill.Store, whose contract they hold; each group is declared beside
// its tests.
var groups = []struct {
	name  string
	tests []test
}{
	{"Accounts", accountTests},
	{"Keys", keyTests},
	{"Sessions", sessionTests},
	{"Admissions", admissionTests},
	{"Jobs", jobTests},
	{"JobMaintenance", maintenanceTests},
	{"Nodes", nodeTests},
	{"Webhooks", webhookTests},
	{"Settings", settingTests},
}

// Run runs the suite, group by group, then the checks below the store's
// methods (Driver). open must return a new, empty store for each call and
// arrange for it to be closed when t ends; subtests run one at a time.
func Run(t *testing.T, open func(t *testing.T) DriverStore) {
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			for _, tc := range g.tests {
				t.Run(tc.name, func(t *testing.T) { tc.fn(t, open(t).Store) })
			}
		})
	}
	t.Run("Driver", func(t *testing.T) {
		for _, c := range driverChecks {
			t.Run(c.name, func(t *testing.T) { c.check(t, open(t)) })
		}
	})
}

// t0 is the suite's "now": fixed, so that expectations are exact.
var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// period is the usage period of t0.
const period = "2026-11"

// unlimited admits every job.
var unlimited = docmill.Admission{Period: period}

// NewAccount stores an account on plan and its first key, and returns both
// and the key itself.
func NewAccount(t *testing.T, s docmill.Store, plan string) (*docmill.Account, *docmill.APIKey, string) {
	t.Helper()
	a := &docmill.Account{ID: docmill.NewID("acct_"), Name: "acme", Plan: plan, CreatedAt: t0}
	key, k := docmill.NewAPIKey(a.ID, "default", t0)
	if err := s.CreateAccount(t.Context(), a, &k); err != nil {
		t.Fatalf("CreateAccount: %v", err)
	}
	return a, &k, key
}

// NewJob returns an unsaved job of account a.
func NewJob(a *docmill.Account) *docmill.Job {
	return &docmill.Job{
		ID:         docmill.NewJobID(),
		AccountID:  a.ID,
		Tool:       "compress-pdf",
		Params:     docmill.Params{"preset": "recommended"},
		Inputs:     []docmill.InputFile{{Key: "in/1", Filename: "a.pdf", ContentType: "application/pdf", Size: 10}},
		Priority:   3,
		Operations: 1, // as stored: a job is charged at least one
		ResultTTL:  time.Hour,
		CreatedAt:  t0,
	}
}

// create stores a new job of a without admission limits.
func create(t *testing.T, s docmill.Store, a *docmill.Account) *docmill.Job {
	t.Helper()
	j, err := s.CreateJob(t.Context(), NewJob(a), unlimited)
	if err != nil {
		t.Fatalf("CreateJob: %v", err)
	}
	return j
}

// finish starts job j and finishes it with status at time at; a done job
// gets a result expiring an hour later.
func finish(t *testing.T, s docmill.Store, j *docmill.Job, status docmill.Status, at time.Time) *docmill.Job {
	t.Helper()
	if _, err := s.StartJob(t.Context(), j.ID, at.Add(-time.Second)); err != nil {
		t.Fatalf("StartJob: %v", err)
	}
	f := *j
	f.Status = status
	f.FinishedAt = &at
	if status == docmill.StatusDone {
		f.Result = &docmill.Result{Key: "out/" + j.ID, Filename: "out.pdf", ContentType: "application/pdf",
			Size: 5, ExpiresAt: at.Add(time.Hour)}
	}
	if status == docmill.StatusFailed {
		f.Error = &docmill.JobError{Code: docmill.CodeInvalidDocument, Message: "damaged"}
	}
	ok, err := s.FinishJob(t.Context(), &f)
	if err != nil || !ok {
		t.Fatalf("FinishJob(%s) = %v, %v; want true, nil", status, ok, err)
	}
	return mustJob(t, s, j.ID)
}

func mustJob(t *testing.T, s docmill.Store, id string) *docmill.Job {
	t.Helper()
	j, err := s.Job(t.Context(), id)
	if err != nil {
		t.Fatalf("Job(%s): %v", id, err)
	}
	return j
}

func mustUsage(t *testing.T, s docmill.Store, accountID, p string) docmill.Usage {
	t.Helper()
	u, err := s.Usage(t.Context(), accountID, p)
	if err != nil {
		t.Fatalf("Usage: %v", err)
	}
	return u
}

// wantErr fails t unless err is target (errors.Is).
func wantErr(t *testing.T, what string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("%s: error %v, want %v", what, err, target)
	}
}

// concurrentWins makes n calls of call at once and returns how many
// succeeded; every other must fail with target (errors.Is).
func concurrentWins(t *testing.T, what string, n int, target error, call func() error) int {
	t.Helper()
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range errs {
		wg.Go(func() { errs[i] = call() })
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		if err == nil {
			won++
		} else {
			wantErr(t, what, err, target)
		}
	}
	return won
}

// wantCode fails t unless err carries code.
func wantCode(t *testing.T, what string, err error, code docmill.Code) {
	t.Helper()
	if err == nil || docmill.ErrorCode(err) != code {
		t.Fatalf("%s: error %v, want code %s", what, err, code)
	}
}

// ids returns the ids of jobs, in order.
func ids(jobs []*docmill.Job) []string {
	out := make([]string, len(jobs))
	for i, j := range jobs {
		out[i] = j.ID
	}
	return out
}

// ms returns t as a store gives it back: UTC, millisecond precision.
func ms(t time.Time) time.Time { return t.Truncate(time.Millisecond).UTC() }

func ptr[T any](v T) *T { return &v }

// same fails t with every field in which got and want differ. Times must be
// Equal and in UTC; pointers are compared by what they point to.
func same(t *testing.T, what string, got, want any) {
	t.Helper()
	for _, d := range diff("", reflect.ValueOf(got), reflect.ValueOf(want)) {
		t.Errorf("%s: %s", what, d)
	}
}

var timeType = reflect.TypeFor[time.Time]()

func diff(path string, got, want reflect.Value) []string {
	if got.Kind() == reflect.Pointer {
		if got.IsNil() || want.IsNil() {
			if got.IsNil() != want.IsNil() {
				return []string{fmt.Sprintf("%s = %s, want %s", path, show(got), show(want))}
			}
			return nil
		}
		return diff(path, got.Elem(), want.Elem())
	}
	switch {
	case got.Type() == timeType:
		g, w := got.Interface().(time.Time), want.Interface().(time.Time)
		if !g.Equal(w) || g.Location() != time.UTC {
			return []string{fmt.Sprintf("%s = %v, want %v (UTC)", path, g, w)}
		}
		return nil
	case got.Kind() == reflect.Struct:
		var out []string
		for i := range got.NumField() {
			name := path + "." + got.Type().Field(i).Name
			out = append(out, diff(name, got.Field(i), want.Field(i))...)
		}
		return out
	}
	if !reflect.DeepEqual(got.Interface(), want.Interface()) {
		return []string{fmt.Sprintf("%s = %s, want %s", path, show(got), show(want))}
	}
	return nil
}

func show(v reflect.Value) string {
	if v.Kind() == reflect.Pointer && !v.IsNil() {
		return fmt.Sprintf("&%+v", v.Elem().Interface())
	}
	return fmt.Sprintf("%#v", v.Interface())
}
