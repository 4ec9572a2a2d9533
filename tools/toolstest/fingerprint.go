package toolstest

import (
	"archive/zip"
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"testing"
)

// volatile matches what differs between two runs of the same PDF tool on
// the same input (dates, document IDs, LibreOffice's checksum of the
// document with its date (/DocChecksum), XMP UUIDs, the random tags of
// font subsets, the order of objects, which pdfcpu writes as its maps
// iterate and qpdf's QDF form notes) and what moves with it
// (stream lengths and the cross-reference offsets).
var volatile = regexp.MustCompile(`(?s)/(CreationDate|ModDate)\s*(\([^)]*\)|<[^>]*>)` +
	`|<xmp:\w*Date>[^<]*<|xmp:\w*Date="[^"]*"|uuid:[0-9a-fA-F-]+|/ID\s*\[[^\]]*\]|/DocChecksum\s*/[0-9A-Fa-f]+` +
	`|/[A-Z]{6}\+|%% Original object ID: \d+ \d+|/Length \d+|\d{10} \d{5} [nf]|startxref\s+\d+`)

// Fingerprint returns what two results of a tool are compared by: a
// PDF's objects, uncompressed by qpdf (with a fixed ID), without dates
// and IDs; a zip's entries (names and fingerprints, not times); any other
// file's bytes. A PDF qpdf cannot open (encrypted with a user password)
// is compared by its bytes.
func Fingerprint(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return fingerprint(t, b)
}

func fingerprint(t testing.TB, b []byte) []byte {
	switch {
	case bytes.HasPrefix(b, []byte("%PDF-")):
		return volatile.ReplaceAll(qdf(t, b), nil)
	case bytes.HasPrefix(b, []byte("PK\x03\x04")):
		return zipPrint(t, b)
	}
	return b
}

// qdf returns the PDF b rewritten by qpdf in QDF form, or b when qpdf
// cannot read it.
func qdf(t testing.TB, b []byte) []byte {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.pdf"), filepath.Join(dir, "out.pdf")
	if err := os.WriteFile(in, b, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("qpdf", "--qdf", "--object-streams=disable", "--static-id", "--decrypt", in, out)
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 3 { // 3: warnings, written
			return b
		}
	}
	q, err := os.ReadFile(out)
	if err != nil {
		return b
	}
	return q
}

// zipPrint lists a zip's entries, sorted by name, with their contents'
// fingerprints.
func zipPrint(t testing.TB, b []byte) []byte {
	z, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return b
	}
	files := z.File
	sort.Slice(files, func(i, j int) bool { return files[i].Name < files[j].Name })
	var out bytes.Buffer
	for _, f := range files {
		rc, err := f.Open()
		if err != nil {
			t.Fatalf("zip entry %s: %v", f.Name, err)
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatalf("zip entry %s: %v", f.Name, err)
		}
		out.WriteString(f.Name + "\n")
		out.Write(fingerprint(t, data))
		out.WriteString("\n")
	}
	return out.Bytes()
}
