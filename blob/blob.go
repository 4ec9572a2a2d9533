// Package blob keeps docmill's files (uploaded inputs and results) in a
// gocloud.dev bucket: a local directory in embedded mode, an S3-compatible
// bucket in distributed mode. It implements docmill.BlobStore.
package blob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"gocloud.dev/blob"
	"gocloud.dev/blob/fileblob"
	_ "gocloud.dev/blob/s3blob" // registers s3:// for OpenURL
	"gocloud.dev/gcerrors"

	"github.com/docmill/docmill"
)

// Uploads are streamed: an S3 upload sends parts of UploadPartSize bytes,
// UploadConcurrency at a time, so one Put holds at most about
// (UploadConcurrency+1) × UploadPartSize bytes in memory whatever the size
// of the file.
const (
	// UploadPartSize is the size of one part of a multipart upload.
	UploadPartSize = 8 << 20
	// UploadConcurrency is how many parts of one upload are sent at once.
	UploadConcurrency = 2
)

// Bucket is a docmill.BlobStore over a gocloud.dev bucket; a local
// directory bucket also links files (docmill.LocalBlobStore).
type Bucket struct {
	b *blob.Bucket
	// dir is the local directory of a bucket opened with OpenDir.
	dir string
}

var _ docmill.LocalBlobStore = (*Bucket)(nil)

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

// OpenURL opens a bucket by gocloud.dev URL:
//
//   - file:///path: a local directory, as fileblob opens it (unlike OpenDir,
//     LocalPath and LinkFile then report false).
//   - s3://bucket?region=us-east-1: an S3 bucket. For an S3-compatible
//     server (versitygw, MinIO, ...) add
//     endpoint=http://host:port&use_path_style=true; the URL also takes the
//     other parameters of gocloud.dev/blob/s3blob (profile, disable_https,
//     request_checksum_calculation, ...).
//
// S3 credentials and, when the URL has no region, the region come from the
// AWS SDK's default chain: the environment variables AWS_ACCESS_KEY_ID,
// AWS_SECRET_ACCESS_KEY (AWS_SESSION_TOKEN) and AWS_REGION, then the shared
// files ~/.aws/credentials and ~/.aws/config (AWS_PROFILE), then the
// container or instance role. The bucket must exist.
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

// copyBuffers hold Put's 1 MB copy buffers (the size of a blob write).
var copyBuffers = sync.Pool{New: func() any { b := make([]byte, 1<<20); return &b }}

// Put streams r to key. If r or the write fails, the write is aborted (by
// canceling its context before Close), so nothing is left at key.
func (k *Bucket) Put(ctx context.Context, key string, r io.Reader, contentType string) (int64, error) {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := k.b.NewWriter(wctx, key, &blob.WriterOptions{
		ContentType: contentType, DisableContentTypeDetection: true,
		BufferSize: UploadPartSize, MaxConcurrency: UploadConcurrency,
	})
	if err != nil {
		return 0, err
	}
	// Through a pooled buffer, with ReadFrom and WriteTo hidden: gocloud's
	// Writer.ReadFrom makes and zeroes a new 1 MB buffer per call, which
	// was a seventh of a sync rotate-pdf's CPU (two Puts per job).
	buf := copyBuffers.Get().(*[]byte)
	defer copyBuffers.Put(buf)
	n, err := io.CopyBuffer(struct{ io.Writer }{w}, struct{ io.Reader }{r}, *buf)
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
	r, err := k.b.NewRangeReader(ctx, key, offset, length, &blob.ReaderOptions{BeforeRead: quietS3Read})
	if err != nil {
		return nil, notFound(err)
	}
	return r, nil
}

// quietS3Read stops the AWS SDK from logging a warning on every whole read
// of an object uploaded in parts ("Skipped validation of multipart
// checksum": S3 keeps no whole-object checksum for those). Other buckets
// ignore it.
func quietS3Read(as func(any) bool) error {
	var opts *[]func(*s3.Options)
	if as(&opts) {
		*opts = append(*opts, func(o *s3.Options) { o.DisableLogOutputChecksumValidationSkipped = true })
	}
	return nil
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

// PresignGet returns a URL that lets anyone GET key, without credentials,
// until expiry has passed; a download through it is named downloadName
// (Content-Disposition: attachment) when downloadName is not empty. The URL
// is signed locally: it does not check that key exists (a missing key is a
// 404 when fetched). ok is false, with no error, when the bucket cannot
// presign URLs (a local directory): the caller then serves the file itself.
func (k *Bucket) PresignGet(ctx context.Context, key, downloadName string, expiry time.Duration) (url string, ok bool, err error) {
	var client *s3.Client
	if !k.b.As(&client) {
		return "", false, nil
	}
	if expiry <= 0 {
		return "", false, fmt.Errorf("blob: presign %s: expiry %v is not positive", key, expiry)
	}
	opts := &blob.SignedURLOptions{Expiry: expiry, Method: http.MethodGet}
	if downloadName != "" {
		disposition := mime.FormatMediaType("attachment", map[string]string{"filename": downloadName})
		if disposition == "" {
			return "", false, fmt.Errorf("blob: presign %s: invalid download name %q", key, downloadName)
		}
		opts.BeforeSign = func(as func(any) bool) error {
			var in *s3.GetObjectInput
			if !as(&in) {
				return errors.New("blob: presign: not an S3 GetObject request")
			}
			in.ResponseContentDisposition = aws.String(disposition)
			return nil
		}
	}
	u, err := k.b.SignedURL(ctx, key, opts)
	if err != nil {
		return "", false, fmt.Errorf("blob: presign %s: %w", key, err)
	}
	return u, true, nil
}

// Ping checks that the bucket is reachable by listing at most one key. On
// S3 it makes a single attempt, without the SDK's retries, so that a
// readiness probe learns at once that the server is down.
func (k *Bucket) Ping(ctx context.Context) error {
	_, _, err := k.b.ListPage(ctx, blob.FirstPageToken, 1, &blob.ListOptions{BeforeList: singleS3Attempt})
	if err != nil {
		if gcerrors.Code(err) == gcerrors.NotFound {
			return fmt.Errorf("blob: bucket not accessible: %w", err)
		}
		return err
	}
	return nil
}

// singleS3Attempt turns off the AWS SDK's retries for one S3 call. Other
// buckets ignore it.
func singleS3Attempt(as func(any) bool) error {
	var opts *[]func(*s3.Options)
	if as(&opts) {
		*opts = append(*opts, func(o *s3.Options) { o.RetryMaxAttempts = 1 })
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
