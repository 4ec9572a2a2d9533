package httpapi

import (
	"errors"
	"maps"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/outbound"
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

// strictURLs is the server's outbound client without
// --allow-private-urls. The tests give it literal addresses (1.1.1.1 is
// public, 127.0.0.1 is not), so that no name is resolved and nothing is
// dialed: CheckURL decides on the address alone.
func strictURLs() *outbound.Client { return outbound.New(outbound.Config{}) }

func TestTakeExport(t *testing.T) {
	s := &Server{cfg: Config{URLs: strictURLs()}}
	tests := []struct {
		fields    map[string]string
		want      *docmill.Export
		errField  string
		keptField bool
	}{
		{fields: map[string]string{"angle": "90"}, keptField: true},
		{fields: map[string]string{"export_url": " https://1.1.1.1/o?sig=1 "}, want: &docmill.Export{URL: "https://1.1.1.1/o?sig=1", KeepResult: true, Status: docmill.ExportPending}},
		{fields: map[string]string{"export_url": "https://1.1.1.1/o", "keep_result": "false"}, want: &docmill.Export{URL: "https://1.1.1.1/o", Status: docmill.ExportPending}},
		{fields: map[string]string{"export_url": "https://1.1.1.1/o", "keep_result": "maybe"}, errField: "keep_result"},
		{fields: map[string]string{"keep_result": "false"}, errField: "keep_result"},
		{fields: map[string]string{"export_url": "https://127.0.0.1/o"}, errField: "export_url"},
		{fields: map[string]string{"export_url": "https://1.1.1.1/" + strings.Repeat("x", maxURLBytes)}, errField: "export_url"},
	}
	for _, tt := range tests {
		in := maps.Clone(tt.fields)
		got, err := s.takeExport(t.Context(), tt.fields)
		if tt.errField != "" {
			var e *docmill.Error
			if !errors.As(err, &e) || e.Code != docmill.CodeInvalidParameter || e.Fields[0].Field != tt.errField {
				t.Errorf("%v: %v, want invalid_parameter on %s", in, err, tt.errField)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%v: %+v, %v; want %+v", in, got, err, tt.want)
		}
		if _, ok := tt.fields["export_url"]; ok {
			t.Errorf("%v: export_url left among the tool's fields", in)
		}
		if _, ok := tt.fields["angle"]; ok != tt.keptField {
			t.Errorf("%v: other fields changed: %v", in, tt.fields)
		}
	}
	if _, err := (&Server{}).takeExport(t.Context(), map[string]string{"export_url": "https://1.1.1.1/o"}); docmill.ErrorCode(err) != docmill.CodeInvalidParameter {
		t.Errorf("without a URL client: %v, want invalid_parameter", err)
	}
}
