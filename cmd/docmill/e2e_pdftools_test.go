package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/tools/toolstest"
)

// runTool runs tool synchronously and returns the done job and its result.
func runTool(t *testing.T, c *client.Client, tool string, files []client.File, params map[string]string) (*client.Job, []byte) {
	t.Helper()
	j, _, err := c.Process(context.Background(), tool, files, client.ProcessOptions{Params: params, Prefer: "wait=60"})
	if err != nil {
		t.Fatalf("%s %v: %v", tool, params, err)
	}
	if j.Status != "done" {
		t.Fatalf("%s: %+v", tool, j)
	}
	return j, download(t, j.Result.URL)
}

// pageStarts returns the first words of every page of a PDF.
func pageStarts(t *testing.T, data []byte) []string {
	t.Helper()
	n := len(pdfPages(t, data))
	out := make([]string, n)
	for i := range out {
		out[i] = firstWords(pageText(t, data, i+1))
	}
	return out
}

// corpusStarts returns the first words of the given pages of a corpus PDF.
func corpusStarts(t *testing.T, name string, pages ...int) []string {
	out := make([]string, len(pages))
	for i, p := range pages {
		out[i] = firstWords(corpusPageText(t, name, p))
	}
	return out
}

func equalStrings(a, b []string) bool {
	return strings.Join(a, "\x00") == strings.Join(b, "\x00")
}

const fourPages = "pdflatex-4-pages.pdf"

func TestSplitPDF(t *testing.T) {
	t.Parallel()
	s := startServer(t, "")
	c := s.client(s.DevKey)
	four := func() []client.File { return []client.File{file(t, "pdf", fourPages)} }

	j, data := runTool(t, c, "split-pdf", four(), map[string]string{"ranges": "1-2,4"})
	if j.Result.Filename != "pdflatex-4-pages-split.zip" || j.Result.ContentType != "application/zip" {
		t.Fatalf("result %+v", j.Result)
	}
	entries := toolstest.Unzip(t, data)
	if len(entries) != 2 {
		t.Fatalf("entries %v", len(entries))
	}
	if got := pageStarts(t, entries["pdflatex-4-pages-1-2.pdf"]); !equalStrings(got, corpusStarts(t, fourPages, 1, 2)) {
		t.Fatalf("part 1-2: %q", got)
	}
	if got := pageStarts(t, entries["pdflatex-4-pages-4.pdf"]); !equalStrings(got, corpusStarts(t, fourPages, 4)) {
		t.Fatalf("part 4: %q", got)
	}

	_, data = runTool(t, c, "split-pdf", four(), map[string]string{"every": "3"})
	entries = toolstest.Unzip(t, data)
	if len(pdfPages(t, entries["pdflatex-4-pages-1-3.pdf"])) != 3 || len(pdfPages(t, entries["pdflatex-4-pages-4.pdf"])) != 1 {
		t.Fatalf("every=3 entries: %d", len(entries))
	}

	// One range: the PDF itself, with an open range resolved.
	j, data = runTool(t, c, "split-pdf", four(), map[string]string{"ranges": "3-"})
	if j.Result.Filename != "pdflatex-4-pages-3-4.pdf" || !equalStrings(pageStarts(t, data), corpusStarts(t, fourPages, 3, 4)) {
		t.Fatalf("single range: %+v", j.Result)
	}

	// By bookmarks, in a pipeline that writes them first.
	j, _, err := pipeline(c, `[{"tool": "edit-bookmarks", "params": {"bookmarks": "[{\"title\": \"Part B\", \"page\": 3}, {\"title\": \"Part A\", \"page\": 2}]"}},
		{"tool": "split-pdf", "params": {"by_bookmarks": true}}]`, four(), client.ProcessOptions{Prefer: "wait=60"})
	if err != nil || j.Status != "done" {
		t.Fatalf("bookmarks pipeline: %v %+v", err, j)
	}
	entries = toolstest.Unzip(t, download(t, j.Result.URL))
	for name, pages := range map[string][]int{"00-start": {1}, "01-Part A": {2}, "02-Part B": {3, 4}} {
		part := entries["pdflatex-4-pages-bookmarks-"+name+".pdf"]
		if got := pageStarts(t, part); !equalStrings(got, corpusStarts(t, fourPages, pages...)) {
			t.Errorf("part %s: %q (entries %d)", name, got, len(entries))
		}
	}

	// By size: parts of at most 1 MB of a small document are the document.
	j, data = runTool(t, c, "split-pdf", four(), map[string]string{"max_size_mb": "1"})
	if j.Result.Filename != "pdflatex-4-pages-1-4.pdf" || len(pdfPages(t, data)) != 4 {
		t.Fatalf("by size: %+v", j.Result)
	}
}

