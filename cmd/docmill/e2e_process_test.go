package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/internal/poll"
	"github.com/docmill/docmill/tools/toolstest"
)

func TestRotateSync(t *testing.T) { testRotateSync(t, sqliteDir) }

func testRotateSync(t *testing.T, newDir dataDirFunc) {
	s := startServer(t, newDir(t))
	c := s.client(s.DevKey)
	ctx := context.Background()
	before := pdfPages(t, fourPagePDF)

	j, resp, err := c.Process(ctx, "rotate-pdf", []client.File{pdfFile("four-pages.pdf", fourPagePDF)},
		client.ProcessOptions{Params: map[string]string{"angle": "90", "pages": "1-2,4"}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || j.Status != "done" || j.Error != nil {
		t.Fatalf("want 200 done, got %d %+v", resp.StatusCode, j)
	}
	if !strings.HasPrefix(j.JobID, "job_") || len(j.JobID) != 30 || resp.Header.Get("X-Request-Id") == "" {
		t.Fatalf("job id %q / request id %q", j.JobID, resp.Header.Get("X-Request-Id"))
	}
	r := j.Result
	if r == nil || r.Filename != "four-pages-rotated.pdf" || r.ContentType != "application/pdf" || r.Size == 0 {
		t.Fatalf("result %+v", r)
	}
	if !strings.HasPrefix(r.URL, s.URL+"/files/"+j.JobID+"/") || r.ExpiresAt.Before(time.Now().Add(23*time.Hour)) {
		t.Fatalf("url %q expires %v", r.URL, r.ExpiresAt)
	}
	if _, ok := j.Meta["duration_ms"]; !ok || j.Meta["input_size"] == nil {
		t.Fatalf("meta %v", j.Meta)
	}
	data := download(t, r.URL)
	if int64(len(data)) != r.Size {
		t.Fatalf("downloaded %d bytes, record says %d", len(data), r.Size)
	}
	after := pdfPages(t, data)
	want := []int{(before[0] + 90) % 360, (before[1] + 90) % 360, before[2], (before[3] + 90) % 360}
	if len(after) != 4 {
		t.Fatalf("pages: %v", after)
	}
	for i := range want {
		if after[i] != want[i] {
			t.Fatalf("page rotations %v, want %v", after, want)
		}
	}
	// The poll gives the same record.
	p, err := c.Job(ctx, j.JobID)
	if err != nil || p.Status != "done" || p.Result.URL != r.URL {
		t.Fatalf("poll: %+v %v", p, err)
	}
}

func TestRotateAddsToExistingRotation(t *testing.T) {
	t.Parallel()
	s := startServer(t, "")
	before := corpusPages(t, "habibi-rotated.pdf")
	j, _, err := s.client(s.DevKey).Process(context.Background(), "rotate-pdf",
		[]client.File{file(t, "pdf", "habibi-rotated.pdf")}, client.ProcessOptions{Params: map[string]string{"angle": "270"}})
	if err != nil {
		t.Fatal(err)
	}
	after := pdfPages(t, download(t, j.Result.URL))
	for i := range before {
		if after[i] != (before[i]+270)%360 {
			t.Fatalf("rotations %v -> %v", before, after)
		}
	}
}

func TestMergeKeepsOrderAndPages(t *testing.T) {
	t.Parallel()
	s := startServer(t, "")
	names := []string{"pdflatex-4-pages.pdf", "minimal-document.pdf", "habibi-rotated.pdf"}
	var files []client.File
	total := 0
	for _, n := range names {
		files = append(files, file(t, "pdf", n))
		total += len(corpusPages(t, n))
	}
	j, _, err := s.client(s.DevKey).Process(context.Background(), "merge-pdf", files, client.ProcessOptions{Params: map[string]string{"bookmarks": "file_names"}})
	if err != nil {
		t.Fatal(err)
	}
	data := download(t, j.Result.URL)
	got := pdfPages(t, data)
	if len(got) != total {
		t.Fatalf("merged %d pages, want %d", len(got), total)
	}
	// The last input's rotations come last.
	last := corpusPages(t, names[2])
	for i := range last {
		if got[total-len(last)+i] != last[i] {
			t.Fatalf("order lost: %v", got)
		}
	}
	// A bookmark per file at its first page, as qpdf reads the outline.
	var outline struct {
		Outlines []struct {
			Title string `json:"title"`
			Page  int    `json:"destpageposfrom1"`
		} `json:"outlines"`
	}
	b, err := exec.Command("qpdf", "--json", "--json-key=outlines", toolstest.WriteTemp(t, "merged.pdf", data)).Output()
	if err != nil || json.Unmarshal(b, &outline) != nil {
		t.Fatalf("qpdf --json: %v\n%s", err, b)
	}
	first := 1
	for i, n := range names {
		if i >= len(outline.Outlines) || outline.Outlines[i].Title != strings.TrimSuffix(n, ".pdf") || outline.Outlines[i].Page != first {
			t.Fatalf("outline %+v, want %s at page %d", outline.Outlines, n, first)
		}
		first += len(corpusPages(t, n))
	}
}

func TestAsyncThenPoll(t *testing.T) { testAsyncThenPoll(t, sqliteDir) }

func testAsyncThenPoll(t *testing.T, newDir dataDirFunc) {
	s := startServer(t, newDir(t))
	c := s.client(s.DevKey)
	ctx := context.Background()
	j, resp, err := c.Process(ctx, "rotate-pdf", []client.File{pdfFile("one-page.pdf", onePagePDF())},
		client.ProcessOptions{Prefer: "respond-async"})
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusAccepted || (j.Status != "queued" && j.Status != "processing") || j.Result != nil {
		t.Fatalf("want 202 queued, got %d %s", resp.StatusCode, j.Status)
	}
	if resp.Header.Get("Location") != "/v1/jobs/"+j.JobID || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("headers %v", resp.Header)
	}
	done, err := c.Wait(ctx, j.JobID, 100*time.Millisecond)
	if err != nil || done.Status != "done" || done.Result.URL == "" || done.FinishedAt == nil {
		t.Fatalf("wait: %+v %v", done, err)
	}
	// Prefer: wait=N waits for the job.
	j2, resp, err := c.Process(ctx, "rotate-pdf", []client.File{pdfFile("one-page.pdf", onePagePDF())},
		client.ProcessOptions{Prefer: "wait=20"})
	if err != nil || resp.StatusCode != http.StatusOK || j2.Status != "done" {
		t.Fatalf("wait=20: %v %+v", err, j2)
	}
}

// TestProcessErrors covers each 400 code and the unknown tool.
func TestProcessErrors(t *testing.T) {
	t.Parallel()
	s := startServer(t, "")
	small := newKey(t, s.DataDir, "custom", "--max-file-mb", "1")
	ctx := context.Background()
	// Generated files: the test is of the API's refusals.
	pdf := func() client.File { return pdfFile("one-page.pdf", onePagePDF()) }
	encrypted := toolstest.Encrypt(t, toolstest.WriteTemp(t, "one-page.pdf", onePagePDF()))
	cases := []struct {
		name   string
		key    string
		tool   string
		files  []client.File
		params map[string]string
		status int
		code   string
		field  string
	}{
		{"no file", s.DevKey, "rotate-pdf", nil, nil, 400, "missing_file", ""},
		{"too few for merge", s.DevKey, "merge-pdf", []client.File{pdf()}, nil, 400, "missing_file", ""},
		{"too many files", s.DevKey, "rotate-pdf", []client.File{pdf(), pdf()}, nil, 400, "too_many_files", ""},
		{"not a pdf", s.DevKey, "rotate-pdf", []client.File{pdfFile("photo.jpg", toolstest.OrientedJPEG(t, 64, 48, 1))}, nil, 400, "unsupported_file_type", ""},
		{"bad angle", s.DevKey, "rotate-pdf", []client.File{pdf()}, map[string]string{"angle": "45"}, 400, "invalid_parameter", "angle"},
		{"bad pages", s.DevKey, "rotate-pdf", []client.File{pdf()}, map[string]string{"pages": "3-1"}, 400, "invalid_parameter", "pages"},
		{"page past end", s.DevKey, "rotate-pdf", []client.File{pdf()}, map[string]string{"pages": "2-9"}, 400, "invalid_parameter", "pages"},
		{"unknown param", s.DevKey, "rotate-pdf", []client.File{pdf()}, map[string]string{"colour": "red"}, 400, "invalid_parameter", "colour"},
		{"truncated pdf", s.DevKey, "rotate-pdf", []client.File{{Name: "cut.pdf", Body: strings.NewReader(string(onePagePDF()[:24]))}}, nil, 400, "invalid_document", ""},
		{"encrypted pdf", s.DevKey, "rotate-pdf", []client.File{pdfFile("locked.pdf", encrypted)}, nil, 400, "invalid_document", ""},
		{"too large", small, "rotate-pdf", []client.File{pdfFile("pictures.pdf", webPicturesPDF())}, nil, 400, "file_too_large", ""},
		{"unknown tool", s.DevKey, "shred-pdf", []client.File{pdf()}, nil, 404, "unknown_tool", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := s.client(tc.key).Process(ctx, tc.tool, tc.files, client.ProcessOptions{Params: tc.params})
			e := apiError(t, err, tc.status, tc.code)
			if tc.field != "" && (len(e.Fields) == 0 || e.Fields[0].Field != tc.field) {
				t.Fatalf("field errors %+v, want %s", e.Fields, tc.field)
			}
			if strings.Contains(e.Detail, s.DataDir) || strings.Contains(e.Detail, "/tmp/") || strings.Contains(e.Detail, ".go:") {
				t.Fatalf("detail leaks internals: %s", e.Detail)
			}
		})
	}

	t.Run("not multipart", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodPost, s.URL+"/v1/rotate-pdf/process", strings.NewReader(`{"file":"x"}`))
		req.Header.Set("Authorization", "Bearer "+s.DevKey)
		req.Header.Set("Content-Type", "application/json")
		resp, body := send(t, req)
		if resp.StatusCode != 400 || !strings.Contains(string(body), `"invalid_request"`) {
			t.Fatalf("%d %s", resp.StatusCode, body)
		}
	})
	// Nothing of the refused uploads stays on disk.
	assertNoInputs(t, s.DataDir)
}

