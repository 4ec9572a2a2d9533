package poppler

import (
	"archive/zip"
	"encoding/xml"
	"io"
	"os"
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/toolstest"
)

// svgRoot is what the tests read of an SVG: its root's name and size.
type svgRoot struct {
	XMLName xml.Name
	Width   string `xml:"width,attr"`
	Height  string `xml:"height,attr"`
}

// readSVG parses an SVG document whole, failing t unless it is well
// formed XML.
func readSVG(t *testing.T, r io.Reader) svgRoot {
	t.Helper()
	var root svgRoot
	if err := xml.NewDecoder(r).Decode(&root); err != nil {
		t.Fatalf("not XML: %v", err)
	}
	return root
}

func TestPDFToSVG(t *testing.T) {
	tool := moreTool(t, "pdf-to-svg")
	src := toolstest.WriteTemp(t, "doc.pdf", toolstest.TextPDF("One", "Two", "Three"))
	out := mustRunTool(t, tool, src, nil)
	if out.ContentType != "application/zip" || out.Filename != "doc-svg.zip" || out.Meta["images"] != 3 || out.Meta["pages"] != 3 {
		t.Fatalf("%+v", out)
	}
	zr, err := zip.OpenReader(out.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	for i, f := range zr.File {
		if want := "doc-" + string(rune('1'+i)) + ".svg"; f.Name != want {
			t.Errorf("entry %d: %q, want %q", i, f.Name, want)
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		root := readSVG(t, rc)
		rc.Close()
		if root.XMLName.Local != "svg" || root.Width != "595pt" || root.Height != "842pt" {
			t.Errorf("%s: root %+v", f.Name, root)
		}
	}

	out = mustRunTool(t, tool, src, map[string]string{"pages": "2"})
	if out.ContentType != svgContentType || out.Filename != "doc-2.svg" || out.Meta["images"] != 1 {
		t.Fatalf("one page: %+v", out)
	}
	fh, err := os.Open(out.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	if root := readSVG(t, fh); root.XMLName.Local != "svg" {
		t.Errorf("one page: root %+v", root)
	}

	_, err = runTool(t, tool, src, map[string]string{"pages": "4"})
	toolstest.WantCode(t, err, docmill.CodeInvalidParameter, "pages")
	_, err = runTool(t, tool, toolstest.WriteTemp(t, "x.pdf", []byte("%PDF-1.4\nnot a pdf at all")), nil)
	toolstest.WantCode(t, err, docmill.CodeInvalidDocument, "")
}
