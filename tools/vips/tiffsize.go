package vips

import (
	"encoding/binary"
	"errors"
	"image"
	"io"
)

// tiffConfig reads a TIFF's first page's width and height from its first
// directory (IFD) only, reading at most its 8-byte header and that
// directory (65,535 entries of 12 bytes: under 1 MB). x/image/tiff's
// DecodeConfig is not used in the server: given a plain reader it
// buffers the file up to the directory, often at its end, and it loads
// every entry's values (a strip table may declare millions).
func tiffConfig(r io.ReaderAt) (image.Config, error) {
	var head [8]byte
	if _, err := r.ReadAt(head[:], 0); err != nil {
		return image.Config{}, err
	}
	var bo binary.ByteOrder
	switch string(head[:4]) {
	case "II*\x00":
		bo = binary.LittleEndian
	case "MM\x00*":
		bo = binary.BigEndian
	default:
		return image.Config{}, errors.New("tiff: not a classic TIFF header")
	}
	off := int64(bo.Uint32(head[4:]))
	var count [2]byte
	if _, err := r.ReadAt(count[:], off); err != nil {
		return image.Config{}, err
	}
	entries := make([]byte, 12*int(bo.Uint16(count[:])))
	if _, err := r.ReadAt(entries, off+2); err != nil {
		return image.Config{}, err
	}
	var w, h int
	for e := entries; len(e) >= 12; e = e[12:] {
		tag, typ, n := bo.Uint16(e), bo.Uint16(e[2:]), bo.Uint32(e[4:])
		if (tag != 256 && tag != 257) || n != 1 {
			continue
		}
		var v int
		switch typ {
		case 3: // SHORT
			v = int(bo.Uint16(e[8:]))
		case 4: // LONG
			v = int(bo.Uint32(e[8:]))
		default:
			continue
		}
		if tag == 256 {
			w = v
		} else {
			h = v
		}
	}
	if w <= 0 || h <= 0 {
		return image.Config{}, errors.New("tiff: no width or height in the first directory")
	}
	return image.Config{Width: w, Height: h}, nil
}
