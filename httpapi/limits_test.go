package httpapi

import (
	"encoding/json"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/docmill/docmill"
)

// get serves one GET of path on s, without a key, and decodes the JSON
// body into v.
func get(t *testing.T, s *Server, path string, v any) {
	t.Helper()
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("GET %s: %d %s %s", path, rec.Code, rec.Header().Get("Content-Type"), rec.Body)
	}
	if err := json.Unmarshal(rec.Body.Bytes(), v); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
}

// TestLimits: GET /v1/limits needs no key and shows the configured
// limits, with the defaults for those not set.
func TestLimits(t *testing.T) {
	s := NewServer(Config{
		Registry: docmill.NewRegistry(), Logger: slog.New(slog.DiscardHandler),
		Limits: docmill.Limits{ImagePixels: 5_000_000, RenderPages: 10, ArchiveBytes: 64 << 20, FetchRequests: 7},
	})
	var got docmill.Limits
	get(t, s, "/v1/limits", &got)
	want := docmill.DefaultLimits()
	want.ImagePixels, want.RenderPages, want.ArchiveBytes, want.FetchRequests = 5_000_000, 10, 64<<20, 7
	if got != want {
		t.Errorf("limits\n got %+v\nwant %+v", got, want)
	}

	get(t, NewServer(Config{Registry: docmill.NewRegistry(), Logger: slog.New(slog.DiscardHandler)}), "/v1/limits", &got)
	if got != docmill.DefaultLimits() {
		t.Errorf("zero limits served as %+v, want the defaults", got)
	}
}

// TestLimitsOpenAPI: the OpenAPI document describes GET /v1/limits as
// public, and its schema has exactly the fields the endpoint serves.
func TestLimitsOpenAPI(t *testing.T) {
	s := NewServer(Config{Registry: docmill.NewRegistry(), Logger: slog.New(slog.DiscardHandler)})
	var doc struct {
		Paths      map[string]map[string]json.RawMessage `json:"paths"`
		Components struct {
			Schemas map[string]struct {
				Required   []string                   `json:"required"`
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	get(t, s, "/v1/openapi.json", &doc)
	var op struct {
		Security  []any                      `json:"security"`
		Responses map[string]json.RawMessage `json:"responses"`
	}
	if err := json.Unmarshal(doc.Paths["/v1/limits"]["get"], &op); err != nil || op.Security == nil || len(op.Security) != 0 || op.Responses["200"] == nil {
		t.Fatalf("GET /v1/limits in the OpenAPI document: %+v, %v", op, err)
	}

	var served map[string]any
	get(t, s, "/v1/limits", &served)
	fields := slices.Sorted(maps.Keys(served))
	schema := doc.Components.Schemas["Limits"]
	if props := slices.Sorted(maps.Keys(schema.Properties)); !slices.Equal(props, fields) {
		t.Errorf("schema properties %v\nserved fields %v", props, fields)
	}
	if req := slices.Sorted(slices.Values(schema.Required)); !slices.Equal(req, fields) {
		t.Errorf("schema required %v\nserved fields %v", req, fields)
	}
}
