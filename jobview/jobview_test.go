package jobview_test

import (
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/jobview"
)

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// renderer is a Renderer signing with key whose clock reads *now.
func renderer(key string, now *time.Time) *jobview.Renderer {
	return jobview.New(jobview.Config{BaseURL: "https://api.example.com/", CDNURL: "https://cdn.example.com/",
		SigningKey: []byte(key), Now: func() time.Time { return *now }})
}

// doneJob is a done job whose result expires an hour after t0, with a
// preview.
func doneJob() *docmill.Job {
	finished := t0.Add(time.Second)
	return &docmill.Job{ID: "job_4kq8v2m0c9x7t1r5y3w6z8a2b4", Tool: "rotate-pdf", Status: docmill.StatusDone,
		CreatedAt: t0, FinishedAt: &finished, Inputs: []docmill.InputFile{{Size: 10}, {Size: 5}},
		Meta:   map[string]any{"rotated_pages": 3, "preview_size": 100, "input_size": 1},
		Result: &docmill.Result{Key: "results/a", Filename: "a b.pdf", ContentType: "application/pdf", Size: 42, ExpiresAt: t0.Add(time.Hour)}}
}

func code(err error) docmill.Code {
	var e *docmill.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// TestRecordLinks: a done job's record links its result and preview on
// the CDN URL; the links pass CheckLink until they expire, and not under
// another key; an expired result has no link.
func TestRecordLinks(t *testing.T) {
	now := t0
	r := renderer("k1", &now)
	rec := r.Record(t.Context(), doneJob())
	if rec.Meta["input_size"] != int64(15) || rec.Meta["rotated_pages"] != 3 {
		t.Errorf("meta %v: want the job's input_size 15 beside the tool's figures", rec.Meta)
	}
	if rec.Result == nil || rec.Result.Expired || rec.Result.ExpiresAt != "2026-11-22T11:00:00Z" {
		t.Fatalf("result %+v", rec.Result)
	}
	for _, link := range []string{rec.Result.URL, rec.Result.PreviewURL} {
		u, err := url.Parse(link)
		if err != nil || u.Host != "cdn.example.com" || !strings.HasPrefix(u.Path, "/files/job_4kq8v2m0c9x7t1r5y3w6z8a2b4/") {
			t.Fatalf("link %q: want one on the CDN URL (%v)", link, err)
		}
		filename := strings.TrimPrefix(u.Path, "/files/job_4kq8v2m0c9x7t1r5y3w6z8a2b4/")
		if exp, err := r.CheckLink(rec.JobID, filename, u.Query(), now); err != nil || !exp.Equal(t0.Add(time.Hour)) {
			t.Errorf("CheckLink(%q) = %v, %v", link, exp, err)
		}
		if _, err := renderer("k2", &now).CheckLink(rec.JobID, filename, u.Query(), now); code(err) != docmill.CodeForbidden {
			t.Errorf("another key's CheckLink(%q) = %v, want forbidden", link, err)
		}
		if _, err := r.CheckLink(rec.JobID, filename, u.Query(), t0.Add(time.Hour)); code(err) != docmill.CodeGone {
			t.Errorf("CheckLink(%q) at expiry = %v, want gone", link, err)
		}
	}
	if want := docmill.PreviewName("a b.pdf"); !strings.Contains(rec.Result.PreviewURL, url.PathEscape(want)) {
		t.Errorf("preview link %q does not name %q", rec.Result.PreviewURL, want)
	}

	now = t0.Add(time.Hour)
	if rec := r.Record(t.Context(), doneJob()); !rec.Result.Expired || rec.Result.URL != "" || rec.Result.PreviewURL != "" {
		t.Errorf("expired result %+v: want expired, no links", rec.Result)
	}
}

// TestRecordExport: a result exported with keep_result=false and then
// deleted has no link and is not expired; a failed export says why.
func TestRecordExport(t *testing.T) {
	now := t0
	r := renderer("k1", &now)
	j := doneJob()
	j.Result.DeletedAt = &t0
	j.Export = &docmill.Export{URL: "https://bucket.example/out.pdf?X-Sig=secret", Status: docmill.ExportDone}
	res := r.Record(t.Context(), j).Result
	if res.URL != "" || res.Expired || res.ExportedTo != "https://bucket.example/out.pdf" || res.ExportStatus != "done" {
		t.Errorf("exported result %+v", res)
	}
	j = doneJob()
	j.Export = &docmill.Export{URL: "https://bucket.example/out.pdf", KeepResult: true, Status: docmill.ExportFailed, Reason: "403"}
	if res := r.Record(t.Context(), j).Result; res.URL == "" || res.ExportError != "403" {
		t.Errorf("failed export %+v: want the link and the reason", res)
	}
}

// TestRecordJSON: the record's JSON, field by field and in order, as
// clients and webhook receivers read it.
func TestRecordJSON(t *testing.T) {
	now := t0
	j := &docmill.Job{ID: "job_x", Tool: "rotate-pdf", Status: docmill.StatusFailed, CreatedAt: t0, FinishedAt: &t0,
		Error: &docmill.JobError{Code: docmill.CodeInvalidDocument, Message: "bad"}}
	b, err := json.Marshal(renderer("k1", &now).Record(t.Context(), j))
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"job_id":"job_x","status":"failed","tool":"rotate-pdf","created_at":"2026-11-22T10:00:00Z",` +
		`"finished_at":"2026-11-22T10:00:00Z","meta":{"input_size":0},"error":{"code":"invalid_document","message":"bad"}}`
	if string(b) != want {
		t.Errorf("record\n%s\nwant\n%s", b, want)
	}
}
