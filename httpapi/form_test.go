package httpapi

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/textproto"
	"strings"
	"testing"
	"testing/iotest"
)

// formBoundary is the boundary of the test bodies.
const formBoundary = "xYzZY"

// formBodies are multipart bodies, well-formed and not, on which
// formReader must agree with mime/multipart.
func formBodies() map[string]string {
	big := strings.Repeat("a", formBufferSize-7) + "\r\n--" + formBoundary + "x" + strings.Repeat("b", 3*formBufferSize/2) + "\r\n--"
	return map[string]string{
		"two parts": "--xYzZY\r\nContent-Disposition: form-data; name=\"angle\"\r\n\r\n90\r\n" +
			"--xYzZY\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a/b.pdf\"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.7\r\nbody\r\n--xYzZY--\r\n",
		"preamble and epilogue": "junk line\r\n--xYzZY-not\r\n--xYzZY\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nv\r\n--xYzZY--\r\nepilogue\r\n--xYzZY\r\n",
		"bare LF":               "--xYzZY\nContent-Disposition: form-data; name=\"a\"\n\nline1\nline2\n--xYzZY\nContent-Disposition: form-data; name=\"b\"\n\n\n--xYzZY--\n",
		"padding after delimiter": "--xYzZY \t\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nv\r\n--xYzZY  \r\n" +
			"Content-Disposition: form-data; name=\"b\"\r\n\r\nw\r\n--xYzZY--",
		"boundary text inside data": "--xYzZY\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n--xYzZY\r\n--xYzZYz\r\n--xYzZ\r\n\r\n--xYzZY--",
		"empty data":                "--xYzZY\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n\r\n--xYzZY--\r\n",
		"no parts":                  "--xYzZY--\r\n",
		"folded header":             "--xYzZY\r\nContent-Disposition: form-data;\r\n name=\"a\"\r\n\r\nv\r\n--xYzZY--\r\n",
		"quoted-printable":          "--xYzZY\r\nContent-Disposition: form-data; name=\"a\"\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\ncaf=C3=A9 =\r\nau lait\r\n--xYzZY--\r\n",
		"truncated data":            "--xYzZY\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nsome data",
		"truncated in delimiter":    "--xYzZY\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nsome data\r\n--xYz",
		"truncated header":          "--xYzZY\r\nContent-Disposition: form-data; name=\"a\"",
		"no delimiter at all":       "just some text\r\n",
		"empty body":                "",
		"garbage after delimiter":   "--xYzZY\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nv\r\n--xYzZY junk\r\n\r\n--xYzZY--",
		"header without colon":      "--xYzZY\r\nContent-Disposition form-data\r\n\r\nv\r\n--xYzZY--",
		"large part across buffers": "--xYzZY\r\nContent-Disposition: form-data; name=\"file\"; filename=\"big.bin\"\r\n\r\n" + big +
			"\r\n--xYzZY\r\nContent-Disposition: form-data; name=\"b\"\r\n\r\nend\r\n--xYzZY--\r\n",
	}
}

// TestFormReaderAgreesWithMultipart: formReader finds the parts, headers
// and data that mime/multipart finds, or fails where it fails, whatever
// sizes the body's reads come in.
func TestFormReaderAgreesWithMultipart(t *testing.T) {
	readers := map[string]func(io.Reader) io.Reader{
		"whole":    func(r io.Reader) io.Reader { return r },
		"one byte": iotest.OneByteReader,
		"half":     iotest.HalfReader,
	}
	for name, body := range formBodies() {
		want, wantErr := readMultipart(body)
		for how, wrap := range readers {
			if how == "one byte" && len(body) > 1<<16 {
				continue
			}
			got, err := readForm(wrap(strings.NewReader(body)))
			if !agree(got, err, want, wantErr) {
				t.Errorf("%s, read %s:\n got %q, err %v\nwant %q, err %v", name, how, short(got), err, short(want), wantErr)
			}
		}
	}
}

// FuzzFormReader: on any body, formReader agrees with mime/multipart.
func FuzzFormReader(f *testing.F) {
	for _, body := range formBodies() {
		if len(body) < 1<<12 {
			f.Add(body)
		}
	}
	f.Fuzz(func(t *testing.T, body string) {
		want, wantErr := readMultipart(body)
		got, err := readForm(iotest.HalfReader(strings.NewReader(body)))
		if !agree(got, err, want, wantErr) {
			t.Errorf("body %q:\n got %q, err %v\nwant %q, err %v", body, got, err, want, wantErr)
		}
	})
}

// agree reports whether formReader's reading of a body (got, err) is
// mime/multipart's (want, wantErr): the same parts where it succeeds, an
// error where it fails (what either read of a broken body before failing
// does not matter: an upload that fails is dropped whole). A body cut in
// a part's header is the one difference: formReader fails,
// mime/multipart ends the body there.
func agree(got string, err error, want string, wantErr error) bool {
	switch {
	case errors.Is(err, errHeaderCut) && wantErr == nil:
		return true
	case err != nil || wantErr != nil:
		return err != nil && wantErr != nil
	}
	return got == want
}

// readForm lists the parts formReader reads from body: for each, its
// form name, file name, headers and data.
func readForm(body io.Reader) (string, error) {
	fr := newFormReader(body, formBoundary)
	return listParts(func() (*formPart, textproto.MIMEHeader, error) {
		p, err := fr.NextPart()
		if err != nil {
			return nil, nil, err
		}
		return p, p.Header, nil
	})
}

// readMultipart is readForm with mime/multipart.
func readMultipart(body string) (string, error) {
	mr := multipart.NewReader(strings.NewReader(body), formBoundary)
	return listParts(func() (*multipart.Part, textproto.MIMEHeader, error) {
		p, err := mr.NextPart()
		if err != nil {
			return nil, nil, err
		}
		return p, p.Header, nil
	})
}

// listParts describes the parts next returns until io.EOF, the same way
// for both readers, so that their lists compare equal when they agree.
func listParts[P interface {
	io.Reader
	FormName() string
	FileName() string
}](next func() (P, textproto.MIMEHeader, error)) (string, error) {
	var out strings.Builder
	for {
		p, header, err := next()
		if err == io.EOF {
			return out.String(), nil
		}
		if err != nil {
			return out.String(), err
		}
		data, err := io.ReadAll(p)
		fmt.Fprintf(&out, "[%q %q %v %q]", p.FormName(), p.FileName(), header, data)
		if err != nil {
			return out.String(), err
		}
	}
}

// short cuts a long listing for a failure message.
func short(s string) string {
	if len(s) > 400 {
		return s[:200] + "..." + s[len(s)-200:]
	}
	return s
}

// TestFormReaderLargeReads: the data of a large part comes in reads far
// larger than mime/multipart's 4 KB, which is the point of formReader.
func TestFormReaderLargeReads(t *testing.T) {
	data := bytes.Repeat([]byte{0}, 4*formBufferSize)
	body := "--xYzZY\r\nContent-Disposition: form-data; name=\"file\"; filename=\"z\"\r\n\r\n" + string(data) + "\r\n--xYzZY--\r\n"
	p, err := newFormReader(strings.NewReader(body), formBoundary).NextPart()
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 1<<20)
	largest, total := 0, 0
	for {
		n, err := p.Read(buf)
		largest, total = max(largest, n), total+n
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if total != len(data) || largest < formBufferSize/2 {
		t.Fatalf("read %d bytes, at most %d at once; want %d, reads of at least %d", total, largest, len(data), formBufferSize/2)
	}
}
