package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestBuildStamp: a binary built with the Makefile's -ldflags stamp shows
// its version, revision and build time in docmill version, /healthz and
// docmill_build_info; and exits with the documented codes as a real
// process (64 for a usage error).
func TestBuildStamp(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	// Its binary, data directory and server are its own; no time is
	// bounded.
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "docmill")
	stamp := "-X main.version=v0.0.0-stamp -X main.revision=0123456789abcdef -X main.buildTime=2026-11-27T12:00:00Z"
	if out, err := exec.Command("go", "build", "-ldflags", stamp, "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version", "--json").Output()
	var b build
	if err != nil || json.Unmarshal(out, &b) != nil || b.Version != "v0.0.0-stamp" || b.Revision != "0123456789abcdef" || b.BuildTime != "2026-11-27T12:00:00Z" {
		t.Fatalf("docmill version --json: %v %s", err, out)
	}
	var exit *exec.ExitError
	if err := exec.Command(bin, "jobs", "get").Run(); !errors.As(err, &exit) || exit.ExitCode() != exitUsage {
		t.Errorf("docmill jobs get (no id): %v, want exit code %d", err, exitUsage)
	}

	srv := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--data-dir", t.TempDir(), "--log-level", "warn")
	stdout, _ := srv.StdoutPipe()
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = srv.Process.Signal(syscall.SIGTERM); _ = srv.Wait() }()
	url := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := servingRE.FindStringSubmatch(sc.Text()); m != nil {
				url <- m[1]
			}
		}
	}()
	var base string
	select {
	case base = <-url:
	case <-time.After(60 * time.Second):
		t.Fatal("the stamped server did not start")
	}
	get := func(path string) string {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return string(body)
	}
	var health struct {
		Status string `json:"status"`
		build
	}
	if h := get("/healthz"); json.Unmarshal([]byte(h), &health) != nil || health.Status != "ok" ||
		health.Version != "v0.0.0-stamp" || health.Revision != "0123456789abcdef" || health.BuildTime != "2026-11-27T12:00:00Z" {
		t.Errorf("/healthz: %s", h)
	}
	metric := ""
	for _, l := range strings.Split(get("/metrics"), "\n") {
		if strings.HasPrefix(l, "docmill_build_info{") {
			metric = l
		}
	}
	for _, want := range []string{`version="v0.0.0-stamp"`, `revision="0123456789abcdef"`, `build_time="2026-11-27T12:00:00Z"`} {
		if !strings.Contains(metric, want) {
			t.Errorf("docmill_build_info lacks %s: %q", want, metric)
		}
	}
}
