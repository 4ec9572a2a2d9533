package httpapi

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"mime"
	"mime/quotedprintable"
	"net/textproto"
	"path/filepath"
	"strings"
)

// formBufferSize is the read buffer of a multipart body. mime/multipart
// reads through 4 KB, which costs a system call for every 4 KB of an
// upload and caps it near 200 MB/s; a larger buffer lets the socket hand
// over what it holds in one read, and the blob store write as much in
// one write.
const formBufferSize = 256 << 10

// maxPartHeaderBytes bounds the header block of one part: a part's
// headers are a name, a file name and a type, so more is hostile
// structure, not a cost.
const maxPartHeaderBytes = 16 << 10

// Errors of a body that breaks RFC 2046. A body cut inside a part's header
// is one (mime/multipart reads it as the end of the body, dropping the
// part: a form field could then go missing unnoticed).
var (
	errMalformed = errors.New("malformed multipart body")
	errHeaderCut = errors.New("multipart body ends in a part's header")
)

// formReader reads a multipart/form-data body (RFC 7578, RFC 2046) part by
// part, streaming each part's data, as mime/multipart.Reader does, through
// a buffer of formBufferSize bytes. Like mime/multipart it takes CRLF or
// bare LF line ends (as the first delimiter line has them), ignores the
// preamble and the epilogue, allows white space after a delimiter, and
// decodes a part sent quoted-printable.
type formReader struct {
	br       *bufio.Reader
	boundary string
	// delim ends a part's data: a line end, "--" and the boundary. It is
	// known once the first delimiter line is read.
	delim []byte
	part  *formPart
	// delimLen is the length of the delimiter that ended the last part.
	delimLen int
	done     bool
}

// newFormReader reads body, whose parts are separated by boundary.
func newFormReader(body io.Reader, boundary string) *formReader {
	return &formReader{br: bufio.NewReaderSize(body, formBufferSize), boundary: boundary}
}

// formPart is one part of a multipart body: its header and a reader of
// its data, decoded.
type formPart struct {
	Header textproto.MIMEHeader
	raw    *partData
	data   io.Reader // raw, or its quoted-printable decoding
}

// partData reads a part's data as sent: the bytes up to the next
// delimiter.
type partData struct {
	fr *formReader
	// n is how many buffered bytes are data for sure; err is returned
	// once they are read (io.EOF at the delimiter).
	n   int
	err error
	// read is whether any data was read; delimLen is the length of the
	// delimiter that ended the data, which the header's own line end may
	// stand in for when the data is empty ("--boundary" at once).
	read     bool
	delimLen int
}

// NextPart returns the next part, after reading what is left of the
// current one, or io.EOF after the last. Any other error is errMalformed
// or the body's own read error.
func (fr *formReader) NextPart() (*formPart, error) {
	if fr.part != nil {
		if _, err := io.Copy(io.Discard, fr.part.raw); err != nil {
			return nil, err
		}
		fr.delimLen = fr.part.raw.delimLen
		fr.part = nil
	}
	if fr.done {
		return nil, io.EOF
	}
	var last bool
	var err error
	if fr.delim == nil {
		last, err = fr.skipPreamble()
	} else if _, err = fr.br.Discard(fr.delimLen); err == nil {
		last, err = fr.endDelimiterLine()
	}
	if err != nil {
		return nil, err
	}
	if last {
		fr.done = true
		return nil, io.EOF
	}
	header, err := fr.readHeader()
	if err != nil {
		return nil, err
	}
	p := &formPart{Header: header, raw: &partData{fr: fr}}
	p.data = p.raw
	if strings.EqualFold(header.Get("Content-Transfer-Encoding"), "quoted-printable") {
		header.Del("Content-Transfer-Encoding")
		p.data = quotedprintable.NewReader(p.raw)
	}
	fr.part = p
	return p, nil
}

