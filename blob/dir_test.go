package blob_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/docmill/docmill"
)

// The local-directory bucket's own behaviour: hard links and paths.

// regularFiles lists the regular files under dir, relative to it.
func regularFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			rel, _ := filepath.Rel(dir, p)
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func TestDirPutFailingReaderLeavesNoFiles(t *testing.T) {
	b, dir := openDir(t)
	ctx := context.Background()
	errBoom := errors.New("boom")
	if _, err := b.Put(ctx, "in/job_new.0", failingReader(errBoom), "application/pdf"); !errors.Is(err, errBoom) {
		t.Fatalf("Put err = %v, want %v", err, errBoom)
	}
	if files := regularFiles(t, dir); len(files) != 0 {
		t.Errorf("files left after failed Put: %q", files)
	}
	put(t, b, "in/job_old.0", "old content")
	if _, err := b.Put(ctx, "in/job_old.0", failingReader(errBoom), "application/pdf"); !errors.Is(err, errBoom) {
		t.Fatalf("Put err = %v, want %v", err, errBoom)
	}
	if files := regularFiles(t, dir); len(files) != 1 {
		t.Errorf("files after failed overwrite = %q, want just the old one", files)
	}
}

func TestLocalPath(t *testing.T) {
	b, dir := openDir(t)
	for _, key := range []string{
		docmill.InputKey("job_abc", 0),
		docmill.ResultKey("job_abc", "report-compressed.pdf"),
		docmill.ResultKey("job_abc", "Résumé (final) 2.pdf"),
		"top-level",
	} {
		t.Run(key, func(t *testing.T) {
			p, ok := b.LocalPath(key)
			if !ok {
				t.Fatalf("LocalPath(%q) not local", key)
			}
			if want := filepath.Join(dir, filepath.FromSlash(key)); p != want {
				t.Errorf("LocalPath(%q) = %q, want %q", key, p, want)
			}
			// The path is where Put stores the key.
			put(t, b, key, "content of "+key)
			got, err := os.ReadFile(p)
			if err != nil {
				t.Fatalf("read LocalPath: %v", err)
			}
			if string(got) != "content of "+key {
				t.Errorf("LocalPath file = %q", got)
			}
		})
	}

	for _, key := range []string{"../x", "../../etc/passwd", "a/../../x", "/abs/x", "", ".."} {
		if p, ok := b.LocalPath(key); ok {
			t.Errorf("LocalPath(%q) = %q, true; want refusal", key, p)
		}
	}
}

func TestLinkFile(t *testing.T) {
	b, dir := openDir(t)
	ctx := context.Background()
	src := filepath.Join(t.TempDir(), "result.pdf")
	const content = "%PDF-1.7 linked"
	if err := os.WriteFile(src, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}

	key := docmill.ResultKey("job_link", "result.pdf")
	if !b.LinkFile(key, src) {
		t.Fatal("LinkFile = false, want true")
	}
	a, err := b.Attributes(ctx, key)
	if err != nil {
		t.Fatalf("Attributes of linked key: %v", err)
	}
	if a.Size != int64(len(content)) {
		t.Errorf("Size = %d, want %d", a.Size, len(content))
	}
	if got := readRange(t, b, key, 0, -1); got != content {
		t.Errorf("linked content = %q, want %q", got, content)
	}
	dst, _ := b.LocalPath(key)
	si, err1 := os.Stat(src)
	di, err2 := os.Stat(dst)
	if err1 != nil || err2 != nil {
		t.Fatalf("stat: %v, %v", err1, err2)
	}
	if !os.SameFile(si, di) {
		t.Error("linked file is not the same inode as the source")
	}

	// Linking onto an existing key fails (the caller falls back to Put).
	if b.LinkFile(key, src) {
		t.Error("LinkFile onto an existing key = true, want false")
	}
	if b.LinkFile(docmill.ResultKey("job_link", "missing.pdf"), filepath.Join(t.TempDir(), "missing")) {
		t.Error("LinkFile of a missing source = true, want false")
	}
	// A key outside the bucket is refused and creates nothing outside it.
	if b.LinkFile("../escaped", src) {
		t.Error(`LinkFile("../escaped") = true, want false`)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "escaped")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a file was created outside the bucket: %v", err)
	}
}

func TestFileURLBucketIsNotLocal(t *testing.T) {
	testNotLocal(t, openURL(t, "file://"+filepath.ToSlash(t.TempDir())))
}

// TestLinkFileEscapedKey: for a key that fileblob escapes on disk (a
// result named after a client file containing "__0x41__"), LocalPath
// would name a file fileblob does not read, so LinkFile refuses it
// (false, nothing stored: the caller falls back to Put); a key of the
// same shape without the escape links and reads back.
func TestLinkFileEscapedKey(t *testing.T) {
	b, _ := openDir(t)
	ctx := context.Background()
	src := filepath.Join(t.TempDir(), "r.pdf")
	if err := os.WriteFile(src, []byte("%PDF-"), 0o600); err != nil {
		t.Fatal(err)
	}
	escaped := docmill.ResultKey("job_esc", "a__0x41__-rotated.pdf")
	if b.LinkFile(escaped, src) {
		t.Errorf("LinkFile(%q) = true, want false: fileblob escapes that key on disk", escaped)
	}
	if _, err := b.Attributes(ctx, escaped); err == nil {
		t.Errorf("LinkFile(%q) stored something though it said false", escaped)
	}
	plain := docmill.ResultKey("job_esc", "a-rotated.pdf")
	if !b.LinkFile(plain, src) {
		t.Fatalf("LinkFile(%q) = false, want true", plain)
	}
	if got := readRange(t, b, plain, 0, -1); got != "%PDF-" {
		t.Errorf("linked %q reads %q, want %%PDF-", plain, got)
	}
}
