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
	"github.com/docmill/docmill/internal/poll"
)

// TestClusterLanes: on a cluster, a worker node started with --lanes
// office and one with --lanes pdf each work only their lane's jobs (their
// /metrics say which tools they finished), and a job of a lane no node
// serves (render: compress-pdf) stays queued.
func TestClusterLanes(t *testing.T) {
	if testing.Short() {
		t.Skip("cluster test in -short mode")
	}
	// Wait-bound; its schema, bucket and nodes are its own.
	t.Parallel()
	c := startCluster(t, 1, 0)
	worker := func(lanes string) *testServer {
		dir := t.TempDir()
		databases.Store(dir, c.dbURL)
		t.Cleanup(func() { databases.Delete(dir) })
		return startChildEnv(t, c.nodeEnv, dir, append([]string{"--role", "worker", "--lanes", lanes, "--office-workers", "1"}, c.nodeArgs...)...)
	}
	office, pdf := worker("office"), worker("pdf")
	key := c.key(t, "pro")
	api := c.apis[0].client(key)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	submit := func(tool string, f client.File) string {
		j, _, err := api.Process(ctx, tool, []client.File{f}, client.ProcessOptions{Prefer: "respond-async"})
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		return j.JobID
	}
	render := submit("compress-pdf", pdfFile("one-page.pdf", onePagePDF()))
	docx := pdfFile("generated.docx", zipOf(t, sampleDocx))
	for _, id := range []string{submit("word-to-pdf", docx), submit("rotate-pdf", pdfFile("one-page.pdf", onePagePDF()))} {
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

// TestFairShareE2E: a Pro account fills the render lane's two workers
// with slow jobs (4-page pdf-to-png) and has three more queued; a Free
// account's job, queued after them at a lower priority, starts at the
// first free worker while the Pro account's three are still queued.
func TestFairShareE2E(t *testing.T) {
	// Its server is its own; it checks the order of its lane's queue,
	// which other tests' load only slows.
	t.Parallel()
	s := startServer(t, "", "--lane-workers", "render=2")
	pro, free := s.client(newKey(t, s.DataDir, "pro")), s.client(newKey(t, s.DataDir, "free"))
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	submit := func(c *client.Client, name, dpi string) string {
		j, _, err := c.Process(ctx, "pdf-to-png", []client.File{file(t, "pdf", name)},
			client.ProcessOptions{Params: map[string]string{"dpi": dpi}, Prefer: "respond-async"})
		if err != nil {
			t.Fatal(err)
		}
		return j.JobID
	}
	status := func(c *client.Client, id string) string {
		j, err := c.Job(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return string(j.Status)
	}
	var floods []string
	for range 5 {
		floods = append(floods, submit(pro, "pdflatex-4-pages.pdf", "150"))
	}
	// Polled every 400 ms, within the plans' rate limits.
	poll.UntilEvery(t, 4*time.Minute, 400*time.Millisecond, func() (bool, string) {
		return status(pro, floods[1]) != "queued", "Pro's second job still queued" // both workers busy with Pro's
	})
	mine := submit(free, "minimal-document.pdf", "72")
	poll.UntilEvery(t, 4*time.Minute, 400*time.Millisecond, func() (bool, string) {
		return status(free, mine) != "queued", "Free's job still queued"
	})
	queued := 0
	for _, id := range floods {
		if status(pro, id) == "queued" {
			queued++
		}
	}
	t.Logf("the Free job started with %d of the Pro account's jobs still queued", queued)
	if queued < 2 {
		t.Fatalf("%d of the Pro account's jobs were queued when the Free job started: it waited for them", queued)
	}
	if j, err := free.Wait(ctx, mine, time.Second); err != nil || j.Status != "done" {
		t.Fatalf("Free job: %+v, %v", j, err)
	}
	resp, err := http.Get(s.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if body, _ := io.ReadAll(resp.Body); !strings.Contains(string(body), `docmill_fair_share_yields_total{queue="render"}`) {
		t.Error("metrics lack the render lane's fair-share yields")
	}
}
