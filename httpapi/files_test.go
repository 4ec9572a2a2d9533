package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/blob"
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
	return NewServer(Config{
		Blob: b, SigningKey: []byte(key), BaseURL: "https://api.example.com/",
		CDNURL: "https://cdn.example.com/", Logger: slog.New(slog.DiscardHandler),
		Now: func() time.Time { return *now },
	})
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
	var p problem
	if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil {
		t.Fatalf("status %d, body not a problem: %v: %s", w.Code, err, w.Body)
	}
	return p.Code
}

// signedTarget is the request target (path and query) of a signed URL.
func signedTarget(t *testing.T, s *Server, jobID, filename string, exp time.Time) string {
	t.Helper()
	raw := s.fileURL(jobID, filename, exp)
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
