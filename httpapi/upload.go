package httpapi

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"mime"
	"net/http"
	"path/filepath"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/docmill/docmill"
)

// maxFieldBytes bounds one non-file form field; fields are held in
// memory. It bounds the request's shape (a param is a value, not a
// document), not a job's cost.
const maxFieldBytes = 64 << 10

// maxFields bounds the number of non-file form fields: more than any
// tool declares params, so a bound on the request's shape.
const maxFields = 64

// maxBoundary bounds the multipart boundary, in bytes (RFC 2046 allows 70;
// a longer one is tolerated, not one that could fill formReader's buffer).
const maxBoundary = 256

// upload is a parsed process request: the files already in the blob store
// and the form fields.
type upload struct {
	files []docmill.InputFile
	// hashes are the files' SHA-256, hex, when the upload was read with
	// hashing on (readUpload); a file_url's is its URL ("url:" and the URL).
	hashes []string
	fields map[string]string
	// urls are the file_url fields, fetched into their place in files
	// (an InputFile with no Key until then) by fetchInputs.
	urls []pendingURL
}

// fileSink is where readUpload streams the files of an upload: the blob
// store (docmill.BlobStore is one), or discard.
type fileSink interface {
	Put(ctx context.Context, key string, r io.Reader, contentType string) (int64, error)
	Delete(ctx context.Context, key string) error
}

// discard is the fileSink of an Idempotency-Key replay: its files are read,
// checked and hashed as a new request's are, and kept nowhere.
type discard struct{}

// Put reads r to its end.
func (discard) Put(_ context.Context, _ string, r io.Reader, _ string) (int64, error) {
	return io.Copy(io.Discard, r)
}

// Delete has nothing to delete.
func (discard) Delete(context.Context, string) error { return nil }

// readUpload streams a multipart body: each "file" part goes straight to
// sink (under the input keys of jobID), checked part by part for type (by
// its bytes) and size (while it streams: perFile for each, the server's cap
// in total), and hashed when hashFiles (the SHA-256 is only needed to
// match an Idempotency-Key request, and costs about half a second a
// gigabyte), and every other part is a form field. Nothing is held in
// memory whole. An upload below its pace (uploadPace: the idle timeout,
// the minimum rate) is cut with 408 upload_too_slow, a body over what the
// plan allows the tool (bodyBound) is refused as file_too_large, and one
// in progress when the server drains is refused (errShuttingDown). On
// error every stored file is removed again.
func (s *Server) readUpload(ctx context.Context, w http.ResponseWriter, r *http.Request, tool *docmill.Tool, jobID string, perFile sizeLimit, sink fileSink, hashFiles bool) (*upload, error) {
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" || len(params["boundary"]) > maxBoundary {
		return nil, docmill.Errorf(docmill.CodeInvalidRequest, "The body must be multipart/form-data with a boundary.")
	}
	bound := &boundedBody{r: r.Body, max: s.bodyBound(tool, perFile)}
	body := &stallGuard{r: bound, rc: http.NewResponseController(w), pace: s.pace}
	// A drain cuts the upload short, whatever it was doing; once it has
	// begun, the upload is refused even if its last bytes came in (the
	// connection's read deadline is then in the past).
	stopCut := context.AfterFunc(s.draining, body.cut)
	up, err := s.readParts(ctx, body, params["boundary"], tool, jobID, perFile, sink, hashFiles)
	switch cut := !stopCut(); {
	case cut:
		err = errShuttingDown
	case body.slow():
		// A cut connection is not read again: it closes after the answer.
		w.Header().Set("Connection", "close")
		err = s.pace.errUploadTooSlow()
	case bound.over:
		w.Header().Set("Connection", "close")
		err = bodyTooLarge(tool, perFile, bound.max)
	}
	if err != nil {
		s.deleteFiles(sink, up.files)
		return nil, err
	}
	return up, nil
}

// errShuttingDown answers an upload that a drain (Server.Drain) cut
// short: nothing of it was kept, and the client may send it again.
var errShuttingDown = &docmill.Error{
	Code:       docmill.CodeServiceUnavailable,
	Message:    "This server is shutting down and did not receive the whole upload; nothing was accepted. Please send the request again.",
	RetryAfter: outageRetryAfter,
}

