package httpapi

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/ratelimit"
	"github.com/docmill/docmill/store/sqlite"
)

// TestMissingEngineIs503: a tool whose engine was not found stays in the
// catalogue, unavailable, and its process calls answer 503
// engine_unavailable before the body is read.
func TestMissingEngineIs503(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "d.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	acct := &docmill.Account{ID: "acct_1", Name: "a", Plan: docmill.PlanPro, CreatedAt: time.Now()}
	key, stored := docmill.NewAPIKey(acct.ID, "k", time.Now())
	if err := st.CreateAccount(ctx, acct, &stored); err != nil {
		t.Fatal(err)
	}
	missing := &docmill.Tool{
		Slug: "compress-pdf", Title: "Compress", Accepts: []string{"application/pdf"}, MinFiles: 1, MaxFiles: 1, Engine: "ghostscript",
		Available: func() bool { return false }, // the engine a test controls: not installed
		Engines:   func() []docmill.EngineStatus { return []docmill.EngineStatus{{Name: "gs"}} },
	}
	s := NewServer(Config{Store: st, Registry: docmill.NewRegistry(missing), Limiter: ratelimit.NewMemory(nil), Plans: docmill.DefaultPlans()})

	req := httptest.NewRequest(http.MethodPost, "/v1/compress-pdf/process", strings.NewReader("never read"))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "multipart/form-data; boundary=x")
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), `"engine_unavailable"`) {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}

	rec = httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/v1/tools/compress-pdf", nil))
	if body := rec.Body.String(); !strings.Contains(body, `"available": false`) || !strings.Contains(body, `"name": "gs"`) {
		t.Fatalf("catalogue entry %s", body)
	}
}
