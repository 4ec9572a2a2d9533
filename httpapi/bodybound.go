package httpapi

import (
	"errors"
	"io"
	"net/http"

	"github.com/docmill/docmill"
)

// partOverhead bounds what a multipart body spends on one part beside its
// data: its header block and the delimiter line before it ("--", the
// boundary, white space and the line ends).
const partOverhead = maxPartHeaderBytes + maxBoundary + 16

// bodyBound is the largest body that a process request for tool can be
// under a per-file limit: its files (tool.MaxFiles of perFile each,
// within the server's cap on the files of one request), its form fields
// (maxFields of maxFieldBytes each), and each part's header and
// delimiter. A body longer than that cannot be a request the plan
// accepts, whatever its parts are.
func (s *Server) bodyBound(tool *docmill.Tool, perFile sizeLimit) int64 {
	files := min(perFile.bytes*int64(max(tool.MaxFiles, 0)), s.cfg.MaxUploadBytes)
	fields := int64(maxFields) * (maxFieldBytes + partOverhead)
	return files + fields + int64(max(tool.MaxFiles, 0))*partOverhead + partOverhead // the close delimiter
}

// bodyTooLarge is the refusal of a body over bound: file_too_large, as
// the check of each file while it streams answers, naming what the plan
// allows the tool.
func bodyTooLarge(tool *docmill.Tool, perFile sizeLimit, bound int64) error {
	files := "no file"
	switch {
	case tool.MaxFiles == 1:
		files = "one file of at most " + humanBytes(perFile.bytes)
	case tool.MaxFiles > 1:
		files = "files of at most " + humanBytes(perFile.bytes) + " each"
	}
	return docmill.Errorf(docmill.CodeFileTooLarge,
		"The request body is larger than %s allows %s (%s, with its form fields: at most %s).",
		perFile.owner, tool.Slug, files, humanBytes(bound))
}

// refuseEarly refuses, from its headers alone, a process request whose
// Content-Length is over what the caller's plan allows tool (bodyBound):
// nothing of its body is read, so a client that sent Expect:
// 100-continue gets this answer instead of 100 Continue (net/http sends
// it at the handler's first read of the body). The answer closes the
// connection: the body that may follow is never read to keep it alive.
func (s *Server) refuseEarly(w http.ResponseWriter, r *http.Request, tool *docmill.Tool, perFile sizeLimit) error {
	bound := s.bodyBound(tool, perFile)
	if r.ContentLength <= bound {
		return nil
	}
	w.Header().Set("Connection", "close")
	return bodyTooLarge(tool, perFile, bound)
}

// errBodyOverBound marks a body (one without a Content-Length: chunked)
// that went past its bound while read; readUpload answers it as
// refuseEarly does.
var errBodyOverBound = errors.New("request body over its bound")

// boundedBody fails with errBodyOverBound once more than max bytes are
// read: a chunked body is held to the bound a Content-Length is checked
// against (its preamble, which no other check counts, included).
type boundedBody struct {
	r    io.Reader
	max  int64
	n    int64
	over bool
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.n >= b.max+1 {
		b.over = true
		return 0, errBodyOverBound
	}
	p = p[:min(int64(len(p)), b.max+1-b.n)]
	n, err := b.r.Read(p)
	b.n += int64(n)
	if b.n > b.max {
		b.over = true
		return n, errBodyOverBound
	}
	return n, err
}