func TestPageTools(t *testing.T) {
	t.Parallel()
	s := startServer(t, "")
	c := s.client(s.DevKey)
	cases := []struct {
		tool, field, value string
		want               []int
		filename           string
	}{
		{"extract-pages", "pages", "3,1", []int{1, 3}, "pdflatex-4-pages-extracted.pdf"},
		{"remove-pages", "pages", "2-3", []int{1, 4}, "pdflatex-4-pages-removed.pdf"},
		{"organize-pdf", "order", "3,1,1,4-", []int{3, 1, 1, 4}, "pdflatex-4-pages-organized.pdf"},
	}
	for _, tc := range cases {
		t.Run(tc.tool, func(t *testing.T) {
			j, data := runTool(t, c, tc.tool, []client.File{file(t, "pdf", fourPages)}, map[string]string{tc.field: tc.value})
			if j.Result.Filename != tc.filename {
				t.Fatalf("filename %q", j.Result.Filename)
			}
			if got := pageStarts(t, data); !equalStrings(got, corpusStarts(t, fourPages, tc.want...)) {
				t.Fatalf("pages %q, want corpus pages %v", got, tc.want)
			}
			// The field is required, and a page past the end names it.
			_, _, err := c.Process(context.Background(), tc.tool, []client.File{file(t, "pdf", fourPages)}, client.ProcessOptions{})
			if e := apiError(t, err, 400, "invalid_parameter"); e.Fields[0].Field != tc.field {
				t.Fatalf("missing field: %+v", e.Fields)
			}
			_, _, err = c.Process(context.Background(), tc.tool, []client.File{file(t, "pdf", fourPages)},
				client.ProcessOptions{Params: map[string]string{tc.field: "2,5"}})
			if e := apiError(t, err, 400, "invalid_parameter"); e.Fields[0].Field != tc.field || !strings.Contains(e.Detail, "4 page") {
				t.Fatalf("past the end: %+v %s", e.Fields, e.Detail)
			}
		})
	}
	_, _, err := c.Process(context.Background(), "remove-pages", []client.File{file(t, "pdf", fourPages)},
		client.ProcessOptions{Params: map[string]string{"pages": "1-4"}})
	apiError(t, err, 400, "invalid_parameter")
}

func TestWatermark(t *testing.T) {
	t.Parallel()
	s := startServer(t, "")
	c := s.client(s.DevKey)
	for _, text := range []string{"CONFIDENTIAL", "Конфиденциально"} {
		j, data := runTool(t, c, "watermark-pdf", []client.File{file(t, "pdf", fourPages)},
			map[string]string{"text": text, "pages": "1-2", "color": "#ff0000", "opacity": "0.5", "position": "top-right", "rotation": "0"})
		if j.Result.Filename != "pdflatex-4-pages-watermarked.pdf" {
			t.Fatalf("filename %q", j.Result.Filename)
		}
		for p, want := range map[int]bool{1: true, 2: true, 3: false} {
			if got := strings.Contains(pageText(t, data, p), text); got != want {
				t.Fatalf("%q on page %d: %v, want %v", text, p, got, want)
			}
		}
		fonts, err := exec.Command("pdffonts", toolstest.WriteTemp(t, "w.pdf", data)).CombinedOutput()
		if err != nil || !bytes.Contains(fonts, []byte(" yes ")) {
			t.Fatalf("pdffonts: %v\n%s", err, fonts)
		}
	}
	for field, value := range map[string]string{"color": "red", "opacity": "2", "rotation": "270", "position": "middle"} {
		_, _, err := c.Process(context.Background(), "watermark-pdf", []client.File{file(t, "pdf", fourPages)},
			client.ProcessOptions{Params: map[string]string{"text": "x", field: value}})
		if e := apiError(t, err, 400, "invalid_parameter"); e.Fields[0].Field != field {
			t.Fatalf("%s=%s: %+v", field, value, e.Fields)
		}
	}
}

func TestPageNumbers(t *testing.T) {
	t.Parallel()
	s := startServer(t, "")
	c := s.client(s.DevKey)
	_, data := runTool(t, c, "page-numbers", []client.File{file(t, "pdf", fourPages)}, map[string]string{"format": "Page {n} of {total}"})
	for p := 1; p <= 4; p++ {
		if want := "Page " + string(rune('0'+p)) + " of 4"; !strings.Contains(pageText(t, data, p), want) {
			t.Fatalf("page %d lacks %q", p, want)
		}
	}
	// A cover left out: numbering counts pages by position from start.
	_, data = runTool(t, c, "page-numbers", []client.File{file(t, "pdf", fourPages)},
		map[string]string{"pages": "2-", "start": "1", "format": "Folio {n}", "position": "top-right"})
	if strings.Contains(pageText(t, data, 1), "Folio") || !strings.Contains(pageText(t, data, 2), "Folio 1") || !strings.Contains(pageText(t, data, 4), "Folio 3") {
		t.Fatal("numbering with a cover left out")
	}
	_, _, err := c.Process(context.Background(), "page-numbers", []client.File{file(t, "pdf", fourPages)},
		client.ProcessOptions{Params: map[string]string{"format": "no number"}})
	if e := apiError(t, err, 400, "invalid_parameter"); e.Fields[0].Field != "format" {
		t.Fatalf("%+v", e.Fields)
	}
}

