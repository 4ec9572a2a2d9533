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
