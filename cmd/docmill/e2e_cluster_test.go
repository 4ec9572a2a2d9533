package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/docmill/docmill/tools/toolstest"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/docmill/docmill/blob/s3test"
	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/ratelimit"
	"github.com/docmill/docmill/store/postgres/pgtest"
)

// cluster is docmill's distributed shape on loopback: API and worker
// processes of the real binary sharing a PostgreSQL schema, a versitygw
// bucket and Redis. Each node has a data directory of its own (scratch
// space only: files live in the bucket).
type cluster struct {
	apis, workers []*testServer
	dirs          []string
	dbURL         string
	s3            *s3test.Server
	nodeArgs      []string
	// nodeEnv holds the bucket's credentials, given to each node's
	// environment (s3Env).
	nodeEnv []string
}

// s3Env is the environment that gives a child node the credentials of s,
// as s.Setenv would give them to this process: passed to the child alone,
// it leaves the test free to run in parallel.
func s3Env(s *s3test.Server) []string {
	return []string{"AWS_ACCESS_KEY_ID=" + s.AccessKey, "AWS_SECRET_ACCESS_KEY=" + s.SecretKey,
		"AWS_REGION=" + s3test.Region, "AWS_SESSION_TOKEN=", "AWS_PROFILE="}
}

// redisURL returns the Redis of the tests, or skips (fails on CI) when it
// does not answer.
func redisURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv("DOCMILL_REDIS_URL")
	if u == "" {
		u = "redis://127.0.0.1:6379/0"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	r, err := ratelimit.OpenRedis(ctx, u)
	toolstest.NeedService(t, "Redis at "+u, err)
	_ = r.Close()
	return u
}

// startCluster starts apis API nodes and workers worker nodes; extra flags
// go to every node.
func startCluster(t testing.TB, apis, workers int, extra ...string) *cluster {
	t.Helper()
	c := &cluster{dbURL: pgtest.SchemaURL(t)}
	rURL := redisURL(t)
	c.s3 = s3test.Start(t)
	c.nodeEnv = s3Env(c.s3) // the nodes are children: their environment holds the credentials
	c.nodeArgs = append([]string{"--blob-url", c.s3.URL("docmill"), "--redis-url", rURL,
		"--dev-key=false", "--log-level", "error"}, extra...)
	for i := 0; i < apis+workers; i++ {
		dir := t.TempDir()
		databases.Store(dir, c.dbURL)
		t.Cleanup(func() { databases.Delete(dir) })
		c.dirs = append(c.dirs, dir)
	}
	// Nodes start at once, as in a real roll-out; they migrate in turns.
	var wg sync.WaitGroup
	c.apis, c.workers = make([]*testServer, apis), make([]*testServer, workers)
	for i := range apis + workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i < apis {
				c.apis[i] = startChildEnv(t, c.nodeEnv, c.dirs[i], append([]string{"--role", "api"}, c.nodeArgs...)...)
			} else {
				c.workers[i-apis] = startChildEnv(t, c.nodeEnv, c.dirs[i], append([]string{"--role", "worker"}, c.nodeArgs...)...)
			}
		}()
	}
	wg.Wait()
	if t.Failed() { // a node did not start (its goroutine failed t)
		t.FailNow()
	}
	return c
}

// key creates an account on the cluster's database.
func (c *cluster) key(t testing.TB, plan string, extra ...string) string {
	return newKey(t, c.dirs[0], plan, extra...)
}

// clusterJob is one request of the cluster test's mixed load.
type clusterJob struct {
	tool   string
	files  []string
	params map[string]string
	async  bool
}

var clusterMix = []clusterJob{
	{tool: "rotate-pdf", files: []string{"one-page.pdf"}},
	{tool: "merge-pdf", files: []string{"one-page.pdf", "four-pages.pdf"}, async: true},
	{tool: "pdf-to-text", files: []string{"four-pages.pdf"}},
	{tool: "watermark-pdf", files: []string{"one-page.pdf"}, params: map[string]string{"text": "CLUSTER"}, async: true},
	{tool: "compress-pdf", files: []string{"one-page.pdf"}},
	{tool: "pdf-to-png", files: []string{"one-page.pdf"}, params: map[string]string{"dpi": "72"}, async: true},
}

