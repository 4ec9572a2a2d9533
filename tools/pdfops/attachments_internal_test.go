package pdfops

import (
	"testing"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
)

// TestEntryName checks that attachment names cannot leave the archive's
// root or collide.
func TestEntryName(t *testing.T) {
	used := map[string]bool{}
	for i, tt := range []struct{ file, id, want string }{
		{"a.txt", "", "a.txt"},
		{"a.txt", "", "a-2.txt"},
		{"../../etc/passwd", "", "passwd"},
		{`C:\dir\b.png`, "", "b.png"},
		{"", "id.bin", "id.bin"},
		{"..", "", "attachment-6"},
		{"", "", "attachment-7"},
	} {
		if got := entryName(model.Attachment{FileName: tt.file, ID: tt.id}, i, used); got != tt.want {
			t.Errorf("entryName(%q, %q) = %q, want %q", tt.file, tt.id, got, tt.want)
		}
	}
}