// assertNoInputs checks that no uploaded input is left in the blob store.
func assertNoInputs(t *testing.T, dataDir string) {
	t.Helper()
	poll.Until(t, 10*time.Second, func() (bool, string) {
		entries, _ := os.ReadDir(dataDir + "/blobs/in")
		var left []string
		for _, e := range entries {
			sub, _ := os.ReadDir(dataDir + "/blobs/in/" + e.Name())
			for _, f := range sub {
				left = append(left, e.Name()+"/"+f.Name())
			}
		}
		return len(left) == 0, fmt.Sprintf("inputs left behind: %v", left)
	})
}

func TestIdempotencyKey(t *testing.T) { testIdempotencyKey(t, sqliteDir) }

func testIdempotencyKey(t *testing.T, newDir dataDirFunc) {
	s := startServer(t, newDir(t))
	key := newKey(t, s.DataDir, "pro")
	c := s.client(key)
	ctx := context.Background()
	opts := client.ProcessOptions{IdempotencyKey: "order-42", Params: map[string]string{"angle": "180"}}
	a, _, err := c.Process(ctx, "rotate-pdf", []client.File{pdfFile("one-page.pdf", onePagePDF())}, opts)
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := c.Process(ctx, "rotate-pdf", []client.File{pdfFile("one-page.pdf", onePagePDF())}, opts)
	if err != nil || b.JobID != a.JobID {
		t.Fatalf("replay gave %v %v, want job %s", b, err, a.JobID)
	}
	opts.Params["angle"] = "90"
	_, _, err = c.Process(ctx, "rotate-pdf", []client.File{pdfFile("one-page.pdf", onePagePDF())}, opts)
	apiError(t, err, 409, "idempotency_conflict")
	if used := accountUsage(ctx, t, c).OperationsUsed; used != 1 {
		t.Fatalf("charged %v operations, want 1", used)
	}
}

