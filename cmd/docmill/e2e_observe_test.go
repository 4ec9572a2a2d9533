package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/internal/poll"
	"github.com/docmill/docmill/internal/testserver"
)

// jsonLog collects the JSON log lines a server writes.
type jsonLog struct {
	mu    sync.Mutex
	lines []map[string]any
	bad   []string
}

func (l *jsonLog) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		var m map[string]any
		l.mu.Lock()
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			l.bad = append(l.bad, sc.Text())
		} else {
			l.lines = append(l.lines, m)
		}
		l.mu.Unlock()
	}
}

// find returns the lines whose msg is msg and whose fields match want.
func (l *jsonLog) find(msg string, want map[string]any) []map[string]any {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
next:
	for _, m := range l.lines {
		if m["msg"] != msg {
			continue
		}
		for k, v := range want {
			if m[k] != v {
				continue next
			}
		}
		out = append(out, m)
	}
	return out
}

// TestJSONLogsAndMetricsAddr: with --log-format json every line is a JSON
// object; a process call's request line names its account, tool and job,
// and the job's own lines (started, finished) name the same job; a refused
// upload's line carries its error code. With --metrics-addr the metrics
// leave the API's port for their own, with the build and the engine runs.
func TestJSONLogsAndMetricsAddr(t *testing.T) {
	t.Parallel()
	metricsAddr := testserver.ClosedAddr(t)

	dir := t.TempDir()
	pr, pw := io.Pipe()
	logs := &jsonLog{}
	go logs.read(pr)
	outR, outW := io.Pipe()
	out := newLineLog(outR)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--data-dir", dir, "--log-format", "json", "--metrics-addr", metricsAddr},
			func(string) string { return "" }, nil, consoleStandIn{outW}, pw)
		outW.Close()
		pw.Close()
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	s := &testServer{DataDir: dir, out: out, URL: out.await(t, servingRE, 30*time.Second)}
	key := s.findDevKey()
	c := s.client(key)

	j, _, err := c.Process(context.Background(), "compress-pdf", []client.File{pdfFile("one-page.pdf", onePagePDF())}, client.ProcessOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = c.Process(context.Background(), "rotate-pdf", []client.File{{Name: "x.pdf", Body: strings.NewReader("not a pdf")}}, client.ProcessOptions{})
	apiError(t, err, 400, "unsupported_file_type")

	var reqLine map[string]any
	poll.Until(t, 5*time.Second, func() (bool, string) {
		if l := logs.find("request", map[string]any{"job_id": j.JobID}); len(l) > 0 {
			reqLine = l[0]
		}
		if reqLine != nil && len(logs.find("job finished", map[string]any{"job_id": j.JobID})) > 0 {
			return true, ""
		}
		logs.mu.Lock()
		defer logs.mu.Unlock()
		return false, fmt.Sprintf("no request or job lines for %s in %v", j.JobID, logs.lines)
	})
	if reqLine["tool"] != "compress-pdf" || reqLine["status"] != float64(200) || reqLine["account_id"] == "" || reqLine["account_id"] == nil ||
		!strings.HasPrefix(reqLine["request_id"].(string), "req_") || reqLine["bytes_in"].(float64) < 500 || reqLine["bytes_out"].(float64) < 100 {
		t.Errorf("request line %v", reqLine)
	}
	if l := logs.find("job started", map[string]any{"job_id": j.JobID, "tool": "compress-pdf"}); len(l) != 1 {
		t.Errorf("job started lines %v", l)
	}
	if l := logs.find("job finished", map[string]any{"job_id": j.JobID, "status": "done"}); len(l) != 1 {
		t.Errorf("job finished lines %v", l)
	}
	if l := logs.find("request", map[string]any{"tool": "rotate-pdf", "code": "unsupported_file_type", "status": float64(400)}); len(l) != 1 {
		t.Errorf("refused upload's request line: %v", l)
	}
	logs.mu.Lock()
	if len(logs.bad) > 0 {
		t.Errorf("lines that are not JSON: %q", logs.bad)
	}
	logs.mu.Unlock()

	resp, err := http.Get(s.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Errorf("API port's /metrics with --metrics-addr: %d", resp.StatusCode)
	}
	resp, err = http.Get("http://" + metricsAddr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{
		`docmill_build_info{build_time=`,
		`docmill_engine_runs_total{engine="gs",outcome="ok"} 1`,
		`docmill_engine_runs_total{engine="qpdf",outcome="ok"} 1`,
		`docmill_engine_run_seconds_count{engine="gs"} 1`,
		`docmill_jobs_finished_total{code="",status="done",tool="compress-pdf"} 1`,
		`docmill_http_request_body_bytes_total{route="POST /v1/{tool}/process"}`,
		`docmill_pool_busy{pool="libreoffice"} 0`,
		`docmill_pool_size{pool="chromium-tabs"} `,
		`docmill_pool_size{pool="pdf-helper"} `,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

// TestEnvironmentValues: a repeatable flag takes comma-separated values
// from its variable, and a bad value is refused naming the variable, the
// value and what the flag wants.
func TestEnvironmentValues(t *testing.T) {
	t.Parallel()
	tests := []struct {
		env  map[string]string
		want string // "" for success
	}{
		{map[string]string{"DOCMILL_TOOL_TIMEOUT": "ocr-pdf=20m, compress-pdf=1m"}, ""},
		{map[string]string{"DOCMILL_WORKERS": "many"}, `DOCMILL_WORKERS="many": --workers wants a whole number`},
		{map[string]string{"DOCMILL_SYNC_BUDGET": "10"}, `DOCMILL_SYNC_BUDGET="10": --sync-budget wants a duration such as 90s, 5m or 1h30m`},
		{map[string]string{"DOCMILL_DEV_KEY": "maybe"}, `DOCMILL_DEV_KEY="maybe": --dev-key wants true or false`},
		{map[string]string{"DOCMILL_TOOL_TIMEOUT": "ocr-pdf=20m,oops"}, `DOCMILL_TOOL_TIMEOUT="ocr-pdf=20m,oops": --tool-timeout: want slug=duration`},
		{map[string]string{"DOCMILL_LOG_FORMAT": "xml"}, `--log-format "xml": want text or json`},
	}
	for _, tt := range tests {
		env := &environment{getenv: func(k string) string { return tt.env[k] }, stderr: io.Discard}
		f, _, err := parseServe(env, nil)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%v: %v", tt.env, err)
		case tt.want == "" && (f.toolTimeouts["ocr-pdf"] != 20*time.Minute || f.toolTimeouts["compress-pdf"] != time.Minute):
			t.Errorf("%v: tool timeouts %v", tt.env, f.toolTimeouts)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%v: error %v, want %q", tt.env, err, tt.want)
		}
	}
}
