package office

import (
	"os"
	"path/filepath"
	"testing"

	docmill "github.com/docmill/docmill"
)

// TestDetectOLE: legacy compound files are told apart by their main
// stream's directory entry, and an encrypted OOXML file is refused.
func TestDetectOLE(t *testing.T) {
	for _, c := range []struct {
		stream string
		want   family
		code   docmill.Code
	}{
		{"WordDocument", text, ""},
		{"Workbook", spreadsheet, ""},
		{"PowerPoint Document", presentation, ""},
		{"EncryptedPackage", text, docmill.CodeInvalidDocument},
		{"Workbook", text, docmill.CodeUnsupportedFileType},
		{"WORKBOOK", spreadsheet, ""},
		{"workbook", spreadsheet, ""},
		{"WORDDOCUMENT", text, ""},
		{"Book", spreadsheet, ""},
		{"BOOK", spreadsheet, ""},
		{"Workbooks", spreadsheet, docmill.CodeUnsupportedFileType},
	} {
		b := make([]byte, 2048)
		copy(b, "\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1")
		copy(b[1024+128:], utf16z(c.stream))
		path := filepath.Join(t.TempDir(), "f")
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		k, err := detect(path, c.want, docmill.Limits{})
		if docmill.ErrorCode(err) != c.code || (err == nil && k.fam != c.want) {
			t.Errorf("%s as %v: %+v, %v", c.stream, c.want, k, err)
		}
	}
}

// TestDetectWord2: a Word for Windows 2.0 document (no compound file; its
// FIB starts the file: wIdent 0xA5DB, nFib 0x002D) is a text document,
// read with LibreOffice's WinWord 1/2/5 filter; it is no spreadsheet.
func TestDetectWord2(t *testing.T) {
	b := make([]byte, 1024)
	copy(b, "\xDB\xA5\x2D\x00\x00\x00\x09\x04")
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	k, err := detect(path, text, docmill.Limits{})
	if err != nil || k.fam != text || k.ext != "doc" || k.filter != "MS WinWord 5" {
		t.Errorf("detect = %+v, %v; want a doc read with MS WinWord 5", k, err)
	}
	if _, err := detect(path, spreadsheet, docmill.Limits{}); docmill.ErrorCode(err) != docmill.CodeUnsupportedFileType {
		t.Errorf("as a spreadsheet: %v, want unsupported_file_type", err)
	}
}
