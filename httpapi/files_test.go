package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/blob"
	"github.com/docmill/docmill/jobview"
)

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

func openBucket(t *testing.T) *blob.Bucket {
	t.Helper()
	b, err := blob.OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b
}

func putBlob(t *testing.T, b docmill.BlobStore, key, content string) {
	t.Helper()
	if _, err := b.Put(context.Background(), key, strings.NewReader(content), ""); err != nil {
		t.Fatal(err)
	}
}

// fileServer is a Server over b whose clock reads *now.
func fileServer(b docmill.BlobStore, key string, now *time.Time) *Server {
	log, clock := slog.New(slog.DiscardHandler), func() time.Time { return *now }
	records := jobview.New(jobview.Config{Blob: b, SigningKey: []byte(key), BaseURL: "https://api.example.com/",
		CDNURL: "https://cdn.example.com/", Logger: log, Now: clock})
	return NewServer(Config{Blob: b, BaseURL: "https://api.example.com/", Records: records, Logger: log, Now: clock})
}

func do(s *Server, method, target string, hdr ...string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, target, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		r.Header.Set(hdr[i], hdr[i+1])
	}
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	return w
}

func problemCode(t *testing.T, w *httptest.ResponseRecorder) docmill.Code {
	t.Helper()
	var p docmill.Problem
	if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil {
		t.Fatalf("status %d, body not a problem: %v: %s", w.Code, err, w.Body)
	}
	return p.Code
}

// signedTarget is the request target (path and query) of a signed URL.
func signedTarget(t *testing.T, s *Server, jobID, filename string, exp time.Time) string {
	t.Helper()
	raw := s.records.FileURL(jobID, filename, exp)
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatalf("fileURL %q: %v", raw, err)
	}
	if u.Scheme+"://"+u.Host != "https://cdn.example.com" {
		t.Errorf("fileURL %q is not on the CDN URL", raw)
	}
	return u.RequestURI()
}

func TestFileURLAndDownload(t *testing.T) {
	b := openBucket(t)
	now := t0
	s := fileServer(b, "k1", &now)
	const jobID, content = "job_4kq8v2m0c9x7t1r5y3w6z8a2b4", "%PDF-1.7 0123456789 abcdefghij"

	for _, filename := range []string{"report-compressed.pdf", "Résumé final (2).pdf", "a b#c?d%e.pdf", "pages.zip"} {
		t.Run(filename, func(t *testing.T) {
			putBlob(t, b, docmill.ResultKey(jobID, filename), content)
			target := signedTarget(t, s, jobID, filename, t0.Add(time.Hour))

			w := do(s, "GET", target)
			if w.Code != 200 || w.Body.String() != content {
				t.Fatalf("GET = %d %q", w.Code, w.Body)
			}
			_, params, err := mime.ParseMediaType(w.Header().Get("Content-Disposition"))
			if err != nil || params["filename"] != filename {
				t.Errorf("Content-Disposition %q: filename %q, err %v", w.Header().Get("Content-Disposition"), params["filename"], err)
			}
			if !strings.HasPrefix(w.Header().Get("Content-Disposition"), "attachment") {
				t.Errorf("Content-Disposition %q is not an attachment", w.Header().Get("Content-Disposition"))
			}
			// Only where the extension is known (.zip depends on the system's
			// mime.types).
			wantCT := mime.TypeByExtension(filename[strings.LastIndex(filename, "."):])
			if ct := w.Header().Get("Content-Type"); wantCT != "" && ct != wantCT {
				t.Errorf("Content-Type = %q, want %q", ct, wantCT)
			}
			if cc := w.Header().Get("Cache-Control"); !strings.Contains(cc, "max-age=3600") {
				t.Errorf("Cache-Control = %q", cc)
			}
			if w.Header().Get("X-Content-Type-Options") != "nosniff" {
				t.Error("no X-Content-Type-Options: nosniff")
			}

			w = do(s, "GET", target, "Range", "bytes=9-18")
			if w.Code != http.StatusPartialContent || w.Body.String() != content[9:19] {
				t.Errorf("Range = %d %q, want 206 %q", w.Code, w.Body, content[9:19])
			}
			if cr, want := w.Header().Get("Content-Range"), "bytes 9-18/"+strconv.Itoa(len(content)); cr != want {
				t.Errorf("Content-Range = %q, want %q", cr, want)
			}
			w = do(s, "GET", target, "Range", "bytes=-5")
			if w.Code != http.StatusPartialContent || w.Body.String() != content[len(content)-5:] {
				t.Errorf("suffix Range = %d %q", w.Code, w.Body)
			}

			w = do(s, "HEAD", target)
			if w.Code != 200 || w.Body.Len() != 0 || w.Header().Get("Content-Length") != strconv.Itoa(len(content)) {
				t.Errorf("HEAD = %d, %d body bytes, Content-Length %q", w.Code, w.Body.Len(), w.Header().Get("Content-Length"))
			}
		})
	}
}

