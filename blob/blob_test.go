package blob_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/iotest"
	"time"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/blob"
	"github.com/docmill/docmill/blob/s3test"
)

// The conformance suite: every kind of bucket passes testBucket.

func TestDirBucket(t *testing.T) {
	testBucket(t, func(t *testing.T) *blob.Bucket {
		b, _ := openDir(t)
		return b
	}, false)
}

func TestFileURLBucket(t *testing.T) {
	testBucket(t, func(t *testing.T) *blob.Bucket {
		return openURL(t, "file://"+filepath.ToSlash(t.TempDir()))
	}, false)
}

func TestS3Bucket(t *testing.T) {
	srv := s3test.Start(t)
	srv.Setenv(t)
	var n atomic.Int64
	testBucket(t, func(t *testing.T) *blob.Bucket {
		return openURL(t, srv.URL(fmt.Sprintf("bucket-%d", n.Add(1))))
	}, true)

	t.Run("NotLocal", func(t *testing.T) {
		testNotLocal(t, openURL(t, srv.URL("not-local")))
	})
	t.Run("PingMissingBucket", func(t *testing.T) {
		b := openURL(t, strings.Replace(srv.URL("exists"), "s3://exists", "s3://missing", 1))
		if err := b.Ping(context.Background()); err == nil {
			t.Error("Ping of a missing bucket = nil, want an error")
		}
	})
	t.Run("PingServerDown", func(t *testing.T) {
		down := s3test.Start(t)
		down.Setenv(t)
		b := openURL(t, down.URL("docmill"))
		if err := b.Ping(context.Background()); err != nil {
			t.Fatalf("Ping: %v", err)
		}
		down.Stop()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		start := time.Now()
		err := b.Ping(ctx)
		if err == nil {
			t.Fatal("Ping with the server down = nil, want an error")
		}
		t.Logf("Ping with the server down: %v after %v", err, time.Since(start).Round(time.Millisecond))
	})
}

// testBucket runs the conformance suite on buckets made by open, each
// fresh and empty. presign says whether the bucket can presign URLs.
func testBucket(t *testing.T, open func(t *testing.T) *blob.Bucket, presign bool) {
	t.Run("PutReadAttributes", func(t *testing.T) { testPutReadAttributes(t, open(t)) })
	t.Run("EmptyObject", func(t *testing.T) { testEmptyObject(t, open(t)) })
	t.Run("MissingKeyIsErrNotFound", func(t *testing.T) { testMissingKey(t, open(t)) })
	t.Run("PutFailingReaderLeavesNothing", func(t *testing.T) { testPutFailingReader(t, open(t)) })
	t.Run("Delete", func(t *testing.T) { testDelete(t, open(t)) })
	t.Run("LargeUpload", func(t *testing.T) { testLargeUpload(t, open(t)) })
	t.Run("ConcurrentPuts", func(t *testing.T) { testConcurrentPuts(t, open(t)) })
	t.Run("PresignGet", func(t *testing.T) {
		b := open(t)
		if !presign {
			testPresignUnsupported(t, b)
			return
		}
		testPresignGet(t, b)
	})
	t.Run("Ping", func(t *testing.T) { testPing(t, open(t)) })
}

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

