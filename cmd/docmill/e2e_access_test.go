package main

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/docmill/docmill/client"
)

func TestUnauthorized(t *testing.T) {
	t.Parallel()
	s := startServer(t, "")
	revoked := newKey(t, s.DataDir, "free")
	// Revoked from the CLI while the server runs on the same data.
	runCLI(t, "accounts", "revoke-key", "--data-dir", s.DataDir, revoked[:12])
	ctx := context.Background()
	for name, key := range map[string]string{
		"missing":   "",
		"malformed": "not-a-key",
		"unknown":   "dm_live_" + strings.Repeat("A", 32),
		"revoked":   revoked,
	} {
		t.Run(name, func(t *testing.T) {
			_, _, err := s.client(key).Process(ctx, "rotate-pdf", []client.File{pdfFile("one-page.pdf", onePagePDF())}, client.ProcessOptions{})
			e := apiError(t, err, 401, "unauthorized")
			if !strings.HasPrefix(e.Header.Get("WWW-Authenticate"), "Bearer") {
				t.Fatalf("WWW-Authenticate %q", e.Header.Get("WWW-Authenticate"))
			}
			_, err = s.client(key).Job(ctx, "job_x")
			apiError(t, err, 401, "unauthorized")
		})
	}
}

func TestForeignJobIsNotFound(t *testing.T) {
	t.Parallel()
	s := startServer(t, "")
	other := newKey(t, s.DataDir, "free")
	j, _, err := s.client(s.DevKey).Process(context.Background(), "rotate-pdf", []client.File{pdfFile("one-page.pdf", onePagePDF())}, client.ProcessOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.client(other).Job(context.Background(), j.JobID)
	apiError(t, err, 404, "not_found")
	_, err = s.client(other).CancelJob(context.Background(), j.JobID)
	apiError(t, err, 404, "not_found")
}

func TestRateLimit(t *testing.T) {
	t.Parallel()
	s := startServer(t, "")
	key := newKey(t, s.DataDir, "custom", "--rpm", "2")
	c := s.client(key)
	ctx := context.Background()
	for i := 0; i < 2; i++ {
		_, resp, err := c.Process(ctx, "rotate-pdf", []client.File{pdfFile("one-page.pdf", onePagePDF())}, client.ProcessOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if resp.Header.Get("X-RateLimit-Limit") != "2" || resp.Header.Get("X-RateLimit-Remaining") != strconv.Itoa(1-i) {
			t.Fatalf("headers %v", resp.Header)
		}
	}
	_, _, err := c.Process(ctx, "rotate-pdf", []client.File{pdfFile("one-page.pdf", onePagePDF())}, client.ProcessOptions{})
	e := apiError(t, err, 429, "rate_limited")
	ra, _ := strconv.Atoi(e.Header.Get("Retry-After"))
	if ra < 1 || ra > 30 || e.Header.Get("X-RateLimit-Remaining") != "0" || e.Header.Get("X-RateLimit-Reset") == "" {
		t.Fatalf("headers %v", e.Header)
	}
}

func TestQuota(t *testing.T) { testQuota(t, sqliteDir) }

func testQuota(t *testing.T, newDir dataDirFunc) {
	s := startServer(t, newDir(t))
	key := newKey(t, s.DataDir, "custom", "--ops", "2")
	c := s.client(key)
	ctx := context.Background()
	// A failed job is not charged.
	_, _, err := c.Process(ctx, "rotate-pdf", []client.File{{Name: "bad.pdf", Body: strings.NewReader("%PDF-1.4\ngarbage")}}, client.ProcessOptions{})
	apiError(t, err, 400, "invalid_document")
	for i := 0; i < 2; i++ {
		if _, _, err := c.Process(ctx, "rotate-pdf", []client.File{pdfFile("one-page.pdf", onePagePDF())}, client.ProcessOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	_, _, err = c.Process(ctx, "rotate-pdf", []client.File{pdfFile("one-page.pdf", onePagePDF())}, client.ProcessOptions{})
	e := apiError(t, err, 429, "quota_exceeded")
	now := time.Now().UTC()
	reset := time.Date(now.Year(), now.Month()+1, 1, 0, 0, 0, 0, time.UTC)
	ra, _ := strconv.Atoi(e.Header.Get("Retry-After"))
	if d := time.Duration(ra)*time.Second - time.Until(reset); d < -time.Minute || d > time.Minute {
		t.Fatalf("Retry-After %d s, want about %s", ra, time.Until(reset))
	}
	u := accountUsage(ctx, t, c)
	if u.OperationsUsed != 2 || u.OperationsLimit != 2 {
		t.Fatalf("usage %v", u)
	}
}

// TestJobsInFlight: queued jobs count against the in-flight limit and the
// quota, so that concurrency cannot overshoot either.
func TestJobsInFlight(t *testing.T) {
	t.Parallel()
	s := startServer(t, "", "--role", "api")
	key := newKey(t, s.DataDir, "custom", "--in-flight", "2", "--ops", "3")
	c := s.client(key)
	ctx := context.Background()
	for i := 0; i < 2; i++ {
		if _, _, err := c.Process(ctx, "rotate-pdf", []client.File{pdfFile("one-page.pdf", onePagePDF())}, client.ProcessOptions{Prefer: "respond-async"}); err != nil {
			t.Fatal(err)
		}
	}
	_, _, err := c.Process(ctx, "rotate-pdf", []client.File{pdfFile("one-page.pdf", onePagePDF())}, client.ProcessOptions{Prefer: "respond-async"})
	e := apiError(t, err, 429, "rate_limited")
	if e.Header.Get("Retry-After") == "" {
		t.Fatal("no Retry-After")
	}
}

func TestPriorityByPlan(t *testing.T) {
	t.Parallel()
	s := startServer(t, "", "--role", "api")
	ctx := context.Background()
	want := map[string]int{"free": 4, "pro": 3, "team": 2, "custom": 1}
	ids := map[string]string{}
	for plan := range want {
		j, _, err := s.client(newKey(t, s.DataDir, plan)).Process(ctx, "rotate-pdf",
			[]client.File{pdfFile("one-page.pdf", onePagePDF())}, client.ProcessOptions{Prefer: "respond-async"})
		if err != nil {
			t.Fatal(err)
		}
		ids[plan] = j.JobID
	}
	got := riverPriorities(t, s.DataDir)
	for plan, id := range ids {
		if got[id] != want[plan] {
			t.Errorf("%s job has River priority %d, want %d", plan, got[id], want[plan])
		}
	}
}

// TestSignup: with sign-up closed, POST /v1/signup is 404 and sign-in
// still answers; open (the default), a sign-up is 202 (the mail goes to
// the log without --smtp-url; TestAccountsByMail follows a link) and a
// bad address 400.
func TestSignup(t *testing.T) {
	t.Parallel()
	closed := startServer(t, "", "--signup", "closed")
	hc := http.DefaultClient
	request(t, hc, "POST", closed.URL+"/v1/signup", `{"email":"a@example.com"}`, nil, 404)
	request(t, hc, "POST", closed.URL+"/v1/login", `{"email":"a@example.com"}`, nil, 202)

	s := startServer(t, "")
	if out := request(t, hc, "POST", s.URL+"/v1/signup", `{"email":"dev@example.com"}`, nil, 202).json(t); out["status"] != "mail_sent" {
		t.Errorf("sign-up: %v", out)
	}
	request(t, hc, "POST", s.URL+"/v1/signup", `{"email":"nope"}`, nil, 400)
}