func TestFileSignatureChecks(t *testing.T) {
	b := openBucket(t)
	now := t0
	s := fileServer(b, "k1", &now)
	other := fileServer(b, "k2", &now)
	const jobID, filename = "job_aaaa", "out.pdf"
	putBlob(t, b, docmill.ResultKey(jobID, filename), "%PDF-1.7 data")
	putBlob(t, b, docmill.ResultKey("job_bbbb", filename), "%PDF-1.7 other job")
	putBlob(t, b, docmill.ResultKey(jobID, "other.pdf"), "%PDF-1.7 other file")

	exp := t0.Add(time.Hour)
	good := signedTarget(t, s, jobID, filename, exp)
	u, _ := url.Parse(good)
	q := u.Query()
	sig, expires := q.Get("signature"), q.Get("expires")
	with := func(path, expires, sig string) string {
		return path + "?" + url.Values{"expires": {expires}, "signature": {sig}}.Encode()
	}
	flipped := []byte(sig)
	flipped[0] ^= 1

	tests := []struct {
		name, target string
		status       int
		code         docmill.Code
	}{
		{"valid", good, 200, ""},
		{"other job", with("/files/job_bbbb/"+filename, expires, sig), 403, docmill.CodeForbidden},
		{"other filename", with("/files/"+jobID+"/other.pdf", expires, sig), 403, docmill.CodeForbidden},
		{"later expiry", with(u.Path, strconv.FormatInt(exp.Unix()+3600, 10), sig), 403, docmill.CodeForbidden},
		{"earlier expiry", with(u.Path, strconv.FormatInt(exp.Unix()-1, 10), sig), 403, docmill.CodeForbidden},
		{"flipped signature", with(u.Path, expires, string(flipped)), 403, docmill.CodeForbidden},
		{"truncated signature", with(u.Path, expires, sig[:len(sig)-1]), 403, docmill.CodeForbidden},
		{"no signature", u.Path + "?expires=" + expires, 403, docmill.CodeForbidden},
		{"no query", u.Path, 403, docmill.CodeForbidden},
		{"garbage expires", with(u.Path, "soon", sig), 403, docmill.CodeForbidden},
		{"other key", signedTarget(t, other, jobID, filename, exp), 403, docmill.CodeForbidden},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := do(s, "GET", tc.target)
			if w.Code != tc.status {
				t.Fatalf("status = %d, want %d: %s", w.Code, tc.status, w.Body)
			}
			if tc.code != "" {
				if got := problemCode(t, w); got != tc.code {
					t.Errorf("code = %q, want %q", got, tc.code)
				}
			}
		})
	}
}

func TestFileExpiredOrGone(t *testing.T) {
	b := openBucket(t)
	now := t0
	s := fileServer(b, "k1", &now)
	putBlob(t, b, docmill.ResultKey("job_e", "a.pdf"), "%PDF-")
	exp := t0.Add(time.Minute)
	target := signedTarget(t, s, "job_e", "a.pdf", exp)

	for _, tc := range []struct {
		name   string
		now    time.Time
		status int
	}{
		{"before expiry", exp.Add(-time.Second), 200},
		{"at expiry", exp, 410},
		{"after expiry", exp.Add(24 * time.Hour), 410},
	} {
		now = tc.now
		w := do(s, "GET", target)
		if w.Code != tc.status {
			t.Errorf("%s: status = %d, want %d", tc.name, w.Code, tc.status)
		}
		if tc.status == 410 && problemCode(t, w) != docmill.CodeGone {
			t.Errorf("%s: code = %q, want gone", tc.name, problemCode(t, w))
		}
	}

	// A valid, unexpired link to a file that has been deleted is gone too.
	now = t0
	gone := signedTarget(t, s, "job_e", "deleted.pdf", exp)
	w := do(s, "GET", gone)
	if w.Code != 410 || problemCode(t, w) != docmill.CodeGone {
		t.Errorf("deleted file: %d %s", w.Code, w.Body)
	}
	if err := b.Delete(context.Background(), docmill.ResultKey("job_e", "a.pdf")); err != nil {
		t.Fatal(err)
	}
	if w := do(s, "GET", target); w.Code != 410 {
		t.Errorf("after Delete: %d, want 410", w.Code)
	}
}

