package ziplimit_test

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/ziplimit"
)

// fuzzZip returns an archive of the named entries, each holding data
// (stored when store is set), with the end record's comment.
func fuzzZip(tb testing.TB, store bool, comment string, data []byte, names ...string) []byte {
	tb.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range names {
		h := &zip.FileHeader{Name: name, Method: zip.Deflate}
		if store {
			h.Method = zip.Store
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			tb.Fatal(err)
		}
		if _, err := w.Write(data); err != nil {
			tb.Fatal(err)
		}
	}
	if err := zw.SetComment(comment); err != nil {
		tb.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// endRecord returns the offset of b's end of central directory record.
func endRecord(b []byte) int {
	return bytes.LastIndex(b, []byte("PK\x05\x06"))
}

// patched returns a copy of b with the end record's 16-bit (size 2) or
// 32-bit (size 4) field at off set to v.
func patched(b []byte, off, size int, v uint32) []byte {
	b = bytes.Clone(b)
	at := endRecord(b) + off
	if size == 2 {
		binary.LittleEndian.PutUint16(b[at:], uint16(v))
	} else {
		binary.LittleEndian.PutUint32(b[at:], v)
	}
	return b
}

// asZip64 rewrites a small archive with a zip64 end record and locator,
// as a writer does past 65,535 entries, with the classic end record's
// fields saturated (records 0xffff, size and offset 0xffffffff).
func asZip64(b []byte) []byte {
	end := endRecord(b)
	records := binary.LittleEndian.Uint16(b[end+10:])
	dirSize := binary.LittleEndian.Uint32(b[end+12:])
	dirOffset := binary.LittleEndian.Uint32(b[end+16:])
	out := bytes.Clone(b[:end])
	z64 := len(out)
	rec := make([]byte, 56)
	binary.LittleEndian.PutUint32(rec, 0x06064b50)
	binary.LittleEndian.PutUint64(rec[4:], 44)
	binary.LittleEndian.PutUint16(rec[12:], 45)
	binary.LittleEndian.PutUint16(rec[14:], 45)
	binary.LittleEndian.PutUint64(rec[24:], uint64(records))
	binary.LittleEndian.PutUint64(rec[32:], uint64(records))
	binary.LittleEndian.PutUint64(rec[40:], uint64(dirSize))
	binary.LittleEndian.PutUint64(rec[48:], uint64(dirOffset))
	out = append(out, rec...)
	loc := make([]byte, 20)
	binary.LittleEndian.PutUint32(loc, 0x07064b50)
	binary.LittleEndian.PutUint64(loc[8:], uint64(z64))
	binary.LittleEndian.PutUint32(loc[16:], 1)
	out = append(out, loc...)
	classic := make([]byte, 22)
	copy(classic, "PK\x05\x06")
	binary.LittleEndian.PutUint16(classic[8:], 0xffff)
	binary.LittleEndian.PutUint16(classic[10:], 0xffff)
	binary.LittleEndian.PutUint32(classic[12:], 0xffffffff)
	binary.LittleEndian.PutUint32(classic[16:], 0xffffffff)
	return append(out, classic...)
}

// fuzzLimits are the limits of one fuzz run, small enough for fuzzed
// archives to reach: 1 to 5 entries, 64 KiB or 4 MiB expanded, a ratio of
// 10 or 200.
func fuzzLimits(lim uint8) docmill.Limits {
	return docmill.Limits{
		ArchiveEntries: 1 + int(lim%5),
		ArchiveBytes:   []int64{64 << 10, 4 << 20}[lim>>7],
		ArchiveRatio:   []int{10, 200}[lim>>6&1],
	}
}

// checkZipError fails unless err is an invalid_document *docmill.Error
// whose message names neither an entry nor the file's path, and whose
// logged text names no entry.
func checkZipError(t *testing.T, what string, err error, path string) {
	t.Helper()
	var e *docmill.Error
	if !errors.As(err, &e) || e.Code != docmill.CodeInvalidDocument || e.Message == "" {
		t.Fatalf("%s: %#v, want an invalid_document *docmill.Error", what, err)
	}
	// The message is the client's; the cause (in Error) is logged, and
	// may name the server's file, but no entry of the client's archive.
	for _, leak := range []string{secret, path, filepath.Dir(path), filepath.Base(path)} {
		if strings.Contains(e.Message, leak) {
			t.Fatalf("%s: message %q shows %q", what, e.Message, leak)
		}
	}
	if strings.Contains(e.Error(), secret) {
		t.Fatalf("%s: %q names an entry", what, e.Error())
	}
}

// FuzzZip opens fuzzed bytes as a zip input, as the office and chromium
// tools do. Open and CheckFile refuse with invalid_document and a message
// naming no entry or path, or Open hands back an archive within the entry
// limit, whatever its end record says about where its directory is; an
// archive archive/zip reads within the limit is not refused for its
// count; Check accepts only archives within every declared limit and
// agrees with CheckFile; and entries read through a Budget stop at its
// limit.
func FuzzZip(f *testing.F) {
	xml := []byte(`<?xml version="1.0"?><Types><Override ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`)
	three := fuzzZip(f, true, "", nil, secret+"a", secret+"b", secret+"c")
	seeds := [][]byte{
		nil,
		[]byte("PK\x03\x04"),
		[]byte("PK\x05\x06" + strings.Repeat("\x00", 18)),
		fuzzZip(f, false, "", xml, "[Content_Types].xml", secret+"word/document.xml"),
		fuzzZip(f, true, "", []byte("application/vnd.oasis.opendocument.text"), "mimetype"),
		fuzzZip(f, false, "a comment", bytes.Repeat([]byte("x"), 300<<10), secret+"big"),
		three,
		asZip64(three),
		// An end record that lies about the count, the directory's size
		// (0: the directory would be empty, and archive/zip looks for it
		// at the declared offset instead) or its offset.
		patched(three, 8, 2, 1),
		patched(patched(three, 8, 2, 1), 10, 2, 1),
		patched(three, 12, 4, 0),
		patched(three, 12, 4, 46),
		patched(three, 16, 4, 0xffffffff),
		patched(three, 10, 2, 0xffff),
		patched(three, 20, 2, 0xffff),
		append([]byte("MZ self-extracting stub "), three...),
		append(bytes.Clone(three), "trailing junk"...),
		three[:len(three)-5],
		// The end record more than 65,557 bytes (a record and the longest
		// comment) from the end, where archive/zip still finds it.
		append(bytes.Clone(three), make([]byte, 66000)...),
		fuzzZip(f, true, "", nil, "../"+secret+"x", "/"+secret+"y", secret+`z\w`),
	}
	for i, s := range seeds {
		f.Add(s, uint8(i*37))
		f.Add(s, uint8(1)) // at most 2 entries, 64 KiB, ratio 10
	}
	f.Fuzz(func(t *testing.T, data []byte, lim uint8) {
		l := fuzzLimits(lim)
		path := filepath.Join(t.TempDir(), "input-0.zip")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		// What archive/zip itself reads, for comparison.
		var plain *zip.Reader
		if zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data))); err == nil {
			plain = zr
		}

		zr, openErr := ziplimit.Open(path, l)
		checkErr := ziplimit.CheckFile(path, l)
		if openErr != nil {
			checkZipError(t, "Open", openErr, path)
			if checkErr == nil {
				t.Fatalf("Open refused (%v), CheckFile accepted", openErr)
			}
			if plain != nil && len(plain.File) <= l.ArchiveEntries && strings.Contains(openErr.Error(), "archive entries") {
				t.Fatalf("Open refused %d entries, within a limit of %d: %v", len(plain.File), l.ArchiveEntries, openErr)
			}
			checkZipError(t, "CheckFile", checkErr, path)
			return
		}
		defer zr.Close()
		if len(zr.File) > l.ArchiveEntries {
			t.Fatalf("Open loaded %d entries, past a limit of %d", len(zr.File), l.ArchiveEntries)
		}
		if plain == nil || len(plain.File) != len(zr.File) {
			t.Fatalf("Open read an archive archive/zip does not read the same (%v)", plain)
		}

		err := ziplimit.Check(&zr.Reader, l)
		if (err == nil) != (checkErr == nil) {
			t.Fatalf("Check: %v; CheckFile: %v", err, checkErr)
		}
		if err != nil {
			checkZipError(t, "Check", err, path)
			checkZipError(t, "CheckFile", checkErr, path)
		} else {
			var total uint64
			for _, f := range zr.File {
				size := f.UncompressedSize64
				if size > uint64(l.ArchiveBytes) || size > ziplimit.RatioFloor && size/max(f.CompressedSize64, 1) > uint64(l.ArchiveRatio) {
					t.Fatalf("Check accepted an entry of %d bytes from %d under %+v", size, f.CompressedSize64, l)
				}
				total += size
			}
			if total > uint64(l.ArchiveBytes) {
				t.Fatalf("Check accepted %d bytes in all, past %d", total, l.ArchiveBytes)
			}
		}

		// Whatever Check said, reading through a Budget stops at its limit.
		b := ziplimit.NewBudget(l)
		var read int64
		for _, f := range zr.File {
			rc, err := b.Open(f)
			if err != nil {
				checkZipError(t, "Budget.Open", err, path)
				continue
			}
			n, err := io.Copy(io.Discard, rc)
			rc.Close()
			read += n
			if read > l.ArchiveBytes {
				t.Fatalf("read %d bytes through a budget of %d", read, l.ArchiveBytes)
			}
			if b.Used() > l.ArchiveBytes {
				checkZipError(t, "Budget read", err, path)
				break
			}
		}
		if b.Used() < read || b.Used() > l.ArchiveBytes+1 {
			t.Fatalf("budget used %d, read %d, limit %d", b.Used(), read, l.ArchiveBytes)
		}
	})
}

