package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	gcblob "gocloud.dev/blob"
	_ "gocloud.dev/blob/s3blob"

	"github.com/docmill/docmill/blob/s3test"
	"github.com/docmill/docmill/internal/poll"
)

// formItem is one part of a raw process request: a field, or a file when
// file is set.
type formItem struct {
	name, value string
	file        []byte
}

// processRaw sends a process request built of items, in their order, with
// Prefer: wait=60, and returns the status and the decoded body.
func processRaw(t testing.TB, s *testServer, key, tool string, items ...formItem) (int, map[string]any) {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for _, it := range items {
		if it.file != nil {
			w, _ := mw.CreateFormFile(it.name, it.value)
			w.Write(it.file)
			continue
		}
		mw.WriteField(it.name, it.value)
	}
	mw.Close()
	req, _ := http.NewRequest(http.MethodPost, s.URL+"/v1/"+tool+"/process", &body)
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Prefer", "wait=60")
	resp, b := send(t, req)
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%d %s: %v", resp.StatusCode, b, err)
	}
	return resp.StatusCode, out
}

// corpusBytes reads a corpus file.
func corpusBytes(t testing.TB, parts ...string) []byte {
	t.Helper()
	b, err := os.ReadFile(corpus(t, parts...))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// wantProblem checks an error answer's status, code, and that its detail
// and its first field error contain what is given.
func wantProblem(t testing.TB, status int, body map[string]any, wantStatus int, code, field, detail string) {
	t.Helper()
	if status != wantStatus || body["code"] != code {
		t.Fatalf("got %d %v, want %d %s", status, body, wantStatus, code)
	}
	if d, _ := body["detail"].(string); !strings.Contains(d, detail) {
		t.Fatalf("detail %q, want it to contain %q", d, detail)
	}
	if field == "" {
		return
	}
	errs, _ := body["errors"].([]any)
	if len(errs) == 0 || errs[0].(map[string]any)["field"] != field {
		t.Fatalf("errors %v, want field %s", body["errors"], field)
	}
}

// noInputsLeft fails t if input files stay in the local file store.
func noInputsLeft(t testing.TB, dataDir string) {
	t.Helper()
	poll.Until(t, 10*time.Second, func() (bool, string) {
		entries, _ := os.ReadDir(dataDir + "/blobs/in")
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		return len(entries) == 0, fmt.Sprintf("inputs left behind: %v", names)
	})
}

// TestFileURL: with --allow-private-urls, inputs come from a local server
// by URL, in form order among uploaded files, named after the URL's path
// or the answer's Content-Disposition; a failed fetch is 400 fetch_failed
// naming file_url[i] and the reason; an answer past the plan's limit is
// cut there with 400 file_too_large.
func TestFileURL(t *testing.T) {
	t.Parallel()
	dataDir := t.TempDir()
	s := startServer(t, dataDir, "--allow-private-urls")
	four := corpusBytes(t, "pdf", "pdflatex-4-pages.pdf")
	rotated := corpusBytes(t, "pdf", "habibi-rotated.pdf")
	var endlessStopped atomic.Bool
	src := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/docs/report.pdf":
			w.Write(four)
		case "/download":
			w.Header().Set("Content-Disposition", `attachment; filename="../Quarterly Numbers.pdf"`)
			w.Write(rotated)
		case "/moved":
			http.Redirect(w, r, "/docs/report.pdf", http.StatusFound)
		case "/notes.txt":
			w.Write([]byte("plain text, not a PDF\n"))
		case "/endless.pdf":
			w.Write([]byte("%PDF-1.7\n"))
			chunk := bytes.Repeat([]byte("0123456789abcdef"), 4096)
			for {
				if _, err := w.Write(chunk); err != nil {
					endlessStopped.Store(true)
					return
				}
			}
		default:
			http.NotFound(w, r)
		}
	}))
	defer src.Close()

	t.Run("single", func(t *testing.T) {
		status, j := processRaw(t, s, s.DevKey, "rotate-pdf", formItem{name: "file_url", value: src.URL + "/moved"}, formItem{name: "angle", value: "90"})
		if status != 200 || j["status"] != "done" {
			t.Fatalf("%d %v", status, j)
		}
		res := j["result"].(map[string]any)
		if res["filename"] != "report-rotated.pdf" {
			t.Errorf("result named %v, want report-rotated.pdf (after the URL's path, redirect followed)", res["filename"])
		}
		if j["meta"].(map[string]any)["input_size"] != float64(len(four)) {
			t.Errorf("input_size %v, want %d", j["meta"].(map[string]any)["input_size"], len(four))
		}
	})
	t.Run("order and Content-Disposition", func(t *testing.T) {
		minimal := corpusBytes(t, "pdf", "minimal-document.pdf")
		status, j := processRaw(t, s, s.DevKey, "merge-pdf",
			formItem{name: "file_url", value: src.URL + "/docs/report.pdf"},
			formItem{name: "file", value: "minimal-document.pdf", file: minimal},
			formItem{name: "file_url", value: src.URL + "/download"})
		if status != 200 || j["status"] != "done" {
			t.Fatalf("%d %v", status, j)
		}
		got := pdfPages(t, download(t, j["result"].(map[string]any)["url"].(string)))
		total := len(corpusPages(t, "pdflatex-4-pages.pdf")) + len(corpusPages(t, "minimal-document.pdf")) + len(corpusPages(t, "habibi-rotated.pdf"))
		last := corpusPages(t, "habibi-rotated.pdf")
		if len(got) != total {
			t.Fatalf("merged %d pages, want %d", len(got), total)
		}
		for i := range last {
			if got[total-len(last)+i] != last[i] {
				t.Fatalf("order lost: %v", got)
			}
		}
		status, j = processRaw(t, s, s.DevKey, "rotate-pdf", formItem{name: "file_url", value: src.URL + "/download"}, formItem{name: "angle", value: "90"})
		if name := j["result"].(map[string]any)["filename"]; status != 200 || name != "Quarterly Numbers-rotated.pdf" {
			t.Errorf("%d, result named %v; want the Content-Disposition name without its directory", status, name)
		}
	})
	t.Run("errors", func(t *testing.T) {
		status, body := processRaw(t, s, s.DevKey, "rotate-pdf", formItem{name: "file_url", value: src.URL + "/missing.pdf?token=secret"}, formItem{name: "angle", value: "90"})
		wantProblem(t, status, body, 400, "fetch_failed", "file_url[0]", "HTTP 404")
		if d := body["detail"].(string); !strings.Contains(d, src.URL+"/missing.pdf") || strings.Contains(d, "secret") {
			t.Errorf("detail %q: want the URL named without its query", d)
		}
		status, body = processRaw(t, s, s.DevKey, "merge-pdf",
			formItem{name: "file", value: "a.pdf", file: four},
			formItem{name: "file_url", value: src.URL + "/docs/report.pdf"},
			formItem{name: "file_url", value: "http://127.0.0.1:1/closed.pdf"})
		wantProblem(t, status, body, 400, "fetch_failed", "file_url[1]", "connection failed")
		status, body = processRaw(t, s, s.DevKey, "rotate-pdf", formItem{name: "file_url", value: src.URL + "/notes.txt"}, formItem{name: "angle", value: "90"})
		wantProblem(t, status, body, 400, "unsupported_file_type", "", "notes.txt")
		status, body = processRaw(t, s, s.DevKey, "rotate-pdf", formItem{name: "file_url", value: "ftp://example.com/a.pdf"}, formItem{name: "angle", value: "90"})
		wantProblem(t, status, body, 400, "invalid_parameter", "file_url[0]", "file_url[0]")
	})
	t.Run("too large", func(t *testing.T) {
		key := newKey(t, dataDir, "custom", "--max-file-mb", "1")
		start := time.Now()
		status, body := processRaw(t, s, key, "rotate-pdf", formItem{name: "file_url", value: src.URL + "/endless.pdf"}, formItem{name: "angle", value: "90"})
		wantProblem(t, status, body, 400, "file_too_large", "", "1 MB")
		if d := time.Since(start); d > 20*time.Second {
			t.Errorf("took %v", d)
		}
		poll.Until(t, 5*time.Second, func() (bool, string) {
			return endlessStopped.Load(), "the endless answer is still being read"
		})
	})
	noInputsLeft(t, dataDir)
}

