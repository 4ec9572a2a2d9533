package httpapi

import (
	"bytes"
	"mime/multipart"
	"testing"

	"github.com/docmill/docmill"
)

// TestNoFileTools: a tool that takes no file (url-to-pdf) is sent form
// fields only, and refuses a file or a file_url; a tool that needs files
// still answers missing_file without one. Its TypeURL params go through
// the URL client's rules before a job is made.
func TestNoFileTools(t *testing.T) {
	s := &Server{cfg: Config{MaxUploadBytes: 1 << 20, URLs: strictURLs()}}
	urlTool := &docmill.Tool{Slug: "url-to-pdf", Params: []docmill.Param{{Name: "url", Type: docmill.TypeURL, Required: true}}}
	fileTool := &docmill.Tool{Slug: "rotate-pdf", Accepts: []string{"application/pdf"}, MinFiles: 1, MaxFiles: 1}
	type part struct{ name, filename, value string }
	read := func(tool *docmill.Tool, parts ...part) (*upload, error) {
		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		for _, p := range parts {
			if p.filename != "" {
				w, _ := mw.CreateFormFile(p.name, p.filename)
				w.Write([]byte(p.value))
			} else {
				mw.WriteField(p.name, p.value)
			}
		}
		mw.Close()
		return s.readParts(t.Context(), &body, mw.Boundary(), tool, "job", sizeLimit{bytes: 1 << 20, owner: "test"}, discard{}, false)
	}
	up, err := read(urlTool, part{name: "url", value: "https://example.com/"})
	if err != nil || len(up.files) != 0 || up.fields["url"] != "https://example.com/" {
		t.Fatalf("fields only: %v, %+v", err, up)
	}
	if _, err := read(urlTool); err != nil {
		t.Errorf("an empty form (the url's absence is ParseParams' to refuse): %v", err)
	}
	if _, err := read(urlTool, part{name: "file", filename: "a.pdf", value: "%PDF-1.7\n"}); docmill.ErrorCode(err) != docmill.CodeTooManyFiles {
		t.Errorf("a file: %v, want too_many_files", err)
	}
	if _, err := read(urlTool, part{name: "file_url", value: "https://example.com/a.pdf"}); docmill.ErrorCode(err) != docmill.CodeTooManyFiles {
		t.Errorf("a file_url: %v, want too_many_files", err)
	}
	if _, err := read(fileTool, part{name: "angle", value: "90"}); docmill.ErrorCode(err) != docmill.CodeMissingFile {
		t.Errorf("a file tool without a file: %v, want missing_file", err)
	}

	for raw, ok := range map[string]bool{"https://1.1.1.1/": true, "https://127.0.0.1/": false, "http://1.1.1.1/": false} {
		err := s.checkURLParams(t.Context(), urlTool, docmill.Params{"url": raw})
		if (err == nil) != ok || (!ok && docmill.ErrorCode(err) != docmill.CodeInvalidParameter) {
			t.Errorf("checkURLParams(%s): %v, want ok %v", raw, err, ok)
		}
	}
	if err := (&Server{}).checkURLParams(t.Context(), urlTool, docmill.Params{"url": "https://example.com/"}); docmill.ErrorCode(err) != docmill.CodeInvalidParameter {
		t.Errorf("without a URL client: %v, want invalid_parameter", err)
	}
}
