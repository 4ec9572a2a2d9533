package httpapi

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// sniffSeeds are the first bytes of real files of each type the tools
// take, and of hostile ones: a type's magic after junk, inside another
// format, cut short or at the edge of what storePart reads.
var sniffSeeds = [][]byte{
	nil,
	[]byte("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj"),
	[]byte("%PDF-"),
	[]byte("%PDF"),
	append(bytes.Repeat([]byte{0xde, 0xad}, 200), "%PDF-1.4"...),
	append(bytes.Repeat([]byte{0}, sniffLen-5), "%PDF-"...),
	append(bytes.Repeat([]byte{0}, sniffLen-4), "%PDF-"...),
	[]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"),
	[]byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00%PDF-"),
	[]byte("\xff\xd8\xff"),
	[]byte("GIF87a\x01\x00\x01\x00"),
	[]byte("GIF89a%PDF-1.4"),
	[]byte("RIFF\x24\x00\x00\x00WEBPVP8 \x18\x00\x00\x00"),
	[]byte("RIFF\x24\x00\x00\x00WEBP"),
	[]byte("II*\x00\x08\x00\x00\x00"),
	[]byte("MM\x00*\x00\x00\x00\x08%PDF-"),
	[]byte("II*"),
	[]byte("PK\x03\x04\x14\x00\x00\x00\x08\x00[Content_Types].xml%PDF-"),
	[]byte("PK\x05\x06" + strings.Repeat("\x00", 18)),
	[]byte("\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1" + strings.Repeat("\x00", 504)),
	[]byte(`{\rtf1\ansi\deff0 {\fonttbl}`),
	[]byte("name;age\nada;36\n"),
	[]byte("\xef\xbb\xbfhello %PDF-1.4"),
	[]byte("\xfe\xff\x00h\x00i"),
	[]byte("\xff\xfeh\x00i\x00"),
	[]byte("<!DOCTYPE html><html><body>%PDF-1.4"),
	[]byte("<?xml version=\"1.0\"?><svg/>"),
	[]byte("# Title\n\n*markdown*\n"),
	[]byte("\x1f\x8b\x08\x00%PDF-"),
	[]byte("\x00\x00report.pdf"),
	[]byte("\x00asm\x01\x00\x00\x00"),
	bytes.Repeat([]byte{0xff}, sniffLen+10),
}

// magics are types sniff must tell from their first bytes alone, whatever
// follows.
var magics = []struct {
	prefix, ct string
}{
	{"%PDF-", "application/pdf"},
	{"II*\x00", "image/tiff"},
	{"MM\x00*", "image/tiff"},
	{"PK\x03\x04", "application/zip"},
	{"\x89PNG\r\n\x1a\n", "image/png"},
	{"\xff\xd8\xff", "image/jpeg"},
	{"GIF87a", "image/gif"},
	{"GIF89a", "image/gif"},
}

// validMediaType reports whether ct is a bare type/subtype, with no
// parameters, spaces or capitals: what Tool.Accepts lists.
func validMediaType(ct string) bool {
	typ, sub, ok := strings.Cut(ct, "/")
	if !ok || typ == "" || sub == "" {
		return false
	}
	for _, r := range typ + sub {
		if !('a' <= r && r <= 'z' || '0' <= r && r <= '9' || strings.ContainsRune(".+-", r)) {
			return false
		}
	}
	return true
}

// FuzzSniff: sniff names every upload a bare media type; a file that
// starts with a known magic gets that type whatever follows; a PDF header
// anywhere in the first sniffLen bytes makes a text or unknown file a
// PDF; "application/pdf" is never given without a PDF header; and the
// answer depends on the bytes alone.
func FuzzSniff(f *testing.F) {
	for _, s := range sniffSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, head []byte) {
		ct := sniff(head)
		if !validMediaType(ct) {
			t.Fatalf("sniff(%q) = %q: not a bare media type", head, ct)
		}
		if ct == "application/pdf" && !bytes.Contains(head, []byte("%PDF-")) {
			t.Fatalf("sniff(%q) = PDF without a PDF header", head)
		}
		if (ct == "text/plain" || ct == "application/octet-stream") && bytes.Contains(head, []byte("%PDF-")) {
			t.Fatalf("sniff(%q) = %q, but the head has a PDF header", head, ct)
		}
		for _, m := range magics {
			if bytes.HasPrefix(head, []byte(m.prefix)) && ct != m.ct {
				t.Fatalf("sniff(%q) = %q, want %q from its magic", head, ct, m.ct)
			}
		}
		if again := sniff(head); again != ct {
			t.Fatalf("sniff(%q) = %q, then %q", head, ct, again)
		}
		if describeType(ct) == "" {
			t.Fatalf("describeType(%q) is empty", ct)
		}
	})
}

// FuzzCleanFilename: a client's file name, once cleaned, is safe to echo
// in a message and to put in a result name: at most maxFilename bytes of
// valid UTF-8, no directory, quote, control or format character, no
// surrounding space, never empty, "." or ".."; cleaning it again changes
// nothing; and a short clean name is kept as is.
func FuzzCleanFilename(f *testing.F) {
	for _, s := range []string{
		"", ".", "..", "report.pdf", "Résumé final (2).pdf", "/etc/passwd", `C:\Users\ada\secret.docx`,
		"../../x.pdf", "a/b/", "  spaced  .pdf  ", "evil\u202efdp.exe", "a\x00b\r\n.pdf", `say "hi".pdf`,
		"\xff\xfe.pdf", "\u200b", strings.Repeat("a", 300) + ".pdf", strings.Repeat("é", 100) + ".pdf",
		strings.Repeat("a", 149) + "é.pdf", strings.Repeat("a", 200) + "." + strings.Repeat("x", 20),
		strings.Repeat(" ", 200) + ".pdf", strings.Repeat("a", 140) + "    " + strings.Repeat("b", 20) + ".pdf",
		"\U0001F600.pdf", ". .", "/", `\`, "a/..", "%2e%2e%2fx",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		got := cleanFilename(name)
		if got == "" || got == "." || got == ".." || len(got) > maxFilename || !utf8.ValidString(got) {
			t.Fatalf("cleanFilename(%q) = %q", name, got)
		}
		if got != strings.TrimSpace(got) {
			t.Fatalf("cleanFilename(%q) = %q: surrounding space", name, got)
		}
		for _, r := range got {
			if r == '/' || r == '\\' || r == '"' || r == utf8.RuneError || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
				t.Fatalf("cleanFilename(%q) = %q: has %q", name, got, r)
			}
		}
		if filepath.Base(got) != got {
			t.Fatalf("cleanFilename(%q) = %q: not a base name", name, got)
		}
		if again := cleanFilename(got); again != got {
			t.Fatalf("cleanFilename(%q) = %q, then %q", name, got, again)
		}
		base := name[strings.LastIndexAny(name, `/\`)+1:]
		if len(base) <= maxFilename && base == strings.TrimSpace(base) && base != "" && base != "." && base != ".." &&
			utf8.ValidString(base) && !strings.ContainsFunc(base, func(r rune) bool {
			return r == '"' || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == utf8.RuneError
		}) && got != base {
			t.Fatalf("cleanFilename(%q) = %q, want the name kept", name, got)
		}
	})
}
