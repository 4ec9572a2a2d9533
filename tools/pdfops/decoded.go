package pdfops

import (
	"bytes"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/pdfcpu/pdfcpu/pkg/filter"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	docmill "github.com/docmill/docmill"
)

// budget is one run's limits and how much of its decoding allowance it has
// used. Each run makes one from its RunInput's Limits (guarded) and hands
// it to everything that reads a document, so that every document a run
// reads (merge reads many) counts against one job allowance. Nothing
// finds a budget on its own: a function that reads a document takes one.
type budget struct {
	l       docmill.Limits
	decoded int64
}

// newBudget returns a fresh budget for the limits l (zero fields: their
// defaults).
func newBudget(l docmill.Limits) *budget {
	return &budget{l: l.WithDefaults()}
}

// checkDecodedSize refuses a document whose streams expand past b's
// limits (a flate bomb: a few megabytes that inflate to gigabytes), before
// pdfcpu decodes any of them into memory, and counts what they expand to
// against b. It inflates each compressed stream once into a counter, never
// holding its output, and stops at the first limit passed, so a bomb costs at most the allowance's
// CPU time. Streams that fail to decode are left for pdfcpu to judge, and
// image codecs (DCT, JPX, JBIG2, CCITT), which pdfcpu passes through
// without decoding, are not counted.
func checkDecodedSize(ctx context.Context, b *budget, doc *model.Context, label string) error {
	for _, entry := range doc.XRefTable.Table {
		if entry == nil || entry.Free || entry.Object == nil {
			continue
		}
		sd, ok := entry.Object.(types.StreamDict)
		if !ok || len(sd.FilterPipeline) == 0 {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		left := min(b.l.StreamDecodedBytes, b.l.JobDecodedBytes-b.decoded)
		n, err := decodedSize(sd, left)
		b.decoded += n
		switch {
		case errors.Is(err, errStreamTooLarge) && b.decoded > b.l.JobDecodedBytes:
			return docmill.LimitExceeded(fmt.Sprintf("%s expands to more than %d MB when decompressed", label, b.l.JobDecodedBytes>>20))
		case errors.Is(err, errStreamTooLarge):
			return docmill.LimitExceeded(fmt.Sprintf("%s holds a stream that expands to more than %d MB", label, b.l.StreamDecodedBytes>>20))
		}
	}
	return nil
}

var errStreamTooLarge = errors.New("pdfops: stream expands past its limit")

// decodedSize returns how many bytes sd decodes to, up to limit; past it
// it returns errStreamTooLarge.
func decodedSize(sd types.StreamDict, limit int64) (int64, error) {
	var r io.Reader = bytes.NewReader(sd.Raw)
	for i, f := range sd.FilterPipeline {
		switch f.Name {
		case filter.Flate:
			zr, err := zlib.NewReader(r)
			if err != nil {
				return 0, nil
			}
			defer zr.Close()
			r = zr
		case filter.DCT, filter.JPX, filter.JBIG2, filter.CCITTFax:
			if i == 0 {
				return 0, nil
			}
			return count(r, limit)
		default:
			// The rare other filters (LZW, RunLength, ASCII85, ASCIIHex) go
			// through pdfcpu's own decoder, bounded by what is left.
			fi, err := filter.NewFilter(f.Name, nil, limit)
			if err != nil {
				return 0, nil
			}
			dr, err := fi.Decode(r)
			if errors.Is(err, filter.ErrDecodeLimitExceeded) {
				return limit + 1, errStreamTooLarge
			}
			if err != nil {
				return 0, nil
			}
			r = dr
		}
	}
	return count(r, limit)
}

// count reads r to its end or past limit, keeping nothing. A read error
// (a damaged stream) ends the count with what was read.
func count(r io.Reader, limit int64) (int64, error) {
	n, _ := io.Copy(io.Discard, io.LimitReader(r, limit+1))
	if n > limit {
		return n, errStreamTooLarge
	}
	return n, nil
}
