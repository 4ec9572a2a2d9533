package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
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
	b, err := os.ReadFile(corpus("pdf", name))
	if err != nil {
		t.Fatal(err)
	}
	return pdfPages(t, b)
}