// skipPreamble reads lines up to and including the first delimiter line
// ("--boundary", white space, the line end), which sets the line end of
// the whole body, and reports whether it was the close delimiter. The
// preamble is dropped as it streams.
func (fr *formReader) skipPreamble() (last bool, err error) {
	dash := []byte("--" + fr.boundary)
	lineStart := true
	for {
		line, err := fr.br.ReadSlice('\n')
		atStart := lineStart
		lineStart = err == nil
		if errors.Is(err, bufio.ErrBufferFull) {
			continue // part of a long line: not a delimiter
		}
		if err != nil && err != io.EOF {
			return false, err
		}
		rest, ok := bytes.CutPrefix(line, dash)
		if atStart && ok && bytes.HasPrefix(rest, []byte("--")) && closeLineEnds(rest[2:], "\r\n") {
			return true, nil // the close delimiter: a body without parts
		}
		if err == io.EOF {
			return false, errMalformed
		}
		if !atStart || !ok {
			continue
		}
		if end := bytes.TrimLeft(rest, " \t"); string(end) == "\r\n" || string(end) == "\n" {
			fr.delim = append([]byte(string(end[:len(end)-1])+"\n"), dash...)
			return false, nil
		}
	}
}

// endDelimiterLine reads the rest of a delimiter's line: "--" for the
// close delimiter (reporting true), else white space and the line end.
func (fr *formReader) endDelimiterLine() (last bool, err error) {
	next, _ := fr.br.Peek(2)
	closing := bytes.Equal(next, []byte("--"))
	line, err := fr.br.ReadSlice('\n')
	if closing && (err == nil || err == io.EOF) {
		nl := fr.delim[:len(fr.delim)-len(fr.boundary)-2]
		if !closeLineEnds(line[2:], string(nl)) {
			return false, errMalformed
		}
		return true, nil
	}
	if err != nil {
		if err == io.EOF || errors.Is(err, bufio.ErrBufferFull) {
			return false, errMalformed
		}
		return false, err
	}
	if len(bytes.TrimLeft(line, " \t\r\n")) > 0 {
		return false, errMalformed
	}
	return false, nil
}

// closeLineEnds reports whether rest, what follows the close delimiter on
// its line, is white space and the line end nl, or nothing (the end of
// the body).
func closeLineEnds(rest []byte, nl string) bool {
	rest = bytes.TrimLeft(rest, " \t")
	return len(rest) == 0 || string(rest) == nl
}

// readHeader reads a part's header lines up to the empty line, within
// maxPartHeaderBytes, and parses them as net/textproto does.
func (fr *formReader) readHeader() (textproto.MIMEHeader, error) {
	var block []byte
	for {
		line, err := fr.br.ReadSlice('\n')
		if err == io.EOF {
			return nil, errHeaderCut
		}
		if len(block)+len(line) > maxPartHeaderBytes || errors.Is(err, bufio.ErrBufferFull) {
			return nil, errMalformed
		}
		if err != nil {
			return nil, err
		}
		block = append(block, line...)
		if string(line) == "\r\n" || string(line) == "\n" {
			break
		}
	}
	header, err := textproto.NewReader(bufio.NewReader(bytes.NewReader(block))).ReadMIMEHeader()
	if err != nil {
		return nil, errMalformed
	}
	return header, nil
}

// FormName is the name of the part's form field: the name parameter of
// its Content-Disposition when that is form-data, else "".
func (p *formPart) FormName() string {
	disposition, params := p.disposition()
	if disposition != "form-data" {
		return ""
	}
	return params["name"]
}

// FileName is the last element of the filename parameter of the part's
// Content-Disposition, or "" when it has none.
func (p *formPart) FileName() string {
	_, params := p.disposition()
	if name := params["filename"]; name != "" {
		return filepath.Base(name)
	}
	return ""
}

func (p *formPart) disposition() (string, map[string]string) {
	d, params, err := mime.ParseMediaType(p.Header.Get("Content-Disposition"))
	if err != nil {
		return "", nil
	}
	return d, params
}

// Read reads the part's data, decoded.
func (p *formPart) Read(b []byte) (int, error) { return p.data.Read(b) }

// Close reads what is left of the part's data.
func (p *formPart) Close() error {
	_, err := io.Copy(io.Discard, p.raw)
	return err
}

