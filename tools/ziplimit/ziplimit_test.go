package ziplimit_test

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/toolstest"
	"github.com/docmill/docmill/tools/ziplimit"
)

// secret is in every entry's name: no message may show it.
const secret = "secret-dir/"

// entry is one zip entry: its real content, or (raw) only the sizes its
// headers declare, whatever bytes follow.
type entry struct {
	data             []byte
	store            bool
	raw              bool
	compressed, size uint64
}

// declared is an entry whose headers claim size bytes compressed to
// compressed; its content is a few junk bytes.
func declared(compressed, size uint64) entry {
	return entry{raw: true, compressed: compressed, size: size}
}

// makeZip returns the archive of entries, named secret-dir/0, 1, ...
func makeZip(t *testing.T, entries ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i, e := range entries {
		name := secret + string(rune('a'+i%26)) + strings.Repeat("x", i/26)
		var w io.Writer
		var err error
		switch {
		case e.raw:
			w, err = zw.CreateRaw(&zip.FileHeader{Name: name, Method: zip.Deflate, CompressedSize64: e.compressed, UncompressedSize64: e.size})
		case e.store:
			w, err = zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store})
		default:
			w, err = zw.Create(name)
		}
		if err != nil {
			t.Fatal(err)
		}
		if e.raw {
			e.data = []byte("junk")
		}
		if _, err := w.Write(e.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func reader(t *testing.T, b []byte) *zip.Reader {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	return zr
}

// checkRefusal fails t unless err is a limit refusal mentioning want and
// no entry name.
func checkRefusal(t *testing.T, err error, want string) {
	t.Helper()
	var de *docmill.Error
	if !errors.As(err, &de) || de.Code != docmill.CodeInvalidDocument {
		t.Fatalf("got %v, want invalid_document", err)
	}
	if !strings.Contains(de.Message, "processing limit") || !strings.Contains(de.Message, want) {
		t.Fatalf("message %q, want a processing limit naming %q", de.Message, want)
	}
	if strings.Contains(de.Message, secret) || strings.Contains(de.Message, "secret") {
		t.Fatalf("message %q shows an entry name", de.Message)
	}
}

func TestCheck(t *testing.T) {
	ratio200 := uint64(200 * 10486) // more than 1 MiB, exactly 200 times 10486
	for _, tc := range []struct {
		name    string
		limits  docmill.Limits
		entries []entry
		want    string // "" when accepted, else part of the message
	}{
		{"fine", docmill.Limits{}, []entry{
			{data: []byte("<xml/>")},
			{data: toolstest.Noise(2 << 20)},
			{data: make([]byte, 1<<20)}, // compresses 1000 times, but small
		}, ""},
		{"empty", docmill.Limits{}, nil, ""},
		{"entries at the limit", docmill.Limits{ArchiveEntries: 3}, []entry{{}, {}, {}}, ""},
		{"too many entries", docmill.Limits{ArchiveEntries: 3}, []entry{{}, {}, {}, {}}, "more than 3 archive entries"},
		{"total at the limit", docmill.Limits{ArchiveBytes: 1200}, []entry{
			{data: toolstest.Noise(600), store: true}, {data: toolstest.Noise(600), store: true},
		}, ""},
		{"total too big", docmill.Limits{ArchiveBytes: 1000}, []entry{
			{data: toolstest.Noise(600), store: true}, {data: toolstest.Noise(600), store: true},
		}, "expands to more than 1000 bytes"},
		{"total too big in MB", docmill.Limits{}, []entry{
			declared(300<<20, 300<<20), declared(300<<20, 300<<20),
		}, "expands to more than 512 MB"},
		{"ratio bomb", docmill.Limits{}, []entry{
			{data: []byte("<xml/>")}, {data: make([]byte, 20<<20)},
		}, "more than 200 times its compressed size"},
		{"ratio at the limit", docmill.Limits{}, []entry{declared(10486, ratio200)}, ""},
		{"ratio just past the limit", docmill.Limits{}, []entry{declared(10486, ratio200+1)}, "more than 200 times"},
		{"lowered ratio", docmill.Limits{ArchiveRatio: 10}, []entry{declared(1<<20, 11<<20)}, "more than 10 times"},
		{"ratio under the floor", docmill.Limits{}, []entry{declared(1, ziplimit.RatioFloor)}, ""},
		{"ratio just over the floor", docmill.Limits{}, []entry{declared(1, ziplimit.RatioFloor+1)}, "times its compressed size"},
		{"nothing compressed", docmill.Limits{}, []entry{declared(0, 2<<20)}, "times its compressed size"},
		// Declared sizes near 2^64 must not wrap the total around.
		{"huge declared size", docmill.Limits{}, []entry{declared(math.MaxUint64, math.MaxUint64)}, "expands to more than"},
		{"total wraps", docmill.Limits{ArchiveBytes: 1000}, []entry{declared(1000, 1000), declared(math.MaxUint64, math.MaxUint64)}, "expands to more than"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := ziplimit.Check(reader(t, makeZip(t, tc.entries...)), tc.limits)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			checkRefusal(t, err, tc.want)
		})
	}
}

