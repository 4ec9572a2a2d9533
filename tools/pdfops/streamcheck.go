package pdfops

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"context"
	"fmt"
	"io"
	"os"

	docmill "github.com/docmill/docmill"
)

// StreamCheckStep is the check every PDF goes
// through before an external engine (Ghostscript, qpdf, poppler, OCRmyPDF)
// sees it: it refuses, as invalid_document, a PDF whose compressed streams
// expand past Limits.StreamDecodedBytes each or Limits.JobDecodedBytes
// together (a flate bomb: 4 MB that inflate to 4 GB, which the engines
// would grind through for minutes). It runs in the PDF helper, since it
// reads a user's document.
//
// It does not parse the document: it scans the raw bytes for the
// "stream" keyword and inflates what follows as zlib (and a second zlib
// layer inside, the exponential bomb), counting bytes without keeping
// them. So it works on files too damaged for a parser, which engines may
// still repair, and in memory bounded by its buffers whatever the file.
// Encrypted or differently filtered streams do not inflate and are not
// counted. The output is the input itself, with "decoded_bytes" in meta.
func StreamCheckStep() *docmill.EngineStep {
	return &docmill.EngineStep{Name: "check-pdf-streams", MinFiles: 1, MaxFiles: 1, Run: runStreamCheck}
}

func runStreamCheck(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
	f := in.Files[0]
	l := in.Limits.WithDefaults()
	total, err := scanStreams(ctx, f.Path, l)
	if err != nil {
		return nil, err
	}
	return &docmill.RunOutput{Path: f.Path, Filename: f.Filename, ContentType: pdfContentType,
		Meta: map[string]any{"decoded_bytes": total}}, nil
}

// scanStreams inflates every zlib stream of the file at path into a
// counter and returns the bytes they expand to, refusing past l's limits.
func scanStreams(ctx context.Context, path string, l docmill.Limits) (int64, error) {
	file, err := os.Open(path)
	if err != nil {
		return 0, docmill.Internal(err)
	}
	defer file.Close()
	st, err := file.Stat()
	if err != nil {
		return 0, docmill.Internal(err)
	}
	var total, off int64
	seen := int64(-1) // the last stream counted, by offset: chunks overlap
	const chunk = 1 << 20
	buf := make([]byte, chunk+16)
	keyword := []byte("stream")
	for off < st.Size() {
		if err := ctx.Err(); err != nil {
			return total, err
		}
		n, err := file.ReadAt(buf, off)
		if n == 0 {
			if err != nil && err != io.EOF {
				return total, docmill.Internal(err)
			}
			break
		}
		window := buf[:n]
		for i := 0; ; {
			k := bytes.Index(window[i:], keyword)
			if k < 0 {
				break
			}
			at := i + k
			i = at + len(keyword)
			start, ok := streamStart(window, at)
			if !ok || off+int64(at) <= seen {
				continue
			}
			seen = off + int64(at)
			left := min(l.StreamDecodedBytes, l.JobDecodedBytes-total)
			size, over := inflatedSize(io.NewSectionReader(file, off+int64(start), st.Size()-off-int64(start)), left)
			total += size
			if over && total > l.JobDecodedBytes {
				return total, docmill.LimitExceeded(fmt.Sprintf("The file's streams expand to more than %d MB when decompressed", l.JobDecodedBytes>>20))
			}
			if over {
				return total, docmill.LimitExceeded(fmt.Sprintf("The file holds a stream that expands to more than %d MB", l.StreamDecodedBytes>>20))
			}
		}
		if n < len(buf) {
			break
		}
		// Overlap the keyword's length, so one split across chunks is seen.
		off += int64(n - 16)
	}
	return total, nil
}

// streamStart returns where a stream's data begins if the "stream"
// keyword at at is one (not "endstream", followed by an end of line).
func streamStart(window []byte, at int) (int, bool) {
	if at >= 3 && string(window[at-3:at]) == "end" {
		return 0, false
	}
	p := at + len("stream")
	switch {
	case p+1 < len(window) && window[p] == '\r' && window[p+1] == '\n':
		return p + 2, true
	case p < len(window) && (window[p] == '\n' || window[p] == '\r'):
		return p + 1, true
	}
	return 0, false
}

// inflatedSize counts what r inflates to, as zlib, up to limit (and a
// second zlib layer inside when the first one's output is one); over
// reports a stream past limit. Data that is not zlib counts nothing.
func inflatedSize(r io.Reader, limit int64) (n int64, over bool) {
	zr, err := zlib.NewReader(bufio.NewReaderSize(r, 32<<10))
	if err != nil {
		return 0, false
	}
	defer zr.Close()
	inner := bufio.NewReaderSize(zr, 32<<10)
	var src io.Reader = inner
	if h, err := inner.Peek(2); err == nil && isZlibHeader(h) {
		if zr2, err := zlib.NewReader(inner); err == nil {
			defer zr2.Close()
			src = zr2
		}
	}
	n, _ = io.Copy(io.Discard, io.LimitReader(src, limit+1))
	return n, n > limit
}

// isZlibHeader reports whether h starts a zlib stream: deflate with a
// window of at most 32 KiB, and a valid check value.
func isZlibHeader(h []byte) bool {
	return h[0]&0x0f == 8 && h[0]>>4 <= 7 && (uint16(h[0])<<8|uint16(h[1]))%31 == 0
}
