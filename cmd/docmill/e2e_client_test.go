package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/docmill/docmill/client"
)

// TestClient tests the Go client against a real server, in this process:
// the jobs it decodes are the server's, and the retries go through a
// failingProxy only where a test must make the network or a proxy fail.
// One server serves all subtests; each has its own account.
func TestClient(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "")
	key := func(t *testing.T, extra ...string) string {
		return newKey(t, srv.DataDir, "custom", append([]string{"--rpm", "600", "--ops", "1000"}, extra...)...)
	}
	t.Run("job round trip", func(t *testing.T) { clientJobRoundTrip(t, srv, key(t)) })
	t.Run("retry 429", func(t *testing.T) { clientRetry429(t, srv, key(t)) })
	t.Run("retry network error", func(t *testing.T) { clientRetryNetworkError(t, srv, key(t)) })
	t.Run("retry bounds", func(t *testing.T) { clientRetryBounds(t, srv, key(t), newKey(t, srv.DataDir, "custom", "--ops", "1")) })
	t.Run("retry server failures", func(t *testing.T) { clientRetryServerFailures(t, srv, key(t)) })
	t.Run("await", func(t *testing.T) { clientAwait(t, srv, key(t)) })
	t.Run("typed params", func(t *testing.T) { clientTypedParams(t, srv, key(t)) })
}

// rawJob is the server's body for GET /v1/jobs/{id}.
func rawJob(t *testing.T, base, key, id string) []byte {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, base+"/v1/jobs/"+id, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, body := send(t, req)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET job %s: %d %s", id, resp.StatusCode, body)
	}
	return body
}

// clientJobRoundTrip: a Job decoded from the server's body encodes back
// to the same bytes (no "result": null), for a done job, a failed one
// and a queued one (on a server with no worker). The client package
// keeps the expired result's shape.
func clientJobRoundTrip(t *testing.T, srv *testServer, key string) {
	c := srv.client(key)
	ctx := t.Context()
	done, _, err := c.Process(ctx, "rotate-pdf", []client.File{pdfFile("a.pdf", onePagePDF())}, client.ProcessOptions{Params: map[string]string{"angle": "90"}})
	if err != nil || done.Status != "done" {
		t.Fatalf("rotate-pdf: %+v, %v", done, err)
	}
	failed, _, err := c.Process(ctx, "rotate-pdf", []client.File{{Name: "bad.pdf", Body: strings.NewReader("%PDF-1.4\ngarbage")}}, client.ProcessOptions{Prefer: "respond-async"})
	if err != nil {
		t.Fatal(err)
	}
	if failed, err = c.Await(ctx, failed.JobID, client.WaitOptions{Timeout: time.Minute}); err != nil || failed.Status != "failed" {
		t.Fatalf("a damaged PDF: %+v, %v; want a failed job", failed, err)
	}
	bodies := [][]byte{rawJob(t, srv.URL, key, done.JobID), rawJob(t, srv.URL, key, failed.JobID)}
	api := startServer(t, "", "--role", "api")
	apiKey := newKey(t, api.DataDir, "free")
	queued, _, err := api.client(apiKey).Process(ctx, "rotate-pdf", []client.File{pdfFile("a.pdf", onePagePDF())}, client.ProcessOptions{Prefer: "respond-async"})
	if err != nil || queued.Status != "queued" {
		t.Fatalf("on a server with no worker: %+v, %v; want a queued job", queued, err)
	}
	bodies = append(bodies, rawJob(t, api.URL, apiKey, queued.JobID))
	for _, body := range bodies {
		var j client.Job
		if err := json.Unmarshal(body, &j); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		enc := json.NewEncoder(&out)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(&j); err != nil {
			t.Fatal(err)
		}
		if out.String() != string(body) {
			t.Errorf("re-encoded:\n%s\nthe server's:\n%s", out.String(), body)
		}
	}
}

// clientRetry429: a 429 with Retry-After: 1 is retried after a second,
// and the retry resends the whole upload with the same Idempotency-Key;
// the server then does the job.
func clientRetry429(t *testing.T, srv *testServer, key string) {
	p := newFailingProxy(t, srv.URL, proxyProblem(429, "rate_limited", "1"))
	c := p.client(key)
	var events []client.RetryEvent
	c.Retry.OnRetry = func(e client.RetryEvent) { events = append(events, e) }
	pdf := onePagePDF()
	var progress []int64
	j, resp, err := c.Process(t.Context(), "rotate-pdf", []client.File{pdfFile("a.pdf", pdf)},
		client.ProcessOptions{Params: map[string]string{"angle": "90"}, Progress: func(sent, total int64) {
			if total != int64(len(pdf)) {
				t.Errorf("progress total %d, want %d", total, len(pdf))
			}
			progress = append(progress, sent)
		}})
	if err != nil || resp.StatusCode != 200 || j.Status != "done" || j.Result == nil || j.Result.Filename != "a-rotated.pdf" {
		t.Fatalf("%+v %v", j, err)
	}
	seen := p.requests()
	if len(seen) != 2 || seen[1].at.Sub(seen[0].at) < time.Second {
		t.Fatalf("%d requests; want 2, a second or more apart", len(seen))
	}
	if seen[0].key == "" || seen[1].key != seen[0].key {
		t.Errorf("idempotency keys %q, %q: want one generated key, sent twice", seen[0].key, seen[1].key)
	}
	for _, r := range seen {
		if !strings.Contains(r.body, string(pdf)) || !strings.Contains(r.body, `name="angle"`) {
			t.Errorf("an attempt's body lacks the file or a param")
		}
	}
	if len(events) != 1 || events[0].Wait != time.Second || events[0].Attempt != 1 {
		t.Errorf("retry events %+v", events)
	}
	if len(progress) == 0 || progress[len(progress)-1] != int64(len(pdf)) {
		t.Errorf("progress %v, want it to end at %d", progress, len(pdf))
	}
}

// clientRetryNetworkError: an upload whose answer is lost to a network
// error after the server took it is sent again with the same
// Idempotency-Key, and the server answers with the first job, charged
// once. A body that cannot be rewound is not sent again.
func clientRetryNetworkError(t *testing.T, srv *testServer, key string) {
	p := newFailingProxy(t, srv.URL)
	p.faults = []fault{p.forwardThenHangUp}
	c := p.client(key)
	j, _, err := c.Process(t.Context(), "rotate-pdf", []client.File{pdfFile("a.pdf", onePagePDF())}, client.ProcessOptions{})
	if err != nil || j.JobID == "" {
		t.Fatalf("%+v %v", j, err)
	}
	seen := p.requests()
	var first client.Job
	if len(seen) != 2 || seen[0].key == "" || seen[0].key != seen[1].key || json.Unmarshal(seen[0].discarded, &first) != nil {
		t.Fatalf("%d requests; keys differ or are missing, or the server did not answer the first", len(seen))
	}
	if first.JobID != j.JobID {
		t.Errorf("the retry made job %s; the lost answer was job %s", j.JobID, first.JobID)
	}
	if u := accountUsage(t.Context(), t, srv.client(key)); u.OperationsUsed != 1 {
		t.Errorf("%d operations charged for one job sent twice", u.OperationsUsed)
	}

	p = newFailingProxy(t, srv.URL, hangUp)
	_, _, err = p.client(key).Process(t.Context(), "rotate-pdf", []client.File{{Name: "a.pdf", Body: io.MultiReader(bytes.NewReader(onePagePDF()))}}, client.ProcessOptions{})
	if n := len(p.requests()); err == nil || n != 1 {
		t.Fatalf("an unseekable upload: %v after %d requests, want the network error after 1", err, n)
	}
}