func openURL(t *testing.T, u string) *blob.Bucket {
	t.Helper()
	b, err := blob.OpenURL(context.Background(), u)
	if err != nil {
		t.Fatalf("OpenURL(%q): %v", u, err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b
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

func testPutReadAttributes(t *testing.T, b *blob.Bucket) {
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
		{5, 1000, content[5:]},
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

func testEmptyObject(t *testing.T, b *blob.Bucket) {
	put(t, b, "in/job_empty.0", "")
	a, err := b.Attributes(context.Background(), "in/job_empty.0")
	if err != nil {
		t.Fatalf("Attributes: %v", err)
	}
	if a.Size != 0 {
		t.Errorf("Size = %d, want 0", a.Size)
	}
	if got := readRange(t, b, "in/job_empty.0", 0, -1); got != "" {
		t.Errorf("content = %q, want empty", got)
	}
}

func testMissingKey(t *testing.T, b *blob.Bucket) {
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
	if r, err := b.NewRangeReader(ctx, "in/nope.0", 10, 5); !errors.Is(err, docmill.ErrNotFound) {
		if r != nil {
			r.Close()
		}
		t.Errorf("NewRangeReader(missing, 10, 5) err = %v, want ErrNotFound", err)
	}
}

// failingReader returns enough bytes that some reach storage (a temporary
// file, or a first multipart part) before it fails with errBoom.
func failingReader(errBoom error) io.Reader {
	return io.MultiReader(io.LimitReader(rand.NewChaCha8([32]byte{1}), 9<<20), iotest.ErrReader(errBoom))
}

func testPutFailingReader(t *testing.T, b *blob.Bucket) {
	ctx := context.Background()
	errBoom := errors.New("boom")

	// A new key: nothing is left at it.
	if _, err := b.Put(ctx, "in/job_new.0", failingReader(errBoom), "application/pdf"); !errors.Is(err, errBoom) {
		t.Fatalf("Put err = %v, want %v", err, errBoom)
	}
	if _, err := b.Attributes(ctx, "in/job_new.0"); !errors.Is(err, docmill.ErrNotFound) {
		t.Errorf("Attributes after failed Put: err = %v, want ErrNotFound", err)
	}

	// An existing key keeps its earlier content.
	put(t, b, "in/job_old.0", "old content")
	if _, err := b.Put(ctx, "in/job_old.0", failingReader(errBoom), "application/pdf"); !errors.Is(err, errBoom) {
		t.Fatalf("Put err = %v, want %v", err, errBoom)
	}
	if got := readRange(t, b, "in/job_old.0", 0, -1); got != "old content" {
		t.Errorf("after failed overwrite = %q, want %q", got, "old content")
	}

	// A canceled context fails the Put and leaves nothing either.
	cctx, cancel := context.WithCancel(ctx)
	r := io.MultiReader(strings.NewReader("partial"), readerFunc(func([]byte) (int, error) {
		cancel()
		return 0, cctx.Err()
	}))
	if _, err := b.Put(cctx, "in/job_canceled.0", r, "application/pdf"); err == nil {
		t.Fatal("Put with a canceled context = nil, want an error")
	}
	if _, err := b.Attributes(ctx, "in/job_canceled.0"); !errors.Is(err, docmill.ErrNotFound) {
		t.Errorf("Attributes after canceled Put: err = %v, want ErrNotFound", err)
	}
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }

func testDelete(t *testing.T, b *blob.Bucket) {
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

// largeSize is the size of the streamed upload: several multipart parts.
const largeSize = 128 << 20

// generated returns the deterministic pseudo-random content of the large
// upload, from offset on.
func generated(offset, length int64) io.Reader {
	r := io.LimitReader(rand.NewChaCha8([32]byte{'d', 'o', 'c'}), largeSize)
	if _, err := io.CopyN(io.Discard, r, offset); err != nil {
		panic(err)
	}
	return io.LimitReader(r, length)
}

// heapPeak samples the bytes of live and unswept heap objects until stop
// is called, and returns the highest value seen.
func heapPeak() (stop func() uint64) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(sample)
			peak = max(peak, sample[0].Value.Uint64())
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	})
	return func() uint64 {
		close(done)
		wg.Wait()
		return peak
	}
}

// testLargeUpload streams 128 MiB from a generator and checks that it is
// stored whole (size and SHA-256, and a range across a part boundary) and
// that the upload did not hold the file in memory.
func testLargeUpload(t *testing.T, b *blob.Bucket) {
	if testing.Short() {
		t.Skip("64 MB upload skipped in -short mode")
	}
	ctx := context.Background()
	const key = "in/job_large.0"
	h := sha256.New()
	base := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(base)
	stopPeak := heapPeak()
	start := time.Now()
	n, err := b.Put(ctx, key, io.TeeReader(generated(0, largeSize), h), "application/octet-stream")
	elapsed := time.Since(start)
	peak := stopPeak()
	if err != nil {
		t.Fatalf("Put: %v", err)
	}
	if n != largeSize {
		t.Fatalf("Put = %d bytes, want %d", n, largeSize)
	}
	grown := int64(peak) - int64(base[0].Value.Uint64())
	t.Logf("Put of %d MiB: %v, heap peak %+.1f MiB", largeSize>>20, elapsed.Round(time.Millisecond), float64(grown)/(1<<20))
	// The upload buffers at most (UploadConcurrency+1) parts, 24 MiB;
	// allow for garbage not yet collected (twice that, and the SDK's
	// own), but not for half the file.
	if limit := int64(largeSize / 2); grown > limit {
		t.Errorf("heap grew by %d MiB during the upload, want < %d MiB", grown>>20, limit>>20)
	}
	want := h.Sum(nil)

	a, err := b.Attributes(ctx, key)
	if err != nil {
		t.Fatalf("Attributes: %v", err)
	}
	if a.Size != largeSize {
		t.Errorf("Size = %d, want %d", a.Size, largeSize)
	}

	r, err := b.NewRangeReader(ctx, key, 0, -1)
	if err != nil {
		t.Fatalf("NewRangeReader: %v", err)
	}
	h.Reset()
	got, err := io.Copy(h, r)
	r.Close()
	if err != nil {
		t.Fatalf("read back: %v", err)
	}
	if got != largeSize || !bytes.Equal(h.Sum(nil), want) {
		t.Errorf("read back %d bytes, sha256 %x; want %d bytes, sha256 %x", got, h.Sum(nil), largeSize, want)
	}

	// A range that spans the boundary of two 8 MiB parts.
	const off, length = 3*blob.UploadPartSize - 1000, 5000
	wantRange, _ := io.ReadAll(generated(off, length))
	if gotRange := readRange(t, b, key, off, length); gotRange != string(wantRange) {
		t.Errorf("range (%d, %d) differs from what was written", off, length)
	}
}

func testConcurrentPuts(t *testing.T, b *blob.Bucket) {
	ctx := context.Background()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			key := docmill.ResultKey(fmt.Sprintf("job_c%d", i), "r.pdf")
			content := strings.Repeat(fmt.Sprint(i), 1000+i)
			if _, err := b.Put(ctx, key, strings.NewReader(content), "application/pdf"); err != nil {
				t.Errorf("Put(%q): %v", key, err)
			}
		})
	}
	wg.Wait()
	for i := range 8 {
		key := docmill.ResultKey(fmt.Sprintf("job_c%d", i), "r.pdf")
		if got := readRange(t, b, key, 0, -1); got != strings.Repeat(fmt.Sprint(i), 1000+i) {
			t.Errorf("%s: wrong content (%d bytes)", key, len(got))
		}
	}
}

func testPing(t *testing.T, b *blob.Bucket) {
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

// testNotLocal checks that a bucket not opened with OpenDir never hands out
// local paths.
func testNotLocal(t *testing.T, b *blob.Bucket) {
	if p, ok := b.LocalPath("in/job_x.0"); ok {
		t.Errorf("LocalPath = %q, true; want false", p)
	}
	src := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(src, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b.LinkFile("in/job_x.0", src) {
		t.Error("LinkFile = true, want false")
	}
	if _, err := b.Attributes(context.Background(), "in/job_x.0"); !errors.Is(err, docmill.ErrNotFound) {
		t.Errorf("Attributes after a refused LinkFile: err = %v, want ErrNotFound", err)
	}
}

// Tests of local directory buckets only.
