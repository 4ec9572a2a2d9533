package vips

import (
	"encoding/binary"
	"github.com/docmill/docmill/tools/toolstest"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"

	docmill "github.com/docmill/docmill"
)

// hostileTIFF writes a TIFF of size bytes whose only directory is at its
// end and declares a strip table of one entry per 4 bytes of the file,
// 1000x800 pixels.
func hostileTIFF(t *testing.T, size int64) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "hostile.tif")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ifd := size - 2 - 3*12 - 4
	head := []byte("II*\x00\x00\x00\x00\x00")
	binary.LittleEndian.PutUint32(head[4:], uint32(ifd))
	f.Write(head)
	if err := f.Truncate(ifd); err != nil {
		t.Fatal(err)
	}
	entry := func(tag, typ uint16, n, v uint32) []byte {
		e := make([]byte, 12)
		binary.LittleEndian.PutUint16(e, tag)
		binary.LittleEndian.PutUint16(e[2:], typ)
		binary.LittleEndian.PutUint32(e[4:], n)
		binary.LittleEndian.PutUint32(e[8:], v)
		return e
	}
	dir := []byte{3, 0}
	dir = append(dir, entry(256, 3, 1, 1000)...)
	dir = append(dir, entry(257, 4, 1, 800)...)
	dir = append(dir, entry(273, 4, uint32(ifd/4-4), 8)...) // StripOffsets: the whole file
	dir = append(dir, 0, 0, 0, 0)
	if _, err := f.WriteAt(dir, ifd); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestTIFFSizeBounded: the server reads a TIFF's size from its first
// directory only: a 256 MB TIFF whose directory is at its end and
// declares a strip table the size of the file costs this process (the
// server's side) no more than a few megabytes (x/image/tiff's
// DecodeConfig, on the reader the server gave it, buffered the file and
// the table).
func TestTIFFSizeBounded(t *testing.T) {
	path := hostileTIFF(t, 256<<20)
	debug.FreeOSMemory()
	toolstest.ResetPeakRSS(t)
	before := toolstest.PeakRSS(t, 0)
	w, h, err := goSize(docmill.LocalFile{Path: path, ContentType: "image/tiff"})
	if err != nil || w != 1000 || h != 800 {
		t.Fatalf("goSize = %d x %d, %v; want 1000 x 800", w, h, err)
	}
	grew := toolstest.PeakRSS(t, 0) - before
	t.Logf("peak RSS grew by %d KB", grew>>10)
	if grew > 16<<20 {
		t.Errorf("peak RSS grew by %d MB reading a TIFF's size, want under 16 MB", grew>>20)
	}
	for _, bad := range [][]byte{[]byte("II*\x00"), []byte("II*\x00\x08\x00\x00\x00\x00\x00"), []byte("MM\x00*\xff\xff\xff\xff")} {
		p := filepath.Join(t.TempDir(), "bad.tif")
		os.WriteFile(p, bad, 0o600)
		if _, _, err := goSize(docmill.LocalFile{Path: p, ContentType: "image/tiff"}); err == nil {
			t.Errorf("goSize(%q) read a size", bad)
		}
	}
}