// TestCluster: two API nodes and two worker nodes take 200 mixed jobs
// (sync and async) round-robin; a worker is killed with SIGKILL halfway.
// Every job ends done, is charged once, and its result downloads from its
// URL (presigned on the bucket). A rate limit holds across both API nodes.
func TestCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("cluster test in -short mode")
	}
	// Its schema, bucket and nodes are its own, the credentials in the
	// nodes' environment only; it bounds no time but its 3-minute waits.
	t.Parallel()
	// Node heartbeats hand back a dead worker's jobs within about 10 s;
	// River's own rescue (--job-timeout plus --rescue-margin) is the net.
	c := startCluster(t, 2, 2, "--job-timeout", "20s", "--rescue-margin", "2s", "--workers", "2")
	key := c.key(t, "custom", "--rpm", "100000", "--in-flight", "1000", "--ops", "100000")
	// Generated PDFs: the test is of the cluster, not of real-world files.
	files := map[string][]byte{"one-page.pdf": onePagePDF(), "four-pages.pdf": fourPagePDF}

	const total = 200
	ids := make([]string, total)
	var sent atomic.Int64
	var wg sync.WaitGroup
	next := make(chan int)
	errs := make(chan error, total)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				m := clusterMix[i%len(clusterMix)]
				var fs []client.File
				for _, f := range m.files {
					fs = append(fs, client.File{Name: f, Body: bytes.NewReader(files[f])})
				}
				opts := client.ProcessOptions{Params: m.params}
				if m.async {
					opts.Prefer = "respond-async"
				}
				j, _, err := c.apis[i%2].client(key).Process(context.Background(), m.tool, fs, opts)
				if err != nil {
					errs <- fmt.Errorf("job %d (%s) on api %d: %w", i, m.tool, i%2, err)
					continue
				}
				ids[i] = j.JobID
				sent.Add(1)
			}
		}()
	}
	for i := range total {
		if i == total/2 {
			c.workers[0].kill(t)
			t.Logf("killed worker 0 after %d jobs", sent.Load())
		}
		next <- i
	}
	close(next)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	// Every job ends done; its result downloads from its (presigned) URL.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	for i, id := range ids {
		if id == "" {
			continue
		}
		j, err := c.apis[(i+1)%2].client(key).Wait(ctx, id, time.Second)
		if err != nil {
			t.Fatalf("job %d: %v", i, err)
		}
		if j.Status != "done" || j.Result == nil {
			t.Errorf("job %d (%s): %s %+v", i, j.Tool, j.Status, j.Error)
			continue
		}
		if !strings.HasPrefix(j.Result.URL, c.s3.Endpoint) {
			t.Errorf("job %d: result URL %q is not on the bucket", i, j.Result.URL)
		}
		body := download(t, j.Result.URL)
		if int64(len(body)) != j.Result.Size {
			t.Errorf("job %d: downloaded %d bytes of %d", i, len(body), j.Result.Size)
		}
	}
	acct, err := c.apis[0].client(key).Account(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if used := acct.Usage.OperationsUsed; int(used) != total {
		t.Errorf("operations charged: %v, want %d (each job once)", used, total)
	}

	// The rate limit is the cluster's: a key allowed 5 requests a minute
	// gets 5 in all across both API nodes, not 5 on each.
	limited := c.key(t, "custom", "--rpm", "5", "--in-flight", "100")
	allowed, refused := 0, 0
	for i := range 12 {
		_, _, err := c.apis[i%2].client(limited).Process(context.Background(), "rotate-pdf",
			[]client.File{{Name: "a.pdf", Body: bytes.NewReader(files["one-page.pdf"])}}, client.ProcessOptions{Prefer: "respond-async"})
		var e *client.Problem
		switch {
		case err == nil:
			allowed++
		case errors.As(err, &e) && e.StatusCode == http.StatusTooManyRequests:
			refused++
		default:
			t.Fatalf("request %d: %v", i, err)
		}
	}
	if allowed != 5 || refused != 7 {
		t.Errorf("with 5 requests a minute across 2 API nodes: %d allowed, %d refused; want 5 and 7", allowed, refused)
	}

	// Every node is ready: database, bucket and Redis answer.
	for _, n := range append(append([]*testServer{}, c.apis...), c.workers[1]) {
		res, err := http.Get(n.URL + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Errorf("%s/readyz: %d", n.URL, res.StatusCode)
		}
	}
}