// Read reads the part's data as sent, filling b unless the data ends
// first, so that a large b (the blob store's 1 MB) is written to disk in
// as few writes. A body that ends before the next delimiter fails with
// io.ErrUnexpectedEOF, a failing body with its own error.
func (d *partData) Read(b []byte) (int, error) {
	n := 0
	for n < len(b) {
		if d.n == 0 && d.err == nil {
			d.scan()
		}
		if d.n == 0 {
			if n > 0 {
				return n, nil // d.err comes with the next call
			}
			return 0, d.err
		}
		k, _ := d.fr.br.Read(b[n : n+min(len(b)-n, d.n)])
		d.n -= k
		n += k
		d.read = true
	}
	return n, nil
}

// scan finds how many buffered bytes are data for sure (d.n), reading
// more of the body when the buffer holds too few to tell, or that the
// delimiter comes next (d.err = io.EOF). A part's data is read through
// the buffer in large steps: bytes.Index finds a delimiter, and only the
// few bytes at the end that could begin one wait for the next read.
func (d *partData) scan() {
	br, delim := d.fr.br, d.fr.delim
	var readErr error
	for {
		buf, _ := br.Peek(br.Buffered())
		if !d.read {
			// The header's empty line may end an empty part's data.
			dash := delim[bytes.IndexByte(delim, '-'):]
			if bytes.HasPrefix(buf, dash) && delimiterAt(buf[len(dash):], readErr != nil) == isDelimiter {
				d.err, d.delimLen = io.EOF, len(dash)
				return
			}
			if len(buf) < len(dash)+2 && bytes.HasPrefix(dash, buf[:min(len(buf), len(dash))]) && readErr == nil {
				_, readErr = br.Peek(len(buf) + 1)
				continue
			}
		}
		i, state := findDelimiter(buf, delim, readErr != nil)
		switch {
		case i == 0 && state == isDelimiter:
			d.err, d.delimLen = io.EOF, len(delim)
			return
		case i > 0:
			d.n = i
			return
		case i < 0:
			if n := len(buf) - partialDelimiter(buf, delim); n > 0 {
				d.n = n
				return
			}
		}
		if readErr != nil {
			if readErr == io.EOF {
				readErr = io.ErrUnexpectedEOF
			}
			// A delimiter cut by the end is dropped with it.
			d.n, d.err = len(buf)-partialDelimiter(buf, delim), readErr
			return
		}
		_, readErr = br.Peek(len(buf) + 1)
	}
}

// findDelimiter returns the index of the first match of delim in buf that
// is, or may be, a delimiter, and which (isDelimiter or undecided), or
// -1. At the end of the body (atEOF) every match is decided.
func findDelimiter(buf, delim []byte, atEOF bool) (int, int) {
	for from := 0; ; {
		i := bytes.Index(buf[from:], delim)
		if i < 0 {
			return -1, notDelimiter
		}
		i += from
		if state := delimiterAt(buf[i+len(delim):], atEOF); state != notDelimiter {
			return i, state
		}
		from = i + 1
	}
}

// partialDelimiter returns the length of the longest end of buf that
// begins delim: bytes that may be data or a delimiter cut by the buffer.
func partialDelimiter(buf, delim []byte) int {
	for k := min(len(delim)-1, len(buf)); k > 0; k-- {
		if bytes.HasPrefix(delim, buf[len(buf)-k:]) {
			return k
		}
	}
	return 0
}

// What follows a match of the delimiter's bytes.
const (
	undecided = iota
	isDelimiter
	notDelimiter
)

// delimiterAt tells whether rest, the bytes after a match of the
// delimiter's bytes, make it a delimiter: the close "--", or white space
// and a line end (RFC 2046: the boundary is followed by nothing but
// these). Data that merely contains the boundary's text is data. At the
// end of the body (atEOF) the match counts as a delimiter, whose line is
// then found broken.
func delimiterAt(rest []byte, atEOF bool) int {
	if len(rest) == 0 {
		if atEOF {
			return isDelimiter
		}
		return undecided
	}
	switch rest[0] {
	case ' ', '\t', '\r', '\n':
		return isDelimiter
	case '-':
		if len(rest) == 1 {
			if atEOF {
				return isDelimiter
			}
			return undecided
		}
		if rest[1] == '-' {
			return isDelimiter
		}
	}
	return notDelimiter
}
