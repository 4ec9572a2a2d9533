package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/docmill/docmill/client"
)

// TestGoParams: client/tools_gen.go is what `docmill docs go-params`
// writes from the registry, byte for byte, so the Go client's typed
// params cannot drift from the declarations.
func TestGoParams(t *testing.T) {
	t.Parallel()
	reg, closeTools, err := referenceRegistry()
	if err != nil {
		t.Fatal(err)
	}
	defer closeTools()
	var want strings.Builder
	if err := writeGoParams(&want, reg); err != nil {
		t.Fatal(err)
	}
	if got := docFile(t, "client/tools_gen.go"); got != want.String() {
		t.Errorf("client/tools_gen.go is not what the registry declares; run from the repository's root:\n\t%s", docsGoParamsCommand)
	}
}

// clientTypedParams: a generated params struct reaches the real server
// as the tool's form fields: an optional int set is applied (the job's
// record keeps the tool's own meta beside the common figures), one out of
// bounds is refused as invalid_parameter naming the field, and a bool set
// to false is sent rather than left to its default of true.
func clientTypedParams(t *testing.T, srv *testServer, key string) {
	c := srv.client(key)
	ctx := t.Context()
	j, _, err := c.ProcessTool(ctx, client.RotatePDF{Angle: client.Ptr(180)}, []client.File{pdfFile("a.pdf", onePagePDF())}, client.ProcessOptions{})
	if err != nil || j.Status != "done" || j.Tool != "rotate-pdf" {
		t.Fatalf("rotate-pdf with typed params: %+v, %v", j, err)
	}
	for _, common := range []string{"duration_ms", "input_size"} {
		if _, ok := j.Meta.Int(common); !ok {
			t.Errorf("meta %v lacks %s", j.Meta, common)
		}
	}
	if pages, ok := j.Meta.Int("pages"); !ok || pages != 1 {
		t.Errorf("meta %v: want the tool's own pages: 1 kept", j.Meta)
	}

	_, _, err = c.ProcessTool(ctx, client.CompressPDF{Quality: client.Ptr(500)}, []client.File{pdfFile("a.pdf", onePagePDF())}, client.ProcessOptions{})
	var pr *client.Problem
	if !errors.As(err, &pr) || pr.Code != "invalid_parameter" || len(pr.Fields) != 1 || pr.Fields[0].Field != "quality" {
		t.Errorf("compress-pdf quality 500: %v, want invalid_parameter on quality", err)
	}

	p := newFailingProxy(t, srv.URL)
	off := client.SanitizePDF{Javascript: client.Ptr(false)}
	if _, _, err := p.client(key).ProcessTool(ctx, off, []client.File{pdfFile("a.pdf", onePagePDF())}, client.ProcessOptions{}); err != nil {
		t.Fatal(err)
	}
	seen := p.requests()
	if len(seen) != 1 || !strings.Contains(seen[0].body, "name=\"javascript\"\r\n\r\nfalse\r\n") || strings.Contains(seen[0].body, `name="open_action"`) {
		t.Errorf("sanitize-pdf's form: want javascript=false and no unset param")
	}
}
