package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/docmill/docmill/tools/toolstest"
)

var pageRotRE = regexp.MustCompile(`(?m)^Page\s+(\d+)\s+rot:\s+(\d+)`)

// pdfPages reads a PDF with poppler's pdfinfo (a program other than the one
// that wrote it) and returns each page's rotation in order.
func pdfPages(t testing.TB, data []byte) []int {
	t.Helper()
	path := filepath.Join(t.TempDir(), "out.pdf")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("pdfinfo", "-f", "1", "-l", "100000", path).CombinedOutput()
	if err != nil {
		t.Fatalf("pdfinfo: %v\n%s", err, out)
	}
	var rots []int
	for _, m := range pageRotRE.FindAllStringSubmatch(string(out), -1) {
		r, _ := strconv.Atoi(m[2])
		rots = append(rots, r)
	}
	return rots
}

// corpusPages returns the page rotations of a corpus PDF.
func corpusPages(t testing.TB, name string) []int {
	t.Helper()
	b := toolstest.ReadCorpus(t, "pdf", name)
	return pdfPages(t, b)
}

// pageText extracts page n's text with poppler's pdftotext; extra options
// (such as "-upw", password) come first.
func pageText(t testing.TB, data []byte, n int, extra ...string) string {
	t.Helper()
	args := append(extra, "-f", strconv.Itoa(n), "-l", strconv.Itoa(n), toolstest.WriteTemp(t, "in.pdf", data), "-")
	out, err := exec.Command("pdftotext", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("pdftotext: %v\n%s", err, out)
	}
	return string(out)
}

// corpusPageText is pageText of a corpus PDF.
func corpusPageText(t testing.TB, name string, n int) string {
	t.Helper()
	b := toolstest.ReadCorpus(t, "pdf", name)
	return pageText(t, b, n)
}

// firstWords returns the first few words of s, to tell pages apart.
func firstWords(s string) string {
	f := strings.Fields(s)
	return strings.Join(f[:min(6, len(f))], " ")
}
