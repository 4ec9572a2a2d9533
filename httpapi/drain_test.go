package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/internal/poll"
)

// drainReply is one HTTP answer of the drain test.
type drainReply struct {
	status int
	header http.Header
	body   map[string]any
	err    error
}

// TestDrain: on a server with a real queue whose jobs stay queued (no
// workers), Drain answers a process call waiting for its job at once
// with 202, the job and its Location; an upload still arriving gets 503
// service_unavailable with a Retry-After, and so does any upload after
// the drain; neither leaves a file or a job.
func TestDrain(t *testing.T) {
	a := newProcAPI(t, nil)
	q := a.riverQueue(t)
	a.st.SetEnqueue(q.InsertTx)
	a.s.cfg.Queue = q
	srv := httptest.NewServer(a.s)
	defer srv.Close()
	key, acct := a.account(t, docmill.Plan{OperationsPerMonth: 100, RequestsPerMinute: 100, JobsInFlight: 10, Priority: 1, ResultTTL: time.Hour})

	waiting := drainPost(srv.URL, key, strings.NewReader(pdfA))
	pr, pw := io.Pipe()
	defer pw.Close()
	go func() { _, _ = io.WriteString(pw, pdfB+strings.Repeat("%", 4096)) }() // then nothing more
	uploading := drainPost(srv.URL, key, pr)
	period, _ := docmill.Period(time.Now())
	poll.Until(t, 10*time.Second, func() (bool, string) {
		u, _ := a.st.Usage(t.Context(), acct.ID, period)
		return u.InFlight == 1, "the waiting call's job was never created"
	})
	// The unfinished upload is being stored: its file's write has begun
	// in the bucket (a temporary file beside the waiting call's input).
	poll.Until(t, 10*time.Second, func() (bool, string) {
		return a.storedInputs(t) >= 2, "the unfinished upload was never being stored"
	})

	drained := time.Now()
	a.s.Drain()
	r := <-waiting
	if r.err != nil || r.status != http.StatusAccepted || r.body["status"] != "queued" {
		t.Fatalf("waiting call: %d %v %v, want 202 queued", r.status, r.body, r.err)
	}
	id, _ := r.body["job_id"].(string)
	if r.header.Get("Location") != "/v1/jobs/"+id || r.header.Get("Retry-After") == "" {
		t.Errorf("waiting call's headers: %v", r.header)
	}
	if took := time.Since(drained); took > 2*time.Second {
		t.Errorf("the waiting call was answered %v after Drain", took)
	}
	drainRefused(t, "unfinished upload", <-uploading)
	drainRefused(t, "upload after the drain", <-drainPost(srv.URL, key, strings.NewReader(pdfB)))
	if n := a.storedInputs(t); n != 1 {
		t.Errorf("%d files stored, want the waiting call's 1", n)
	}
	if u, err := a.st.Usage(t.Context(), acct.ID, period); err != nil || u.InFlight != 1 {
		t.Errorf("usage %+v %v, want the waiting call's job only", u, err)
	}
}

// drainPost sends a rotate-pdf process call waiting up to a minute, with
// file as its one file, and delivers the answer on the channel.
func drainPost(url, key string, file io.Reader) <-chan drainReply {
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		fw, err := mw.CreateFormFile("file", "in.pdf")
		if err == nil {
			_, err = io.Copy(fw, file)
		}
		if err == nil {
			err = mw.Close()
		}
		pw.CloseWithError(err)
	}()
	out := make(chan drainReply, 1)
	go func() {
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, url+"/v1/rotate-pdf/process", pr)
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", mw.FormDataContentType())
		req.Header.Set("Prefer", "wait=60")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			out <- drainReply{err: err}
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		r := drainReply{status: resp.StatusCode, header: resp.Header}
		r.err = json.NewDecoder(bytes.NewReader(b)).Decode(&r.body)
		out <- r
	}()
	return out
}

// drainRefused checks r is 503 service_unavailable with a Retry-After.
func drainRefused(t *testing.T, what string, r drainReply) {
	t.Helper()
	if r.err != nil || r.status != http.StatusServiceUnavailable || r.body["code"] != "service_unavailable" ||
		r.header.Get("Retry-After") == "" || r.header.Get("Content-Type") != "application/problem+json" {
		t.Errorf("%s: %d %v %v %v, want 503 service_unavailable with Retry-After", what, r.status, r.header, r.body, r.err)
	}
}
