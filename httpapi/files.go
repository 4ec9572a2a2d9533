package httpapi

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/docmill/docmill"
)

// handleFile serves a result by its signed URL: 403 when the signature does
// not match, 410 once it has expired or the file is gone. The signature is
// the authorization, so the link works without a key, from a CDN's address
// too; it is marked private so that no shared cache keeps a user's file
// after it is deleted.
//
// HEAD, conditional requests (If-Match, If-Unmodified-Since, If-None-Match,
// If-Modified-Since, If-Range against Last-Modified; results carry no
// entity tag) and Range requests follow RFC 9110: see parseRange for which
// Range headers are served, ignored or unsatisfiable. Every error is
// problem+json, and the file is opened at most once per request, never once
// per range.
// documentTypes are the content types of the office formats tools write
// (convert-document, pdf-to-word) and of Markdown (pdf-to-markdown),
// which Go's own table lacks: a system
// without /etc/mime.types still serves them as what they are.
var documentTypes = map[string]string{
	".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
	".xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
	".pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
	".odt":  "application/vnd.oasis.opendocument.text",
	".ods":  "application/vnd.oasis.opendocument.spreadsheet",
	".odp":  "application/vnd.oasis.opendocument.presentation",
	".rtf":  "application/rtf",
	".epub": "application/epub+zip",
	".csv":  "text/csv; charset=utf-8",
	".md":   "text/markdown; charset=utf-8",
}

func (s *Server) handleFile(w http.ResponseWriter, r *http.Request) {
	jobID, filename := r.PathValue("job_id"), r.PathValue("filename")
	now := s.cfg.Now()
	expiresAt, err := s.records.CheckLink(jobID, filename, r.URL.Query(), now)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	key := docmill.ResultKey(jobID, filename)
	attrs, err := s.cfg.Blob.Attributes(r.Context(), key)
	if err != nil {
		s.writeError(w, r, resultReadError(err))
		return
	}
	size := attrs.Size
	// HTTP dates have whole seconds.
	modTime := attrs.ModTime.UTC().Truncate(time.Second)

	h := w.Header()
	// Sent with 200, 206 and 304 answers, not with errors.
	validators := func() {
		h.Set("Cache-Control", fmt.Sprintf("private, max-age=%d", int(expiresAt.Sub(now).Seconds())))
		if !modTime.IsZero() {
			h.Set("Last-Modified", modTime.Format(http.TimeFormat))
		}
	}
	switch preconditions(r, modTime) {
	case http.StatusPreconditionFailed:
		s.writeError(w, r, docmill.Errorf(docmill.CodePreconditionFailed,
			"A precondition of the request (If-Match or If-Unmodified-Since) does not hold for this file."))
		return
	case http.StatusNotModified:
		validators()
		w.WriteHeader(http.StatusNotModified)
		return
	}

	var ranges []byteRange
	if rh, ok := r.Header["Range"]; ok && len(rh) == 1 && ifRange(r, modTime) {
		var res rangeResult
		ranges, res = parseRange(rh[0], size)
		if res == rangeUnsatisfiable {
			h.Set("Content-Range", "bytes */"+strconv.FormatInt(size, 10))
			s.writeError(w, r, docmill.Errorf(docmill.CodeRangeNotSatisfiable,
				"No range asked for is satisfiable: the file is %d bytes.", size))
			return
		}
	}

	// One read covers every range served: from the first byte to the
	// last, the gaps between ranges skipped.
	body := &offsetReader{r: strings.NewReader("")}
	if r.Method != http.MethodHead && size > 0 {
		span := byteRange{0, size - 1}
		if len(ranges) > 0 {
			span = byteRange{ranges[0].first, ranges[len(ranges)-1].last}
		}
		rc, err := s.cfg.Blob.NewRangeReader(r.Context(), key, span.first, span.length())
		if err != nil {
			s.writeError(w, r, resultReadError(err))
			return
		}
		defer rc.Close()
		body = &offsetReader{r: rc, off: span.first}
	}

	ct := resultContentType(filename, attrs.ContentType)
	validators()
	h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": filename}))
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Accept-Ranges", "bytes")

	if werr := writeFileBody(w, r.Method == http.MethodHead, body, ranges, size, ct); werr != nil && r.Context().Err() == nil {
		// The status line is sent: the client sees a short body.
		s.log.Warn("download cut short", "request_id", requestID(r.Context()), "path", r.URL.Path, "err", werr)
	}
}

