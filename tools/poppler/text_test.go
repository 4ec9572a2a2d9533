package poppler

import (
	"bytes"
	"context"
	"mime"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/toolstest"
)

// pdftotextDirect runs pdftotext on path as a user would, outside the
// sandbox and the tool, for the tool's output to be compared with.
func pdftotextDirect(t *testing.T, path string, args ...string) []byte {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out.txt")
	args = append(append([]string{"-enc", "UTF-8"}, args...), path, out)
	if b, err := exec.Command("pdftotext", args...).CombinedOutput(); err != nil {
		t.Fatalf("pdftotext: %v: %s", err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestText(t *testing.T) {
	tool := testTool(t, "pdf-to-text")
	for _, name := range []string{"pdflatex-4-pages.pdf", "habibi-rotated.pdf", "GeoTopo-komprimiert.pdf"} {
		path := corpusPDF(t, name)
		read := func(layout string) []byte {
			out := mustRunTool(t, tool, path, map[string]string{"layout": layout})
			if want := name[:len(name)-4] + ".txt"; out.Filename != want {
				t.Errorf("filename %s, want %s", out.Filename, want)
			}
			if want := mime.TypeByExtension(".txt"); out.ContentType != want {
				t.Errorf("content type %q, want %q as the files handler serves it", out.ContentType, want)
			}
			b, err := os.ReadFile(out.Path)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
		plain, layout := read("false"), read("true")
		if want := pdftotextDirect(t, path); !bytes.Equal(plain, want) || len(plain) == 0 {
			t.Errorf("%s: text (%d bytes) differs from pdftotext's (%d bytes)", name, len(plain), len(want))
		}
		if want := pdftotextDirect(t, path, "-layout"); !bytes.Equal(layout, want) {
			t.Errorf("%s: layout text (%d bytes) differs from pdftotext -layout's (%d bytes)", name, len(layout), len(want))
		}
		if bytes.Equal(plain, layout) {
			t.Errorf("%s: layout makes no difference", name)
		}
	}
}

// TestTextAndLayoutLimits checks that pdf-to-text holds its text to
// Limits.TextBytes, and edit-bookmarks' headings their layout to the
// limit given (Limits.LayoutBytes): over 10 bytes each refuses the
// document as too large.
func TestTextAndLayoutLimits(t *testing.T) {
	tiny := docmill.Limits{TextBytes: 10, LayoutBytes: 10}
	path := generatedPDF(t)
	_, err := runTool(t, limitedTool(t, "pdf-to-text", tiny), path, nil)
	if docmill.ErrorCode(err) != docmill.CodeFileTooLarge {
		t.Errorf("pdf-to-text over Limits.TextBytes: %v, want file_too_large", err)
	}
	_, pdftotext, _ := testEngines(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "input-0.pdf")
	if err := os.WriteFile(src, toolstest.TextPDF("One"), 0o600); err != nil {
		t.Fatal(err)
	}
	in := &docmill.RunInput{WorkDir: dir, Files: []docmill.LocalFile{{Path: src, Filename: "one.pdf", ContentType: pdfContentType}}}
	if _, err := documentHeadings(context.Background(), pdftotext, tiny.LayoutBytes, in); docmill.ErrorCode(err) != docmill.CodeFileTooLarge {
		t.Errorf("headings over Limits.LayoutBytes: %v, want file_too_large", err)
	}
}
