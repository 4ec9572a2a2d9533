package httpapi

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"
	"unicode/utf8"
)

func TestSniff(t *testing.T) {
	junk := bytes.Repeat([]byte{0xde, 0xad, 0xbe, 0xef}, 100) // 400 bytes
	pdfAfterJunk := append(append([]byte{}, junk...), "%PDF-1.4\n..."...)
	// storePart sniffs only the first sniffLen bytes.
	pdfTooLate := append(bytes.Repeat([]byte{0}, sniffLen), "%PDF-1.4"...)[:sniffLen]

	tests := []struct {
		name string
		head []byte
		want string
	}{
		{"pdf", []byte("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj"), "application/pdf"},
		{"pdf after junk", pdfAfterJunk, "application/pdf"},
		{"pdf marker at the edge", append(bytes.Repeat([]byte{0}, sniffLen-5), "%PDF-"...), "application/pdf"},
		{"pdf marker past sniffLen", pdfTooLate, "application/octet-stream"},
		{"png", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), "image/png"},
		{"jpeg", []byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00"), "image/jpeg"},
		{"gif87", []byte("GIF87a\x01\x00\x01\x00"), "image/gif"},
		{"gif89", []byte("GIF89a\x01\x00\x01\x00"), "image/gif"},
		{"webp", []byte("RIFF\x24\x00\x00\x00WEBPVP8 \x18\x00\x00\x00"), "image/webp"},
		{"tiff little-endian", []byte("II*\x00\x08\x00\x00\x00"), "image/tiff"},
		{"tiff big-endian", []byte("MM\x00*\x00\x00\x00\x08"), "image/tiff"},
		{"zip", []byte("PK\x03\x04\x14\x00\x00\x00\x08\x00"), "application/zip"},
		{"pkcs12", []byte("\x30\x82\x0a\x4c\x02\x01\x03\x30\x82\x0a\x02\x06\x09"), "application/x-pkcs12"},
		{"pkcs12 indefinite length", []byte("\x30\x80\x02\x01\x03\x30\x80"), "application/x-pkcs12"},
		{"DER of another version", []byte("\x30\x82\x0a\x4c\x02\x01\x02\x30\x82"), "application/octet-stream"},
		{"plain text", []byte("hello, world\nsecond line\n"), "text/plain"},
		{"unknown binary", []byte{0x00, 0x01, 0x02, 0x03, 0xfe, 0xff}, "application/octet-stream"},
		{"almost tiff", []byte("II+\x00\x08\x00"), "application/octet-stream"},
		{"name does not matter", []byte("\x00\x00report.pdf"), "application/octet-stream"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := sniff(tc.head); got != tc.want {
				t.Errorf("sniff = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestCleanFilename(t *testing.T) {
	long := strings.Repeat("a", 300) + ".pdf"
	tests := []struct{ in, want string }{
		{"report.pdf", "report.pdf"},
		{"Résumé final (2).pdf", "Résumé final (2).pdf"},
		{"/etc/passwd", "passwd"},
		{"a/b/c.pdf", "c.pdf"},
		{"../../x.pdf", "x.pdf"},
		{`C:\Users\me\doc.pdf`, "doc.pdf"},
		{`..\..\evil.pdf`, "evil.pdf"},
		{`mixed/dir\name.pdf`, "name.pdf"},
		{"dir/", "dir"},
		{"a\x00b\tc\nd\x7f.pdf", "abcd.pdf"},
		{"a\u0085b.pdf", "ab.pdf"}, // C1 control
		{`say "hi".pdf`, "say hi.pdf"},
		{"  padded.pdf  ", "padded.pdf"},
		{"", "file"},
		{".", "file"},
		{"..", "file"},
		{"/", "file"},
		{"a/..", "file"},
		{"   ", "file"},
		{"\x01\x02", "file"},
		{".\x00.", "file"},
		{`"..`, "file"},
		{"...", "..."},
		{".hidden", ".hidden"},
		{long, long[:146] + ".pdf"},          // cut once, keeping the extension
		{"evil\u202efdp.exe", "evilfdp.exe"}, // format characters go
	}
	for _, tc := range tests {
		if got := cleanFilename(tc.in); got != tc.want {
			t.Errorf("cleanFilename(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestCleanFilenameTruncatesUTF8(t *testing.T) {
	for _, in := range []string{
		strings.Repeat("é", 100),        // 2-byte runes
		"a" + strings.Repeat("€", 60),   // 3-byte runes, odd offset
		"ab" + strings.Repeat("😀", 50),  // 4-byte runes
		strings.Repeat("x", 149) + "€€", // the cut falls inside a rune
		strings.Repeat("y", 150),
	} {
		got := cleanFilename(in)
		if len(got) > 150 {
			t.Errorf("cleanFilename(%d bytes) is %d bytes", len(in), len(got))
		}
		if len(got) <= 150-utf8.UTFMax {
			t.Errorf("cleanFilename(%d bytes) cut too much: %d bytes", len(in), len(got))
		}
		if !utf8.ValidString(got) || !strings.HasPrefix(in, got) {
			t.Errorf("cleanFilename(%q) = %q: not a valid UTF-8 prefix", in, got)
		}
	}
	// Invalid UTF-8 comes out valid and bounded.
	got := cleanFilename(strings.Repeat("\xff", 200))
	if !utf8.ValidString(got) || len(got) > 150 || got == "" {
		t.Errorf("cleanFilename(invalid UTF-8) = %q", got)
	}
}

// TestCleanFilenameLongNameIsFast: a multipart part header may carry a
// filename of megabytes, and truncation must not be quadratic in it.
func TestCleanFilenameLongNameIsFast(t *testing.T) {
	start := time.Now()
	got := cleanFilename(strings.Repeat("a", 1<<20))
	if len(got) != 150 {
		t.Errorf("len = %d, want 150", len(got))
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("cleanFilename of a 1 MiB name took %v", d)
	}
}

func TestLimitedReader(t *testing.T) {
	data := []byte("0123456789abcdefghijklmnopqrstuvwxyz")
	tests := []struct {
		name     string
		size     int   // bytes offered
		max      int64 // limit
		oneByte  bool  // read one byte at a time
		tooLarge bool
		passed   int // bytes that reach the caller (and the hash)
	}{
		{name: "under", size: 10, max: 20, passed: 10},
		{name: "exactly max", size: 20, max: 20, passed: 20},
		{name: "exactly max, byte by byte", size: 20, max: 20, oneByte: true, passed: 20},
		{name: "one over", size: 21, max: 20, tooLarge: true, passed: 0},
		{name: "one over, byte by byte", size: 21, max: 20, oneByte: true, tooLarge: true, passed: 20},
		{name: "far over, byte by byte", size: 36, max: 5, oneByte: true, tooLarge: true, passed: 5},
		{name: "empty, zero max", size: 0, max: 0, passed: 0},
		{name: "one byte, zero max", size: 1, max: 0, tooLarge: true, passed: 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var r io.Reader = bytes.NewReader(data[:tc.size])
			if tc.oneByte {
				r = iotest.OneByteReader(r)
			}
			lr := &limitedReader{r: r, max: tc.max, h: sha256.New()}
			got, err := io.ReadAll(lr)
			if tc.tooLarge != errors.Is(err, errTooLarge) {
				t.Fatalf("err = %v, tooLarge want %v", err, tc.tooLarge)
			}
			if !tc.tooLarge && err != nil {
				t.Fatalf("err = %v", err)
			}
			if !bytes.Equal(got, data[:tc.passed]) {
				t.Errorf("passed %q, want %q", got, data[:tc.passed])
			}
			sum := sha256.Sum256(data[:tc.passed])
			if h := hex.EncodeToString(lr.h.Sum(nil)); h != hex.EncodeToString(sum[:]) {
				t.Errorf("hash is not of the %d bytes that passed", tc.passed)
			}
			if tc.tooLarge {
				// It stays failed.
				if _, err := lr.Read(make([]byte, 8)); !errors.Is(err, errTooLarge) {
					t.Errorf("read after failure: %v", err)
				}
			}
		})
	}
}