func TestReadSeeker(t *testing.T) {
	b := openBucket(t)
	const key, content = "out/job_rs.data.bin", "0123456789abcdefghij"
	putBlob(t, b, key, content)
	size := int64(len(content))

	type op struct {
		seek   bool
		off    int64
		whence int
		n      int    // read: bytes asked for (io.ReadFull)
		want   string // read: bytes expected
		pos    int64  // seek: offset expected
		err    bool   // seek: error expected
	}
	seek := func(off int64, whence int, pos int64) op { return op{seek: true, off: off, whence: whence, pos: pos} }
	bad := func(off int64, whence int) op { return op{seek: true, off: off, whence: whence, err: true} }
	read := func(n int, want string) op { return op{n: n, want: want} }

	tests := []struct {
		name string
		ops  []op
	}{
		{"read from start", []op{read(4, "0123"), read(3, "456")}},
		{"seek start", []op{seek(10, io.SeekStart, 10), read(3, "abc")}},
		{"seek current", []op{read(2, "01"), seek(3, io.SeekCurrent, 5), read(2, "56"), seek(-4, io.SeekCurrent, 3), read(1, "3")}},
		{"seek end", []op{seek(-3, io.SeekEnd, size-3), read(3, "hij")}},
		{"size by seek end then rewind", []op{seek(0, io.SeekEnd, size), seek(0, io.SeekStart, 0), read(int(size), content)}},
		{"seek to same offset", []op{read(5, "01234"), seek(5, io.SeekStart, 5), read(1, "5")}},
		{"back and forth", []op{seek(15, io.SeekStart, 15), read(2, "fg"), seek(1, io.SeekStart, 1), read(2, "12")}},
		{"past the end", []op{seek(size+5, io.SeekStart, size+5), read(1, "")}},
		{"at the end", []op{seek(0, io.SeekEnd, size), read(1, "")}},
		{"negative from start", []op{bad(-1, io.SeekStart)}},
		{"negative from end", []op{bad(-size-1, io.SeekEnd)}},
		{"negative from current", []op{read(2, "01"), bad(-3, io.SeekCurrent), read(1, "2")}},
		{"bad whence", []op{bad(0, 42)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rs := newReadSeeker(context.Background(), b, key, size)
			defer rs.Close()
			for i, o := range tc.ops {
				if o.seek {
					pos, err := rs.Seek(o.off, o.whence)
					if o.err {
						if err == nil {
							t.Fatalf("op %d: Seek(%d, %d) = %d, want an error", i, o.off, o.whence, pos)
						}
						continue
					}
					if err != nil || pos != o.pos {
						t.Fatalf("op %d: Seek(%d, %d) = %d, %v; want %d", i, o.off, o.whence, pos, err, o.pos)
					}
					continue
				}
				buf := make([]byte, o.n)
				n, err := io.ReadFull(rs, buf)
				if got := string(buf[:n]); got != o.want {
					t.Fatalf("op %d: read %q (%v), want %q", i, got, err, o.want)
				}
				if o.want == "" && !errors.Is(err, io.EOF) {
					t.Fatalf("op %d: err = %v, want EOF", i, err)
				}
			}
		})
	}

	rs := newReadSeeker(context.Background(), b, "out/missing", 10)
	if _, err := rs.Read(make([]byte, 1)); !errors.Is(err, docmill.ErrNotFound) {
		t.Errorf("Read of a missing key: %v, want ErrNotFound", err)
	}
	if err := rs.Close(); err != nil {
		t.Errorf("Close without a reader: %v", err)
	}
}

