package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docmill/docmill/client"
)

// runCLIErr runs a docmill command in-process and returns its stdout and
// error.
func runCLIErr(args ...string) (string, error) {
	var out bytes.Buffer
	err := run(context.Background(), args, func(string) string { return "" }, nil, &out, &bytes.Buffer{})
	return out.String(), err
}

// TestJobsCLI drives `docmill jobs list|get|wait|cancel` against a server,
// checking what each prints.
func TestJobsCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	t.Parallel() // its server, directory and long job are its own; it bounds no time
	dir := t.TempDir()
	s := startServer(t, dir, "--allow-private-urls") // startBlocker's page is on loopback
	key := listKey(t, dir)
	c := s.client(key)
	ctx := context.Background()
	pdf := fourPagePDF
	done := makeJobs(t, c, pdf, 3) // extract-pages, then two rotate-pdf
	scan, _, err := c.Process(ctx, "ocr-pdf", []client.File{{Name: "scan.png", Body: bytes.NewReader(ocrScan(t))}}, client.ProcessOptions{Params: map[string]string{"lang": "eng"}})
	if err != nil {
		t.Fatal(err)
	}
	long := startBlocker(t, c)
	conn := []string{"--url", s.URL, "--key", key}
	jobs := func(args ...string) []string { return append(append([]string{"jobs"}, args...), conn...) }

	// The table: a header and a line a job, newest first.
	out := runCLI(t, jobs("list")...)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 6 || !strings.HasPrefix(lines[0], "JOB") || !strings.Contains(lines[0], "STATUS") {
		t.Fatalf("jobs list:\n%s", out)
	}
	if !strings.HasPrefix(lines[1], long.JobID) || !strings.HasPrefix(lines[2], scan.JobID) {
		t.Errorf("jobs list is not newest first:\n%s", out)
	}
	for _, id := range done {
		if !strings.Contains(out, id) {
			t.Errorf("jobs list lacks %s:\n%s", id, out)
		}
	}
	if !strings.Contains(out, "extract-pages") || !strings.Contains(out, "(until ") {
		t.Errorf("jobs list lacks a tool or a result's expiry:\n%s", out)
	}

	// Flags before or after the arguments; pages and --all.
	if out := runCLI(t, jobs("list", "--limit", "2")...); strings.Count(out, "\n") != 3 {
		t.Errorf("jobs list --limit 2:\n%s", out)
	}
	var listed []client.Job
	if err := json.Unmarshal([]byte(runCLI(t, jobs("list", "--all", "--limit", "2", "--json")...)), &listed); err != nil || len(listed) != 5 {
		t.Fatalf("jobs list --all --json: %d jobs, %v", len(listed), err)
	}
	if out := runCLI(t, jobs("list", "--tool", "rotate-pdf")...); strings.Count(out, "rotate-pdf") != 2 {
		t.Errorf("jobs list --tool rotate-pdf:\n%s", out)
	}

	// get, wait and cancel print the job record.
	var j client.Job
	if err := json.Unmarshal([]byte(runCLI(t, "jobs", "get", done[1], "--url", s.URL, "--key", key)), &j); err != nil || j.JobID != done[1] || j.Status != "done" {
		t.Fatalf("jobs get: %+v %v", j, err)
	}
	if err := json.Unmarshal([]byte(runCLI(t, jobs("wait", scan.JobID, "--timeout", "3m")...)), &j); err != nil || j.Status != "done" || j.Result == nil {
		t.Fatalf("jobs wait: %+v %v", j, err)
	}
	out, err = runCLIErr(jobs("wait", "--timeout", "1s", long.JobID)...)
	if err == nil || !strings.Contains(err.Error(), "still") || !strings.Contains(out, long.JobID) {
		t.Errorf("jobs wait --timeout 1s on a long job: %v\n%s", err, out)
	}
	if err := json.Unmarshal([]byte(runCLI(t, jobs("cancel", long.JobID)...)), &j); err != nil || j.Status != "canceled" {
		t.Fatalf("jobs cancel: %+v %v", j, err)
	}
	if out := runCLI(t, jobs("list", "--status", "canceled")...); !strings.Contains(out, long.JobID) || strings.Count(out, "\n") != 2 {
		t.Errorf("jobs list --status canceled:\n%s", out)
	}
	if _, err := runCLIErr(jobs("wait", long.JobID)...); err == nil || !strings.Contains(err.Error(), "canceled") {
		t.Errorf("jobs wait on a canceled job: %v", err)
	}

	// process on a long tool waits for the job by long polls, then saves it.
	scanPath, outPath := filepath.Join(t.TempDir(), "scan.png"), filepath.Join(t.TempDir(), "scan.pdf")
	if err := os.WriteFile(scanPath, ocrScan(t), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(runCLI(t, "process", "--json", "--url", s.URL, "--key", key, "--out", outPath, "-p", "lang=eng", "ocr-pdf", scanPath)), &j); err != nil || j.Status != "done" {
		t.Fatalf("process ocr-pdf: %+v %v", j, err)
	}
	if b, err := os.ReadFile(outPath); err != nil || !bytes.HasPrefix(b, []byte("%PDF-")) {
		t.Fatalf("process ocr-pdf saved %d bytes: %v", len(b), err)
	}

	// Mistakes are errors, the server's with its code.
	for _, args := range [][]string{
		jobs("list", "--status", "finished"),
		jobs("get", "job_aaaaaaaaaaaaaaaaaaaaaaaaaa"),
		jobs("get"),
		jobs("frobnicate"),
		{"jobs"},
	} {
		if _, err := runCLIErr(args...); err == nil {
			t.Errorf("docmill %s succeeded", strings.Join(args, " "))
		}
	}
	if _, err := runCLIErr(jobs("list", "--status", "finished")...); err == nil || !strings.Contains(err.Error(), "invalid_parameter") {
		t.Errorf("bad status: %v", err)
	}
}