// readParts reads the parts of a multipart body for readUpload. On error,
// the files it stored are in the upload it returns, for removal.
func (s *Server) readParts(ctx context.Context, body io.Reader, boundary string, tool *docmill.Tool, jobID string, perFile sizeLimit, sink fileSink, hashFiles bool) (*upload, error) {
	mr := newFormReader(body, boundary)
	var total int64
	up := &upload{fields: map[string]string{}}
	fail := func(err error) (*upload, error) { return up, err }
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fail(docmill.Errorf(docmill.CodeInvalidRequest, "The multipart body is malformed."))
		}
		name := part.FormName()
		if name == "file_url" && part.FileName() == "" {
			err := up.readURL(part, tool)
			part.Close()
			if err != nil {
				return fail(err)
			}
			continue
		}
		if name == "file" || part.FileName() != "" {
			if name != "file" {
				part.Close()
				return fail(docmill.Errorf(docmill.CodeInvalidRequest, "Files go in the field named \"file\", not %q.", name))
			}
			if len(up.files) == tool.MaxFiles { // one more is one too many
				part.Close()
				return fail(tool.CheckFileCount(len(up.files) + 1))
			}
			limit, tooLarge := perFile.bytes, perFile.fileTooLarge
			if left := s.cfg.MaxUploadBytes - total; left < limit {
				limit, tooLarge = left, totalTooLarge(s.cfg.MaxUploadBytes)
			}
			f, sum, err := storeStream(ctx, sink, part, cleanFilename(part.FileName()), tool, jobID, len(up.files), limit, tooLarge, hashFiles, errInterrupted)
			part.Close()
			if err != nil {
				return fail(err)
			}
			total += f.Size
			up.files = append(up.files, f)
			up.hashes = append(up.hashes, sum)
			continue
		}
		if err := up.readField(name, part); err != nil {
			part.Close()
			return fail(err)
		}
		part.Close()
		if err := s.checkFieldEarly(tool, name, up.fields[name]); err != nil {
			return fail(err)
		}
	}
	// A tool that takes no file (url-to-pdf) is sent its form fields only.
	if len(up.files) == 0 && tool.MinFiles > 0 {
		return fail(docmill.Errorf(docmill.CodeMissingFile, "No file: send one in the multipart field \"file\", or its URL in \"file_url\"."))
	}
	if err := tool.CheckFileCount(len(up.files)); err != nil {
		return fail(err)
	}
	return up, nil
}

func (up *upload) readField(name string, part *formPart) error {
	if name == "" {
		return docmill.Errorf(docmill.CodeInvalidRequest, "A form part has no name.")
	}
	if _, dup := up.fields[name]; dup {
		return docmill.Errorf(docmill.CodeInvalidRequest, "The field %q is given twice.", name)
	}
	if len(up.fields) >= maxFields {
		return docmill.Errorf(docmill.CodeInvalidRequest, "Too many form fields.")
	}
	b, err := io.ReadAll(io.LimitReader(part, maxFieldBytes+1))
	if err != nil {
		return docmill.Errorf(docmill.CodeInvalidRequest, "The multipart body is malformed.")
	}
	if len(b) > maxFieldBytes {
		return docmill.Errorf(docmill.CodeInvalidRequest, "The field %q is longer than %d bytes.", name, maxFieldBytes)
	}
	up.fields[name] = string(b)
	return nil
}

// errTooLarge marks a part that went past the size limit while streaming.
var errTooLarge = errors.New("file too large")

// limitedReader fails with errTooLarge once more than max bytes are read,
// and hashes what passes through into h, if set (for Idempotency-Key
// request matching).
type limitedReader struct {
	r   io.Reader
	max int64
	n   int64
	h   hash.Hash
	// err is the first error of r other than io.EOF: the request body
	// failed (cut, truncated, malformed, stalled), not the storage.
	err error
}

func (l *limitedReader) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	if err != nil && err != io.EOF && l.err == nil {
		l.err = err
	}
	l.n += int64(n)
	if l.n > l.max {
		return 0, errTooLarge
	}
	if l.h != nil {
		l.h.Write(p[:n])
	}
	return n, err
}

// sizeLimit is a per-file limit and who sets it, for the error message.
type sizeLimit struct {
	bytes int64
	owner string
}

func (l sizeLimit) fileTooLarge(name string) error {
	return docmill.Errorf(docmill.CodeFileTooLarge, "The file %q is larger than %s's limit of %s.", name, l.owner, humanBytes(l.bytes))
}

func totalTooLarge(limit int64) func(string) error {
	return func(string) error {
		return docmill.Errorf(docmill.CodeFileTooLarge, "The files of one request may total at most %s.", humanBytes(limit))
	}
}

// errInterrupted answers a file part whose request body failed.
var errInterrupted = docmill.Errorf(docmill.CodeInvalidRequest, "The upload was interrupted.")

// storeStream sniffs the type of a file named name from its first bytes,
// then streams it from src to sink within limit bytes, returning its
// SHA-256 (hex) when hashFile; past limit, the error is tooLarge's. A
// failure of src is the client's, srcFailed (a form part's: 400, the
// upload was interrupted); any other is the sink's, internal, which
// writeError answers with 503 when the store is unreachable (isOutage)
// and with 507 insufficient_storage when its disk is full
// (docmill.IsNoSpace).
func storeStream(ctx context.Context, sink fileSink, src io.Reader, name string, tool *docmill.Tool, jobID string, index int, limit int64, tooLarge func(string) error, hashFile bool, srcFailed error) (docmill.InputFile, string, error) {
	br := bufio.NewReaderSize(src, sniffLen)
	head, err := br.Peek(sniffLen)
	if err != nil && err != io.EOF && !errors.Is(err, bufio.ErrBufferFull) {
		return docmill.InputFile{}, "", srcFailed
	}
	if len(head) == 0 {
		return docmill.InputFile{}, "", docmill.Errorf(docmill.CodeInvalidDocument, "The file %q is empty.", name)
	}
	ct := sniff(head)
	if !tool.AcceptsType(ct) {
		return docmill.InputFile{}, "", docmill.Errorf(docmill.CodeUnsupportedFileType,
			"The file %q is %s; %s accepts %s.", name, describeType(ct), tool.Slug, strings.Join(tool.Accepts, ", "))
	}
	key := docmill.InputKey(jobID, index)
	lr := &limitedReader{r: br, max: limit}
	if hashFile {
		lr.h = sha256.New()
	}
	n, err := sink.Put(ctx, key, lr, ct)
	if errors.Is(err, errTooLarge) {
		return docmill.InputFile{}, "", tooLarge(name)
	}
	if err != nil {
		if lr.err != nil || ctx.Err() != nil {
			return docmill.InputFile{}, "", srcFailed
		}
		return docmill.InputFile{}, "", docmill.Internal(err)
	}
	f := docmill.InputFile{Key: key, Filename: name, ContentType: ct, Size: n}
	if lr.h == nil {
		return f, "", nil
	}
	return f, hex.EncodeToString(lr.h.Sum(nil)), nil
}

