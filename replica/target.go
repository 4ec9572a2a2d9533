package replica

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"path"
	"path/filepath"
	"strings"
	"sync/atomic"

	"gocloud.dev/blob"
	"gocloud.dev/blob/fileblob"
	_ "gocloud.dev/blob/s3blob" // registers s3:// for blob.OpenBucket
)

// Target is where replication ships to: a local directory (Dir) or a
// bucket (BucketURL, and Prefix in it).
type Target struct {
	Dir string
	// BucketURL opens the bucket with gocloud.dev, as --blob-url does:
	// its parameters and credentials (the AWS SDK's default chain) are
	// the file store's. It has no path: that is Prefix.
	BucketURL string
	// Prefix is the key prefix of the replica's files: the URL's path, or
	// DefaultPrefix without one, so that a bucket shared with the file
	// store keeps the two apart.
	Prefix string
}

// DefaultPrefix is a bucket target's key prefix when its URL has no path.
const DefaultPrefix = "replica"

// ParseTarget reads a replication target's URL:
//
//   - file:///dir: the directory dir (absolute), created if needed.
//   - s3://bucket[/prefix]?region=R&endpoint=URL&use_path_style=true: a
//     bucket in the form --blob-url takes (gocloud.dev's s3blob, every
//     parameter of it), the replica's files under prefix/.
//
// The bucket's parameters are checked when it is opened (New, Restore).
func ParseTarget(raw string) (Target, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return Target{}, fmt.Errorf("replica: target URL: %w", err)
	}
	switch u.Scheme {
	case "file":
		if (u.Host != "" && u.Host != "localhost") || u.RawQuery != "" || !filepath.IsAbs(u.Path) {
			return Target{}, fmt.Errorf("replica: target %q: want file:///absolute/dir", raw)
		}
		return Target{Dir: filepath.Clean(u.Path)}, nil
	case "s3":
		if u.Host == "" {
			return Target{}, fmt.Errorf("replica: target %q: no bucket", raw)
		}
		prefix := strings.Trim(path.Clean("/"+u.Path), "/")
		if prefix == "" {
			prefix = DefaultPrefix
		}
		u.Path, u.RawPath = "", ""
		return Target{BucketURL: u.String(), Prefix: prefix}, nil
	}
	return Target{}, fmt.Errorf("replica: target %q: want file:///dir or s3://bucket", raw)
}

// String is the target without its parameters: for logs and messages.
func (t Target) String() string {
	if t.Dir != "" {
		return "file://" + t.Dir
	}
	u, _ := url.Parse(t.BucketURL)
	return "s3://" + u.Host + "/" + t.Prefix
}

// open opens the target's bucket; shipped counts the bytes written to it.
// It contacts nothing.
func (t Target) open(ctx context.Context, shipped *atomic.Int64) (*bucketClient, error) {
	if t.Dir != "" {
		b, err := fileblob.OpenBucket(t.Dir, &fileblob.Options{CreateDir: true, NoTempDir: true, DirFileMode: 0o750})
		if err != nil {
			return nil, fmt.Errorf("replica: open %s: %w", t, err)
		}
		return &bucketClient{b: b, kind: "file", shipped: shipped}, nil
	}
	b, err := blob.OpenBucket(ctx, t.BucketURL)
	if err != nil {
		return nil, fmt.Errorf("replica: open %s: %w", t, err)
	}
	return &bucketClient{b: blob.PrefixedBucket(b, t.Prefix+"/"), kind: "s3", shipped: shipped}, nil
}

// quietLogger passes on l's records of level Warn and above: Litestream
// logs routine work (retention, compactions) at Info.
func quietLogger(l *slog.Logger) *slog.Logger {
	return slog.New(minLevel{l.Handler(), slog.LevelWarn})
}

type minLevel struct {
	slog.Handler
	min slog.Level
}

func (h minLevel) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.min && h.Handler.Enabled(ctx, l)
}

func (h minLevel) WithAttrs(as []slog.Attr) slog.Handler {
	return minLevel{h.Handler.WithAttrs(as), h.min}
}

func (h minLevel) WithGroup(name string) slog.Handler {
	return minLevel{h.Handler.WithGroup(name), h.min}
}
