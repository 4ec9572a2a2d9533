package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/store/postgres/pgtest"
	"github.com/docmill/docmill/tools/toolstest"
)

// issueSteps is the issue's example: merge, stamp DRAFT, number the pages,
// compress, make it PDF/A.
const issueSteps = `[{"tool": "merge-pdf"}, {"tool": "watermark-pdf", "params": {"text": "DRAFT"}},
	{"tool": "page-numbers", "params": {"format": "{n} / {total}"}}, {"tool": "compress-pdf", "params": {"preset": "extreme"}},
	{"tool": "pdf-to-pdfa"}]`

// pipeline runs steps on files through POST /v1/pipeline/process.
func pipeline(c *client.Client, steps string, files []client.File, opts client.ProcessOptions) (*client.Job, *client.Response, error) {
	opts.Params = map[string]string{"steps": steps}
	return c.Process(context.Background(), "pipeline", files, opts)
}

// usedOps is the operations_used of c's account.
func usedOps(t *testing.T, c *client.Client) float64 {
	t.Helper()
	return float64(accountUsage(context.Background(), t, c).OperationsUsed)
}

// TestPipelineIssueExample: the issue's five steps turn two corpus PDFs
// into one PDF/A file, watermarked and numbered, in one request, charged
// five operations; a pipeline needs as many operations left as it has
// steps. On SQLite, and on PostgreSQL (the distributed shape's store and
// queue).
func TestPipelineIssueExample(t *testing.T) { testPipelineIssueExample(t, sqliteDir) }

func TestPipelineIssueExamplePostgres(t *testing.T) {
	// Its schema and server are its own.
	t.Parallel()
	pgtest.BaseURL(t)
	testPipelineIssueExample(t, postgresDir)
}

func testPipelineIssueExample(t *testing.T, newDir dataDirFunc) {
	s := startServer(t, newDir(t))
	c := s.client(newKey(t, s.DataDir, "custom", "--ops", "7"))
	files := []client.File{file(t, "pdf", fourPages), file(t, "pdf", "002-trivial-libre-office-writer.pdf")}
	j, _, err := pipeline(c, issueSteps, files, client.ProcessOptions{Prefer: "wait=120"})
	if err != nil {
		t.Fatal(err)
	}
	if j.Status != "done" || j.Tool != "pipeline" || j.Result.ContentType != "application/pdf" {
		t.Fatalf("job %+v", j)
	}
	steps, _ := j.Meta["steps"].([]any)
	want := []string{"merge-pdf", "watermark-pdf", "page-numbers", "compress-pdf", "pdf-to-pdfa"}
	if len(steps) != len(want) {
		t.Fatalf("meta.steps %v", j.Meta["steps"])
	}
	for i, st := range steps {
		m, _ := st.(map[string]any)
		if m["tool"] != want[i] || m["duration_ms"] == nil || m["meta"] == nil {
			t.Errorf("meta.steps[%d] = %v; want tool %s, duration_ms and meta", i, m, want[i])
		}
	}
	data := download(t, j.Result.URL)
	pages := len(pdfPages(t, data))
	if in := len(corpusPages(t, fourPages)) + len(corpusPages(t, "002-trivial-libre-office-writer.pdf")); pages != in {
		t.Fatalf("%d pages; want the %d of both inputs", pages, in)
	}
	for n := 1; n <= pages; n++ {
		// The watermark runs across the page, which pdftotext reads in
		// pieces ("D R AF T"): spaces and line ends are left out.
		text := strings.Join(strings.Fields(pageText(t, data, n)), "")
		if !strings.Contains(text, "DRAFT") || !strings.Contains(text, fmt.Sprintf("%d/%d", n, pages)) {
			t.Errorf("page %d lacks the watermark or its number %d / %d:\n%s", n, n, pages, text)
		}
	}
	qdf := filepath.Join(t.TempDir(), "q.pdf")
	if out, err := exec.Command("qpdf", "--qdf", "--object-streams=disable", toolstest.WriteTemp(t, "a.pdf", data), qdf).CombinedOutput(); err != nil && exitCode(err) != 3 {
		t.Fatalf("qpdf --qdf: %v %s", err, out)
	}
	if b, _ := os.ReadFile(qdf); !bytes.Contains(b, []byte("pdfaid:part")) {
		t.Fatal("no PDF/A identification (pdfaid) in the XMP metadata")
	}
	if n := usedOps(t, c); n != 5 {
		t.Fatalf("operations_used %v; want 5, one a step", n)
	}
	// Two operations are left: a three-step pipeline does not fit.
	_, _, err = pipeline(c, `[{"tool": "rotate-pdf", "params": {"angle": 90}}, {"tool": "compress-pdf"}, {"tool": "repair-pdf"}]`,
		[]client.File{pdfFile("one-page.pdf", onePagePDF())}, client.ProcessOptions{})
	apiError(t, err, 429, "quota_exceeded")
	if n := usedOps(t, c); n != 5 {
		t.Fatalf("operations_used %v after a refusal; want 5", n)
	}
}

