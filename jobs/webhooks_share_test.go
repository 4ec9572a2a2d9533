package jobs_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/riverqueue/river/riverdriver/riversqlite"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/internal/poll"
	"github.com/docmill/docmill/jobs"
	"github.com/docmill/docmill/jobview"
)

// TestWebhookFairShare: account A's endpoints answer only after the
// attempt's timeout (1 s here) and A has six deliveries queued, more than
// the node's two delivery workers; account B's delivery, queued after
// them, is made when the first of A's attempts times out, ahead of A's
// four waiting ones: A holds at most one of the two workers while B waits.
func TestWebhookFairShare(t *testing.T) {
	t.Parallel()
	const attempt = time.Second
	clk := &clock{t: time.Now()}
	st, bucket := openData(t)
	newQueue(t, st, bucket, clk) // River's tables
	q, err := jobs.New(riversqlite.New(st.WriteDB()), jobs.Config{
		Store: st, Blob: bucket, Registry: docmill.NewRegistry(), Workers: 1, SoleWorker: true,
		PollInterval: 20 * time.Millisecond, ScratchDir: t.TempDir(),
		Webhooks: jobs.WebhookConfig{
			Client:   &http.Client{Timeout: attempt},
			Records:  jobview.New(jobview.Config{}),
			Schedule: []time.Duration{50 * time.Millisecond}, // idle workers poll every 50 ms
			Workers:  2,
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	st.SetEnqueue(nil)
	st.SetDeliver(q.DeliverTx)
	if err := q.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Stop(context.Background()) })

	var mu sync.Mutex
	slowCalls := 0
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		slowCalls++
		mu.Unlock()
		select { // past the attempt's timeout
		case <-time.After(5 * attempt):
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(slow.Close)
	fastAt := make(chan int, 1) // A's requests made when B's arrived
	fast := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		fastAt <- slowCalls
		mu.Unlock()
	}))
	t.Cleanup(fast.Close)

	a, b := newAccount(t, st, clk), &docmill.Account{ID: "acct_b", Name: "b", Plan: docmill.PlanPro, CreatedAt: clk.t}
	_, key := docmill.NewAPIKey(b.ID, "k", clk.t)
	if err := st.CreateAccount(t.Context(), b, &key); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		addHook(t, st, a, slow.URL, clk.t)
	}
	addHook(t, st, b, fast.URL, clk.t)
	failedJob(t, st, a, clk.t)
	failedJob(t, st, a, clk.t)                            // six deliveries of A
	poll.Until(t, 20*time.Second, func() (bool, string) { // both workers hold A's deliveries
		mu.Lock()
		n := slowCalls
		mu.Unlock()
		return n >= 2, fmt.Sprintf("A's endpoints got %d requests, want 2", n)
	})
	start := time.Now()
	failedJob(t, st, b, clk.t)
	select {
	case n := <-fastAt:
		t.Logf("B's delivery made after %v, when A's endpoints had had %d requests", time.Since(start).Round(10*time.Millisecond), n)
		if n > 3 {
			t.Fatalf("A's endpoints got %d requests before B's one: A's waiting deliveries went first", n)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("B's delivery not made within 30 s")
	}
}