func TestProtectAndUnlock(t *testing.T) {
	t.Parallel()
	s := startServer(t, "")
	c := s.client(s.DevKey)
	j, data := runTool(t, c, "protect-pdf", []client.File{file(t, "pdf", fourPages)},
		map[string]string{"password": "s3cret!", "owner_password": "0wner", "permissions": "print"})
	if j.Result.Filename != "pdflatex-4-pages-protected.pdf" {
		t.Fatalf("filename %q", j.Result.Filename)
	}
	path := toolstest.WriteTemp(t, "p.pdf", data)
	// qpdf, another program, says a password is needed and that it is AES-256.
	if err := exec.Command("qpdf", "--requires-password", path).Run(); exitCode(err) != 0 {
		t.Fatalf("qpdf --requires-password: %v", err)
	}
	enc, err := exec.Command("qpdf", "--show-encryption", "--password=s3cret!", path).CombinedOutput()
	if err != nil || !bytes.Contains(enc, []byte("AESv3")) || !bytes.Contains(enc, []byte("modify anything: not allowed")) ||
		!bytes.Contains(enc, []byte("print high resolution: allowed")) {
		t.Fatalf("qpdf --show-encryption: %v\n%s", err, enc)
	}
	if err := exec.Command("pdftotext", path, "-").Run(); err == nil {
		t.Fatal("pdftotext opened the protected file without a password")
	}
	if !strings.Contains(pageText(t, data, 1, "-upw", "s3cret!"), strings.Fields(corpusPageText(t, fourPages, 1))[0]) {
		t.Fatal("text not readable with the password")
	}
	// The password is not kept in the job's record.
	var params string
	if err := openDB(t, s.DataDir).QueryRow(`SELECT params FROM jobs WHERE id = $1`, j.JobID).Scan(&params); err != nil || strings.Contains(params, "s3cret") {
		t.Fatalf("stored params %q %v", params, err)
	}

	// Bad permissions and passwords are refused with the request, before
	// any job exists (a failed job's problem would carry its job_id).
	for field, value := range map[string]string{"permissions": "print,scan", "password": "has space"} {
		params := map[string]string{"password": "pw", field: value}
		_, _, err := c.Process(context.Background(), "protect-pdf", []client.File{file(t, "pdf", fourPages)}, client.ProcessOptions{Params: params})
		if e := apiError(t, err, 400, "invalid_parameter"); e.Fields[0].Field != field || e.JobID != "" || strings.Contains(e.Detail, value) && field == "password" {
			t.Fatalf("%s=%q: %+v %s", field, value, e.Fields, e.JobID)
		}
	}

	// Any other tool refuses the protected file; unlock-pdf opens it.
	_, _, err = c.Process(context.Background(), "rotate-pdf", []client.File{{Name: "p.pdf", Body: bytes.NewReader(data)}}, client.ProcessOptions{})
	apiErrorDetail(t, err, 400, "invalid_document", "password")
	_, _, err = c.Process(context.Background(), "unlock-pdf", []client.File{{Name: "p.pdf", Body: bytes.NewReader(data)}},
		client.ProcessOptions{Params: map[string]string{"password": "wrong"}})
	if e := apiError(t, err, 400, "invalid_parameter"); e.Fields[0].Field != "password" {
		t.Fatalf("%+v", e.Fields)
	}
	for _, pw := range []string{"s3cret!", "0wner"} {
		j, plain := runTool(t, c, "unlock-pdf", []client.File{{Name: "p.pdf", Body: bytes.NewReader(data)}}, map[string]string{"password": pw})
		if j.Result.Filename != "p-unlocked.pdf" {
			t.Fatalf("filename %q", j.Result.Filename)
		}
		if err := exec.Command("qpdf", "--is-encrypted", toolstest.WriteTemp(t, "u.pdf", plain)).Run(); exitCode(err) != 2 {
			t.Fatalf("unlocked with %s is still encrypted: %v", pw, err)
		}
	}
	// The corpus's encrypted file, with its user password.
	_, plain := runTool(t, c, "unlock-pdf", []client.File{file(t, "pdf", "libreoffice-writer-password.pdf")}, map[string]string{"password": "openpassword"})
	if pageText(t, plain, 1) == "" {
		t.Fatal("no text after unlocking")
	}
}

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	if e, ok := err.(*exec.ExitError); ok {
		return e.ExitCode()
	}
	return -1
}