// TestFileURLRefused: without --allow-private-urls, a file_url on
// 127.0.0.1 is 400 fetch_failed (http:// is refused as such, https:// at
// dial time for its address), and an export_url there is 400
// invalid_parameter at request time.
func TestFileURLRefused(t *testing.T) {
	t.Parallel()
	dataDir := t.TempDir()
	s := startServer(t, dataDir)
	four := corpusBytes(t, "pdf", "pdflatex-4-pages.pdf")
	var hits atomic.Int32
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1); w.Write(four) })
	plain, tls := httptest.NewServer(h), httptest.NewTLSServer(h)
	defer plain.Close()
	defer tls.Close()

	status, body := processRaw(t, s, s.DevKey, "rotate-pdf", formItem{name: "file_url", value: plain.URL + "/a.pdf"}, formItem{name: "angle", value: "90"})
	wantProblem(t, status, body, 400, "fetch_failed", "file_url[0]", "https")
	status, body = processRaw(t, s, s.DevKey, "rotate-pdf", formItem{name: "file_url", value: tls.URL + "/a.pdf"}, formItem{name: "angle", value: "90"})
	wantProblem(t, status, body, 400, "fetch_failed", "file_url[0]", "private")
	if strings.Contains(body["detail"].(string), "127.0.0.1:") && !strings.Contains(body["detail"].(string), tls.URL) {
		t.Errorf("detail %q names an address of its own", body["detail"])
	}
	status, body = processRaw(t, s, s.DevKey, "rotate-pdf", formItem{name: "file", value: "a.pdf", file: four},
		formItem{name: "export_url", value: tls.URL + "/bucket/out.pdf?X-Amz-Signature=x"}, formItem{name: "angle", value: "90"})
	wantProblem(t, status, body, 400, "invalid_parameter", "export_url", "export_url")
	if hits.Load() != 0 {
		t.Errorf("the local servers got %d requests, want none", hits.Load())
	}
	noInputsLeft(t, dataDir)
}

