package main

import (
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// readme returns the project's README.md.
func readme(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// walkthrough returns the README's block fenced as ```sh walkthrough.
func walkthrough(t *testing.T) string {
	t.Helper()
	m := regexp.MustCompile("(?s)```sh walkthrough\n(.*?)```").FindStringSubmatch(readme(t))
	if m == nil {
		t.Fatal("README.md has no ```sh walkthrough block")
	}
	return m[1]
}

// TestWalkthrough runs the README's walk-through as written, with bash -e,
// from a copy of examples/ beside a freshly built bin/docmill, against a
// fresh server whose URL and key it gets as DOCMILL_URL and DOCMILL_KEY,
// the variables the README has the reader export.
func TestWalkthrough(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs OCR")
	}
	for _, tool := range []string{"bash", "curl", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("the walk-through needs %s", tool)
		}
	}
	script := walkthrough(t)
	dir := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(dir, "bin", "docmill"), ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	examples, err := filepath.Glob(filepath.Join("..", "..", "examples", "*"))
	if err != nil || len(examples) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	if err := os.Mkdir(filepath.Join(dir, "examples"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range examples {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "examples", filepath.Base(p)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := startServer(t, "")

	cmd := exec.Command("bash", "-e", "-o", "pipefail", "-x", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "DOCMILL_URL="+s.URL, "DOCMILL_KEY="+s.DevKey,
		"PATH="+filepath.Join(dir, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	t.Logf("walk-through:\n%s", out)
	if err != nil {
		t.Fatalf("the walk-through failed: %v", err)
	}
	for _, name := range []string{
		"examples/report-rotated.pdf", "merged.pdf", "compressed/report-compressed.pdf",
		"compressed/appendix-compressed.pdf", "examples/photo-200x150.jpg", "examples/scan-ocr.pdf", "rotated.pdf",
	} {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || len(b) == 0 {
			t.Errorf("the walk-through made no %s: %v", name, err)
		}
	}
	for _, want := range []string{"saved examples/report-rotated.pdf", `"status": "done"`, "HTTP/1.1 202 Accepted", `"plan": "pro"`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the walk-through's output lacks %q", want)
		}
	}
}

// TestReadmeTables: the README's tool tables name every param of every
// tool, and its configuration table every flag of docmill serve (the
// --max-... limits have a table of their own).
func TestReadmeTables(t *testing.T) {
	text := readme(t)
	rows := map[string]string{} // first cell's `slug` -> row
	for _, line := range strings.Split(text, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(line, "|")
		for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(cells[1], -1) {
			rows[m[1]] = line
		}
	}
	s := startServer(t, "")
	list, err := s.client("").Tools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range list {
		row, ok := rows[tool.Slug]
		if !ok {
			t.Errorf("README has no row for %s", tool.Slug)
			continue
		}
		for _, p := range tool.Params {
			if !strings.Contains(row, "`"+p.Name+"`") {
				t.Errorf("README's row of %s lacks `%s`", tool.Slug, p.Name)
			}
		}
	}
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	(&serveFlags{}).register(fs)
	fs.VisitAll(func(f *flag.Flag) {
		if !strings.HasPrefix(f.Name, "max-") || f.Name == "max-upload-mb" {
			if _, ok := rows["--"+f.Name]; !ok {
				t.Errorf("README's configuration table lacks --%s", f.Name)
			}
		}
	})
}

// TestExamplesGenerated: examples/ holds what examples/generate.go makes,
// so the walk-through's files can be made again and owe nobody a licence.
func TestExamplesGenerated(t *testing.T) {
	dir := t.TempDir()
	gen := exec.Command("go", "run", "generate.go", dir)
	gen.Dir = filepath.Join("..", "..", "examples")
	if out, err := gen.CombinedOutput(); err != nil {
		t.Fatalf("go run generate.go: %v\n%s", err, out)
	}
	made, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(made) == 0 {
		t.Fatal("generate.go made nothing")
	}
	for _, p := range made {
		want, _ := os.ReadFile(p)
		got, err := os.ReadFile(filepath.Join("..", "..", "examples", filepath.Base(p)))
		if err != nil || string(got) != string(want) {
			t.Errorf("examples/%s is not what generate.go makes (%v); run go run examples/generate.go", filepath.Base(p), err)
		}
	}
}
