// Package ziplimit refuses zip bombs: zip inputs (a zipped site, an OOXML
// or ODF document) are checked against the archive fields of
// docmill.Limits before any engine unpacks them, and the bytes docmill
// itself extracts are counted as they are read.
//
// Check looks at what the central directory declares: the number of
// entries, the entries' uncompressed sizes together, and each large
// entry's compression ratio. A central directory can lie about sizes, so
// code that reads entries opens them through a Budget, which counts the
// bytes really inflated. (archive/zip also fails an entry that inflates
// past its declared size; the Budget does not rely on that.)
//
// Every refusal is an invalid_document *docmill.Error from
// docmill.LimitExceeded; messages never name an entry, so no path of the
// client's archive reaches a log line or a response.
package ziplimit

import (
	"archive/zip"
	"fmt"
	"io"

	docmill "github.com/docmill/docmill"
)

// RatioFloor is the uncompressed size past which an entry's compression
// ratio is checked: small files (XML, text) legitimately compress very
// well, and cannot make a bomb on their own.
const RatioFloor = 1 << 20

// CheckFile opens the zip archive at path and checks it with Check. A
// file that is not a readable zip archive is invalid_document.
func CheckFile(path string, l docmill.Limits) error {
	zr, err := zip.OpenReader(path)
	if err != nil {
		e := docmill.Errorf(docmill.CodeInvalidDocument, "The file is a damaged or truncated archive.")
		e.Err = err
		return e
	}
	defer zr.Close()
	return Check(&zr.Reader, l)
}

// Check refuses an archive whose central directory declares more than
// l.ArchiveEntries entries (directories included), entries that expand to
// more than l.ArchiveBytes together, or an entry larger than RatioFloor
// that expands more than l.ArchiveRatio times its compressed size. Zero
// fields of l take their defaults.
func Check(zr *zip.Reader, l docmill.Limits) error {
	l = l.WithDefaults()
	if len(zr.File) > l.ArchiveEntries {
		return docmill.LimitExceeded(fmt.Sprintf("The file holds more than %d archive entries", l.ArchiveEntries))
	}
	limit := uint64(l.ArchiveBytes)
	var total uint64
	for _, f := range zr.File {
		size := f.UncompressedSize64
		if size > RatioFloor && expandsMore(size, f.CompressedSize64, uint64(l.ArchiveRatio)) {
			return docmill.LimitExceeded(fmt.Sprintf("A part of the file expands more than %d times its compressed size", l.ArchiveRatio))
		}
		if size > limit-total { // total <= limit: no overflow
			return tooBig(l.ArchiveBytes)
		}
		total += size
	}
	return nil
}

// expandsMore reports whether size > ratio*compressed, without
// overflow; an entry declaring 0 compressed bytes counts as 1.
func expandsMore(size, compressed, ratio uint64) bool {
	c := max(compressed, 1)
	return size/c > ratio || size/c == ratio && size%c > 0
}

// tooBig is the refusal of an archive that expands past limit bytes.
func tooBig(limit int64) *docmill.Error {
	return docmill.LimitExceeded("The file expands to more than " + size(limit))
}

// size writes n bytes for a client: in MB when it is at least one.
func size(n int64) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%d MB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Budget counts the bytes really read from the entries of one archive
// against Limits.ArchiveBytes, whatever the central directory declares.
// It is not safe for concurrent use.
type Budget struct {
	limit int64
	left  int64
}

// NewBudget returns the budget of one archive under l (a zero
// ArchiveBytes takes its default).
func NewBudget(l docmill.Limits) *Budget {
	l = l.WithDefaults()
	return &Budget{limit: l.ArchiveBytes, left: l.ArchiveBytes}
}

// Open opens f for reading through the budget: a Read that would take the
// archive's entries past the limit together fails with the invalid_document
// error of a document that expands too much. An entry that cannot be
// opened (unknown method, damaged header) is invalid_document too.
func (b *Budget) Open(f *zip.File) (io.ReadCloser, error) {
	rc, err := f.Open()
	if err != nil {
		e := docmill.Errorf(docmill.CodeInvalidDocument, "A part of the archive cannot be read.")
		e.Err = err
		return nil, e
	}
	return &countingReader{rc: rc, b: b}, nil
}

// Used is how many bytes have been read through b.
func (b *Budget) Used() int64 { return b.limit - b.left }

// countingReader charges what it reads to its Budget.
type countingReader struct {
	rc io.ReadCloser
	b  *Budget
}

func (r *countingReader) Read(p []byte) (int, error) {
	if r.b.left < 0 {
		return 0, tooBig(r.b.limit)
	}
	// Read at most one byte past the limit, which is enough to tell.
	if int64(len(p)) > r.b.left+1 {
		p = p[:r.b.left+1]
	}
	n, err := r.rc.Read(p)
	r.b.left -= int64(n)
	if r.b.left < 0 {
		return 0, tooBig(r.b.limit)
	}
	return n, err
}

func (r *countingReader) Close() error { return r.rc.Close() }
