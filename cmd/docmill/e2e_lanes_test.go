package main

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/docmill/docmill/client"
)

// TestClusterLanes: on a cluster, a worker node started with --lanes
// office and one with --lanes pdf each work only their lane's jobs (their
// /metrics say which tools they finished), and a job of a lane no node
// serves (render: compress-pdf) stays queued.
func TestClusterLanes(t *testing.T) {
	if testing.Short() {
		t.Skip("cluster test in -short mode")
	}
	c := startCluster(t, 1, 0)
	worker := func(lanes string) *testServer {
		dir := t.TempDir()
		databases.Store(dir, c.dbURL)
		t.Cleanup(func() { databases.Delete(dir) })
		return startChild(t, dir, append([]string{"--role", "worker", "--lanes", lanes, "--office-workers", "1"}, c.nodeArgs...)...)
	}
	office, pdf := worker("office"), worker("pdf")
	key := c.key(t, "pro")
	api := c.apis[0].client(key)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	submit := func(tool, kind, name string) string {
		j, _, err := api.Process(ctx, tool, []client.File{file(t, kind, name)}, client.ProcessOptions{Prefer: "respond-async"})
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		return j.JobID
	}
	render := submit("compress-pdf", "pdf", "minimal-document.pdf")
	for _, id := range []string{submit("word-to-pdf", "office", "test.docx"), submit("rotate-pdf", "pdf", "minimal-document.pdf")} {
		j, err := api.Wait(ctx, id, time.Second)
		if err != nil || j.Status != "done" {
			t.Fatalf("job %s: %+v, %v", id, j, err)
		}
	}
	if got := finishedTools(t, office.URL); len(got) != 1 || got["word-to-pdf"] != 1 {
		t.Errorf("office node finished %v, want word-to-pdf only", got)
	}
	if got := finishedTools(t, pdf.URL); len(got) != 1 || got["rotate-pdf"] != 1 {
		t.Errorf("pdf node finished %v, want rotate-pdf only", got)
	}
	if j, err := api.Job(ctx, render); err != nil || j.Status != "queued" {
		t.Errorf("compress-pdf with no render node: %+v, %v; want queued", j, err)
	}
}

// finishedTools is, by tool, how many jobs the node at base finished
// (docmill_jobs_finished_total).
func finishedTools(t *testing.T, base string) map[string]float64 {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	out := map[string]float64{}
	tool := regexp.MustCompile(`tool="([^"]+)"`)
	for _, line := range strings.Split(string(body), "\n") {
		name, value, ok := strings.Cut(line, " ")
		if !ok || !strings.HasPrefix(name, "docmill_jobs_finished_total{") {
			continue
		}
		if m := tool.FindStringSubmatch(name); m != nil {
			v, _ := strconv.ParseFloat(value, 64)
			out[m[1]] += v
		}
	}
	return out
}
