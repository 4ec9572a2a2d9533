package main

import (
	"encoding/json"
	"github.com/docmill/docmill/tools/toolstest"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// openAPIDocument fetches the server's OpenAPI document.
func openAPIDocument(t *testing.T, s *testServer) []byte {
	t.Helper()
	resp, err := http.Get(s.URL + "/v1/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /v1/openapi.json: %d %v", resp.StatusCode, err)
	}
	return b
}

// moduleRoot is the repository's root, two levels above this package.
func moduleRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// missingTool skips t for want of a program the test needs, or fails it
// under CI, where `make test-deps` must have installed it.
func missingTool(t *testing.T, msg string) {
	t.Helper()
	toolstest.Lacking(t, "%s", msg)
}

// TestOpenAPILint lints the served document (every tool of this node
// included) with Redocly's linter and the checked-in redocly.yaml, and
// fails on any problem, warnings included.
func TestOpenAPILint(t *testing.T) {
	t.Parallel()
	root := moduleRoot(t)
	redocly := filepath.Join(root, ".tools", "redocly", "node_modules", ".bin", "redocly")
	if _, err := os.Stat(redocly); err != nil {
		if redocly, err = exec.LookPath("redocly"); err != nil {
			missingTool(t, "Redocly's linter is not installed: run `make test-deps` (scripts/install-redocly.sh puts it in .tools/redocly)")
		}
	}
	s := startServer(t, "")
	doc := filepath.Join(t.TempDir(), "openapi.json")
	if err := os.WriteFile(doc, openAPIDocument(t, s), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(redocly, "lint", doc, "--config", filepath.Join(root, "redocly.yaml"), "--format", "json")
	cmd.Env = append(os.Environ(), "REDOCLY_TELEMETRY=off", "REDOCLY_SUPPRESS_UPDATE_NOTICE=true", "NO_COLOR=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var report struct {
		Totals struct {
			Errors   int `json:"errors"`
			Warnings int `json:"warnings"`
		} `json:"totals"`
		Problems []struct {
			RuleID   string `json:"ruleId"`
			Severity string `json:"severity"`
			Message  string `json:"message"`
			Location []struct {
				Pointer string `json:"pointer"`
			} `json:"location"`
		} `json:"problems"`
	}
	if jerr := json.Unmarshal(out, &report); jerr != nil {
		t.Fatalf("redocly lint: %v (%v)\n%s\n%s", err, jerr, out, stderr.String())
	}
	for _, p := range report.Problems {
		where := ""
		if len(p.Location) > 0 {
			where = p.Location[0].Pointer
		}
		t.Errorf("%s %s at %s: %s", p.Severity, p.RuleID, where, p.Message)
	}
	if report.Totals.Errors+report.Totals.Warnings != len(report.Problems) || (err != nil && len(report.Problems) == 0) {
		t.Errorf("redocly lint: %v, totals %+v\n%s", err, report.Totals, stderr.String())
	}
}