// resultContentType is the Content-Type of a result named filename whose
// store recorded stored (maybe empty). Tools name results by what they
// are, so the extension decides; a local bucket keeps no content type of
// its own.
func resultContentType(filename, stored string) string {
	ext := path.Ext(filename)
	return cmp.Or(mime.TypeByExtension(ext), documentTypes[strings.ToLower(ext)], stored, "application/octet-stream")
}

// writeFileBody writes the status, the headers of the body and the body
// of a download of a file of size bytes and type ct: whole (200), one
// range (206) or several as multipart/byteranges (206). body reads from
// the first byte served on; head sends the headers alone.
func writeFileBody(w http.ResponseWriter, head bool, body *offsetReader, ranges []byteRange, size int64, ct string) error {
	h := w.Header()
	var err error
	switch len(ranges) {
	case 0:
		h.Set("Content-Type", ct)
		h.Set("Content-Length", strconv.FormatInt(size, 10))
		w.WriteHeader(http.StatusOK)
		if !head {
			_, err = io.CopyN(w, body, size)
		}
	case 1:
		ra := ranges[0]
		h.Set("Content-Type", ct)
		h.Set("Content-Range", ra.contentRange(size))
		h.Set("Content-Length", strconv.FormatInt(ra.length(), 10))
		w.WriteHeader(http.StatusPartialContent)
		if !head {
			_, err = io.CopyN(w, body, ra.length())
		}
	default:
		err = writeByteranges(w, head, body, ranges, size, ct)
	}
	return err
}

// resultReadError is the answer to a failed read of a result file: gone
// when the file is no longer stored (deleted at its expiry), internal
// otherwise.
func resultReadError(err error) error {
	if errors.Is(err, docmill.ErrNotFound) {
		return docmill.Errorf(docmill.CodeGone, "The file has been deleted.")
	}
	return docmill.Internal(err)
}

// writeByteranges answers 206 with a multipart/byteranges body of ranges
// (two or more, ascending, not overlapping) read from body, which starts at
// the first range. The Content-Length is computed before anything is sent.
func writeByteranges(w http.ResponseWriter, head bool, body *offsetReader, ranges []byteRange, size int64, ct string) error {
	part := func(ra byteRange) textproto.MIMEHeader {
		return textproto.MIMEHeader{"Content-Type": {ct}, "Content-Range": {ra.contentRange(size)}}
	}

	var n countWriter
	mw := multipart.NewWriter(&n)
	b := mw.Boundary()
	for _, ra := range ranges {
		_, _ = mw.CreatePart(part(ra))
		n += countWriter(ra.length())
	}
	_ = mw.Close()

	h := w.Header()
	h.Set("Content-Type", "multipart/byteranges; boundary="+b)
	h.Set("Content-Length", strconv.FormatInt(int64(n), 10))
	w.WriteHeader(http.StatusPartialContent)
	if head {
		return nil
	}
	mw = multipart.NewWriter(w)
	_ = mw.SetBoundary(b)
	for _, ra := range ranges {
		pw, err := mw.CreatePart(part(ra))
		if err != nil {
			return err
		}
		if err := body.skipTo(ra.first); err != nil {
			return err
		}
		if _, err := io.CopyN(pw, body, ra.length()); err != nil {
			return err
		}
	}
	return mw.Close()
}

// countWriter counts the bytes written to it.
type countWriter int64

func (c *countWriter) Write(p []byte) (int, error) {
	*c += countWriter(len(p))
	return len(p), nil
}

// offsetReader reads a file from offset off on, and skips forward without
// opening it again.
type offsetReader struct {
	r   io.Reader
	off int64
}

func (o *offsetReader) Read(p []byte) (int, error) {
	n, err := o.r.Read(p)
	o.off += int64(n)
	return n, err
}

// skipTo reads and drops the bytes before offset off.
func (o *offsetReader) skipTo(off int64) error {
	if off < o.off {
		return errors.New("httpapi: ranges out of order")
	}
	_, err := io.CopyN(io.Discard, o, off-o.off)
	return err
}

// preconditions evaluates a download's conditional request headers in the
// order of RFC 9110 section 13.2.2, for a file whose only validator is its
// modification time (zero: none): it returns 412, 304, or 0 to go on. No
// entity tag is sent, so If-Match holds only for "*" and If-None-Match
// fails only for "*".
func preconditions(r *http.Request, modTime time.Time) int {
	if im := r.Header.Get("If-Match"); im != "" {
		if !listHasStar(im) {
			return http.StatusPreconditionFailed
		}
	} else if t, err := http.ParseTime(r.Header.Get("If-Unmodified-Since")); err == nil && !modTime.IsZero() && modTime.After(t) {
		return http.StatusPreconditionFailed
	}
	if inm := r.Header.Get("If-None-Match"); inm != "" {
		if listHasStar(inm) {
			return http.StatusNotModified
		}
	} else if t, err := http.ParseTime(r.Header.Get("If-Modified-Since")); err == nil && !modTime.IsZero() && !modTime.After(t) {
		return http.StatusNotModified
	}
	return 0
}

