package httpapi

import (
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/docmill/docmill"
)

func TestWaitBudget(t *testing.T) {
	s := NewServer(Config{SyncBudget: 10 * time.Second, MaxWait: time.Minute, Logger: slog.New(slog.DiscardHandler)})
	short := &docmill.Tool{Slug: "compress-pdf"}
	long := &docmill.Tool{Slug: "ocr-pdf", Long: true}

	tests := []struct {
		name   string
		tool   *docmill.Tool
		prefer []string // one Prefer header each
		want   time.Duration
		bad    bool
	}{
		{name: "none", tool: short, want: 10 * time.Second},
		{name: "respond-async", tool: short, prefer: []string{"respond-async"}, want: 0},
		{name: "respond-async any case", tool: short, prefer: []string{"Respond-Async"}, want: 0},
		{name: "wait", tool: short, prefer: []string{"wait=5"}, want: 5 * time.Second},
		{name: "wait zero", tool: short, prefer: []string{"wait=0"}, want: 0},
		{name: "wait quoted", tool: short, prefer: []string{`wait="7"`}, want: 7 * time.Second},
		{name: "wait spaced, upper case", tool: short, prefer: []string{" WAIT = 4 "}, want: 4 * time.Second},
		{name: "wait above MaxWait", tool: short, prefer: []string{"wait=600"}, want: time.Minute},
		{name: "wait at MaxWait", tool: short, prefer: []string{"wait=60"}, want: time.Minute},
		{name: "wait longer than the sync budget", tool: short, prefer: []string{"wait=30"}, want: 30 * time.Second},
		{name: "async then wait", tool: short, prefer: []string{"respond-async, wait=5"}, want: 0},
		{name: "wait then async", tool: short, prefer: []string{"wait=5, respond-async"}, want: 0},
		{name: "async in a second header", tool: short, prefer: []string{"wait=5", "respond-async"}, want: 0},
		{name: "wait in a second header", tool: short, prefer: []string{"handling=lenient", "wait=8"}, want: 8 * time.Second},
		{name: "unknown preference", tool: short, prefer: []string{"handling=strict, return=minimal"}, want: 10 * time.Second},
		{name: "empty header", tool: short, prefer: []string{""}, want: 10 * time.Second},
		{name: "wait not a number", tool: short, prefer: []string{"wait=soon"}, bad: true},
		{name: "wait negative", tool: short, prefer: []string{"wait=-1"}, bad: true},
		{name: "wait fraction", tool: short, prefer: []string{"wait=1.5"}, bad: true},
		{name: "wait without value", tool: short, prefer: []string{"wait"}, bad: true},
		{name: "wait empty", tool: short, prefer: []string{"wait="}, bad: true},
		{name: "long tool", tool: long, want: 0},
		{name: "long tool, wait", tool: long, prefer: []string{"wait=30"}, want: 30 * time.Second},
		{name: "long tool, wait above MaxWait", tool: long, prefer: []string{"wait=3600"}, want: time.Minute},
		{name: "long tool, respond-async", tool: long, prefer: []string{"respond-async"}, want: 0},
		{name: "long tool, unrelated preference", tool: long, prefer: []string{"return=minimal"}, want: 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/v1/"+tc.tool.Slug+"/process", nil)
			for _, h := range tc.prefer {
				r.Header.Add("Prefer", h)
			}
			got, err := s.waitBudget(r, tc.tool.Long)
			if tc.bad {
				if code := docmill.ErrorCode(err); code != docmill.CodeInvalidRequest {
					t.Fatalf("waitBudget = %v, %v; want an invalid_request error", got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("waitBudget = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

// TestWaitBudgetHugeWait: Prefer: wait=N with N large enough to overflow
// time.Duration must still be capped at MaxWait.
func TestWaitBudgetHugeWait(t *testing.T) {
	s := NewServer(Config{MaxWait: time.Minute, Logger: slog.New(slog.DiscardHandler)})
	r := httptest.NewRequest("POST", "/v1/x/process", nil)
	r.Header.Set("Prefer", "wait=10000000000")
	if got, err := s.waitBudget(r, false); err != nil || got != time.Minute {
		t.Errorf("waitBudget = %v, %v; want %v", got, err, time.Minute)
	}
}

func TestRequestHash(t *testing.T) {
	params := func(kv ...string) docmill.Params {
		p := docmill.Params{}
		for i := 0; i+1 < len(kv); i += 2 {
			p[kv[i]] = kv[i+1]
		}
		return p
	}
	base := requestHash("compress-pdf", params("quality", "80", "preset", "web", "grayscale", "false"), []string{"h1", "h2"})
	if len(base) != 64 {
		t.Fatalf("hash %q is not hex SHA-256", base)
	}

	// The same request gives the same hash, however the map was built.
	for i := 0; i < 20; i++ {
		p := params("grayscale", "false", "preset", "web", "quality", "80")
		if i%2 == 1 {
			p = params("preset", "web", "quality", "80", "grayscale", "false")
		}
		if got := requestHash("compress-pdf", p, []string{"h1", "h2"}); got != base {
			t.Fatalf("hash changed with map order: %s != %s", got, base)
		}
	}

	variants := []struct {
		name   string
		tool   string
		params docmill.Params
		files  []string
	}{
		{"tool", "rotate-pdf", params("quality", "80", "preset", "web", "grayscale", "false"), []string{"h1", "h2"}},
		{"param value", "compress-pdf", params("quality", "81", "preset", "web", "grayscale", "false"), []string{"h1", "h2"}},
		{"other param value", "compress-pdf", params("quality", "80", "preset", "print", "grayscale", "false"), []string{"h1", "h2"}},
		{"empty param value", "compress-pdf", params("quality", "80", "preset", "", "grayscale", "false"), []string{"h1", "h2"}},
		{"param added", "compress-pdf", params("quality", "80", "preset", "web", "grayscale", "false", "dpi", "150"), []string{"h1", "h2"}},
		{"param removed", "compress-pdf", params("quality", "80", "preset", "web"), []string{"h1", "h2"}},
		{"param renamed", "compress-pdf", params("quality", "80", "preset", "web", "greyscale", "false"), []string{"h1", "h2"}},
		{"file hash", "compress-pdf", params("quality", "80", "preset", "web", "grayscale", "false"), []string{"h1", "h3"}},
		{"file order", "compress-pdf", params("quality", "80", "preset", "web", "grayscale", "false"), []string{"h2", "h1"}},
		{"file added", "compress-pdf", params("quality", "80", "preset", "web", "grayscale", "false"), []string{"h1", "h2", "h2"}},
		{"file removed", "compress-pdf", params("quality", "80", "preset", "web", "grayscale", "false"), []string{"h1"}},
		{"no files", "compress-pdf", params("quality", "80", "preset", "web", "grayscale", "false"), nil},
	}
	seen := map[string]string{base: "base"}
	for _, v := range variants {
		h := requestHash(v.tool, v.params, v.files)
		if prev, dup := seen[h]; dup {
			t.Errorf("%s: same hash as %s", v.name, prev)
		}
		seen[h] = v.name
	}
}
