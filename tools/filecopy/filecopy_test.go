package filecopy_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/docmill/docmill/tools/filecopy"
)

func TestCopy(t *testing.T) {
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.WriteFile(src, []byte("new content"), 0o600)
	os.WriteFile(dst, []byte("older and longer content"), 0o600)
	if err := filecopy.Copy(src, dst); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(dst); string(b) != "new content" {
		t.Fatalf("dst %q", b)
	}
	if err := filecopy.Copy(filepath.Join(dir, "missing"), dst); err == nil {
		t.Fatal("copied a missing file")
	}
}