// pollExport polls a job until its export is no longer pending.
func pollExport(t testing.TB, s *testServer, key, id string) map[string]any {
	t.Helper()
	var j map[string]any
	poll.Until(t, 60*time.Second, func() (bool, string) {
		req, _ := http.NewRequest(http.MethodGet, s.URL+"/v1/jobs/"+id, nil)
		req.Header.Set("Authorization", "Bearer "+key)
		resp, b := send(t, req)
		j = nil
		if err := json.Unmarshal(b, &j); err != nil || resp.StatusCode != 200 {
			t.Fatalf("poll: %d %s", resp.StatusCode, b)
		}
		res, _ := j["result"].(map[string]any)
		return res != nil && res["export_status"] != "pending", fmt.Sprintf("export still pending: %v", j)
	})
	return j
}

// putReceiver is a test destination of exports: it answers each PUT with
// the next of codes (the last one from then on) and records the last
// body and headers it got.
type putReceiver struct {
	codes  []int
	n      atomic.Int32
	body   atomic.Value // []byte
	header atomic.Value // http.Header
	length atomic.Int64
}

func (rc *putReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	i := int(rc.n.Add(1)) - 1
	b, _ := io.ReadAll(r.Body)
	rc.body.Store(b)
	rc.header.Store(r.Header.Clone())
	rc.length.Store(r.ContentLength)
	if r.Method != http.MethodPut {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	w.WriteHeader(rc.codes[min(i, len(rc.codes)-1)])
}

// TestExportRetry: a destination answering 500 and then 200 gets the
// result on the second attempt, streamed with its Content-Type and
// Content-Length; one answering 403 fails the export (export_status
// failed, with the reason), and the job stays done with its download
// link.
func TestExportRetry(t *testing.T) {
	t.Parallel()
	dataDir := t.TempDir()
	s := startServer(t, dataDir, "--allow-private-urls", "--export-retry-schedule", "200ms,200ms")
	four := corpusBytes(t, "pdf", "pdflatex-4-pages.pdf")

	flaky := &putReceiver{codes: []int{500, 200}}
	dst := httptest.NewServer(flaky)
	defer dst.Close()
	status, j := processRaw(t, s, s.DevKey, "rotate-pdf", formItem{name: "file", value: "report.pdf", file: four},
		formItem{name: "angle", value: "90"}, formItem{name: "export_url", value: dst.URL + "/out/report.pdf?sig=abc"})
	if status != 200 || j["status"] != "done" {
		t.Fatalf("%d %v", status, j)
	}
	j = pollExport(t, s, s.DevKey, j["job_id"].(string))
	res := j["result"].(map[string]any)
	if res["export_status"] != "done" || res["exported_to"] != dst.URL+"/out/report.pdf" || res["export_error"] != nil {
		t.Fatalf("result %v: want export done to the URL without its query", res)
	}
	if flaky.n.Load() != 2 {
		t.Errorf("%d PUTs, want 2 (500, then 200)", flaky.n.Load())
	}
	got := download(t, res["url"].(string))
	if !bytes.Equal(flaky.body.Load().([]byte), got) {
		t.Errorf("the destination got %d bytes, not the result's %d", len(flaky.body.Load().([]byte)), len(got))
	}
	if ct := flaky.header.Load().(http.Header).Get("Content-Type"); ct != "application/pdf" || flaky.length.Load() != int64(len(got)) {
		t.Errorf("Content-Type %q, Content-Length %d; want application/pdf, %d", ct, flaky.length.Load(), len(got))
	}

	refusing := &putReceiver{codes: []int{403}}
	dst2 := httptest.NewServer(refusing)
	defer dst2.Close()
	status, j = processRaw(t, s, s.DevKey, "rotate-pdf", formItem{name: "file", value: "report.pdf", file: four},
		formItem{name: "angle", value: "90"}, formItem{name: "export_url", value: dst2.URL + "/out.pdf?sig=abc"}, formItem{name: "keep_result", value: "false"})
	if status != 200 {
		t.Fatalf("%d %v", status, j)
	}
	j = pollExport(t, s, s.DevKey, j["job_id"].(string))
	res = j["result"].(map[string]any)
	if j["status"] != "done" || res["export_status"] != "failed" || !strings.Contains(fmt.Sprint(res["export_error"]), "HTTP 403") {
		t.Fatalf("job %v: want done with export failed, HTTP 403", j)
	}
	if refusing.n.Load() != 1 {
		t.Errorf("%d PUTs, want 1 (a 4xx is final)", refusing.n.Load())
	}
	if u, _ := res["url"].(string); u == "" || len(download(t, u)) == 0 {
		t.Errorf("no download link after a failed export (keep_result=false keeps it then): %v", res)
	}
}

// TestExportS3: an export_url presigned by a real S3 server (versitygw)
// receives the result, with its bytes and Content-Type; with
// keep_result=false the job keeps no download link once exported.
func TestExportS3(t *testing.T) {
	// Serial: the bucket's credentials are set in this process's
	// environment (s3.Setenv).
	s3 := s3test.Start(t)
	s3.Setenv(t)
	ctx := t.Context()
	bucket, err := gcblob.OpenBucket(ctx, s3.URL("client-exports"))
	if err != nil {
		t.Fatal(err)
	}
	defer bucket.Close()
	presign := func(key string) string {
		u, err := bucket.SignedURL(ctx, key, &gcblob.SignedURLOptions{Method: http.MethodPut, Expiry: 10 * time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	s := startServer(t, t.TempDir(), "--allow-private-urls")
	four := corpusBytes(t, "pdf", "pdflatex-4-pages.pdf")

	u := presign("results/report-rotated.pdf")
	status, j := processRaw(t, s, s.DevKey, "rotate-pdf", formItem{name: "file", value: "report.pdf", file: four},
		formItem{name: "angle", value: "90"}, formItem{name: "export_url", value: u})
	if status != 200 {
		t.Fatalf("%d %v", status, j)
	}
	j = pollExport(t, s, s.DevKey, j["job_id"].(string))
	res := j["result"].(map[string]any)
	if res["export_status"] != "done" || res["exported_to"] != strings.Split(u, "?")[0] {
		t.Fatalf("result %v: want export done to %s", res, strings.Split(u, "?")[0])
	}
	got, err := bucket.ReadAll(ctx, "results/report-rotated.pdf")
	if err != nil {
		t.Fatal(err)
	}
	if want := download(t, res["url"].(string)); !bytes.Equal(got, want) {
		t.Errorf("the bucket holds %d bytes, the result is %d", len(got), len(want))
	}
	attrs, err := bucket.Attributes(ctx, "results/report-rotated.pdf")
	if err != nil || attrs.ContentType != "application/pdf" {
		t.Errorf("object Content-Type %v, %v; want application/pdf", attrs, err)
	}

	status, j = processRaw(t, s, s.DevKey, "rotate-pdf", formItem{name: "file", value: "report.pdf", file: four},
		formItem{name: "angle", value: "180"}, formItem{name: "export_url", value: presign("only-here.pdf")}, formItem{name: "keep_result", value: "false"})
	if status != 200 {
		t.Fatalf("%d %v", status, j)
	}
	j = pollExport(t, s, s.DevKey, j["job_id"].(string))
	res = j["result"].(map[string]any)
	if res["export_status"] != "done" || res["url"] != nil || res["expired"] != nil {
		t.Fatalf("result %v: want exported, with no link (keep_result=false)", res)
	}
	if ok, err := bucket.Exists(ctx, "only-here.pdf"); !ok || err != nil {
		t.Errorf("exported object: exists %v, %v", ok, err)
	}
}