// TestClusterOutage: when the bucket and Redis go away under a running
// node, it stays up, /readyz says 503 naming them, and a request fails
// with a clean problem instead of a crash; when they are back, the node is
// ready again and jobs are done. The outages are TCP proxies, cut and
// restored on the same ports.
func TestClusterOutage(t *testing.T) {
	if testing.Short() {
		t.Skip("outage test in -short mode")
	}
	// Wait-bound (the outages); its schema, bucket, proxies and node are
	// its own, the credentials in the node's environment only.
	t.Parallel()
	rURL := redisURL(t)
	s3 := s3test.Start(t)
	bucket := s3.URL("docmill")
	ep, err := url.Parse(s3.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	s3Proxy := newProxy(t, ep.Host)
	bucket = strings.Replace(bucket, url.QueryEscape(s3.Endpoint), url.QueryEscape("http://"+s3Proxy.addr), 1)
	if !strings.Contains(bucket, url.QueryEscape(s3Proxy.addr)) {
		t.Fatalf("bucket URL %q does not name the endpoint %s", bucket, s3.Endpoint)
	}
	ru, err := url.Parse(rURL)
	if err != nil {
		t.Fatal(err)
	}
	redisProxy := newProxy(t, ru.Host)
	ru.Host = redisProxy.addr

	dir := t.TempDir()
	databases.Store(dir, pgtest.SchemaURL(t))
	t.Cleanup(func() { databases.Delete(dir) })
	s := startChildEnv(t, s3Env(s3), dir, "--blob-url", bucket, "--redis-url", ru.String())
	c := s.client(s.DevKey)
	checks := func() (int, map[string]string) {
		res, err := http.Get(s.URL + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var body struct{ Checks map[string]string }
		_ = json.NewDecoder(res.Body).Decode(&body)
		return res.StatusCode, body.Checks
	}
	if code, ch := checks(); code != 200 || ch["blob"] != "ok" || ch["redis"] != "ok" {
		t.Fatalf("readyz before the outage: %d %v", code, ch)
	}

	s3Proxy.down()
	redisProxy.down()
	eventually(t, 20*time.Second, "readyz to say 503, blob and redis unavailable", func() bool {
		code, ch := checks()
		return code == 503 && ch["blob"] == "unavailable" && ch["redis"] == "unavailable" && ch["database"] == "ok"
	})
	_, _, err = c.Process(context.Background(), "rotate-pdf", []client.File{pdfFile("one-page.pdf", onePagePDF())}, client.ProcessOptions{})
	var e *client.Problem
	if !errors.As(err, &e) || e.StatusCode != 503 || e.Code != "service_unavailable" || e.Header.Get("Retry-After") == "" ||
		e.Header.Get("Content-Type") != "application/problem+json" || strings.Contains(e.Detail, "127.0.0.1") {
		t.Fatalf("process with the bucket down: %v", err)
	}

	s3Proxy.up(t)
	redisProxy.up(t)
	eventually(t, 30*time.Second, "readyz to say 200 again", func() bool {
		code, _ := checks()
		return code == 200
	})
	j, _, err := c.Process(context.Background(), "rotate-pdf", []client.File{pdfFile("one-page.pdf", onePagePDF())}, client.ProcessOptions{Prefer: "wait=30"})
	if err != nil || j.Status != "done" {
		t.Fatalf("process after the outage: %+v %v", j, err)
	}
	if res, err := http.Get(j.Result.URL); err != nil || res.StatusCode != 200 {
		t.Fatalf("download after the outage: %v %v", res, err)
	}
}