func TestDeleteJob(t *testing.T) { testDeleteJob(t, sqliteDir) }

func testDeleteJob(t *testing.T, newDir dataDirFunc) {
	dir := newDir(t)
	// An API-only node works no jobs, so they stay queued.
	api := startServer(t, dir, "--role", "api")
	c := api.client(api.DevKey)
	ctx := context.Background()
	j, _, err := c.Process(ctx, "rotate-pdf", []client.File{pdfFile("one-page.pdf", onePagePDF())}, client.ProcessOptions{Prefer: "respond-async"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.CancelJob(ctx, j.JobID)
	if err != nil || got.Status != "canceled" {
		t.Fatalf("cancel: %+v %v", got, err)
	}
	api.stop(t)

	// A worker later skips the canceled job and removes its input.
	s := startServer(t, dir)
	if p, err := s.client(api.DevKey).Job(ctx, j.JobID); err != nil || p.Status != "canceled" {
		t.Fatalf("after restart: %+v %v", p, err)
	}
	assertNoInputs(t, dir)

	// Deleting a done job's result makes its link gone at once.
	d, _, err := s.client(api.DevKey).Process(ctx, "rotate-pdf", []client.File{pdfFile("one-page.pdf", onePagePDF())}, client.ProcessOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err = s.client(api.DevKey).CancelJob(ctx, d.JobID)
	if err != nil || got.Status != "done" || got.Result == nil || !got.Result.Expired || got.Result.URL != "" {
		t.Fatalf("delete result: %+v %v", got, err)
	}
	resp, err := http.Get(d.Result.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusGone {
		t.Fatalf("deleted result: %d, want 410", resp.StatusCode)
	}
}
