// Package blob keeps docmill's files (uploaded inputs and results) in a
// gocloud.dev bucket: a local directory in embedded mode, an S3-compatible
// bucket in distributed mode. It implements docmill.BlobStore.
package blob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/docmill/docmill"
	"gocloud.dev/blob"
	"gocloud.dev/blob/fileblob"
	"gocloud.dev/gcerrors"
)

// Bucket is a docmill.BlobStore over a gocloud.dev bucket.
type Bucket struct {
	b *blob.Bucket
	// dir is the local directory of a bucket opened with OpenDir.
	dir string
}

var _ docmill.BlobStore = (*Bucket)(nil)

// OpenDir opens a bucket kept in the local directory dir, creating it.
// Writes go to a temporary file in the same directory and are renamed into
// place on success, so a failed upload leaves nothing behind. No metadata
// sidecar files are written: each costs a file creation, and docmill keeps
// content types in its job records and file names.
func OpenDir(dir string) (*Bucket, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(abs, 0o750); err != nil {
		return nil, fmt.Errorf("blob: create %s: %w", abs, err)
	}
	b, err := fileblob.OpenBucket(abs, &fileblob.Options{
		CreateDir: true, NoTempDir: true, DirFileMode: 0o750, Metadata: fileblob.MetadataDontWrite,
	})
	if err != nil {
		return nil, fmt.Errorf("blob: open %s: %w", abs, err)
	}
	return &Bucket{b: b, dir: abs}, nil
}

// OpenURL opens a bucket by gocloud.dev URL (file:///path, ...).
func OpenURL(ctx context.Context, url string) (*Bucket, error) {
	b, err := blob.OpenBucket(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("blob: open bucket: %w", err)
	}
	return &Bucket{b: b}, nil
}

// LocalPath returns the file that holds key when the bucket is a local
// directory, so that a worker on the same disk can link the file instead of
// copying it.
func (k *Bucket) LocalPath(key string) (string, bool) {
	if k.dir == "" || !filepath.IsLocal(filepath.FromSlash(key)) || escapedByFileblob(key) {
		return "", false
	}
	return filepath.Join(k.dir, filepath.FromSlash(key)), true
}

// LinkFile stores the local file at path under key by hard-linking it into
// a local bucket, which saves writing it again; it reports false (and does
// nothing) when the bucket is not local or the link fails, for example
// across file systems. The file must not change afterwards.
func (k *Bucket) LinkFile(key, path string) bool {
	dst, ok := k.LocalPath(key)
	if !ok {
		return false
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o750); err != nil {
		return false
	}
	return os.Link(path, dst) == nil
}

// Close releases the bucket.
func (k *Bucket) Close() error { return k.b.Close() }

// Put streams r to key. If r or the write fails, the write is aborted (by
// canceling its context before Close), so nothing is left at key.
func (k *Bucket) Put(ctx context.Context, key string, r io.Reader, contentType string) (int64, error) {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := k.b.NewWriter(wctx, key, &blob.WriterOptions{ContentType: contentType, DisableContentTypeDetection: true})
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(w, r)
	if err != nil {
		cancel()
		_ = w.Close()
		return n, err
	}
	return n, w.Close()
}

// NewRangeReader reads length bytes of key from offset (length < 0: to the
// end).
func (k *Bucket) NewRangeReader(ctx context.Context, key string, offset, length int64) (io.ReadCloser, error) {
	r, err := k.b.NewRangeReader(ctx, key, offset, length, nil)
	if err != nil {
		return nil, notFound(err)
	}
	return r, nil
}

// Attributes describes key.
func (k *Bucket) Attributes(ctx context.Context, key string) (docmill.BlobAttributes, error) {
	a, err := k.b.Attributes(ctx, key)
	if err != nil {
		return docmill.BlobAttributes{}, notFound(err)
	}
	return docmill.BlobAttributes{Size: a.Size, ContentType: a.ContentType, ModTime: a.ModTime}, nil
}

// Delete removes key; a missing key is not an error.
func (k *Bucket) Delete(ctx context.Context, key string) error {
	err := k.b.Delete(ctx, key)
	if err != nil && gcerrors.Code(err) == gcerrors.NotFound {
		return nil
	}
	return err
}

// Ping checks that the bucket is reachable.
func (k *Bucket) Ping(ctx context.Context) error {
	ok, err := k.b.IsAccessible(ctx)
	if err != nil {
		return err
	}
	if !ok {
		return errors.New("blob: bucket not accessible")
	}
	return nil
}

// escapedByFileblob reports whether fileblob stores key under another name
// (it escapes control characters, "//", "../", a trailing "/", text that
// looks like its escapes, and refuses the ".attrs" suffix); such keys go
// through the bucket API instead of a direct path.
func escapedByFileblob(key string) bool {
	for i := 0; i < len(key); i++ {
		if key[i] < 0x20 || key[i] == 0x7f {
			return true
		}
	}
	return strings.Contains(key, "__0x") || strings.Contains(key, "//") || strings.Contains(key, "../") ||
		strings.HasSuffix(key, "/") || strings.HasSuffix(key, ".attrs")
}

func notFound(err error) error {
	if gcerrors.Code(err) == gcerrors.NotFound {
		return docmill.ErrNotFound
	}
	return err
}
