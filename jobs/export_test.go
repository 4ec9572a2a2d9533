package jobs_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/jobs"
	"github.com/docmill/docmill/outbound"
)

// exportTool writes a fixed result, text/plain.
var exportTool = &docmill.Tool{
	Slug: "echo", MinFiles: 1, MaxFiles: 1, Accepts: []string{"text/plain"},
	Run: func(_ context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
		p := filepath.Join(in.WorkDir, "out.txt")
		if err := os.WriteFile(p, []byte("the result"), 0o600); err != nil {
			return nil, err
		}
		return &docmill.RunOutput{Path: p, Filename: "out.txt", ContentType: "text/plain"}, nil
	},
}

// failingTool refuses every input.
var failingTool = &docmill.Tool{
	Slug: "fail", MinFiles: 1, MaxFiles: 1, Accepts: []string{"text/plain"},
	Run: func(context.Context, *docmill.RunInput) (*docmill.RunOutput, error) {
		return nil, docmill.InvalidDocument(nil, "Not a document.")
	},
}

// TestExport runs jobs with an export through a working queue: retried
// on 5xx and 429 on the schedule, final on 4xx, a redirect or a refused
// address; the record keeps the URL without its query once the export
// ended, and keep_result=false deletes the result once exported.
func TestExport(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	answers := map[string][]int{}
	got := map[string][]string{}
	dst := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		got[r.URL.Path] = append(got[r.URL.Path], r.Method+" "+r.Header.Get("Content-Type")+" "+string(b))
		codes := answers[r.URL.Path]
		code := codes[min(len(got[r.URL.Path]), len(codes))-1]
		if code == http.StatusFound {
			w.Header().Set("Location", "/elsewhere")
		}
		w.WriteHeader(code)
	}))
	defer dst.Close()
	tlsDst := httptest.NewTLSServer(http.NotFoundHandler())
	defer tlsDst.Close()

	st, bucket := openData(t)
	clk := &clock{t: time.Now()}
	newQueue(t, st, bucket, clk) // River's tables
	lax := outbound.New(outbound.Config{AllowPrivate: true, Timeout: -1})
	strict := outbound.New(outbound.Config{Timeout: -1})
	acct := newAccount(t, st, clk)
	run := func(t *testing.T, client *http.Client, e *docmill.Export, tool ...string) *docmill.Job {
		t.Helper()
		q := startWorkers(t, st, bucket, jobs.Config{
			Registry: docmill.NewRegistry(exportTool, failingTool),
			Exports:  jobs.ExportConfig{Client: client, Schedule: []time.Duration{10 * time.Millisecond, 10 * time.Millisecond}},
		})
		defer q.Stop(context.Background())
		return finishedJob(t, st, bucket, acct, append(tool, "echo")[0], e)
	}
	tests := []struct {
		name     string
		codes    []int
		client   *http.Client
		url      string
		status   docmill.ExportStatus
		attempts int
		reason   string
	}{
		{"retried to success", []int{503, 429, 200}, lax.HTTPClient(), dst.URL + "/a?sig=1", docmill.ExportDone, 3, ""},
		{"5xx every time", []int{500}, lax.HTTPClient(), dst.URL + "/b?sig=1", docmill.ExportFailed, 3, "HTTP 500"},
		{"4xx is final", []int{403}, lax.HTTPClient(), dst.URL + "/c?sig=1", docmill.ExportFailed, 1, "HTTP 403"},
		{"redirect is final", []int{302}, lax.HTTPClient(), dst.URL + "/d?sig=1", docmill.ExportFailed, 1, "redirects are not followed"},
		{"refused address", nil, strict.HTTPClient(), tlsDst.URL + "/e?sig=1", docmill.ExportFailed, 1, "private"},
		{"no client", nil, nil, dst.URL + "/f?sig=1", docmill.ExportFailed, 1, "does not export"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mu.Lock()
			answers[strings.Split(tt.url[len(dst.URL):], "?")[0]] = tt.codes
			mu.Unlock()
			j := run(t, tt.client, &docmill.Export{URL: tt.url, KeepResult: true, Status: docmill.ExportPending})
			e := j.Export
			if e.Status != tt.status || e.Attempts != tt.attempts || !strings.Contains(e.Reason, tt.reason) {
				t.Errorf("export %+v, want %s after %d attempts, reason containing %q", e, tt.status, tt.attempts, tt.reason)
			}
			if strings.Contains(e.URL, "sig=") {
				t.Errorf("the record keeps the signature: %s", e.URL)
			}
			if j.Result == nil || j.Result.DeletedAt != nil {
				t.Errorf("result %+v, want it kept", j.Result)
			}
		})
	}
	mu.Lock()
	if g := got["/a"]; len(g) != 3 || g[2] != "PUT text/plain the result" {
		t.Errorf("/a got %q", g)
	}
	mu.Unlock()

	t.Run("job failed", func(t *testing.T) {
		j := run(t, lax.HTTPClient(), &docmill.Export{URL: dst.URL + "/h?sig=1", KeepResult: true, Status: docmill.ExportPending}, "fail")
		if j.Status != docmill.StatusFailed || j.Export.Status != docmill.ExportFailed || strings.Contains(j.Export.URL, "sig=") {
			t.Fatalf("job %s, export %+v; want failed, the export failed without its signature", j.Status, j.Export)
		}
	})
	t.Run("keep_result=false", func(t *testing.T) {
		mu.Lock()
		answers["/g"] = []int{200}
		mu.Unlock()
		j := run(t, lax.HTTPClient(), &docmill.Export{URL: dst.URL + "/g", KeepResult: false, Status: docmill.ExportPending})
		if j.Export.Status != docmill.ExportDone || j.Result.DeletedAt == nil {
			t.Fatalf("export %+v, result %+v; want done and the result deleted", j.Export, j.Result)
		}
		if _, err := bucket.Attributes(t.Context(), j.Result.Key); err == nil {
			t.Error("the result file is still there")
		}
	})
}