func TestParseRange(t *testing.T) {
	const size = 100
	type br = byteRange
	many := func(n int) string {
		specs := make([]string, n)
		for i := range specs {
			specs[i] = fmt.Sprintf("%d-%d", 2*i, 2*i)
		}
		return "bytes=" + strings.Join(specs, ",")
	}
	tests := []struct {
		header string
		size   int64
		want   []byteRange
		res    rangeResult
	}{
		{"bytes=0-0", size, []br{{0, 0}}, rangeParts},
		{"bytes=0-99", size, []br{{0, 99}}, rangeParts},
		{"bytes=10-", size, []br{{10, 99}}, rangeParts},
		{"bytes=99-", size, []br{{99, 99}}, rangeParts},
		{"bytes=90-1000", size, []br{{90, 99}}, rangeParts},
		{"bytes=0-99999999999999999999999", size, []br{{0, 99}}, rangeParts},
		{"bytes=-1", size, []br{{99, 99}}, rangeParts},
		{"bytes=-10", size, []br{{90, 99}}, rangeParts},
		{"bytes=-100", size, []br{{0, 99}}, rangeParts},
		{"bytes=-1000", size, []br{{0, 99}}, rangeParts},
		{"Bytes=1-2", size, []br{{1, 2}}, rangeParts},
		{"bytes=1-2, 5-6 ,\t8-9", size, []br{{1, 2}, {5, 6}, {8, 9}}, rangeParts},
		{"bytes=,1-2,,5-6,", size, []br{{1, 2}, {5, 6}}, rangeParts},
		{"bytes=0-4,5-9", size, []br{{0, 4}, {5, 9}}, rangeParts}, // adjacent
		{"bytes=0-9,-5", size, []br{{0, 9}, {95, 99}}, rangeParts},
		{"bytes=0-9,100-", size, []br{{0, 9}}, rangeParts},        // the unsatisfiable one dropped
		{"bytes=-0,0-9", size, []br{{0, 9}}, rangeParts},          // the unsatisfiable one dropped
		{"bytes=200-300,50-60", size, []br{{50, 60}}, rangeParts}, // so: in order
		{many(16), size, []br{{0, 0}, {2, 2}, {4, 4}, {6, 6}, {8, 8}, {10, 10}, {12, 12}, {14, 14},
			{16, 16}, {18, 18}, {20, 20}, {22, 22}, {24, 24}, {26, 26}, {28, 28}, {30, 30}}, rangeParts},

		{"bytes=100-", size, nil, rangeUnsatisfiable},
		{"bytes=99999-", size, nil, rangeUnsatisfiable},
		{"bytes=99999999999999999999999-", size, nil, rangeUnsatisfiable},
		{"bytes=-0", size, nil, rangeUnsatisfiable},
		{"bytes=-00", size, nil, rangeUnsatisfiable},
		{"bytes=100-200,-0", size, nil, rangeUnsatisfiable},
		{"bytes=0-", 0, nil, rangeUnsatisfiable},
		{"bytes=-0", 0, nil, rangeUnsatisfiable},

		{"bytes=10-5", size, nil, rangeWhole},        // last < first: invalid
		{"bytes=0-9,10-5", size, nil, rangeWhole},    // one invalid spec: all ignored
		{"bytes=99999-,10-5", size, nil, rangeWhole}, // invalid beats unsatisfiable
		{"bytes=-5", 0, nil, rangeWhole},             // an empty file: nothing to send
		{"bytes=0-,-5", 0, nil, rangeWhole},          // idem
		{many(17), size, nil, rangeWhole},            // too many
		{many(5000), size, nil, rangeWhole},          // far too many
		{"bytes=0-10,5-20", size, nil, rangeWhole},   // overlapping
		{"bytes=0-10,10-20", size, nil, rangeWhole},  // overlapping by one byte
		{"bytes=20-30,0-10", size, nil, rangeWhole},  // not ascending
		{"bytes=-5,0-10", size, nil, rangeWhole},     // not ascending
		{"bytes=0-,-5", size, nil, rangeWhole},       // overlapping
		{"bytes=", size, nil, rangeWhole},
		{"bytes=,", size, nil, rangeWhole},
		{"bytes", size, nil, rangeWhole},
		{"", size, nil, rangeWhole},
		{"items=0-5", size, nil, rangeWhole},
		{"bytes =0-5", size, nil, rangeWhole},
		{"bytes=-", size, nil, rangeWhole},
		{"bytes=5", size, nil, rangeWhole},
		{"bytes=1-x", size, nil, rangeWhole},
		{"bytes=x-1", size, nil, rangeWhole},
		{"bytes=+1-2", size, nil, rangeWhole},
		{"bytes=-+2", size, nil, rangeWhole},
		{"bytes=1--2", size, nil, rangeWhole},
		{"bytes=1 - 2", size, nil, rangeWhole},
		{"bytes=0x1-2", size, nil, rangeWhole},
		{"bytes=1-2;3-4", size, nil, rangeWhole},
		{"bytes=١-٢", size, nil, rangeWhole}, // Arabic-Indic digits are not DIGIT
	}
	for _, tc := range tests {
		name := tc.header
		if len(name) > 40 {
			name = name[:40] + "..."
		}
		t.Run(fmt.Sprintf("%s/size=%d", name, tc.size), func(t *testing.T) {
			got, res := parseRange(tc.header, tc.size)
			if res != tc.res || !slices.Equal(got, tc.want) {
				t.Errorf("parseRange(%q, %d) = %v, %d; want %v, %d", tc.header, tc.size, got, res, tc.want, tc.res)
			}
		})
	}
}