// TestPipelineRefused: a pipeline with a bad step is refused whole, with
// a 400 naming the step, before any job is made or anything charged.
func TestPipelineRefused(t *testing.T) {
	t.Parallel()
	s := startServer(t, "")
	c := s.client(s.DevKey)
	pdf := func() []client.File { return []client.File{pdfFile("one-page.pdf", onePagePDF())} }
	tests := []struct {
		name, steps, field string
		files              []client.File
	}{
		{"bad param of step 3", `[{"tool": "rotate-pdf", "params": {"angle": 90}}, {"tool": "watermark-pdf", "params": {"text": "x"}},
			{"tool": "compress-pdf", "params": {"quality": 500}}]`, "steps[2].params.quality", pdf()},
		{"split not last", `[{"tool": "split-pdf"}, {"tool": "compress-pdf"}]`, "steps[0].tool", pdf()},
		{"eleven steps", "[" + strings.Repeat(`{"tool": "repair-pdf"},`, 10) + `{"tool": "repair-pdf"}]`, "steps", pdf()},
		{"unknown tool", `[{"tool": "repair-pdf"}, {"tool": "frobnicate-pdf"}]`, "steps[1].tool", pdf()},
		{"text is not a PDF", `[{"tool": "pdf-to-text"}, {"tool": "compress-pdf"}]`, "steps[1].tool", pdf()},
		{"not JSON", `merge-pdf, compress-pdf`, "steps", pdf()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := pipeline(c, tc.steps, tc.files, client.ProcessOptions{})
			e := apiError(t, err, 400, "invalid_parameter")
			if len(e.Fields) == 0 || e.Fields[0].Field != tc.field {
				t.Fatalf("errors %+v; want the field %s", e.Fields, tc.field)
			}
		})
	}
	// The first step's rule for files applies to the pipeline's.
	_, _, err := pipeline(c, `[{"tool": "resize-image", "params": {"percent": 50}}]`, pdf(), client.ProcessOptions{})
	apiError(t, err, 400, "unsupported_file_type")
	_, _, err = pipeline(c, `[{"tool": "merge-pdf"}]`, pdf(), client.ProcessOptions{})
	apiError(t, err, 400, "missing_file")

	// The catalogue and the OpenAPI document describe it.
	var tool struct {
		Params   []struct{ Name, Type string }
		MaxFiles int `json:"max_files"`
	}
	getPublicJSON(t, s.URL+"/v1/tools/pipeline", &tool)
	if len(tool.Params) != 1 || tool.Params[0].Name != "steps" || tool.Params[0].Type != "steps" || tool.MaxFiles < 2 {
		t.Errorf("catalogue entry %+v", tool)
	}
	var split struct {
		Outputs []string
		MayZip  bool `json:"may_zip"`
	}
	getPublicJSON(t, s.URL+"/v1/tools/split-pdf", &split)
	if len(split.Outputs) != 1 || split.Outputs[0] != "application/pdf" || !split.MayZip {
		t.Errorf("split-pdf outputs %+v", split)
	}
	var doc map[string]any
	getPublicJSON(t, s.URL+"/v1/openapi.json", &doc)
	if b, _ := json.Marshal(doc["paths"].(map[string]any)["/v1/pipeline/process"]); !bytes.Contains(b, []byte(`"contentMediaType":"application/json"`)) {
		t.Errorf("OpenAPI pipeline operation: %s", b)
	}

	list, err := c.ListJobs(context.Background(), client.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Jobs) != 0 || usedOps(t, c) != 0 {
		t.Fatalf("%d jobs, %v operations after refusals; want none", len(list.Jobs), usedOps(t, c))
	}
}

