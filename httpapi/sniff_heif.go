package httpapi

import (
	"bytes"
	"encoding/binary"
)

// HEIF's and AVIF's ISO base media file brands (ISO/IEC 23008-12,
// AV1 Image File Format): the first box of such a file is "ftyp", which
// names a major brand and a list of compatible ones.
var (
	heifBrands = []string{"heic", "heix", "heim", "heis", "hevc", "hevx"}
	avifBrands = []string{"avif", "avis"}
	// mifBrands are the generic image brands, which either codec uses:
	// the compatible brands then tell which.
	mifBrands = []string{"mif1", "msf1", "miaf"}
)

// sniffHEIF names an HEIF (HEIC) or AVIF image from its leading ftyp box,
// or returns "" for anything else (MP4 video, QuickTime and every other
// ISO media file are left to http.DetectContentType). An AVIF brand
// anywhere in the box makes the file AVIF (an AVIF file may also list
// mif1 and miaf); otherwise an HEVC brand, or a generic image brand
// alone, makes it HEIF.
func sniffHEIF(head []byte) string {
	if len(head) < 16 || !bytes.Equal(head[4:8], []byte("ftyp")) {
		return ""
	}
	size := int(binary.BigEndian.Uint32(head[:4]))
	if size < 16 || size%4 != 0 {
		return ""
	}
	end := min(size, len(head))
	brands := [][]byte{head[8:12]} // the major brand; then the compatible ones from byte 16
	for i := 16; i+4 <= end; i += 4 {
		brands = append(brands, head[i:i+4])
	}
	has := func(list []string) bool {
		for _, b := range brands {
			for _, want := range list {
				if string(b) == want {
					return true
				}
			}
		}
		return false
	}
	switch {
	case has(avifBrands):
		return "image/avif"
	case has(heifBrands), has(mifBrands):
		return "image/heif"
	}
	return ""
}