// countingBlob counts the readers opened on a BlobStore.
type countingBlob struct {
	docmill.BlobStore
	opens atomic.Int64
}

func (c *countingBlob) NewRangeReader(ctx context.Context, key string, offset, length int64) (io.ReadCloser, error) {
	c.opens.Add(1)
	return c.BlobStore.NewRangeReader(ctx, key, offset, length)
}

// TestDownloadRanges runs downloads over HTTP against the real handler and
// a blob directory: statuses, headers and bodies of whole, single-range,
// multipart, ignored and unsatisfiable answers, HEAD and conditional
// requests, and how many times the file is opened.
func TestDownloadRanges(t *testing.T) {
	const size = 24578
	content := make([]byte, size)
	for i := range content {
		content[i] = byte('a' + i*7%26)
	}
	blobs := &countingBlob{BlobStore: openBucket(t)}
	now := t0
	s := fileServer(blobs, "k1", &now)
	const jobID = "job_ranges"
	putBlob(t, blobs, docmill.ResultKey(jobID, "out.pdf"), string(content))
	putBlob(t, blobs, docmill.ResultKey(jobID, "empty.pdf"), "")
	srv := httptest.NewServer(s)
	defer srv.Close()
	target := srv.URL + signedTarget(t, s, jobID, "out.pdf", t0.Add(time.Hour))
	empty := srv.URL + signedTarget(t, s, jobID, "empty.pdf", t0.Add(time.Hour))

	head, err := http.Head(target)
	if err != nil {
		t.Fatal(err)
	}
	lastMod := head.Header.Get("Last-Modified")
	modTime, err := http.ParseTime(lastMod)
	if err != nil {
		t.Fatalf("Last-Modified %q: %v", lastMod, err)
	}

	whole := string(content)
	part := func(first, last int) string { return string(content[first : last+1]) }
	cr := func(first, last int) string { return fmt.Sprintf("bytes %d-%d/%d", first, last, size) }
	type bytePart struct{ contentRange, body string }
	ranges := func(n, step int) string { // n ranges of 3 bytes, step bytes apart
		specs := make([]string, n)
		for i := range specs {
			specs[i] = fmt.Sprintf("%d-%d", step*i, step*i+2)
		}
		return "bytes=" + strings.Join(specs, ",")
	}
	rangesParts := func(n int) []bytePart {
		parts := make([]bytePart, n)
		for i := range parts {
			parts[i] = bytePart{cr(1000*i, 1000*i+2), part(1000*i, 1000*i+2)}
		}
		return parts
	}

	tests := []struct {
		name         string
		url, method  string
		hdr          []string
		status       int
		contentRange string     // "": absent
		body         string     // single-part bodies (GET)
		parts        []bytePart // multipart/byteranges bodies
		code         docmill.Code
		opens        int64
	}{
		{name: "whole", hdr: nil, status: 200, body: whole, opens: 1},
		{name: "first bytes", hdr: []string{"Range", "bytes=0-99"}, status: 206, contentRange: cr(0, 99), body: part(0, 99), opens: 1},
		{name: "open end", hdr: []string{"Range", "bytes=24000-"}, status: 206, contentRange: cr(24000, size-1), body: part(24000, size-1), opens: 1},
		{name: "end past the file", hdr: []string{"Range", "bytes=24000-99999"}, status: 206, contentRange: cr(24000, size-1), body: part(24000, size-1), opens: 1},
		{name: "suffix", hdr: []string{"Range", "bytes=-5"}, status: 206, contentRange: cr(size-5, size-1), body: part(size-5, size-1), opens: 1},
		{name: "suffix longer than the file", hdr: []string{"Range", "bytes=-99999"}, status: 206, contentRange: cr(0, size-1), body: whole, opens: 1},
		{name: "last byte", hdr: []string{"Range", "bytes=24577-24577"}, status: 206, contentRange: cr(size-1, size-1), body: part(size-1, size-1), opens: 1},
		{name: "unsatisfiable dropped", hdr: []string{"Range", "bytes=0-9,99999-"}, status: 206, contentRange: cr(0, 9), body: part(0, 9), opens: 1},

		{name: "start past the end", hdr: []string{"Range", "bytes=99999-"}, status: 416, contentRange: "bytes */24578", code: docmill.CodeRangeNotSatisfiable},
		{name: "start at the end", hdr: []string{"Range", "bytes=24578-"}, status: 416, contentRange: "bytes */24578", code: docmill.CodeRangeNotSatisfiable},
		{name: "empty suffix", hdr: []string{"Range", "bytes=-0"}, status: 416, contentRange: "bytes */24578", code: docmill.CodeRangeNotSatisfiable},
		{name: "empty file", url: empty, hdr: []string{"Range", "bytes=0-"}, status: 416, contentRange: "bytes */0", code: docmill.CodeRangeNotSatisfiable},
		{name: "HEAD unsatisfiable", method: "HEAD", hdr: []string{"Range", "bytes=99999-"}, status: 416, contentRange: "bytes */24578"},

		{name: "last before first ignored", hdr: []string{"Range", "bytes=10-5"}, status: 200, body: whole, opens: 1},
		{name: "garbage ignored", hdr: []string{"Range", "bytes=1-x"}, status: 200, body: whole, opens: 1},
		{name: "other unit ignored", hdr: []string{"Range", "items=0-5"}, status: 200, body: whole, opens: 1},
		{name: "17 ranges ignored", hdr: []string{"Range", ranges(17, 1000)}, status: 200, body: whole, opens: 1},
		{name: "5000 ranges ignored", hdr: []string{"Range", ranges(5000, 4)}, status: 200, body: whole, opens: 1},
		{name: "overlapping ignored", hdr: []string{"Range", "bytes=0-10,5-20"}, status: 200, body: whole, opens: 1},
		{name: "unordered ignored", hdr: []string{"Range", "bytes=20-30,0-10"}, status: 200, body: whole, opens: 1},
		{name: "suffix suffix empty file", url: empty, hdr: []string{"Range", "bytes=-5"}, status: 200, body: ""},

		{name: "two ranges", hdr: []string{"Range", "bytes=0-9,100-109"}, status: 206,
			parts: []bytePart{{cr(0, 9), part(0, 9)}, {cr(100, 109), part(100, 109)}}, opens: 1},
		{name: "range and suffix", hdr: []string{"Range", "bytes=0-0, -3"}, status: 206,
			parts: []bytePart{{cr(0, 0), part(0, 0)}, {cr(size-3, size-1), part(size-3, size-1)}}, opens: 1},
		{name: "adjacent ranges", hdr: []string{"Range", "bytes=0-4,5-9"}, status: 206,
			parts: []bytePart{{cr(0, 4), part(0, 4)}, {cr(5, 9), part(5, 9)}}, opens: 1},
		{name: "16 ranges", hdr: []string{"Range", ranges(16, 1000)}, status: 206, parts: rangesParts(16), opens: 1},
		{name: "HEAD 16 ranges", method: "HEAD", hdr: []string{"Range", ranges(16, 1000)}, status: 206, parts: rangesParts(16)},

		{name: "HEAD", method: "HEAD", status: 200, body: whole},
		{name: "HEAD range", method: "HEAD", hdr: []string{"Range", "bytes=0-9"}, status: 206, contentRange: cr(0, 9), body: part(0, 9)},
		{name: "If-Range date matches", hdr: []string{"Range", "bytes=0-9", "If-Range", lastMod}, status: 206, contentRange: cr(0, 9), body: part(0, 9), opens: 1},
		{name: "If-Range older date", hdr: []string{"Range", "bytes=0-9", "If-Range", modTime.Add(-time.Second).Format(http.TimeFormat)}, status: 200, body: whole, opens: 1},
		{name: "If-Range entity tag", hdr: []string{"Range", "bytes=0-9", "If-Range", `"abc"`}, status: 200, body: whole, opens: 1},
		{name: "If-Range fails, bad range ignored", hdr: []string{"Range", "bytes=99999-", "If-Range", `"abc"`}, status: 200, body: whole, opens: 1},
		{name: "If-Modified-Since", hdr: []string{"If-Modified-Since", lastMod}, status: 304},
		{name: "If-Modified-Since older", hdr: []string{"If-Modified-Since", modTime.Add(-time.Second).Format(http.TimeFormat)}, status: 200, body: whole, opens: 1},
		{name: "If-None-Match star", hdr: []string{"If-None-Match", "*"}, status: 304},
		{name: "If-None-Match tag", hdr: []string{"If-None-Match", `"abc"`, "If-Modified-Since", lastMod}, status: 200, body: whole, opens: 1},
		{name: "If-Match star", hdr: []string{"If-Match", "*", "Range", "bytes=0-1"}, status: 206, contentRange: cr(0, 1), body: part(0, 1), opens: 1},
		{name: "If-Match tag", hdr: []string{"If-Match", `"abc"`}, status: 412, code: docmill.CodePreconditionFailed},
		{name: "If-Unmodified-Since older", hdr: []string{"If-Unmodified-Since", modTime.Add(-time.Second).Format(http.TimeFormat)}, status: 412, code: docmill.CodePreconditionFailed},
		{name: "If-Unmodified-Since", hdr: []string{"If-Unmodified-Since", lastMod}, status: 200, body: whole, opens: 1},
		{name: "precondition before range", hdr: []string{"If-Match", `"abc"`, "Range", "bytes=99999-"}, status: 412, code: docmill.CodePreconditionFailed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			u, method := tc.url, tc.method
			if u == "" {
				u = target
			}
			if method == "" {
				method = "GET"
			}
			req, _ := http.NewRequest(method, u, nil)
			for i := 0; i+1 < len(tc.hdr); i += 2 {
				req.Header.Set(tc.hdr[i], tc.hdr[i+1])
			}
			blobs.opens.Store(0)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			body, err := io.ReadAll(res.Body)
			if err != nil {
				t.Fatal(err)
			}
			hd := res.Header
			if res.StatusCode != tc.status {
				t.Fatalf("status = %d, want %d: %.300s", res.StatusCode, tc.status, body)
			}
			if got := hd.Get("Content-Range"); got != tc.contentRange {
				t.Errorf("Content-Range = %q, want %q", got, tc.contentRange)
			}
			if got := blobs.opens.Load(); got != tc.opens {
				t.Errorf("the file was opened %d times, want %d", got, tc.opens)
			}
			if method == "HEAD" && len(body) != 0 {
				t.Errorf("HEAD answered %d body bytes", len(body))
			}
			ct := hd.Get("Content-Type")
			switch {
			case tc.status >= 400:
				if ct != "application/problem+json" {
					t.Errorf("Content-Type = %q, want application/problem+json", ct)
				}
				if hd.Get("Content-Disposition") != "" || hd.Get("Cache-Control") != "" {
					t.Errorf("an error with download headers: %v", hd)
				}
				if method == "HEAD" {
					return
				}
				var p docmill.Problem
				if err := json.Unmarshal(body, &p); err != nil {
					t.Fatalf("not a problem: %v: %s", err, body)
				}
				if p.Status != tc.status || p.Code != tc.code || p.Type != "https://docmill.dev/errors/"+string(tc.code) ||
					p.Detail == "" || p.RequestID == "" || p.RequestID != hd.Get("X-Request-Id") {
					t.Errorf("problem = %+v (X-Request-Id %q)", p, hd.Get("X-Request-Id"))
				}
			case tc.status == 304:
				if len(body) != 0 || hd.Get("Last-Modified") != lastMod || ct != "" {
					t.Errorf("304: %d body bytes, headers %v", len(body), hd)
				}
			case tc.parts != nil:
				mt, params, err := mime.ParseMediaType(ct)
				if err != nil || mt != "multipart/byteranges" || params["boundary"] == "" {
					t.Fatalf("Content-Type = %q, want multipart/byteranges with a boundary", ct)
				}
				if method == "HEAD" {
					// As long as the GET's body.
					get, _ := http.NewRequest("GET", u, nil)
					get.Header = req.Header
					gres, err := http.DefaultClient.Do(get)
					if err != nil {
						t.Fatal(err)
					}
					gbody, _ := io.ReadAll(gres.Body)
					_ = gres.Body.Close()
					if res.ContentLength != int64(len(gbody)) {
						t.Errorf("HEAD Content-Length %d, GET body %d bytes", res.ContentLength, len(gbody))
					}
					return
				}
				if res.ContentLength != int64(len(body)) {
					t.Errorf("Content-Length %d, body %d bytes", res.ContentLength, len(body))
				}
				mr := multipart.NewReader(bytes.NewReader(body), params["boundary"])
				for i := 0; ; i++ {
					p, err := mr.NextPart()
					if err == io.EOF {
						if i != len(tc.parts) {
							t.Errorf("%d parts, want %d", i, len(tc.parts))
						}
						break
					}
					if err != nil {
						t.Fatalf("part %d: %v", i, err)
					}
					pb, _ := io.ReadAll(p)
					if i >= len(tc.parts) {
						t.Errorf("extra part %d: %q", i, p.Header.Get("Content-Range"))
						continue
					}
					want := tc.parts[i]
					if p.Header.Get("Content-Range") != want.contentRange || string(pb) != want.body || p.Header.Get("Content-Type") != "application/pdf" {
						t.Errorf("part %d: %v %q, want %q %q", i, p.Header, pb, want.contentRange, want.body)
					}
				}
			default:
				if ct != "application/pdf" {
					t.Errorf("Content-Type = %q, want application/pdf", ct)
				}
				if res.ContentLength != int64(len(tc.body)) {
					t.Errorf("Content-Length = %d, want %d", res.ContentLength, len(tc.body))
				}
				if method != "HEAD" && string(body) != tc.body {
					t.Errorf("body = %.40q (%d bytes), want %.40q (%d bytes)", body, len(body), tc.body, len(tc.body))
				}
				if hd.Get("Accept-Ranges") != "bytes" || hd.Get("Last-Modified") == "" ||
					!strings.HasPrefix(hd.Get("Content-Disposition"), "attachment") || hd.Get("X-Content-Type-Options") != "nosniff" {
					t.Errorf("headers %v", hd)
				}
			}
		})
	}
}

