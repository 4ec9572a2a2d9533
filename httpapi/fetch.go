package httpapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"

	"github.com/docmill/docmill"
)

// URLClient makes the requests of a process call to its users' URLs:
// outbound.Client, which refuses internal addresses (at dial time, every
// redirect included) unless the server allows private URLs.
type URLClient interface {
	// Fetch GETs a URL; the connection and the answer's header come
	// within a bounded time (30 s), and the body streams from the answer.
	// Refused destinations are docmill.ErrInternalAddress and
	// docmill.ErrInsecureURL in the error's chain.
	Fetch(ctx context.Context, rawURL string) (*http.Response, error)
	// CheckURL vets a URL to be used later: https (http only where
	// private URLs are allowed), no internal address; its error is an
	// invalid_parameter *docmill.Error naming field.
	CheckURL(ctx context.Context, field, rawURL string) error
}

// maxURLBytes bounds a file_url or export_url: docmill.MaxURLLength's
// fact of the web, not a cost.
const maxURLBytes = 2048

// pendingURL is a file_url field of a process request, in the order of
// the form: slot is its place among the job's inputs, n its place among
// the file_url fields (field "file_url[n]").
type pendingURL struct {
	slot int
	n    int
	url  string
}

// field names the form field of the URL in errors.
func (p pendingURL) field() string { return "file_url[" + strconv.Itoa(p.n) + "]" }

// readURL takes a file_url field: an input fetched later (fetchInputs),
// in its place among the files. Only the URL's form is checked here.
func (up *upload) readURL(part *formPart, tool *docmill.Tool) error {
	p := pendingURL{slot: len(up.files), n: len(up.urls)}
	if len(up.files) == tool.MaxFiles { // one more is one too many
		return tool.CheckFileCount(len(up.files) + 1)
	}
	b, err := io.ReadAll(io.LimitReader(part, maxURLBytes+1))
	if err != nil {
		return docmill.Errorf(docmill.CodeInvalidRequest, "The multipart body is malformed.")
	}
	p.url = strings.TrimSpace(string(b))
	if len(p.url) > maxURLBytes {
		return docmill.ParamError(p.field(), "must be at most %d characters long", maxURLBytes)
	}
	if u, err := url.Parse(p.url); err != nil || !u.IsAbs() || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return docmill.ParamError(p.field(), "must be an absolute https:// URL")
	}
	up.files = append(up.files, docmill.InputFile{})
	up.hashes = append(up.hashes, "url:"+p.url)
	up.urls = append(up.urls, p)
	return nil
}

// fetchInputs fetches the file_url inputs of up, in order, into sink
// under the input keys of jobID, as readParts stores uploaded files:
// sniffed by content, within perFile each and the server's cap in total
// (the uploaded files included). On error the caller removes every
// stored file (up.files).
func (s *Server) fetchInputs(ctx context.Context, up *upload, tool *docmill.Tool, jobID string, perFile sizeLimit, sink fileSink) error {
	if len(up.urls) == 0 {
		return nil
	}
	if s.cfg.URLs == nil {
		return docmill.ParamError(up.urls[0].field(), "is not supported by this server")
	}
	var total int64
	for _, f := range up.files {
		total += f.Size
	}
	for _, p := range up.urls {
		limit, tooLarge := perFile.bytes, perFile.fileTooLarge
		if left := s.cfg.MaxUploadBytes - total; left < limit {
			limit, tooLarge = left, totalTooLarge(s.cfg.MaxUploadBytes)
		}
		f, err := s.fetchInput(ctx, p, tool, jobID, limit, tooLarge, sink)
		if err != nil {
			return err
		}
		total += f.Size
		up.files[p.slot] = f
	}
	return nil
}

// fetchInput fetches one file_url into sink.
func (s *Server) fetchInput(ctx context.Context, p pendingURL, tool *docmill.Tool, jobID string, limit int64, tooLarge func(string) error, sink fileSink) (docmill.InputFile, error) {
	resp, err := s.cfg.URLs.Fetch(ctx, p.url)
	if err != nil {
		if ctx.Err() != nil {
			return docmill.InputFile{}, ctx.Err()
		}
		return docmill.InputFile{}, fetchFailed(p, fetchReason(err))
	}
	defer resp.Body.Close()
	switch c := resp.StatusCode; {
	case c >= 300 && c < 400:
		return docmill.InputFile{}, fetchFailed(p, fmt.Sprintf("the server answered HTTP %d (a redirect, and too many of them or to a URL that is refused)", c))
	case c < 200 || c >= 300:
		return docmill.InputFile{}, fetchFailed(p, fmt.Sprintf("the server answered HTTP %d", c))
	}
	name := fetchedName(resp)
	if resp.ContentLength > limit {
		return docmill.InputFile{}, tooLarge(name)
	}
	// As for an upload: refused before the body is read when the local
	// file store has no room for it (Content-Length, or -1 when unknown).
	if s.cfg.Space != nil {
		if err := s.cfg.Space.Admit(resp.ContentLength); err != nil {
			return docmill.InputFile{}, err
		}
	}
	f, _, err := storeStream(ctx, sink, resp.Body, name, tool, jobID, p.slot, limit, tooLarge, false,
		fetchFailed(p, "the transfer broke off or took too long"))
	return f, err
}

