package replica

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/benbjohnson/litestream"
	"github.com/superfly/ltx"
	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"
)

// bucketClient is a litestream.ReplicaClient over a gocloud.dev bucket, so
// that a target is opened, authenticated and configured (AWS_CA_BUNDLE,
// AWS_PROFILE, the URL's parameters) exactly as the file store's
// --blob-url is. Its layout is Litestream's own S3 layout: the LTX files
// of level L under %04x(L)/, each with its LTX header's time in the
// metadata key litestream-timestamp, so that the litestream command can
// read a replica too.
type bucketClient struct {
	b       *blob.Bucket
	kind    string        // "file" or "s3", for logs
	shipped *atomic.Int64 // bytes written
}

var _ litestream.ReplicaClient = (*bucketClient)(nil)

// timestampKey is the metadata key of an LTX file's header time, as
// Litestream's S3 client names it.
const timestampKey = "litestream-timestamp"

func (c *bucketClient) Type() string                   { return c.kind }
func (c *bucketClient) Init(ctx context.Context) error { return nil }
func (c *bucketClient) SetLogger(*slog.Logger)         {}

func levelPrefix(level int) string { return fmt.Sprintf("%04x/", level) }

func ltxKey(level int, minTXID, maxTXID ltx.TXID) string {
	return levelPrefix(level) + ltx.FormatFilename(minTXID, maxTXID)
}

// LTXFiles lists the LTX files of level from seek on, in TXID order. With
// useMetadata, CreatedAt is the time in the file's header (one more
// request per file: the header is read rather than the metadata, which
// not every S3-compatible server keeps), else the time the target stored
// it.
func (c *bucketClient) LTXFiles(ctx context.Context, level int, seek ltx.TXID, useMetadata bool) (ltx.FileIterator, error) {
	var infos []*ltx.FileInfo
	it := c.b.List(&blob.ListOptions{Prefix: levelPrefix(level)})
	for {
		obj, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, err
		}
		minTXID, maxTXID, err := ltx.ParseFilename(strings.TrimPrefix(obj.Key, levelPrefix(level)))
		if err != nil || minTXID < seek {
			continue
		}
		info := &ltx.FileInfo{Level: level, MinTXID: minTXID, MaxTXID: maxTXID, Size: obj.Size, CreatedAt: obj.ModTime.UTC()}
		if useMetadata {
			if info.CreatedAt, err = c.headerTime(ctx, obj.Key, info.CreatedAt); err != nil {
				return nil, err
			}
		}
		infos = append(infos, info)
	}
	return ltx.NewFileInfoSliceIterator(infos), nil
}

// headerTime returns the time in the header of the LTX file at key, or
// def when it has none.
func (c *bucketClient) headerTime(ctx context.Context, key string, def time.Time) (time.Time, error) {
	r, err := c.b.NewRangeReader(ctx, key, 0, ltx.HeaderSize, nil)
	if err != nil {
		return def, notExist(err)
	}
	defer r.Close()
	hdr, _, err := ltx.PeekHeader(r)
	if err != nil || hdr.Timestamp == 0 {
		return def, nil
	}
	return time.UnixMilli(hdr.Timestamp).UTC(), nil
}

// OpenLTXFile reads size bytes (0: to the end) of an LTX file from offset.
func (c *bucketClient) OpenLTXFile(ctx context.Context, level int, minTXID, maxTXID ltx.TXID, offset, size int64) (io.ReadCloser, error) {
	length := size
	if length <= 0 {
		length = -1
	}
	r, err := c.b.NewRangeReader(ctx, ltxKey(level, minTXID, maxTXID), offset, length, nil)
	if err != nil {
		return nil, notExist(err)
	}
	return r, nil
}

// WriteLTXFile stores an LTX file; an error leaves nothing at its key.
func (c *bucketClient) WriteLTXFile(ctx context.Context, level int, minTXID, maxTXID ltx.TXID, r io.Reader) (*ltx.FileInfo, error) {
	hdr, r, err := ltx.PeekHeader(r)
	if err != nil {
		return nil, fmt.Errorf("read LTX header: %w", err)
	}
	created := time.UnixMilli(hdr.Timestamp).UTC()
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := c.b.NewWriter(wctx, ltxKey(level, minTXID, maxTXID), &blob.WriterOptions{
		ContentType: "application/octet-stream", Metadata: map[string]string{timestampKey: created.Format(time.RFC3339Nano)},
	})
	if err != nil {
		return nil, err
	}
	n, err := io.Copy(w, r)
	if err != nil {
		cancel() // aborts the write
		_ = w.Close()
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	c.shipped.Add(n)
	return &ltx.FileInfo{Level: level, MinTXID: minTXID, MaxTXID: maxTXID, Size: n, CreatedAt: created}, nil
}

// DeleteLTXFiles deletes the files; one already gone is not an error.
func (c *bucketClient) DeleteLTXFiles(ctx context.Context, a []*ltx.FileInfo) error {
	for _, info := range a {
		if err := c.delete(ctx, ltxKey(info.Level, info.MinTXID, info.MaxTXID)); err != nil {
			return err
		}
	}
	return nil
}

// DeleteAll deletes every LTX file of the target.
func (c *bucketClient) DeleteAll(ctx context.Context) error {
	for level := 0; level <= litestream.SnapshotLevel; level++ {
		it := c.b.List(&blob.ListOptions{Prefix: levelPrefix(level)})
		for {
			obj, err := it.Next(ctx)
			if errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				return err
			}
			if err := c.delete(ctx, obj.Key); err != nil {
				return err
			}
		}
	}
	return nil
}

func (c *bucketClient) delete(ctx context.Context, key string) error {
	if err := c.b.Delete(ctx, key); err != nil && gcerrors.Code(err) != gcerrors.NotFound {
		return err
	}
	return nil
}

// notExist makes a missing key os.ErrNotExist, which Litestream tests for.
func notExist(err error) error {
	if gcerrors.Code(err) == gcerrors.NotFound {
		return fmt.Errorf("%w: %w", os.ErrNotExist, err)
	}
	return err
}
