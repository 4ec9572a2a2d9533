package blob_test

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/blob"
)

// openDir opens a bucket in a fresh temporary directory.
func openDir(t *testing.T) (*blob.Bucket, string) {
	t.Helper()
	dir := t.TempDir()
	b, err := blob.OpenDir(dir)
	if err != nil {
		t.Fatalf("OpenDir: %v", err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b, dir
}

func put(t *testing.T, b *blob.Bucket, key, content string) {
	t.Helper()
	n, err := b.Put(context.Background(), key, strings.NewReader(content), "application/pdf")
	if err != nil {
		t.Fatalf("Put(%q): %v", key, err)
	}
	if n != int64(len(content)) {
		t.Fatalf("Put(%q) = %d bytes, want %d", key, n, len(content))
	}
}

func readRange(t *testing.T, b *blob.Bucket, key string, off, length int64) string {
	t.Helper()
	r, err := b.NewRangeReader(context.Background(), key, off, length)
	if err != nil {
		t.Fatalf("NewRangeReader(%q, %d, %d): %v", key, off, length, err)
	}
	defer r.Close()
	got, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("read %q: %v", key, err)
	}
	return string(got)
}

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

func TestPutReadAttributes(t *testing.T) {
	b, _ := openDir(t)
	ctx := context.Background()
	const key, content = "out/job_abc.report final ü.pdf", "%PDF-1.7 0123456789"
	put(t, b, key, content)

	a, err := b.Attributes(ctx, key)
	if err != nil {
		t.Fatalf("Attributes: %v", err)
	}
	if a.Size != int64(len(content)) {
		t.Errorf("Size = %d, want %d", a.Size, len(content))
	}
	if a.ModTime.IsZero() {
		t.Error("ModTime is zero")
	}

	for _, tc := range []struct {
		off, length int64
		want        string
	}{
		{0, -1, content},
		{0, int64(len(content)), content},
		{2, 3, content[2:5]},
		{9, -1, content[9:]},
		{int64(len(content)) - 1, 1, content[len(content)-1:]},
	} {
		if got := readRange(t, b, key, tc.off, tc.length); got != tc.want {
			t.Errorf("range (%d, %d) = %q, want %q", tc.off, tc.length, got, tc.want)
		}
	}

	// Putting again replaces the content.
	put(t, b, key, "new")
	if got := readRange(t, b, key, 0, -1); got != "new" {
		t.Errorf("after overwrite = %q, want %q", got, "new")
	}
}

func TestMissingKeyIsErrNotFound(t *testing.T) {
	b, _ := openDir(t)
	ctx := context.Background()
	if _, err := b.Attributes(ctx, "in/nope.0"); !errors.Is(err, docmill.ErrNotFound) {
		t.Errorf("Attributes(missing) err = %v, want ErrNotFound", err)
	}
	if r, err := b.NewRangeReader(ctx, "in/nope.0", 0, -1); !errors.Is(err, docmill.ErrNotFound) {
		if r != nil {
			r.Close()
		}
		t.Errorf("NewRangeReader(missing) err = %v, want ErrNotFound", err)
	}
}

func TestPutFailingReaderLeavesNothing(t *testing.T) {
	b, dir := openDir(t)
	ctx := context.Background()
	errBoom := errors.New("boom")
	failing := func() io.Reader {
		// Enough bytes that some reach the temporary file before the error.
		return io.MultiReader(strings.NewReader(strings.Repeat("x", 100<<10)), iotest.ErrReader(errBoom))
	}

	// A new key: nothing is left at it, nor any temporary file.
	if _, err := b.Put(ctx, "in/job_new.0", failing(), "application/pdf"); !errors.Is(err, errBoom) {
		t.Fatalf("Put err = %v, want %v", err, errBoom)
	}
	if _, err := b.Attributes(ctx, "in/job_new.0"); !errors.Is(err, docmill.ErrNotFound) {
		t.Errorf("Attributes after failed Put: err = %v, want ErrNotFound", err)
	}
	if files := regularFiles(t, dir); len(files) != 0 {
		t.Errorf("files left after failed Put: %q", files)
	}

	// An existing key keeps its earlier content.
	put(t, b, "in/job_old.0", "old content")
	if _, err := b.Put(ctx, "in/job_old.0", failing(), "application/pdf"); !errors.Is(err, errBoom) {
		t.Fatalf("Put err = %v, want %v", err, errBoom)
	}
	if got := readRange(t, b, "in/job_old.0", 0, -1); got != "old content" {
		t.Errorf("after failed overwrite = %q, want %q", got, "old content")
	}
	if files := regularFiles(t, dir); len(files) != 1 {
		t.Errorf("files after failed overwrite = %q, want just the old one", files)
	}
}

func TestDelete(t *testing.T) {
	b, _ := openDir(t)
	ctx := context.Background()
	if err := b.Delete(ctx, "out/missing.pdf"); err != nil {
		t.Errorf("Delete(missing) = %v, want nil", err)
	}
	put(t, b, "out/job_a.x.pdf", "data")
	if err := b.Delete(ctx, "out/job_a.x.pdf"); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if _, err := b.Attributes(ctx, "out/job_a.x.pdf"); !errors.Is(err, docmill.ErrNotFound) {
		t.Errorf("Attributes after Delete: err = %v, want ErrNotFound", err)
	}
	if err := b.Delete(ctx, "out/job_a.x.pdf"); err != nil {
		t.Errorf("second Delete = %v, want nil", err)
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

func TestURLBucketIsNotLocal(t *testing.T) {
	dir := t.TempDir()
	b, err := blob.OpenURL(context.Background(), "file://"+filepath.ToSlash(dir))
	if err != nil {
		t.Fatalf("OpenURL: %v", err)
	}
	t.Cleanup(func() { _ = b.Close() })
	if p, ok := b.LocalPath("in/job_x.0"); ok {
		t.Errorf("LocalPath on a URL bucket = %q, true; want false", p)
	}
	src := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(src, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b.LinkFile("in/job_x.0", src) {
		t.Error("LinkFile on a URL bucket = true, want false")
	}
	if err := b.Ping(context.Background()); err != nil {
		t.Errorf("Ping: %v", err)
	}
}

func TestPing(t *testing.T) {
	dir := t.TempDir()
	b, err := blob.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Ping(context.Background()); err != nil {
		t.Fatalf("Ping: %v", err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if err := b.Ping(context.Background()); err == nil {
		t.Error("Ping of a closed bucket = nil, want an error")
	}
}

// TestLinkFileEscapedKey shows that LocalPath (and so LinkFile) disagrees
// with fileblob for keys that fileblob escapes on disk, such as a result
// named after a client file containing "__0x41__".
func TestLinkFileEscapedKey(t *testing.T) {
	b, _ := openDir(t)
	src := filepath.Join(t.TempDir(), "r.pdf")
	if err := os.WriteFile(src, []byte("%PDF-"), 0o600); err != nil {
		t.Fatal(err)
	}
	key := docmill.ResultKey("job_esc", "a__0x41__-rotated.pdf")
	if b.LinkFile(key, src) {
		if _, err := b.Attributes(context.Background(), key); err != nil {
			t.Errorf("LinkFile reported true but Attributes fails: %v", err)
		}
	}
}