// fetchFailed is the fetch_failed error of a file_url: the problem's
// detail names the URL (without its query, which may carry a token) and
// the reason, and its errors the field.
func fetchFailed(p pendingURL, reason string) *docmill.Error {
	return &docmill.Error{
		Code:    docmill.CodeFetchFailed,
		Message: fmt.Sprintf("Could not fetch %s (%s): %s.", p.field(), redactURL(p.url), reason),
		Fields:  []docmill.FieldError{{Field: p.field(), Message: reason}},
	}
}

// redactURL is raw without its query, fragment and user information.
func redactURL(raw string) string {
	return (&docmill.Export{URL: raw}).Destination()
}

// fetchReason says why a fetch got no answer, without the details of
// this node's network (resolver addresses, local ports).
func fetchReason(err error) string {
	var dnsErr *net.DNSError
	var opErr *net.OpError
	var t interface{ Timeout() bool }
	switch {
	case errors.Is(err, docmill.ErrInternalAddress):
		return "its address is private, loopback, link-local or otherwise internal, and is refused"
	case errors.Is(err, docmill.ErrInsecureURL):
		return "only https:// URLs are fetched"
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) || (errors.As(err, &t) && t.Timeout()):
		return "the server did not answer in time (30 s to connect and send the headers)"
	case errors.As(err, &dnsErr):
		return "the host name does not resolve"
	case strings.Contains(err.Error(), "tls:") || strings.Contains(err.Error(), "x509:"):
		return "the TLS handshake failed"
	case errors.As(err, &opErr) && opErr.Op == "dial":
		return "the connection failed"
	}
	return "the request failed"
}

// fetchedName is the file name of a fetched input: the filename of the
// answer's Content-Disposition, else the last element of the URL's path
// (after redirects), made safe by cleanFilename.
func fetchedName(resp *http.Response) string {
	if _, params, err := mime.ParseMediaType(resp.Header.Get("Content-Disposition")); err == nil && params["filename"] != "" {
		return cleanFilename(params["filename"])
	}
	if resp.Request != nil && resp.Request.URL != nil {
		return cleanFilename(path.Base(resp.Request.URL.Path))
	}
	return "file"
}

// addURLFields adds the process form's URL fields to the OpenAPI
// properties of t's request body.
func addURLFields(props map[string]any, minFiles, maxFiles int) {
	if file, ok := props["file"].(map[string]any); ok {
		// The tool's minimum counts file and file_url together.
		delete(file, "minItems")
		file["description"] = fmt.Sprint(file["description"], "; with file_url, ", minFiles, " to ", maxFiles, " inputs in all")
	}
	props["file_url"] = map[string]any{"type": "array", "items": map[string]any{"type": "string", "format": "uri", "maxLength": maxURLBytes}, "maxItems": maxFiles,
		"description": "An input fetched from a URL instead of uploaded (repeatable; with the file fields, at most " + strconv.Itoa(maxFiles) + " inputs, in form order). " +
			"Fetched before the job is created, within the plan's size limit, sniffed by content; named after Content-Disposition or the URL's path. " +
			"Private, loopback and link-local addresses are refused, redirects included; a URL that fails is 400 fetch_failed (field file_url[i])."}
	props["export_url"] = map[string]any{"type": "string", "format": "uri", "maxLength": maxURLBytes,
		"description": "A presigned PUT URL (S3, GCS, Azure) the result is sent to once the job is done, with its Content-Type and Content-Length; " +
			"retried on 5xx, 429 and network errors. See result.export_status. https only; checked at request time (400 invalid_parameter)."}
	props["preview"] = previewProperty()
	props["keep_result"] = map[string]any{"type": "boolean", "default": true,
		"description": "With export_url: false deletes docmill's copy once exported (result.url is then absent)."}
}
