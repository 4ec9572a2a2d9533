package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/tools/toolstest"
)

func getJSON(t *testing.T, u string, status int) map[string]any {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	if resp.StatusCode != status || resp.Header.Get("X-Request-Id") == "" {
		t.Fatalf("GET %s: %d, want %d", u, resp.StatusCode, status)
	}
	return out
}

func TestCatalogueHealthMetrics(t *testing.T) {
	t.Parallel()
	s := startServer(t, "")
	tools := getJSON(t, s.URL+"/v1/tools", 200)["tools"].([]any)
	slugs := map[string]map[string]any{}
	for _, x := range tools {
		m := x.(map[string]any)
		slugs[m["slug"].(string)] = m
	}
	rot := slugs["rotate-pdf"]
	if rot == nil || slugs["merge-pdf"] == nil || rot["available"] != true || rot["lane"] != "pdf" {
		t.Fatalf("catalogue %v", slugs)
	}
	params := rot["params"].([]any)
	angle := params[0].(map[string]any)
	if angle["name"] != "angle" || angle["default"] != "90" || len(angle["enum"].([]any)) != 3 {
		t.Fatalf("angle param %v", angle)
	}
	if m := getJSON(t, s.URL+"/v1/tools/word-to-pdf", 200); m["lane"] != "office" {
		t.Fatalf("word-to-pdf's lane %v", m["lane"])
	}
	if m := getJSON(t, s.URL+"/v1/tools/merge-pdf", 200); m["min_files"].(float64) != 2 || m["max_files"].(float64) != 50 {
		t.Fatalf("merge %v", m)
	}
	if m := getJSON(t, s.URL+"/v1/tools/nope", 404); m["code"] != "unknown_tool" {
		t.Fatalf("unknown tool %v", m)
	}
	doc := getJSON(t, s.URL+"/v1/openapi.json", 200)
	if doc["openapi"] != "3.1.0" || doc["paths"].(map[string]any)["/v1/rotate-pdf/process"] == nil {
		t.Fatalf("openapi %v", doc["paths"])
	}
	if getJSON(t, s.URL+"/healthz", 200)["status"] != "ok" || getJSON(t, s.URL+"/readyz", 200)["status"] != "ready" {
		t.Fatal("health")
	}
	if m := getJSON(t, s.URL+"/nowhere", 404); m["code"] != "not_found" {
		t.Fatalf("unknown route %v", m)
	}
	req, _ := http.NewRequest(http.MethodPut, s.URL+"/v1/tools", nil)
	resp, _ := http.DefaultClient.Do(req)
	resp.Body.Close()
	if resp.StatusCode != 405 || resp.Header.Get("Content-Type") != "application/problem+json" {
		t.Fatalf("PUT /v1/tools: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}

	if _, _, err := s.client(s.DevKey).Process(context.Background(), "rotate-pdf", []client.File{pdfFile("one-page.pdf", onePagePDF())}, client.ProcessOptions{}); err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(s.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{
		`docmill_http_requests_total{route="POST /v1/{tool}/process",status="200"} 1`,
		`docmill_http_request_duration_seconds_bucket{route="POST /v1/{tool}/process",status="200"`,
		`docmill_job_duration_seconds_count{status="done",tool="rotate-pdf"} 1`,
		`docmill_queue_depth{status="queued"} 0`,
		`docmill_job_queue_wait_seconds_count 1`,
		`docmill_lane_wait_seconds_count{lane="pdf"} 1`,
		`docmill_lane_queue_depth{lane="office"} 0`,
		`docmill_lane_running{lane="pdf"}`, // the job may still be River's running one
		`docmill_lane_node_running{lane="pdf"}`,
		`docmill_lane_workers{lane="office"}`,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

func TestAccount(t *testing.T) {
	t.Parallel()
	s := startServer(t, "")
	a, err := s.client(s.DevKey).Account(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	l, u := a.Limits, a.Usage
	if a.Plan != "pro" || l.OperationsPerMonth != 10000 || l.RequestsPerMinute != 120 ||
		l.JobsInFlight != 8 || u.ResetsAt.IsZero() || u.OperationsUsed != 0 {
		t.Fatalf("account %v", a)
	}
}

// TestProcessCLI: `docmill process` uploads, waits and saves the result;
// `docmill tools` lists the catalogue.
func TestProcessCLI(t *testing.T) {
	t.Parallel()
	s := startServer(t, "")
	out := filepath.Join(t.TempDir(), "r.pdf")
	runCLI(t, "process", "--url", s.URL, "--key", s.DevKey, "--out", out, "-p", "angle=180", "rotate-pdf", toolstest.WriteTemp(t, "one-page.pdf", onePagePDF()))
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if rots := pdfPages(t, b); len(rots) != 1 || rots[0] != 180 {
		t.Fatalf("rotations %v", rots)
	}
	if list := runCLI(t, "tools", "--url", s.URL); !strings.Contains(list, "rotate-pdf") || !strings.Contains(list, "angle") {
		t.Fatalf("tools: %s", list)
	}
}

// TestToolTimeout: --tool-timeout bounds one tool's runs; a run past it
// fails as processing_timeout (422), with a message naming the limit (the
// work budget, within the tool's timeout).
func TestToolTimeout(t *testing.T) {
	t.Parallel()
	s := startServer(t, "", "--tool-timeout", "pdf-to-jpg=1ms")
	_, _, err := s.client(s.DevKey).Process(context.Background(), "pdf-to-jpg", []client.File{pdfFile("four-pages.pdf", fourPagePDF)}, client.ProcessOptions{})
	apiErrorDetail(t, err, 422, "processing_timeout", "work budget of 1ms")
	var out strings.Builder
	err = run(context.Background(), []string{"serve", "--tool-timeout", "nope=1s", "--data-dir", t.TempDir()}, func(string) string { return "" }, nil, &out, &out)
	if err == nil || !strings.Contains(err.Error(), `no tool "nope"`) {
		t.Fatalf("unknown tool: %v", err)
	}
}
