package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
	"github.com/docmill/docmill/tools/toolstest"
)

// TestPythonSDK runs the Python SDK's tests (sdk/python/tests, python3 -m
// unittest) against one real server started here: every tool of the
// catalogue through the SDK on the inputs TestToolConformance makes, a
// 500 MB upload streamed under 100 MB of the Python process's peak RSS,
// a retried upload through flakyProxy charged once, a webhook received
// and verified, file_url and export_url; mypy --strict checks the
// package beside them. A failure fails with the Python output.
// DOCMILL_SDK_PYTHON names another interpreter than the system's python3
// (the SDK supports 3.9 and later).
func TestPythonSDK(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every tool through the Python SDK")
	}
	t.Parallel() // its server, key and files are its own; it mostly waits
	toolstest.Need(t, "python3")
	python, _ := sandbox.LookPath("python3")
	if other := os.Getenv("DOCMILL_SDK_PYTHON"); other != "" {
		python = other // another interpreter, such as the oldest the SDK supports
	}
	sdk, err := filepath.Abs(filepath.Join("..", "..", "sdk", "python"))
	if err != nil {
		t.Fatal(err)
	}
	// mypy runs beside the server's tests: both are mostly waiting.
	t.Run("mypy", func(t *testing.T) {
		t.Parallel()
		toolstest.Need(t, "mypy")
		mypy, _ := sandbox.LookPath("mypy")
		cmd := exec.Command(mypy, "--strict", "--python-version", "3.9", "--cache-dir", t.TempDir(), "docmill")
		cmd.Dir = sdk
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("mypy --strict: %v\n%s", err, out)
		}
	})
	t.Run("unittest", func(t *testing.T) {
		t.Parallel()
		start := time.Now()
		dir := t.TempDir()
		s := startServer(t, dir, "--allow-private-urls", "--webhook-retry-schedule", "200ms,1s,2s")
		key := newKey(t, dir, "custom")
		proxy := newFlakyProxy(t, s.URL)
		samples := writeSDKSamples(t, s.URL)
		t.Logf("server and samples ready in %v", time.Since(start).Round(time.Millisecond))
		cmd := exec.Command(python, "-m", "unittest", "discover", "-v", "-s", "tests", "-t", ".")
		cmd.Dir = sdk
		cmd.Env = append(os.Environ(), "DOCMILL_URL="+s.URL, "DOCMILL_KEY="+key, "DOCMILL_PROXY_URL="+proxy.URL,
			"DOCMILL_SDK_SAMPLES="+samples, "DOCMILL_SDK_TMP="+t.TempDir(), "PYTHONDONTWRITEBYTECODE=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("python3 -m unittest in sdk/python: %v\n%s", err, out)
		}
		t.Logf("python3 -m unittest in sdk/python:\n%s", out)
		proxy.check(t)
	})
}

// sdkSample is what the Python test sends a tool: files and params.
type sdkSample struct {
	Files  []string          `json:"files"`
	Params map[string]string `json:"params,omitempty"`
}

