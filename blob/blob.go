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

	"github.com/docmill/docmill"
	"gocloud.dev/blob"
	"gocloud.dev/blob/fileblob"
	"gocloud.dev/gcerrors"
)

// Bucket is a docmill.BlobStore over a gocloud.dev bucket.
type Bucket struct {
	b *blob.Bucket
}

var _ docmill.BlobStore = (*Bucket)(nil)

// OpenDir opens a bucket kept in the local directory dir, creating it.
// Writes go to a temporary file in the same directory and are renamed into
// place on success, so a failed upload leaves nothing behind.
func OpenDir(dir string) (*Bucket, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(abs, 0o750); err != nil {
		return nil, fmt.Errorf("blob: create %s: %w", abs, err)
	}
	b, err := fileblob.OpenBucket(abs, &fileblob.Options{CreateDir: true, NoTempDir: true, DirFileMode: 0o750})
	if err != nil {
		return nil, fmt.Errorf("blob: open %s: %w", abs, err)
	}
	return &Bucket{b: b}, nil
}

// OpenURL opens a bucket by gocloud.dev URL (file:///path, ...).
func OpenURL(ctx context.Context, url string) (*Bucket, error) {
	b, err := blob.OpenBucket(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("blob: open bucket: %w", err)
	}
	return &Bucket{b: b}, nil
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

func notFound(err error) error {
	if gcerrors.Code(err) == gcerrors.NotFound {
		return docmill.ErrNotFound
	}
	return err
}
