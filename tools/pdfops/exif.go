package pdfops

import (
	"bytes"
	"encoding/binary"
	"io"
)

// This file reads the two things an image file may declare about how it
// is shown and that jpg-to-pdf honours: the EXIF orientation and the pixel
// density. The readers take only what they need, bound every offset and
// count by the data they are given, and treat anything malformed as
// absent: metadata never fails a job, and never costs more than a few
// small reads.

// imageMeta is what an image declares about its presentation.
type imageMeta struct {
	// orientation is the EXIF orientation, 1 to 8; 1 (as stored) when
	// absent or invalid.
	orientation int
	// xDPI and yDPI are the declared density along the stored image's
	// axes, in pixels per inch; 0 when unknown.
	xDPI, yDPI float64
}

// TIFF tags read from the first IFD (a TIFF file's, or an EXIF block's).
const (
	tagOrientation    = 0x0112
	tagXResolution    = 0x011A
	tagYResolution    = 0x011B
	tagResolutionUnit = 0x0128
)

// maxIFDEntries bounds the entries read from one IFD; real first IFDs
// have a few dozen.
const maxIFDEntries = 1000

// maxMetaChunks bounds the chunks walked in a PNG or WebP file while
// looking for metadata.
const maxMetaChunks = 10_000

// readTIFFMeta reads the orientation and resolution from the first IFD of
// the TIFF structure in r, size bytes long: a TIFF file, or the payload of
// an EXIF block, which has the same layout.
func readTIFFMeta(r io.ReaderAt, size int64) imageMeta {
	m := imageMeta{orientation: 1}
	var hdr [8]byte
	if size < int64(len(hdr)) || readFullAt(r, hdr[:], 0) != nil {
		return m
	}
	var bo binary.ByteOrder
	switch string(hdr[:4]) {
	case "II*\x00":
		bo = binary.LittleEndian
	case "MM\x00*":
		bo = binary.BigEndian
	default:
		return m
	}
	off := int64(bo.Uint32(hdr[4:]))
	var cnt [2]byte
	if off < 8 || off > size-2 || readFullAt(r, cnt[:], off) != nil {
		return m
	}
	n := min(int64(bo.Uint16(cnt[:])), maxIFDEntries, (size-off-2)/12)
	entries := make([]byte, 12*n)
	if readFullAt(r, entries, off+2) != nil {
		return m
	}
	var xRes, yRes float64
	unit := uint16(2) // inches, the TIFF default
	for e := entries; len(e) >= 12; e = e[12:] {
		tag, typ, count := bo.Uint16(e), bo.Uint16(e[2:]), bo.Uint32(e[4:])
		if count < 1 {
			continue
		}
		switch {
		case tag == tagOrientation && typ == 3:
			if v := bo.Uint16(e[8:]); v >= 1 && v <= 8 {
				m.orientation = int(v)
			}
		case tag == tagResolutionUnit && typ == 3:
			unit = bo.Uint16(e[8:])
		case (tag == tagXResolution || tag == tagYResolution) && typ == 5:
			v := readRational(r, size, bo, int64(bo.Uint32(e[8:])))
			if tag == tagXResolution {
				xRes = v
			} else {
				yRes = v
			}
		}
	}
	switch unit {
	case 2:
		m.xDPI, m.yDPI = xRes, yRes
	case 3: // centimetres
		m.xDPI, m.yDPI = xRes*2.54, yRes*2.54
	}
	return m
}

// readRational reads the unsigned RATIONAL at off, or 0.
func readRational(r io.ReaderAt, size int64, bo binary.ByteOrder, off int64) float64 {
	var b [8]byte
	if off < 8 || off > size-8 || readFullAt(r, b[:], off) != nil {
		return 0
	}
	num, den := bo.Uint32(b[:]), bo.Uint32(b[4:])
	if den == 0 {
		return 0
	}
	return float64(num) / float64(den)
}

// readFullAt fills b from r at off.
func readFullAt(r io.ReaderAt, b []byte, off int64) error {
	n, err := r.ReadAt(b, off)
	if n == len(b) {
		return nil
	}
	if err == nil {
		err = io.ErrUnexpectedEOF
	}
	return err
}

// exifMeta reads an EXIF payload: the TIFF structure itself, or one still
// carrying the "Exif\0\0" prefix that some WebP and PNG writers keep.
func exifMeta(b []byte) imageMeta {
	b = bytes.TrimPrefix(b, []byte("Exif\x00\x00"))
	return readTIFFMeta(bytes.NewReader(b), int64(len(b)))
}

// readPNGMeta reads the pHYs (density) and eXIf (orientation) chunks of
// the PNG in r. Both must come before the image data, so the walk stops
// at the first IDAT chunk.
func readPNGMeta(r io.ReaderAt, size int64) imageMeta {
	m := imageMeta{orientation: 1}
	off := int64(8) // after the signature
	for range maxMetaChunks {
		var hdr [8]byte
		if off > size-12 || readFullAt(r, hdr[:], off) != nil {
			break
		}
		n, typ := int64(binary.BigEndian.Uint32(hdr[:])), string(hdr[4:])
		data := off + 8
		if typ == "IDAT" || typ == "IEND" || n > size-data-4 {
			break
		}
		switch {
		case typ == "pHYs" && n == 9:
			var p [9]byte
			if readFullAt(r, p[:], data) == nil && p[8] == 1 { // unit: metre
				m.xDPI = float64(binary.BigEndian.Uint32(p[:])) * 0.0254
				m.yDPI = float64(binary.BigEndian.Uint32(p[4:])) * 0.0254
			}
		case typ == "eXIf":
			m.orientation = exifOrientationAt(r, data, n)
		}
		off = data + n + 4 // data and CRC
	}
	return m
}

// readWebPMeta reads the orientation from the EXIF chunk of the WebP in
// r. WebP declares no density.
func readWebPMeta(r io.ReaderAt, size int64) imageMeta {
	m := imageMeta{orientation: 1}
	off := int64(12) // after "RIFF", the size and "WEBP"
	for range maxMetaChunks {
		var hdr [8]byte
		if off > size-8 || readFullAt(r, hdr[:], off) != nil {
			break
		}
		n := int64(binary.LittleEndian.Uint32(hdr[4:]))
		data := off + 8
		if n > size-data {
			break
		}
		if string(hdr[:4]) == "EXIF" {
			m.orientation = exifOrientationAt(r, data, n)
			break
		}
		off = data + n + n&1 // chunks are padded to an even length
	}
	return m
}

// maxEXIFBytes bounds an EXIF block read from a PNG or WebP chunk: a
// JPEG's is at most 64 KB, and the first IFD sits at its start.
const maxEXIFBytes = 1 << 20

// exifOrientationAt reads the orientation from the EXIF block of n bytes
// at off in r.
func exifOrientationAt(r io.ReaderAt, off, n int64) int {
	b := make([]byte, min(n, maxEXIFBytes))
	if readFullAt(r, b, off) != nil {
		return 1
	}
	return exifMeta(b).orientation
}
