package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/tools/toolstest"
)

// qpdfDoc is a PDF as qpdf --json reads it: its pages' objects and every
// object by "obj:N 0 R" (or "trailer").
type qpdfDoc struct {
	Pages []struct {
		Object string `json:"object"`
	} `json:"pages"`
	objects map[string]json.RawMessage
}

// readQPDF parses data with qpdf --json, a reader other than pdfcpu.
func readQPDF(t *testing.T, data []byte) *qpdfDoc {
	t.Helper()
	out, err := exec.Command("qpdf", "--json", toolstest.WriteTemp(t, "q.pdf", data)).Output()
	if err != nil && exitCode(err) != 3 {
		t.Fatalf("qpdf --json: %v", err)
	}
	var doc struct {
		qpdfDoc
		QPDF []json.RawMessage `json:"qpdf"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.QPDF) != 2 || json.Unmarshal(doc.QPDF[1], &doc.objects) != nil {
		t.Fatalf("qpdf --json: no objects")
	}
	return &doc.qpdfDoc
}

// value returns the value of object ref ("12 0 R"), nil when absent.
func (d *qpdfDoc) value(ref string) any {
	var o struct {
		Value  any `json:"value"`
		Stream struct {
			Dict any `json:"dict"`
		} `json:"stream"`
	}
	if json.Unmarshal(d.objects["obj:"+ref], &o) != nil {
		return nil
	}
	if o.Value == nil {
		return o.Stream.Dict
	}
	return o.Value
}

// resolve follows an indirect reference; other values are returned as
// they are.
func (d *qpdfDoc) resolve(v any) any {
	if s, ok := v.(string); ok && strings.HasSuffix(s, " 0 R") {
		return d.value(s)
	}
	return v
}

// annotSubtypes returns the subtypes ("/Link") of each page's
// annotations.
func (d *qpdfDoc) annotSubtypes() [][]string {
	out := make([][]string, len(d.Pages))
	for i, p := range d.Pages {
		page, _ := d.value(p.Object).(map[string]any)
		annots, _ := d.resolve(page["/Annots"]).([]any)
		for _, a := range annots {
			annot, _ := d.resolve(a).(map[string]any)
			sub, _ := annot["/Subtype"].(string)
			out[i] = append(out[i], sub)
		}
	}
	return out
}

// TestRemoveAnnotationsE2E checks remove-annotations' output with qpdf
// (the annotations left) and pdftotext (the text unchanged).
func TestRemoveAnnotationsE2E(t *testing.T) {
	t.Parallel()
	s := startServer(t, "")
	c := s.client(s.DevKey)
	t.Run("corpus", func(t *testing.T) {
		in := toolstest.ReadCorpus(t, "pdf", "annotated_pdf.pdf")
		if got := readQPDF(t, in).annotSubtypes(); len(got[0]) == 0 {
			t.Fatalf("annotated_pdf.pdf has no annotations: %v", got)
		}
		j, data := runTool(t, c, "remove-annotations", []client.File{file(t, "pdf", "annotated_pdf.pdf")}, nil)
		if j.Result.Filename != "annotated_pdf-no-annotations.pdf" || j.Meta["removed"] != float64(len(readQPDF(t, in).annotSubtypes()[0])) {
			t.Fatalf("result %+v, meta %v", j.Result, j.Meta)
		}
		if got := readQPDF(t, data).annotSubtypes(); len(got) != 1 || len(got[0]) != 0 {
			t.Fatalf("qpdf reads annotations %v", got)
		}
		if got, want := pageText(t, data, 1), pageText(t, in, 1); got != want {
			t.Fatalf("text changed:\n%s\nwant\n%s", got, want)
		}
	})
	t.Run("keep", func(t *testing.T) {
		in := toolstest.ActivePDF()
		_, data := runTool(t, c, "remove-annotations", []client.File{{Name: "active.pdf", Body: bytes.NewReader(in)}}, map[string]string{"keep_links": "true"})
		got := readQPDF(t, data).annotSubtypes()
		if strings.Join(got[0], " ") != "/Link /Widget" || strings.Join(got[1], " ") != "/Link /Link /Link /Link" {
			t.Fatalf("qpdf reads annotations %v, want the links and the form field", got)
		}
		for p := 1; p <= 2; p++ {
			if got, want := pageText(t, data, p), pageText(t, in, p); got != want {
				t.Fatalf("page %d text %q, want %q", p, got, want)
			}
		}
	})
	t.Run("damaged", func(t *testing.T) {
		// Beyond repair: qpdf's recovery, which the pdfcpu tools retry
		// with, finds no objects in it.
		_, _, err := c.Process(context.Background(), "remove-annotations", []client.File{{Name: "x.pdf", Body: strings.NewReader("%PDF-1.4\nnot a pdf at all")}}, client.ProcessOptions{})
		apiError(t, err, 400, "invalid_document")
	})
}