// deleteInputs removes a request's stored files when no job of its own
// keeps them (refused, failed, or a concurrent replay's).
func (s *Server) deleteInputs(files []docmill.InputFile) { s.deleteFiles(s.cfg.Blob, files) }

// deleteFiles removes files from sink.
func (s *Server) deleteFiles(sink fileSink, files []docmill.InputFile) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, f := range files {
		if f.Key == "" {
			continue // a file_url not fetched yet
		}
		if err := sink.Delete(ctx, f.Key); err != nil {
			s.log.Warn("delete input", "key", f.Key, "err", err)
		}
	}
}

// sniffLen is how many leading bytes decide a file's type.
const sniffLen = 1024

// sniff names a file's content type from its first bytes, never its name.
func sniff(head []byte) string {
	if bytes.HasPrefix(head, []byte("II*\x00")) || bytes.HasPrefix(head, []byte("MM\x00*")) {
		return "image/tiff"
	}
	if ct := sniffHEIF(head); ct != "" {
		return ct
	}
	ct, _, _ := strings.Cut(http.DetectContentType(head), ";")
	ct = strings.TrimSpace(ct)
	// A format that announces itself at byte 0 (zip, images) wins over a
	// "%PDF-" inside it; PDF readers accept the header anywhere in the
	// first 1024 bytes, after junk.
	if (ct == "text/plain" || ct == "application/octet-stream") && bytes.Contains(head, []byte("%PDF-")) {
		return "application/pdf"
	}
	if ct == "application/octet-stream" && isPKCS12(head) {
		return pkcs12Type
	}
	return ct
}

// pkcs12Type is a PKCS#12 certificate and key file (.p12, .pfx), which
// sign-pdf takes beside the PDF.
const pkcs12Type = "application/x-pkcs12"

// isPKCS12 reports whether head starts as a PKCS#12 PFX does (RFC 7292):
// a DER or BER SEQUENCE whose first element is the INTEGER version 3,
// followed by the authSafe SEQUENCE. It is a magic number, not a parse:
// the tool that takes the file reads it, jailed.
func isPKCS12(head []byte) bool {
	if len(head) < 2 || head[0] != 0x30 {
		return false
	}
	n := 2 // the SEQUENCE's tag and first length byte
	switch l := head[1]; {
	case l == 0x80: // BER, indefinite length
	case l > 0x80 && l <= 0x84:
		n += int(l - 0x80)
	default:
		return false // a short-form length: too small for a PFX
	}
	return bytes.HasPrefix(head[min(n, len(head)):], []byte{0x02, 0x01, 0x03, 0x30})
}

func describeType(ct string) string {
	if ct == "application/octet-stream" {
		return "of an unrecognised type"
	}
	return ct
}

// maxFilename bounds a client file name, in bytes: result names are
// made from it, and file systems and headers hold names far shorter than
// what a client may send.
const maxFilename = 150

// cleanFilename keeps a client's file name safe to echo and to use in a
// result name: no directories, no control characters, bounded length.
func cleanFilename(name string) string {
	name = filepath.Base(strings.ReplaceAll(name, "\\", "/"))
	name = strings.Map(func(r rune) rune {
		// Format characters (U+202E right-to-left override, ...) would let a
		// name display as something else: "evil\u202efdp.exe".
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '/' || r == '"' || r == utf8.RuneError {
			return -1
		}
		return r
	}, name)
	name = strings.TrimSpace(name)
	if len(name) > maxFilename {
		// Cut once, at a character boundary, keeping a short extension.
		ext := filepath.Ext(name)
		if len(ext) > 16 {
			ext = ""
		}
		cut := maxFilename - len(ext)
		for cut > 0 && !utf8.RuneStart(name[cut]) {
			cut--
		}
		name = strings.TrimSpace(name[:cut]) + ext
	}
	if name == "" || name == "." || name == ".." {
		name = "file"
	}
	return name
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GB", n>>30)
	case n >= 1<<20:
		return fmt.Sprintf("%d MB", n>>20)
	case n >= 1<<10:
		return fmt.Sprintf("%d KB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
