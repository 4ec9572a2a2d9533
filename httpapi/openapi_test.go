package httpapi

import (
	"log/slog"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/docmill/docmill"
)

// routeRE matches a route of routes.go: its method, its pattern, and the
// rest of the line (which tells whether it is authed and limited).
var routeRE = regexp.MustCompile(`mux\.Handle(?:Func)?\("([A-Z]+) ([^"]+)",(.*)`)

// openAPIDoc serves the document of a server with a tool and the web
// interface.
func openAPIDoc(t *testing.T) map[string]any {
	t.Helper()
	tool := &docmill.Tool{Slug: "rotate-pdf", Title: "Rotate PDF", Accepts: []string{"application/pdf"}, MinFiles: 1, MaxFiles: 1,
		Meta: []docmill.MetaField{{Name: "rotated_pages", Type: docmill.MetaInteger}}}
	s := NewServer(Config{Registry: docmill.NewRegistry(tool), Logger: slog.New(slog.DiscardHandler), Web: http.NotFoundHandler()})
	var doc map[string]any
	get(t, s, "/v1/openapi.json", &doc)
	return doc
}

// TestOpenAPIRoutes: every route of routes.go is an operation of the
// document (the process route once per tool; /static/ and /docs/{asset}
// are the pages' assets, described with them), and every operation has an operationId of
// its own.
func TestOpenAPIRoutes(t *testing.T) {
	src, err := os.ReadFile("routes.go")
	if err != nil {
		t.Fatal(err)
	}
	doc := openAPIDoc(t)
	paths := doc["paths"].(map[string]any)
	routes := routeRE.FindAllStringSubmatch(string(src), -1)
	if len(routes) < 20 {
		t.Fatalf("found %d routes in routes.go; has its form changed?", len(routes))
	}
	for _, m := range routes {
		method, path := strings.ToLower(m[1]), m[2]
		switch {
		case path == "/static/" || path == "/docs/{asset}":
			continue
		case path == "/{$}":
			path = "/"
		case path == "/v1/{tool}/process":
			path = "/v1/rotate-pdf/process"
		}
		item, _ := paths[path].(map[string]any)
		if item[method] == nil {
			t.Errorf("route %s %s is not in the document", m[1], m[2])
		}
	}
	ids := map[string]string{}
	for path, item := range paths {
		for method, op := range item.(map[string]any) {
			op, ok := op.(map[string]any)
			if !ok || method == "parameters" {
				continue
			}
			id, _ := op["operationId"].(string)
			if !regexp.MustCompile(`^[a-z][A-Za-z]+$`).MatchString(id) {
				t.Errorf("%s %s: operationId %q", method, path, id)
			}
			if other, dup := ids[id]; dup {
				t.Errorf("operationId %s of %s %s and %s", id, method, path, other)
			}
			ids[id] = method + " " + path
		}
	}
	if ids["rotatePdf"] != "post /v1/rotate-pdf/process" || ids["getJob"] == "" || ids["listJobs"] == "" || ids["createWebhook"] == "" {
		t.Errorf("operationIds %v", ids)
	}
}

// TestOpenAPIErrorAnswers: the operations of authenticated routes
// declare 401, those of rate-limited ones 429 and X-RateLimit-* on their
// successes (the process route limits itself), and every answer
// declares X-Request-Id.
func TestOpenAPIErrorAnswers(t *testing.T) {
	src, err := os.ReadFile("routes.go")
	if err != nil {
		t.Fatal(err)
	}
	doc := openAPIDoc(t)
	paths := doc["paths"].(map[string]any)
	components := doc["components"].(map[string]any)
	for _, m := range routeRE.FindAllStringSubmatch(string(src), -1) {
		path := strings.Replace(m[2], "{tool}", "rotate-pdf", 1)
		item, _ := paths[path].(map[string]any)
		op, _ := item[strings.ToLower(m[1])].(map[string]any)
		if op == nil {
			continue // TestOpenAPIRoutes
		}
		responses := op["responses"].(map[string]any)
		authed := strings.Contains(m[3], "s.authed(")
		limited := strings.Contains(m[3], "s.limited(") || path == "/v1/rotate-pdf/process"
		if authed && responses["401"] == nil {
			t.Errorf("%s %s: authenticated, no 401", m[1], m[2])
		}
		if limited && responses["429"] == nil {
			t.Errorf("%s %s: rate-limited, no 429", m[1], m[2])
		}
		for status, r := range responses {
			r := r.(map[string]any)
			if ref, ok := r["$ref"].(string); ok {
				r = components["responses"].(map[string]any)[strings.TrimPrefix(ref, "#/components/responses/")].(map[string]any)
			}
			headers, _ := r["headers"].(map[string]any)
			if headers["X-Request-Id"] == nil {
				t.Errorf("%s %s %s: no X-Request-Id", m[1], m[2], status)
			}
			if limited && strings.HasPrefix(status, "2") && headers["X-RateLimit-Remaining"] == nil {
				t.Errorf("%s %s %s: rate-limited, no X-RateLimit-Remaining", m[1], m[2], status)
			}
		}
	}
	accepted := paths["/v1/rotate-pdf/process"].(map[string]any)["post"].(map[string]any)["responses"].(map[string]any)["202"].(map[string]any)
	if h := accepted["headers"].(map[string]any); h["Location"] == nil || h["Retry-After"] == nil {
		t.Errorf("202 headers %v", h)
	}
}

// TestOpenAPIToolSchemas: a tool's process call answers with its own job
// schema, whose meta declares the figures of every job and the tool's.
func TestOpenAPIToolSchemas(t *testing.T) {
	doc := openAPIDoc(t)
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	ok := docPaths(doc)["/v1/rotate-pdf/process"].(map[string]any)["post"].(map[string]any)["responses"].(map[string]any)["200"].(map[string]any)
	schema := ok["content"].(map[string]any)["application/json"].(map[string]any)["schema"].(map[string]any)
	if schema["$ref"] != "#/components/schemas/RotatePdfJob" {
		t.Fatalf("rotatePdf 200 schema %v", schema)
	}
	meta := schemas["RotatePdfMeta"].(map[string]any)["properties"].(map[string]any)
	for _, name := range []string{"rotated_pages", "input_size", "duration_ms"} {
		if meta[name] == nil {
			t.Errorf("RotatePdfMeta lacks %s: %v", name, meta)
		}
	}
	if operationName("pdf-to-pdfa") != "pdfToPdfa" || typeName("rotate-pdf") != "RotatePdf" {
		t.Errorf("names: %s %s", operationName("pdf-to-pdfa"), typeName("rotate-pdf"))
	}
}

func docPaths(doc map[string]any) map[string]any { return doc["paths"].(map[string]any) }
