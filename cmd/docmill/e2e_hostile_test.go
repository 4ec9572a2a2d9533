package main

import (
	"bufio"
	"compress/zlib"
	"context"
	"fmt"
	"github.com/docmill/docmill/tools/toolstest"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docmill/docmill/client"
)

// writeFlateBomb writes a one-page PDF whose content stream is size bytes
// of zeros, FlateDecode-compressed (4 GiB make a 5 MB file), streamed so
// the test itself holds nothing.
func writeFlateBomb(t testing.TB, path string, size int64) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	var offsets []int64
	pos := int64(0)
	put := func(s string) {
		n, _ := w.WriteString(s)
		pos += int64(n)
	}
	obj := func(body string) {
		offsets = append(offsets, pos)
		put(fmt.Sprintf("%d 0 obj\n%s\nendobj\n", len(offsets), body))
	}
	put("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
	obj("<< /Type /Catalog /Pages 2 0 R >>")
	obj("<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
	obj("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Resources << >> >>")

	// The stream's length is known only once it is compressed: compress to
	// a temporary file first.
	tmp, err := os.CreateTemp(filepath.Dir(path), "stream-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(tmp.Name())
	zw, _ := zlib.NewWriterLevel(tmp, zlib.BestSpeed)
	zeros := make([]byte, 1<<20)
	for n := int64(0); n < size; n += int64(len(zeros)) {
		if _, err := zw.Write(zeros); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	length, _ := tmp.Seek(0, io.SeekCurrent)
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	offsets = append(offsets, pos)
	put(fmt.Sprintf("4 0 obj\n<< /Length %d /Filter /FlateDecode >>\nstream\n", length))
	n, err := io.Copy(w, tmp)
	if err != nil {
		t.Fatal(err)
	}
	pos += n
	put("\nendstream\nendobj\n")
	xref := pos
	put(fmt.Sprintf("xref\n0 %d\n0000000000 65535 f \n", len(offsets)+1))
	for _, o := range offsets {
		put(fmt.Sprintf("%010d 00000 n \n", o))
	}
	put(fmt.Sprintf("trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offsets)+1, xref))
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
}

// TestFlateBomb: the PDF of 5 MB whose content stream inflates to 4 GiB,
// sent to every PDF tool, is refused with invalid_document (a processing
// limit) by each, while the server's own memory stays under 200 MB (its
// peak resident set, VmHWM, read at the end), and the server is ready
// afterwards.
func TestFlateBomb(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 4 GiB flate stream")
	}
	// Its server is its own: the peak RSS it bounds is that process's,
	// which other tests' load does not raise; no time is bounded.
	t.Parallel()
	bomb := filepath.Join(t.TempDir(), "bomb.pdf")
	writeFlateBomb(t, bomb, 4<<30)
	st, _ := os.Stat(bomb)
	t.Logf("bomb: %d bytes", st.Size())

	s := startChild(t, t.TempDir())
	c := s.client(s.DevKey)
	open := func() client.File {
		f, err := os.Open(bomb)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return client.File{Name: "bomb.pdf", Body: f}
	}
	cases := []struct {
		tool   string
		params map[string]string
		files  int
	}{
		{"rotate-pdf", map[string]string{"angle": "90"}, 1},
		{"watermark-pdf", map[string]string{"text": "draft"}, 1},
		{"page-numbers", nil, 1},
		{"split-pdf", map[string]string{"every": "1"}, 1},
		{"extract-pages", map[string]string{"pages": "1"}, 1},
		{"remove-pages", map[string]string{"pages": "1"}, 1},
		{"organize-pdf", map[string]string{"order": "1,1"}, 1},
		{"protect-pdf", map[string]string{"password": "s3cret-pass"}, 1},
		{"unlock-pdf", nil, 1},
		{"merge-pdf", nil, 2},
		{"compress-pdf", nil, 1},
		{"pdf-to-text", nil, 1},
		{"pdf-to-jpg", nil, 1},
		{"pdf-to-png", nil, 1},
		{"repair-pdf", nil, 1},
		{"pdf-to-pdfa", nil, 1},
		{"ocr-pdf", map[string]string{"lang": "eng"}, 1},
	}
	for _, tc := range cases {
		files := make([]client.File, tc.files)
		for i := range files {
			files[i] = open()
		}
		start := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		j, _, err := c.Process(ctx, tc.tool, files, client.ProcessOptions{Params: tc.params, Prefer: "wait=60"})
		if err == nil && !j.Finished() {
			j, err = c.Wait(ctx, j.JobID, time.Second)
		}
		cancel()
		var code, msg string
		switch {
		case err != nil:
			e := apiError(t, err, 400, "invalid_document")
			code, msg = string(e.Code), e.Detail
		case j.Status == "failed" && j.Error != nil:
			code, msg = string(j.Error.Code), j.Error.Message
		default:
			t.Errorf("%s: job %s, want a refusal", tc.tool, j.Status)
			continue
		}
		if code != "invalid_document" || !strings.Contains(msg, "processing limit") {
			t.Errorf("%s: %s %q, want invalid_document naming a processing limit", tc.tool, code, msg)
		}
		t.Logf("%s: refused in %s: %s", tc.tool, time.Since(start).Round(time.Millisecond), msg)
	}
	peak := toolstest.PeakRSS(t, s.cmd.Process.Pid)
	t.Logf("server peak RSS %d MB", peak>>20)
	if peak > 200<<20 {
		t.Errorf("server peak RSS %d MB, want under 200 MB", peak>>20)
	}
	resp, err := http.Get(s.URL + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("/readyz %d after the bombs", resp.StatusCode)
	}
}