// listHasStar reports whether a list of entity tags holds "*".
func listHasStar(list string) bool {
	for e := range strings.SplitSeq(list, ",") {
		if strings.TrimSpace(e) == "*" {
			return true
		}
	}
	return false
}

// ifRange reports whether the Range header may be used (RFC 9110 section
// 13.1.5): without If-Range, or when If-Range is exactly the file's
// Last-Modified. An entity tag never matches, since none is sent.
func ifRange(r *http.Request, modTime time.Time) bool {
	v := r.Header.Get("If-Range")
	if v == "" {
		return true
	}
	t, err := http.ParseTime(v)
	return err == nil && !modTime.IsZero() && t.Equal(modTime)
}

// byteRange is the inclusive range of offsets first..last of a file.
type byteRange struct{ first, last int64 }

func (ra byteRange) length() int64 { return ra.last - ra.first + 1 }

func (ra byteRange) contentRange(size int64) string {
	return fmt.Sprintf("bytes %d-%d/%d", ra.first, ra.last, size)
}

// rangeResult is what a download does with its Range header.
type rangeResult int

const (
	// rangeWhole: the header is ignored; 200 with the whole file.
	rangeWhole rangeResult = iota
	// rangeParts: 206 with the returned ranges.
	rangeParts
	// rangeUnsatisfiable: 416, Content-Range: bytes */size.
	rangeUnsatisfiable
)

// maxRanges is the most ranges one request may ask for; a header with more
// is ignored.
const maxRanges = 16

// parseRange reads a Range header (RFC 9110 section 14.1.2) against a file
// of size bytes. It returns rangeParts with 1..maxRanges ranges, each within
// the file, ascending and not overlapping, when the header asks for those
// (unsatisfiable range-specs among satisfiable ones are dropped; an end past
// the file is cut at its last byte). It returns rangeUnsatisfiable when
// every range-spec is valid and none is satisfiable: each starts at or past
// the end of the file, or is a suffix of zero bytes ("bytes=-0"). It
// returns rangeWhole (RFC 9110 allows a server to ignore Range) for
// everything else: a unit other than bytes, any syntactically invalid
// range-spec ("bytes=10-5", "bytes=1-x"), more than maxRanges range-specs,
// ranges that overlap or are not in ascending order, and an empty file,
// of which no byte can be sent.
func parseRange(header string, size int64) ([]byteRange, rangeResult) {
	unit, set, ok := strings.Cut(header, "=")
	if !ok || !strings.EqualFold(unit, "bytes") {
		return nil, rangeWhole
	}
	var out []byteRange
	specs, emptyFile := 0, false
	for spec := range strings.SplitSeq(set, ",") {
		spec = strings.Trim(spec, " \t")
		if spec == "" {
			continue // an empty list element
		}
		if specs++; specs > maxRanges {
			return nil, rangeWhole
		}
		first, last, ok := strings.Cut(spec, "-")
		if !ok {
			return nil, rangeWhole
		}
		if first == "" { // suffix-range: the last n bytes
			n, ok := parseDigits(last)
			switch {
			case !ok:
				return nil, rangeWhole
			case n > 0 && size == 0:
				emptyFile = true
			case n > 0:
				out = append(out, byteRange{size - min(n, size), size - 1})
			}
			continue
		}
		f, ok := parseDigits(first)
		if !ok {
			return nil, rangeWhole
		}
		l := int64(math.MaxInt64)
		if last != "" {
			if l, ok = parseDigits(last); !ok || l < f {
				return nil, rangeWhole
			}
		}
		if f < size {
			out = append(out, byteRange{f, min(l, size-1)})
		}
	}
	switch {
	case specs == 0 || emptyFile:
		return nil, rangeWhole
	case len(out) == 0:
		return nil, rangeUnsatisfiable
	}
	for i := 1; i < len(out); i++ {
		if out[i].first <= out[i-1].last {
			return nil, rangeWhole
		}
	}
	return out, rangeParts
}

// parseDigits reads 1*DIGIT; a number too large for an int64 reads as
// math.MaxInt64, past the end of any file.
func parseDigits(s string) (int64, bool) {
	if s == "" {
		return 0, false
	}
	var n int64
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := int64(c - '0')
		if n > (math.MaxInt64-d)/10 {
			n = math.MaxInt64
			continue
		}
		n = n*10 + d
	}
	return n, true
}