func TestCheckFile(t *testing.T) {
	dir := t.TempDir()
	bomb := filepath.Join(dir, "bomb.zip")
	if err := os.WriteFile(bomb, makeZip(t, entry{data: make([]byte, 20<<20)}), 0o600); err != nil {
		t.Fatal(err)
	}
	checkRefusal(t, ziplimit.CheckFile(bomb, docmill.Limits{}), "times its compressed size")

	fine := filepath.Join(dir, "fine.zip")
	if err := os.WriteFile(fine, makeZip(t, entry{data: []byte("hello")}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := ziplimit.CheckFile(fine, docmill.Limits{}); err != nil {
		t.Fatal(err)
	}

	damaged := filepath.Join(dir, "damaged.zip")
	if err := os.WriteFile(damaged, []byte("PK\x03\x04 and nothing more"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := ziplimit.CheckFile(damaged, docmill.Limits{}); docmill.ErrorCode(err) != docmill.CodeInvalidDocument || strings.Contains(err.(*docmill.Error).Message, dir) {
		t.Fatalf("damaged archive: got %v", err)
	}
}

// readAll reads every entry of zr through one budget under l, and returns
// how many bytes it got and the first error.
func readAll(t *testing.T, zr *zip.Reader, l docmill.Limits) (int64, error) {
	t.Helper()
	b := ziplimit.NewBudget(l)
	var total int64
	for _, f := range zr.File {
		rc, err := b.Open(f)
		if err != nil {
			return total, err
		}
		n, err := io.Copy(io.Discard, rc)
		rc.Close()
		total += n
		if err != nil {
			return total, err
		}
	}
	if total != b.Used() {
		t.Fatalf("read %d bytes, budget used %d", total, b.Used())
	}
	return total, nil
}

// TestBudget: the bytes really read are counted across entries.
func TestBudget(t *testing.T) {
	zr := reader(t, makeZip(t, entry{data: toolstest.Noise(600), store: true}, entry{data: toolstest.Noise(600)}))
	if n, err := readAll(t, zr, docmill.Limits{ArchiveBytes: 1200}); err != nil || n != 1200 {
		t.Fatalf("at the limit: %d bytes, %v", n, err)
	}
	n, err := readAll(t, zr, docmill.Limits{ArchiveBytes: 1000})
	checkRefusal(t, err, "expands to more than 1000 bytes")
	if n > 1000 {
		t.Fatalf("%d bytes read past a limit of 1000", n)
	}
}

// TestLyingSizes: an entry whose central directory claims 100 bytes but
// whose data inflate to 20 MiB passes Check, which trusts the headers, but
// reading it stops at once.
func TestLyingSizes(t *testing.T) {
	var deflated bytes.Buffer
	fw, _ := flate.NewWriter(&deflated, flate.BestCompression)
	fw.Write(make([]byte, 20<<20))
	fw.Close()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.CreateRaw(&zip.FileHeader{Name: secret + "document.xml", Method: zip.Deflate,
		CompressedSize64: uint64(deflated.Len()), UncompressedSize64: 100})
	if err != nil {
		t.Fatal(err)
	}
	w.Write(deflated.Bytes())
	zw.Close()
	zr := reader(t, buf.Bytes())
	if err := ziplimit.Check(zr, docmill.Limits{}); err != nil {
		t.Fatalf("Check trusts the declared sizes, yet refused: %v", err)
	}
	n, err := readAll(t, zr, docmill.Limits{ArchiveBytes: 1 << 20})
	if err == nil || n > 1<<20 {
		t.Fatalf("read %d bytes of a lying entry, error %v", n, err)
	}
}

// TestUnreadableEntry: an entry in an unknown compression method is
// invalid_document, without its name.
func TestUnreadableEntry(t *testing.T) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.CreateRaw(&zip.FileHeader{Name: secret + "x", Method: 99, CompressedSize64: 4, UncompressedSize64: 4})
	w.Write([]byte("junk"))
	zw.Close()
	_, err := ziplimit.NewBudget(docmill.Limits{}).Open(reader(t, buf.Bytes()).File[0])
	if docmill.ErrorCode(err) != docmill.CodeInvalidDocument || strings.Contains(err.(*docmill.Error).Message, "secret") {
		t.Fatalf("got %v", err)
	}
}

// writeEntries writes a zip of n empty entries and returns its bytes.
func writeEntries(t *testing.T, n int) []byte {
	t.Helper()
	var b bytes.Buffer
	w := zip.NewWriter(&b)
	for i := range n {
		if _, err := w.CreateHeader(&zip.FileHeader{Name: strconv.Itoa(i), Method: zip.Store}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestOpenCountsBeforeLoading: Open refuses an archive with more entries
// than the limit from its directory as read, not as declared: an end
// record that claims one entry does not hide 40, and zip64 archives
// (over 65,535 entries) are counted too.
func TestOpenCountsBeforeLoading(t *testing.T) {
	lying := writeEntries(t, 40)
	end := bytes.LastIndex(lying, []byte{0x50, 0x4b, 0x05, 0x06})
	binary.LittleEndian.PutUint16(lying[end+8:], 1)
	binary.LittleEndian.PutUint16(lying[end+10:], 1)
	cases := []struct {
		name    string
		data    []byte
		limit   int
		refused bool
	}{
		{"fine", writeEntries(t, 10), 10, false},
		{"one over", writeEntries(t, 11), 10, true},
		{"lying end record", lying, 10, true},
		{"zip64", writeEntries(t, 70_000), 10_000, true},
		{"zip64 within", writeEntries(t, 70_000), 70_000, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "a.zip")
			if err := os.WriteFile(p, c.data, 0o600); err != nil {
				t.Fatal(err)
			}
			zr, err := ziplimit.Open(p, docmill.Limits{ArchiveEntries: c.limit})
			if zr != nil {
				zr.Close()
			}
			refused := err != nil && strings.Contains(err.Error(), "processing limit")
			if refused != c.refused {
				t.Fatalf("err = %v, want refused %v", err, c.refused)
			}
		})
	}
}

// TestLongNamesRefusedUnread: a directory of long names (200 entries of
// 60,000-byte names, 12 MB, over the 1 KiB an entry the default 10,000
// entries allow) is refused before archive/zip loads it, and a directory
// within the bound opens.
func TestLongNamesRefusedUnread(t *testing.T) {
	write := func(entries, nameLen int) string {
		path := filepath.Join(t.TempDir(), "names.zip")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		zw := zip.NewWriter(f)
		for i := 0; i < entries; i++ {
			name := strconv.Itoa(i) + strings.Repeat("n", nameLen)
			if _, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store}); err != nil {
				t.Fatal(err)
			}
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		f.Close()
		return path
	}
	_, err := ziplimit.Open(write(200, 60_000), docmill.Limits{})
	var e *docmill.Error
	if !errors.As(err, &e) || !strings.Contains(e.Message, "directory is larger than") {
		t.Fatalf("Open = %v, want the directory refused", err)
	}
	zr, err := ziplimit.Open(write(200, 200), docmill.Limits{})
	if err != nil {
		t.Fatalf("Open of short names: %v", err)
	}
	zr.Close()
}
