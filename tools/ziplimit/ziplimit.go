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
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"slices"

	docmill "github.com/docmill/docmill"
)

// RatioFloor is the uncompressed size past which an entry's compression
// ratio is checked: small files (XML, text) legitimately compress very
// well, and cannot make a bomb on their own.
const RatioFloor = 1 << 20

// CheckFile opens the zip archive at path and checks it with Check. A
// file that is not a readable zip archive is invalid_document.
func CheckFile(path string, l docmill.Limits) error {
	zr, err := Open(path, l)
	if err != nil {
		return err
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
		return nil, docmill.InvalidDocument(err, "A part of the archive cannot be read.")
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

// Open opens the zip archive at path for reading once its central
// directory has been counted without being loaded: archive/zip holds
// every entry's header in memory, and reads entries until the directory
// stops, whatever count the archive declares, so a small file of empty
// entries could otherwise cost the server hundreds of megabytes before
// Check sees the count. Past l.ArchiveEntries the archive is refused
// unread; a file that is not a readable zip archive is invalid_document.
func Open(path string, l docmill.Limits) (*zip.ReadCloser, error) {
	l = l.WithDefaults()
	f, err := os.Open(path)
	if err != nil {
		return nil, docmill.Internal(err)
	}
	n, dirBytes, err := countEntries(f, l.ArchiveEntries)
	f.Close()
	if err != nil {
		return nil, err
	}
	if n > l.ArchiveEntries {
		return nil, docmill.LimitExceeded(fmt.Sprintf("The file holds more than %d archive entries", l.ArchiveEntries))
	}
	if limit := maxDirectoryBytes(l); dirBytes > limit {
		return nil, docmill.LimitExceeded(fmt.Sprintf("The archive's directory is larger than %s (names, extra fields and comments)", size(limit)))
	}
	zr, err := zip.OpenReader(path)
	if err != nil {
		return nil, docmill.InvalidDocument(err, "The file is a damaged or truncated archive.")
	}
	return zr, nil
}

// maxDirectoryBytes bounds the central directory archive/zip loads, every
// entry's name, extra field and comment (up to 64 KiB each): 1 KiB an
// entry of l.ArchiveEntries on average, where real archives need under
// 200 bytes, so that a directory of long names cannot cost the server
// more than that before an entry is read.
func maxDirectoryBytes(l docmill.Limits) int64 { return int64(l.ArchiveEntries) << 10 }

// Signatures and sizes of the zip records countEntries reads.
const (
	sigEnd          = 0x06054b50
	sigDirHeader    = 0x02014b50
	endLen          = 22
	dirHeaderLen    = 46
	zip64LocatorLen = 20
	zip64EndLen     = 56
	sigZip64Locator = 0x07064b50
	sigZip64End     = 0x06064b50
	// endSearch is how far from the end of the file archive/zip looks
	// for the end record (a record, then a comment of up to 65,535
	// bytes, then anything).
	endSearch = 65 << 10
)

// countEntries counts the central directory's headers, reading them one
// at a time, and stops past limit. It finds the directory as archive/zip
// does: the last end record in the file's last 65 KiB, and the zip64 end
// record a locator before it points to, say where the directory ends, its
// size and its offset; archive/zip reads headers from the end less the
// size, or from the offset when the two disagree and a header is there,
// and on until one fails, past the directory's end if need be. Every
// such start is counted, and the most found is the count, so that no
// reading archive/zip makes holds more. A file with no end record counts
// 0 and is left to archive/zip to refuse.
func countEntries(f *os.File, limit int) (entries int, dirBytes int64, err error) {
	st, err := f.Stat()
	if err != nil {
		return 0, 0, docmill.Internal(err)
	}
	size := st.Size()
	tail := min(size, endSearch)
	buf := make([]byte, tail)
	if _, err := f.ReadAt(buf, size-tail); err != nil && err != io.EOF {
		return 0, 0, docmill.Internal(err)
	}
	end := -1
	for i := len(buf) - endLen; i >= 0; i-- {
		if binary.LittleEndian.Uint32(buf[i:]) == sigEnd {
			end = i
			break
		}
	}
	if end < 0 {
		return 0, 0, nil
	}
	endOffset := size - tail + int64(end)
	// Where the directory ends, its size and its offset, as the end
	// record declares them and as a zip64 end record does.
	type directory struct{ end, size, offset int64 }
	dirs := []directory{{endOffset, int64(binary.LittleEndian.Uint32(buf[end+12:])), int64(binary.LittleEndian.Uint32(buf[end+16:]))}}
	if endOffset >= zip64LocatorLen {
		loc := make([]byte, zip64LocatorLen)
		if _, err := f.ReadAt(loc, endOffset-zip64LocatorLen); err == nil && binary.LittleEndian.Uint32(loc) == sigZip64Locator {
			at := int64(binary.LittleEndian.Uint64(loc[8:]))
			rec := make([]byte, zip64EndLen)
			if at >= 0 && at <= size-zip64EndLen {
				if _, err := f.ReadAt(rec, at); err == nil && binary.LittleEndian.Uint32(rec) == sigZip64End {
					dirs = append(dirs, directory{at, int64(binary.LittleEndian.Uint64(rec[40:])), int64(binary.LittleEndian.Uint64(rec[48:]))})
				}
			}
		}
	}
	var starts []int64
	for _, d := range dirs {
		if d.size < 0 || d.offset < 0 { // past 2^63: archive/zip refuses
			continue
		}
		for _, start := range []int64{d.end - d.size, d.offset} {
			if start >= 0 && start < size && !slices.Contains(starts, start) {
				starts = append(starts, start)
			}
		}
	}
	for _, start := range starts {
		n, b := countHeaders(f, start, size, limit)
		entries, dirBytes = max(entries, n), max(dirBytes, b)
	}
	return entries, dirBytes, nil
}

// countHeaders counts the directory headers that follow one another from
// start, up to limit+1, and their bytes.
func countHeaders(f *os.File, start, size int64, limit int) (n int, bytes int64) {
	r := bufio.NewReaderSize(io.NewSectionReader(f, start, size-start), 64<<10)
	hdr := make([]byte, dirHeaderLen)
	for n <= limit {
		if _, err := io.ReadFull(r, hdr); err != nil {
			break
		}
		if binary.LittleEndian.Uint32(hdr) != sigDirHeader {
			break
		}
		n++
		skip := int64(binary.LittleEndian.Uint16(hdr[28:])) + int64(binary.LittleEndian.Uint16(hdr[30:])) + int64(binary.LittleEndian.Uint16(hdr[32:]))
		bytes += dirHeaderLen + skip
		if _, err := r.Discard(int(skip)); err != nil {
			break
		}
	}
	return n, bytes
}
