package ocr

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	docmill "github.com/docmill/docmill"
)

// tiffOf is a little-endian TIFF of 8-bit grey pages of the given sizes,
// each with one uncompressed strip of 16 white bytes: enough for a
// header's reader, not a decoder, past the first page (16 x 1).
func tiffOf(sizes ...[2]uint32) []byte {
	le := binary.LittleEndian
	var b bytes.Buffer
	b.WriteString("II*\x00")
	b.Write(make([]byte, 4)) // first IFD, patched
	next := 4
	for _, s := range sizes {
		strip := b.Len()
		b.Write(bytes.Repeat([]byte{255}, 16))
		le.PutUint32(b.Bytes()[next:], uint32(b.Len()))
		entries := [][3]uint32{{256, 4, s[0]}, {257, 4, s[1]}, {258, 3, 8}, {259, 3, 1}, {262, 3, 1}, {273, 4, uint32(strip)}, {277, 3, 1}, {278, 4, s[1]}, {279, 4, 16}}
		binary.Write(&b, le, uint16(len(entries)))
		for _, e := range entries {
			binary.Write(&b, le, uint16(e[0]))
			binary.Write(&b, le, uint16(e[1]))
			binary.Write(&b, le, uint32(1))
			if e[1] == 3 {
				binary.Write(&b, le, [2]uint16{uint16(e[2]), 0})
			} else {
				binary.Write(&b, le, e[2])
			}
		}
		next = b.Len()
		b.Write(make([]byte, 4))
	}
	return b.Bytes()
}

// TestPrepareImageTIFFPages: the pixel cap holds for every page of a
// TIFF, not only the first, which is all image.DecodeConfig reads. A
// 486 KB TIFF of a 16 x 16 page and a 20,000 x 20,000 one (4 times the
// default cap) was passed to tesseract whole, which read it for 25 s; a
// larger second page would fill the engine's memory.
func TestPrepareImageTIFFPages(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) docmill.LocalFile {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return docmill.LocalFile{Path: p}
	}
	limit := docmill.DefaultLimits().ImagePixels
	ok := write("ok.tif", tiffOf([2]uint32{16, 1}, [2]uint32{10_000, 10_000}, [2]uint32{16, 1}))
	if _, err := prepareImage(ok, ok.Path, dir, limit); err != nil {
		t.Fatalf("pages within the cap: %v", err)
	}
	bomb := write("bomb.tif", tiffOf([2]uint32{16, 1}, [2]uint32{16, 1}, [2]uint32{20_000, 20_000}))
	_, err := prepareImage(bomb, bomb.Path, dir, limit)
	if docmill.ErrorCode(err) != docmill.CodeInvalidDocument || !strings.Contains(err.Error(), "Page 3 of the image is 20000 x 20000 pixels") {
		t.Fatalf("second page over the cap: %v", err)
	}
	// A chain of IFDs that loops back is damaged, not endless.
	loop := tiffOf([2]uint32{16, 1}, [2]uint32{16, 1})
	binary.LittleEndian.PutUint32(loop[len(loop)-4:], binary.LittleEndian.Uint32(loop[4:]))
	l := write("loop.tif", loop)
	if _, err := prepareImage(l, l.Path, dir, limit); docmill.ErrorCode(err) != docmill.CodeInvalidDocument {
		t.Fatalf("looping IFDs: %v", err)
	}
}