// TestPipelineStepFails: a step that fails fails the job, named in its
// error, and the job is not charged; its webhook fires as any job's.
func TestPipelineStepFails(t *testing.T) {
	t.Parallel()
	s := startServer(t, "", "--allow-private-urls")
	c := s.client(s.DevKey)
	hooks := newReceiver(t, nil)
	_, secret := createHook(t, s, s.DevKey, hooks.URL)
	// Step 2 cannot rotate what step 1 locked with a password.
	_, _, err := pipeline(c, `[{"tool": "protect-pdf", "params": {"password": "s3cret"}}, {"tool": "rotate-pdf", "params": {"angle": 90}}]`,
		[]client.File{pdfFile("one-page.pdf", onePagePDF())}, client.ProcessOptions{Prefer: "wait=60"})
	e := apiError(t, err, 400, "invalid_document")
	if !strings.HasPrefix(e.Detail, "Step 2 (rotate-pdf): ") || len(e.Fields) == 0 || e.Fields[0].Field != "steps[1]" || e.JobID == "" {
		t.Fatalf("problem %+v; want step 2 named", e)
	}
	j, err := c.Job(context.Background(), e.JobID)
	if err != nil {
		t.Fatal(err)
	}
	if j.Status != "failed" || !strings.HasPrefix(j.Error.Message, "Step 2 (rotate-pdf): ") {
		t.Fatalf("job %+v", j)
	}
	if steps, _ := j.Meta["steps"].([]any); len(steps) != 2 || steps[1].(map[string]any)["failed"] != true {
		t.Errorf("meta.steps %v; want the step that ran and the one that failed", j.Meta["steps"])
	}
	if n := usedOps(t, c); n != 0 {
		t.Fatalf("operations_used %v; want 0 for a failed pipeline", n)
	}
	checkEvent(t, s, s.DevKey, event(t, hooks.wait(t, 1, 20*time.Second)[0], secret), "job.failed", e.JobID)
}

// TestPipelineIdempotencyAndCancel: a pipeline sent again with its
// Idempotency-Key is the same job, charged once; a pipeline with a long
// step answers 202 at once, and can be canceled.
func TestPipelineIdempotencyAndCancel(t *testing.T) {
	t.Parallel()
	s := startServer(t, "")
	c := s.client(s.DevKey)
	ctx := context.Background()
	steps := `[{"tool": "rotate-pdf", "params": {"angle": 90}}, {"tool": "page-numbers"}]`
	opts := client.ProcessOptions{IdempotencyKey: "pipe-1", Prefer: "wait=60"}
	first, _, err := pipeline(c, steps, []client.File{pdfFile("four-pages.pdf", fourPagePDF)}, opts)
	if err != nil {
		t.Fatal(err)
	}
	again, _, err := pipeline(c, steps, []client.File{pdfFile("four-pages.pdf", fourPagePDF)}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if first.Status != "done" || again.JobID != first.JobID {
		t.Fatalf("first %+v, again %+v; want one done job", first, again)
	}
	// The same key with other steps is another request.
	_, _, err = pipeline(c, `[{"tool": "rotate-pdf", "params": {"angle": 180}}, {"tool": "page-numbers"}]`, []client.File{pdfFile("four-pages.pdf", fourPagePDF)}, opts)
	apiError(t, err, 409, "idempotency_conflict")
	if n := usedOps(t, c); n != 2 {
		t.Fatalf("operations_used %v; want 2, charged once", n)
	}

	j, resp, err := pipeline(c, `[{"tool": "ocr-pdf"}, {"tool": "compress-pdf"}]`, []client.File{pdfFile("four-pages.pdf", fourPagePDF)}, client.ProcessOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 202 || j.Finished() {
		t.Fatalf("%d %+v; want 202 at once for a pipeline with a long step", resp.StatusCode, j)
	}
	canceled, err := c.CancelJob(ctx, j.JobID)
	if err != nil {
		t.Fatal(err)
	}
	if canceled.Status != "canceled" {
		t.Fatalf("after DELETE: %+v", canceled)
	}
	if n := usedOps(t, c); n != 2 {
		t.Fatalf("operations_used %v; want 2, a canceled pipeline not charged", n)
	}
}

// getPublicJSON decodes the JSON answer of a GET of a public URL into v.
func getPublicJSON(t *testing.T, url string, v any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	resp, b := send(t, req)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, b)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
}
