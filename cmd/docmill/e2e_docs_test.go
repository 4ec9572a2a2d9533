package main

import (
	"flag"
	"github.com/docmill/docmill/tools/toolstest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// docFile returns a file of the repository, such as "docs/api.md".
func docFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// walkthrough returns docs/api.md's block fenced as ```sh walkthrough.
func walkthrough(t *testing.T) string {
	t.Helper()
	m := regexp.MustCompile("(?s)```sh walkthrough\n(.*?)```").FindStringSubmatch(docFile(t, "docs/api.md"))
	if m == nil {
		t.Fatal("docs/api.md has no ```sh walkthrough block")
	}
	return m[1]
}

// TestWalkthrough runs the walk-through of docs/api.md as written, with bash -e,
// from a copy of examples/ beside a built bin/docmill (stampedBinary), against a
// fresh server whose URL and key it gets as DOCMILL_URL and DOCMILL_KEY,
// the variables the walk-through has the reader export.
func TestWalkthrough(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs OCR")
	}
	toolstest.Need(t, "bash", "curl", "jq")
	// Its binary, directory and server are its own; no time is bounded.
	t.Parallel()
	script := walkthrough(t)
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(stampedBinary(t), filepath.Join(dir, "bin", "docmill")); err != nil {
		t.Fatal(err)
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

// TestToolsDoc: docs/tools.md is what `docmill docs tools` writes from
// the registry, byte for byte, so the tool reference cannot drift from
// the declarations.
func TestToolsDoc(t *testing.T) {
	t.Parallel()
	reg, closeTools, err := referenceRegistry()
	if err != nil {
		t.Fatal(err)
	}
	defer closeTools()
	var want strings.Builder
	if err := writeToolsDoc(&want, reg); err != nil {
		t.Fatal(err)
	}
	if got := docFile(t, "docs/tools.md"); got != want.String() {
		t.Errorf("docs/tools.md is not what the registry declares; run from the repository's root:\n\t%s", docsToolsCommand)
	}
}

// TestDocsTables: the configuration table of docs/operations.md has a
// row for every flag of docmill serve, but for the --max-... limits,
// which have a table of their own in docs/api.md, and docs/architecture.md's engine
// tables a row for every tool.
func TestDocsTables(t *testing.T) {
	t.Parallel()
	ops := firstCellRows(docFile(t, "docs/operations.md"))
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	(&serveFlags{}).register(fs)
	fs.VisitAll(func(f *flag.Flag) {
		if !strings.HasPrefix(f.Name, "max-") || f.Name == "max-upload-mb" {
			if _, ok := ops["--"+f.Name]; !ok {
				t.Errorf("docs/operations.md's configuration table lacks --%s", f.Name)
			}
		}
	})
	api := docFile(t, "docs/api.md")
	fs.VisitAll(func(f *flag.Flag) {
		_, inOps := ops["--"+f.Name]
		if strings.HasPrefix(f.Name, "max-") && !inOps && !strings.Contains(api, "| `--"+f.Name+"` |") {
			t.Errorf("docs/api.md's limits table lacks --%s", f.Name)
		}
	})
	reg, closeTools, err := referenceRegistry()
	if err != nil {
		t.Fatal(err)
	}
	defer closeTools()
	engines := firstCellRows(docFile(t, "docs/architecture.md"))
	for _, tool := range reg.All() {
		if _, ok := engines[tool.Slug]; !ok {
			t.Errorf("docs/architecture.md's engine tables have no row for %s", tool.Slug)
		}
	}
}

// firstCellRows maps each `name` in the first cell of a Markdown table
// row of text to its row.
func firstCellRows(text string) map[string]string {
	rows := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(line, "|")
		for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(cells[1], -1) {
			rows[m[1]] = line
		}
	}
	return rows
}

// TestExamplesGenerated: examples/ holds what examples/generate.go makes,
// so the walk-through's files can be made again and owe nobody a licence.
func TestExamplesGenerated(t *testing.T) {
	t.Parallel()
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

// TestDocsLinks: every relative link of README.md and docs/*.md names a
// file of the repository, and a #fragment a heading of its file, as
// GitHub makes their anchors.
func TestDocsLinks(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	pages, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	pages = append(pages, filepath.Join(root, "README.md"))
	link := regexp.MustCompile(`\]\(([^)#\s]*)(?:#([^)\s]*))?\)`)
	for _, page := range pages {
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(text), -1) {
			target, fragment := m[1], m[2]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file := page
			if target != "" {
				file = filepath.Join(filepath.Dir(page), filepath.FromSlash(target))
			}
			rel, _ := filepath.Rel(root, file)
			b, err := os.ReadFile(file)
			if err != nil {
				if !isDir(file) {
					t.Errorf("%s links to %s, which does not exist", page, m[0])
				}
				continue
			}
			if fragment != "" && !headingAnchors(string(b))[fragment] {
				t.Errorf("%s links to %s: %s has no heading #%s", page, m[0], rel, fragment)
			}
		}
	}
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// headingAnchors returns the anchors GitHub gives the headings of a
// Markdown text: lower case, punctuation but hyphens dropped, spaces made
// hyphens. Lines inside fenced code are not headings.
func headingAnchors(text string) map[string]bool {
	anchors := map[string]bool{}
	fenced := false
	drop := regexp.MustCompile(`[^\p{L}\p{N}_\- ]`)
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
		}
		if fenced || !strings.HasPrefix(line, "#") {
			continue
		}
		title := strings.TrimSpace(strings.TrimLeft(line, "#"))
		anchors[strings.ReplaceAll(drop.ReplaceAllString(strings.ToLower(title), ""), " ", "-")] = true
	}
	return anchors
}
