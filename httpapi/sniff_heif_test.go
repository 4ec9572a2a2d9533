package httpapi

import (
	"encoding/binary"
	"testing"
)

// ftyp returns an ftyp box of major brand major and compatible brands
// compat, followed by a meta box's start, as an ISO media file begins.
func ftyp(major string, compat ...string) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(16+4*len(compat)))
	b = append(b, "ftyp"+major+"\x00\x00\x00\x00"...)
	for _, c := range compat {
		b = append(b, c...)
	}
	return append(b, "\x00\x00\x04\x91meta\x00\x00\x00\x00"...)
}

func TestSniffHEIF(t *testing.T) {
	tests := []struct {
		name string
		head []byte
		want string
	}{
		{"iPhone HEIC", ftyp("heic", "mif1", "heic", "miaf"), "image/heif"},
		{"heix", ftyp("heix", "mif1", "heix"), "image/heif"},
		{"HEIF sequence", ftyp("hevc", "msf1", "hevc"), "image/heif"},
		{"generic mif1", ftyp("mif1", "mif1", "miaf"), "image/heif"},
		{"AVIF", ftyp("avif", "avif", "mif1", "miaf"), "image/avif"},
		{"AVIF sequence", ftyp("avis", "avis", "msf1"), "image/avif"},
		{"AVIF under mif1", ftyp("mif1", "avif", "miaf"), "image/avif"},
		{"MP4 video", ftyp("isom", "isom", "iso2", "mp41"), "video/mp4"},
		{"QuickTime", ftyp("qt  ", "qt  "), "application/octet-stream"},
		{"brand past the box", append(ftyp("isom", "isom"), "heic"...), "application/octet-stream"},
		{"box too small", append([]byte{0, 0, 0, 8}, "ftypheic\x00\x00\x00\x00mif1"...), "application/octet-stream"},
		{"cut short", []byte("\x00\x00\x00\x1cftypheic"), "application/octet-stream"},
		{"ftyp elsewhere", append([]byte("%PDF-1.7\n"), ftyp("heic", "mif1")...), "application/pdf"},
	}
	for _, tt := range tests {
		if got := sniff(tt.head); got != tt.want {
			t.Errorf("%s: sniff = %q, want %q", tt.name, got, tt.want)
		}
	}
}
