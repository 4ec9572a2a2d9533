package jobs_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/riverqueue/river/riverdriver/riversqlite"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/jobs"
	"github.com/docmill/docmill/sandbox"
	"github.com/docmill/docmill/tools/poppler"
	"github.com/docmill/docmill/tools/toolstest"
)

// previewSquarePDF is a one-page PDF of a filled square.
var previewSquarePDF = toolstest.PDF("<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
	"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R >>",
	"<< /Length 27 >>\nstream\n0 0 1 rg 20 20 160 160 re f\nendstream")

// pdfTool is a test tool, "make-pdf", whose result is previewSquarePDF.
func pdfTool() *docmill.Tool {
	return &docmill.Tool{
		Slug: "make-pdf", Accepts: []string{"text/plain"}, MinFiles: 1, MaxFiles: 1,
		Run: func(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
			out := filepath.Join(in.WorkDir, "out.pdf")
			if err := os.WriteFile(out, previewSquarePDF, 0o600); err != nil {
				return nil, err
			}
			return &docmill.RunOutput{Path: out, Filename: "out.pdf", ContentType: "application/pdf"}, nil
		},
	}
}

// TestPreview: a done job whose result is a PDF and whose request asked
// for a preview gets one, made by the node's real pdf-to-png: a PNG
// stored beside the result, its size in the job's meta; a job that did
// not ask gets none. Deleting the result (Cancel of a done job) deletes
// its preview too.
func TestPreview(t *testing.T) {
	t.Parallel()
	find := func(name string) *sandbox.Engine {
		e := sandbox.Find(name, []string{"-v"}, sandbox.Options{View: sandbox.View{ReadOnly: poppler.DataPaths}})
		if !e.Available() {
			toolstest.Need(t, name)
		}
		return e
	}
	pt := poppler.Tools(poppler.Engines{PDFToPPM: find("pdftoppm"), PDFInfo: find("pdfinfo"), PDFToText: find("pdftotext")}, poppler.Steps{}, docmill.Limits{})
	st, bucket := openData(t)
	clk := &clock{t: time.Now()}
	newQueue(t, st, bucket, clk) // River's tables; enqueues
	acct := newAccount(t, st, clk)
	q, err := jobs.New(riversqlite.New(st.WriteDB()), jobs.Config{
		Store: st, Blob: bucket, Registry: docmill.NewRegistry(append([]*docmill.Tool{pdfTool()}, pt...)...),
		Workers: 1, SoleWorker: true, PollInterval: 20 * time.Millisecond, ScratchDir: t.TempDir(),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	defer q.Stop(context.Background())

	for _, asked := range []bool{true, false} {
		id := docmill.NewJobID()
		key := docmill.InputKey(id, 0)
		if _, err := bucket.Put(t.Context(), key, bytes.NewReader([]byte("input")), "text/plain"); err != nil {
			t.Fatal(err)
		}
		j := &docmill.Job{ID: id, AccountID: acct.ID, Tool: "make-pdf", CreatedAt: time.Now(), ResultTTL: time.Hour, Preview: asked,
			Inputs: []docmill.InputFile{{Key: key, Filename: "in.txt", ContentType: "text/plain", Size: 5}}}
		if _, err := st.CreateJob(t.Context(), j, docmill.Admission{Period: "2026-11"}); err != nil {
			t.Fatal(err)
		}
		done, err := q.Wait(t.Context(), id, 30*time.Second) // a guard only
		if err != nil || done.Status != docmill.StatusDone {
			t.Fatalf("preview=%v: job %+v, %v; want done", asked, done, err)
		}
		previewKey := docmill.ResultKey(id, docmill.PreviewName(done.Result.Filename))
		size, _ := done.Meta["preview_size"].(float64)
		if !asked {
			if _, err := bucket.Attributes(t.Context(), previewKey); err == nil || size != 0 {
				t.Errorf("a job that asked for no preview has one (meta %v)", done.Meta["preview_size"])
			}
			continue
		}
		png := readBlob(t, bucket, previewKey)
		if !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) || int64(len(png)) != int64(size) {
			t.Fatalf("preview: %d bytes (meta preview_size %v), want a PNG of that size", len(png), done.Meta["preview_size"])
		}
		if _, err := q.Cancel(t.Context(), done); err != nil { // deletes the result now
			t.Fatal(err)
		}
		for _, k := range []string{done.Result.Key, previewKey} {
			if _, err := bucket.Attributes(t.Context(), k); err == nil {
				t.Errorf("%s is still stored after the result was deleted", k)
			}
		}
	}
}

// readBlob returns the content of key in bl.
func readBlob(t *testing.T, bl docmill.BlobStore, key string) []byte {
	t.Helper()
	r, err := bl.NewRangeReader(t.Context(), key, 0, -1)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestNoPreviewWithoutTool: a node without pdf-to-png finishes a job
// that asked for a preview without one, as it does a job whose result is
// no PDF: a preview is never a reason to fail.
func TestNoPreviewWithoutTool(t *testing.T) {
	t.Parallel()
	st, bucket := openData(t)
	clk := &clock{t: time.Now()}
	newQueue(t, st, bucket, clk) // River's tables; enqueues
	acct := newAccount(t, st, clk)
	started := make(chan string, 1)
	q, err := jobs.New(riversqlite.New(st.WriteDB()), jobs.Config{
		Store: st, Blob: bucket, Registry: docmill.NewRegistry(pdfTool(), startedTool("text", false, started)),
		Workers: 1, SoleWorker: true, PollInterval: 20 * time.Millisecond, ScratchDir: t.TempDir(),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	defer q.Stop(context.Background())
	for _, tool := range []string{"make-pdf", "work"} {
		id := docmill.NewJobID()
		key := docmill.InputKey(id, 0)
		if _, err := bucket.Put(t.Context(), key, bytes.NewReader([]byte("input")), "text/plain"); err != nil {
			t.Fatal(err)
		}
		j := &docmill.Job{ID: id, AccountID: acct.ID, Tool: tool, CreatedAt: time.Now(), ResultTTL: time.Hour, Preview: true,
			Inputs: []docmill.InputFile{{Key: key, Filename: "in.txt", ContentType: "text/plain", Size: 5}}}
		if _, err := st.CreateJob(t.Context(), j, docmill.Admission{Period: "2026-11"}); err != nil {
			t.Fatal(err)
		}
		done, err := q.Wait(t.Context(), id, 30*time.Second) // a guard only
		if err != nil || done.Status != docmill.StatusDone {
			t.Fatalf("%s: job %+v, %v; want done", tool, done, err)
		}
		if _, ok := done.Meta["preview_size"]; ok {
			t.Errorf("%s: meta preview_size %v, want none", tool, done.Meta["preview_size"])
		}
		if _, err := bucket.Attributes(t.Context(), docmill.ResultKey(id, docmill.PreviewName(done.Result.Filename))); err == nil {
			t.Errorf("%s: a preview is stored", tool)
		}
	}
}
