package toolstest

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"testing"
	"unicode/utf8"
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
// and IDs, large binary streams by their hash (pdfPrint); a zip's entries (names and fingerprints, not times); any other
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
		return pdfPrint(qdf(t, b))
	case bytes.HasPrefix(b, []byte("PK\x03\x04")):
		return zipPrint(t, b)
	}
	return b
}

// pdfPrint is the fingerprint of a PDF in QDF form: its text with the
// volatile parts left out, and each large binary stream (an image's or a
// font's data, decoded) as its SHA-256. Binary data holds none of the
// volatile parts, and running the pattern over it cost seconds a page of
// a rasterized result.
func pdfPrint(q []byte) []byte {
	var out bytes.Buffer
	for len(q) > 0 {
		head, body, rest := nextStream(q)
		out.Write(volatile.ReplaceAll(head, nil))
		if len(body) >= hashedStream && (bytes.IndexByte(body, 0) >= 0 || !utf8.Valid(body)) {
			fmt.Fprintf(&out, "binary stream sha256:%x", sha256.Sum256(body))
		} else {
			out.Write(volatile.ReplaceAll(body, nil))
		}
		q = rest
	}
	return out.Bytes()
}

// hashedStream is the size from which a binary stream is fingerprinted by
// its hash.
const hashedStream = 64 << 10

// nextStream splits a QDF file at its next stream: what comes before the
// stream's data (head, its dictionary and the stream keyword's line), the
// data, and the rest from the endstream keyword on. Without a stream,
// head is q whole.
func nextStream(q []byte) (head, body, rest []byte) {
	const open, end = "\nstream\n", "\nendstream"
	i := bytes.Index(q, []byte(open))
	if i < 0 {
		return q, nil, nil
	}
	head, q = q[:i+len(open)], q[i+len(open):]
	j := bytes.Index(q, []byte(end))
	if j < 0 {
		j = len(q)
	}
	return head, q[:j], q[j:]
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