// writeSDKSamples writes, for every tool of the server's catalogue, the
// inputs TestToolConformance's base run gives it (conformSample, its
// companions or MinFiles copies, conformParams, the URL tools' page), and
// the pipeline's steps; it returns the path of their JSON, by slug.
// Params are the suite's own (toolstest.Suite.BaseParams) on the
// declarations of the reference registry.
func writeSDKSamples(t *testing.T, base string) string {
	params, values := urlConformInputs(t)
	suite := toolstest.Suite{Params: params, Values: values}
	// The declarations, built without engines, for their params' rules.
	reg, closeReg, err := referenceRegistry()
	if err != nil {
		t.Fatal(err)
	}
	defer closeReg()
	samples := map[string]sdkSample{}
	for _, x := range getJSON(t, base+"/v1/tools", 200)["tools"].([]any) {
		entry := x.(map[string]any)
		tool, ok := reg.Lookup(entry["slug"].(string))
		if !ok {
			t.Fatalf("%s of the catalogue is not in the reference registry", entry["slug"])
		}
		in := sdkSample{Files: []string{}, Params: suite.BaseParams(t, tool)}
		if tool.Slug == docmill.PipelineSlug {
			in.Params = map[string]string{"steps": `[{"tool": "rotate-pdf", "params": {"angle": 90}}, {"tool": "page-numbers"}]`}
		}
		if tool.MinFiles > 0 {
			in.Files = sdkFiles(t, tool, entry["accepts"].([]any))
		}
		samples[tool.Slug] = in
	}
	b, err := json.MarshalIndent(samples, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return toolstest.WriteTemp(t, "sdk-samples.json", b)
}

// sdkFiles is a tool's files: the sample of the first type it accepts
// that conformSample makes, then its companions or more copies up to
// MinFiles (none when no type has a sample: the Python test then fails
// naming the tool).
func sdkFiles(t *testing.T, tool *docmill.Tool, accepts []any) []string {
	var first string
	for _, ct := range accepts {
		if first = conformSample(t, tool, ct.(string)); first != "" {
			break
		}
	}
	if first == "" {
		return nil
	}
	files := []string{first}
	for _, c := range conformCompanions(t, tool) {
		files = append(files, c.Path)
	}
	for len(files) < tool.MinFiles {
		files = append(files, first)
	}
	return files
}

// flakyProxy stands between the Python SDK's retry test and the server:
// it forwards the first process call to the server and then drops the
// connection without its answer (the server did the work, the client
// never heard), answers the second with a proxy's bare 503, and forwards
// the rest; it answers the first GET /v1/account 429 with Retry-After. It notes each attempt's Idempotency-Key and the job id of
// each answer the server gave.
type flakyProxy struct {
	*httptest.Server
	// limitedOnce is set once the first GET /v1/account was answered
	// 429 rate_limited with Retry-After: 1.
	limitedOnce atomic.Bool
	mu          sync.Mutex
	keys        []string
	jobIDs      []string
}

func newFlakyProxy(t *testing.T, upstream string) *flakyProxy {
	u, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	forward := httputil.NewSingleHostReverseProxy(u)
	p := &flakyProxy{}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.URL.Path == "/v1/account" && p.limitedOnce.CompareAndSwap(false, true) {
			w.Header().Set("Content-Type", "application/problem+json")
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = io.WriteString(w, `{"type": "about:blank", "title": "Too Many Requests", "status": 429, "code": "rate_limited", "detail": "flakyProxy", "request_id": "req_flaky"}`)
			return
		}
		if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/process") {
			forward.ServeHTTP(w, r)
			return
		}
		p.mu.Lock()
		p.keys = append(p.keys, r.Header.Get("Idempotency-Key"))
		attempt := len(p.keys)
		p.mu.Unlock()
		if attempt == 2 {
			_, _ = io.Copy(io.Discard, r.Body)
			http.Error(w, "upstream busy", http.StatusServiceUnavailable)
			return
		}
		rec := httptest.NewRecorder()
		forward.ServeHTTP(rec, r)
		var job struct {
			JobID string `json:"job_id"`
		}
		_ = json.Unmarshal(rec.Body.Bytes(), &job)
		p.mu.Lock()
		p.jobIDs = append(p.jobIDs, job.JobID)
		p.mu.Unlock()
		if attempt == 1 {
			panic(http.ErrAbortHandler) // the connection closes without an answer
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	}))
	t.Cleanup(p.Close)
	return p
}

// check holds what the Python test cannot see: its three attempts carried
// one Idempotency-Key, and the server answered the first and the last
// with the same job.
func (p *flakyProxy) check(t *testing.T) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.keys) != 3 || p.keys[0] == "" || p.keys[1] != p.keys[0] || p.keys[2] != p.keys[0] {
		t.Errorf("process attempts through the proxy carried Idempotency-Keys %q, want three equal ones", p.keys)
	}
	if len(p.jobIDs) != 2 || p.jobIDs[0] == "" || p.jobIDs[1] != p.jobIDs[0] {
		t.Errorf("the server answered the forwarded attempts with jobs %q, want one job twice", p.jobIDs)
	}
	t.Logf("retry through the proxy: %d attempts with key %s, job %v", len(p.keys), p.keys[0], p.jobIDs)
}
