package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// stamped is docmill built once per test binary with the Makefile's kind
// of -ldflags stamp, for the tests that run it as a real program
// (TestBuildStamp, TestWalkthrough): each link of docmill is seconds of
// CPU. TestMain removes its directory.
var stamped struct {
	once     sync.Once
	dir, bin string
	err      error
}

func stampedBinary(t testing.TB) string {
	t.Helper()
	stamped.once.Do(func() {
		if stamped.dir, stamped.err = os.MkdirTemp("", "docmill-bin-"); stamped.err != nil {
			return
		}
		stamped.bin = filepath.Join(stamped.dir, "docmill")
		stamp := "-X main.version=v0.0.0-stamp -X main.revision=0123456789abcdef -X main.buildTime=2026-11-27T12:00:00Z"
		if out, err := exec.Command("go", "build", "-ldflags", stamp, "-o", stamped.bin, ".").CombinedOutput(); err != nil {
			stamped.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if stamped.err != nil {
		t.Fatal(stamped.err)
	}
	return stamped.bin
}

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
	bin := stampedBinary(t)
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