// FuzzCheck runs Check on any archive archive/zip reads from fuzzed
// bytes, with no Open before it: the declared sizes, however large or
// wrapped, either fit every limit or are refused with invalid_document.
func FuzzCheck(f *testing.F) {
	f.Add(fuzzZip(f, false, "", []byte("hello"), secret+"a"), uint8(0))
	f.Add(fuzzZip(f, true, "", nil, secret+"a", secret+"b", secret+"c", secret+"d", secret+"e", secret+"f"), uint8(4))
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, sizes := range [][2]uint64{{1, 2 << 20}, {1 << 20, 11 << 20}, {1 << 62, 1<<64 - 1}, {0, 0}} {
		w, err := zw.CreateRaw(&zip.FileHeader{Name: secret + "raw", Method: zip.Deflate, CompressedSize64: sizes[0], UncompressedSize64: sizes[1]})
		if err != nil {
			f.Fatal(err)
		}
		w.Write([]byte("junk"))
	}
	zw.Close()
	f.Add(buf.Bytes(), uint8(200))
	f.Fuzz(func(t *testing.T, data []byte, lim uint8) {
		zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		l := fuzzLimits(lim)
		err = ziplimit.Check(zr, l)
		if err != nil {
			checkZipError(t, "Check", err, "/nonexistent/input-0.zip")
			return
		}
		if len(zr.File) > l.ArchiveEntries {
			t.Fatalf("Check accepted %d entries, past %d", len(zr.File), l.ArchiveEntries)
		}
		var total uint64
		for _, f := range zr.File {
			if f.UncompressedSize64 > uint64(l.ArchiveBytes)-total {
				t.Fatalf("Check accepted entries of more than %d bytes", l.ArchiveBytes)
			}
			total += f.UncompressedSize64
		}
	})
}
