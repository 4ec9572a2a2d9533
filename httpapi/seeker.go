package httpapi

import (
	"context"
	"errors"
	"io"

	"github.com/docmill/docmill"
)

// readSeeker presents a stored file as an io.ReadSeeker, as http.ServeContent
// needs for Range requests, without reading the file whole: each Seek drops
// the open range reader and the next Read opens one at the new offset.
type readSeeker struct {
	ctx   context.Context
	store docmill.BlobStore
	key   string
	size  int64
	off   int64
	r     io.ReadCloser
}

// newReadSeeker returns a readSeeker over key, whose size is known.
func newReadSeeker(ctx context.Context, store docmill.BlobStore, key string, size int64) *readSeeker {
	return &readSeeker{ctx: ctx, store: store, key: key, size: size}
}

// Read reads from the current offset.
func (s *readSeeker) Read(p []byte) (int, error) {
	if s.off >= s.size {
		return 0, io.EOF
	}
	if s.r == nil {
		r, err := s.store.NewRangeReader(s.ctx, s.key, s.off, -1)
		if err != nil {
			return 0, err
		}
		s.r = r
	}
	n, err := s.r.Read(p)
	s.off += int64(n)
	return n, err
}

// Seek moves the offset.
func (s *readSeeker) Seek(offset int64, whence int) (int64, error) {
	var abs int64
	switch whence {
	case io.SeekStart:
		abs = offset
	case io.SeekCurrent:
		abs = s.off + offset
	case io.SeekEnd:
		abs = s.size + offset
	default:
		return 0, errors.New("httpapi: invalid whence")
	}
	if abs < 0 {
		return 0, errors.New("httpapi: negative offset")
	}
	if abs != s.off && s.r != nil {
		_ = s.r.Close()
		s.r = nil
	}
	s.off = abs
	return abs, nil
}

// Close closes the open range reader, if any.
func (s *readSeeker) Close() error {
	if s.r != nil {
		return s.r.Close()
	}
	return nil
}