func TestImagesToPDF(t *testing.T) {
	t.Parallel()
	s := startServer(t, "")
	c := s.client(s.DevKey)
	photo := toolstest.ReadCorpus(t, "image", "photo.jpg")
	files := []client.File{
		{Name: "photo.jpg", Body: bytes.NewReader(photo)},
		file(t, "image", "map.png"),
		file(t, "image", "smile.tiff"),
	}
	j, data := runTool(t, c, "jpg-to-pdf", files, map[string]string{"page_size": "a4", "margin": "small"})
	if n := len(pdfPages(t, data)); n != 3 || j.Result.ContentType != "application/pdf" {
		t.Fatalf("%d pages, %+v", n, j.Result)
	}
	info, _ := exec.Command("pdfinfo", "-f", "1", "-l", "3", toolstest.WriteTemp(t, "i.pdf", data)).CombinedOutput()
	if !bytes.Contains(info, []byte("595.28 x 841.89")) && !bytes.Contains(info, []byte("841.89 x 595.28")) {
		t.Fatalf("not A4:\n%s", info)
	}
	// The JPEG is embedded as it was: pdfimages -j gets the same bytes back.
	dir := t.TempDir()
	if out, err := exec.Command("pdfimages", "-j", "-f", "1", "-l", "1", toolstest.WriteTemp(t, "i.pdf", data), dir+"/img").CombinedOutput(); err != nil {
		t.Fatalf("pdfimages: %v %s", err, out)
	}
	got, err := os.ReadFile(dir + "/img-000.jpg")
	if err != nil || !bytes.Equal(got, photo) {
		t.Fatalf("embedded JPEG differs from the upload (%v)", err)
	}
	for name, code := range map[string]string{"corrupted.jpg": "invalid_document"} {
		_, _, err := c.Process(context.Background(), "jpg-to-pdf", []client.File{file(t, "image", name)}, client.ProcessOptions{})
		apiError(t, err, 400, code)
	}
}

// TestPDFToolsBadInputs: every PDF tool answers damaged, empty, encrypted
// and mislabelled files with a 400 of the right code.
func TestPDFToolsBadInputs(t *testing.T) {
	t.Parallel()
	s := startServer(t, "")
	c := s.client(s.DevKey)
	good := toolstest.ReadCorpus(t, "pdf", fourPages)
	png := toolstest.ReadCorpus(t, "image", "smile.png")
	params := map[string]map[string]string{
		"extract-pages": {"pages": "1"}, "remove-pages": {"pages": "1"}, "organize-pdf": {"order": "1"},
		"watermark-pdf": {"text": "x"}, "protect-pdf": {"password": "pw"}, "unlock-pdf": {"password": "pw"},
	}
	bad := []struct {
		name string
		body []byte
		code string
	}{
		{"truncated.pdf", good[:len(good)/2], "invalid_document"},
		{"empty.pdf", nil, "invalid_document"},
		{"smile.pdf", png, "unsupported_file_type"},
		{"notes.pdf", []byte("%PDF-1.7\nthis is not a PDF at all\n"), "invalid_document"},
	}
	tools := []string{"split-pdf", "extract-pages", "remove-pages", "organize-pdf", "watermark-pdf", "page-numbers", "protect-pdf", "rotate-pdf"}
	for _, tool := range tools {
		for _, b := range bad {
			t.Run(tool+"/"+b.name, func(t *testing.T) {
				_, _, err := c.Process(context.Background(), tool, []client.File{{Name: b.name, Body: bytes.NewReader(b.body)}},
					client.ProcessOptions{Params: params[tool]})
				apiError(t, err, 400, b.code)
			})
		}
		t.Run(tool+"/encrypted", func(t *testing.T) {
			_, _, err := c.Process(context.Background(), tool, []client.File{file(t, "pdf", "libreoffice-writer-password.pdf")},
				client.ProcessOptions{Params: params[tool]})
			apiErrorDetail(t, err, 400, "invalid_document", "password")
		})
	}
	for _, name := range []string{"corrupted.jpg"} {
		_, _, err := c.Process(context.Background(), "jpg-to-pdf", []client.File{file(t, "image", name)}, client.ProcessOptions{})
		apiError(t, err, 400, "invalid_document")
	}
	_, _, err := c.Process(context.Background(), "jpg-to-pdf", []client.File{{Name: "empty.jpg", Body: bytes.NewReader(nil)}}, client.ProcessOptions{})
	apiError(t, err, 400, "invalid_document")
}
