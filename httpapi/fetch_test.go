package httpapi

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/docmill/docmill"
)

func docmillExport(u string, keep bool) docmill.Export {
	return docmill.Export{URL: u, KeepResult: keep, Status: docmill.ExportPending}
}

func TestFetchedName(t *testing.T) {
	tests := []struct {
		disposition, url, want string
	}{
		{"", "https://example.com/docs/report.pdf", "report.pdf"},
		{"", "https://example.com/docs/a%20b.pdf?x=1", "a b.pdf"},
		{"", "https://example.com/", "file"},
		{"", "https://example.com", "file"},
		{`attachment; filename="../../etc/passwd"`, "https://example.com/x", "passwd"},
		{`attachment; filename="C:\\Users\\me\\scan.pdf"`, "https://example.com/x", "scan.pdf"},
		{`attachment; filename*=UTF-8''%C3%A9t%C3%A9.pdf`, "https://example.com/x", "été.pdf"},
		{`attachment; filename="evil` + "\u202e" + `fdp.exe"`, "https://example.com/x", "evilfdp.exe"},
		{`attachment`, "https://example.com/d/in.docx", "in.docx"},
	}
	for _, tt := range tests {
		u, _ := url.Parse(tt.url)
		resp := &http.Response{Header: http.Header{}, Request: &http.Request{URL: u}}
		if tt.disposition != "" {
			resp.Header.Set("Content-Disposition", tt.disposition)
		}
		if got := fetchedName(resp); got != tt.want {
			t.Errorf("fetchedName(%q, %q) = %q, want %q", tt.disposition, tt.url, got, tt.want)
		}
	}
}

func TestRedactURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://bucket.s3.amazonaws.com/k/r.pdf?X-Amz-Signature=abc&X-Amz-Credential=x": "https://bucket.s3.amazonaws.com/k/r.pdf",
		"https://user:pass@example.com/a#frag":                                           "https://example.com/a",
		"http://127.0.0.1:9000/b/o":                                                      "http://127.0.0.1:9000/b/o",
	} {
		if got := redactURL(in); got != want {
			t.Errorf("redactURL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestWithExport(t *testing.T) {
	items := make([]string, 1, 4)
	items[0] = "h"
	a := withExport(items, nil)
	if len(a) != 1 {
		t.Fatalf("without export: %v", a)
	}
	_ = append(items, "other") // must not change what withExport returned
	b := withExport(items, &exportFixture)
	c := withExport(items, &exportFixture2)
	if b[1] == c[1] {
		t.Errorf("keep_result is not in the request hash: %v %v", b, c)
	}
}

var (
	exportFixture  = docmillExport("https://x.example/o?sig=1", true)
	exportFixture2 = docmillExport("https://x.example/o?sig=1", false)
)