// TestDownloadOpenErrors checks that a file deleted between
// its attributes and its read is gone, and a store failure internal, as
// problem+json.
func TestDownloadOpenErrors(t *testing.T) {
	b := openBucket(t)
	now := t0
	for _, tc := range []struct {
		name   string
		err    error
		status int
		code   docmill.Code
	}{
		{"deleted", docmill.ErrNotFound, 410, docmill.CodeGone},
		{"store failure", errors.New("bucket misconfigured"), 500, docmill.CodeInternal},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := fileServer(failingReads{b, tc.err}, "k1", &now)
			putBlob(t, b, docmill.ResultKey("job_x", "a.pdf"), "%PDF-1.7 data")
			w := do(s, "GET", signedTarget(t, s, "job_x", "a.pdf", t0.Add(time.Hour)), "Range", "bytes=0-1,3-4")
			if w.Code != tc.status || w.Header().Get("Content-Type") != "application/problem+json" || problemCode(t, w) != tc.code {
				t.Errorf("%d %q %s", w.Code, w.Header().Get("Content-Type"), w.Body)
			}
		})
	}
}

// failingReads is a BlobStore whose readers fail to open with err.
type failingReads struct {
	docmill.BlobStore
	err error
}

func (f failingReads) NewRangeReader(context.Context, string, int64, int64) (io.ReadCloser, error) {
	return nil, f.err
}
