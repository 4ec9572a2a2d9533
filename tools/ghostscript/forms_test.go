package ghostscript_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/ghostscript"
	"github.com/docmill/docmill/tools/pdfops"
	"github.com/docmill/docmill/tools/toolstest"
)

// TestMain lets this test binary serve as the PDF helper that fills
// forms, restores links, sets crop boxes and reads and embeds invoices,
// as docmill's own binary does in the server, and stops compress-pdf's
// spare runs once the tests ran.
func TestMain(m *testing.M) {
	toolstest.MainWith(m, gsSpares.Close, pdfops.FillFormStep(), pdfops.RestoreLinksStep(), pdfops.FlattenStep(), pdfops.SelectPagesStep(), pdfops.SetCropBoxStep(),
		pdfops.ReadInvoiceStep(), pdfops.EmbedInvoiceStep())
}

// steps are the tools' steps, run in real jailed helpers of this test
// binary, as cmd/docmill gives them to Tools.
func steps() ghostscript.Steps {
	h := toolstest.Helpers()
	return ghostscript.Steps{
		SetCropBox:   h.Step(pdfops.SetCropBoxStep()),
		Fill:         h.Step(pdfops.FillFormStep()),
		RestoreLinks: h.Step(pdfops.RestoreLinksStep()),
		Flatten:      h.Step(pdfops.FlattenStep()),
		CountPages:   h.Step(pdfops.SelectPagesStep()),
		ReadInvoice:  h.Step(pdfops.ReadInvoiceStep()),
		EmbedInvoice: h.Step(pdfops.EmbedInvoiceStep()),
	}
}

// runForm runs the named form tool on path with params.
func runForm(t *testing.T, slug string, params map[string]string, path string) (*docmill.RunOutput, error) {
	t.Helper()
	return runFormWithin(t, slug, params, path, docmill.Limits{})
}

// runFormWithin runs the named form tool on path with params and limits.
func runFormWithin(t *testing.T, slug string, params map[string]string, path string, limits docmill.Limits) (*docmill.RunOutput, error) {
	t.Helper()
	tl := toolstest.Find(t, ghostscript.Tools(gsEngine, qpdfEngine, steps(), gsSpares), slug)
	if !tl.IsAvailable() {
		toolstest.Lacking(t, "%s: engines not installed, or no jail", slug)
	}
	p, err := tl.ParseParams(params)
	if err != nil {
		return nil, err
	}
	dir := t.TempDir()
	return tl.Invoke(context.Background(), &docmill.RunInput{Params: p, WorkDir: dir, Files: []docmill.LocalFile{inputFile(t, dir, path)}, Limits: limits})
}

// TestFormStepsTakeTheRunsLimits checks that the steps of fill-pdf-form
// and flatten-pdf read the document within the run's limits: with a PDF
// size limit of 10 bytes both refuse it as too large.
func TestFormStepsTakeTheRunsLimits(t *testing.T) {
	tiny := docmill.Limits{PDFBytes: 10}
	form := toolstest.WriteTemp(t, "form.pdf", toolstest.FormPDF(""))
	for _, tt := range []struct {
		slug   string
		params map[string]string
	}{
		{"fill-pdf-form", map[string]string{"values": `{"Name": "Jane Roe"}`}},
		{"flatten-pdf", nil},
	} {
		t.Run(tt.slug, func(t *testing.T) {
			out, err := runFormWithin(t, tt.slug, tt.params, form, tiny)
			if docmill.ErrorCode(err) != docmill.CodeFileTooLarge {
				t.Fatalf("made %v, error %v; want file_too_large", out, err)
			}
		})
	}
}

// formState is what qpdf reads of a PDF's form and annotations: the
// fields' names and values, and the annotations' subtypes.
type formState struct {
	fields      map[string]string
	annotations []string
}

func readForm(t *testing.T, path string) formState {
	t.Helper()
	out, err := exec.Command("qpdf", "--json", "--json-key=acroform", path).Output()
	if err != nil {
		t.Fatalf("qpdf --json: %v", err)
	}
	var doc struct {
		Acroform struct {
			Fields []struct {
				Fullname string `json:"fullname"`
				Value    any    `json:"value"`
			} `json:"fields"`
		} `json:"acroform"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	s := formState{fields: map[string]string{}}
	for _, f := range doc.Acroform.Fields {
		s.fields[f.Fullname] = strings.TrimPrefix(jsonString(f.Value), "u:")
	}
	objects := toolstest.QPDFObjects(t, path)
	for _, p := range objects.Pages {
		for _, a := range objects.Annotations(p) {
			sub, _ := a["/Subtype"].(string)
			s.annotations = append(s.annotations, sub)
		}
	}
	return s
}

func jsonString(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return ""
}

func TestFlatten(t *testing.T) {
	in := toolstest.WriteTemp(t, "form.pdf", toolstest.FormPDF("Jane Roe"))
	if before := readForm(t, in); before.fields["Name"] != "Jane Roe" || len(before.annotations) != 6 {
		t.Fatalf("the test form reads %+v", before)
	}
	out, err := runForm(t, "flatten-pdf", nil, in)
	if err != nil {
		t.Fatal(err)
	}
	if out.Filename != "form-flattened.pdf" || out.Meta["pages"] != 1 {
		t.Errorf("output %q, meta %v", out.Filename, out.Meta)
	}
	after := readForm(t, out.Path)
	if len(after.fields) != 0 || len(after.annotations) != 0 {
		t.Errorf("after flattening qpdf reads fields %v, annotations %v", after.fields, after.annotations)
	}
	if got := text(t, out.Path); !strings.Contains(got, "Jane Roe") || !strings.Contains(got, "Application form") {
		t.Errorf("pdftotext reads %q", got)
	}
	qpdfCheck(t, out.Path)
}

// TestFlattenAnnotations checks that comments (a note, a highlight, ink)
// are drawn into the page: none is left, and the page looks the same.
func TestFlattenAnnotations(t *testing.T) {
	in := corpusPDF(t, "annotated_pdf.pdf")
	if n := len(readForm(t, in).annotations); n != 3 {
		t.Fatalf("the corpus file has %d annotations, want 3", n)
	}
	out, err := runForm(t, "flatten-pdf", nil, in)
	if err != nil {
		t.Fatal(err)
	}
	if a := readForm(t, out.Path).annotations; len(a) != 0 {
		t.Errorf("annotations left: %v", a)
	}
	// Rendered without its annotations, the flattened page still shows
	// them: it is much nearer the annotated page than the bare page is
	// (not equal: Ghostscript draws a note's icon and ink its own way).
	shown := toolstest.RenderPage(t, in, 1, 50)
	marks := toolstest.MeanDiff(shown, toolstest.RenderPage(t, in, 1, 50, "-hide-annotations"))
	flat := toolstest.MeanDiff(shown, toolstest.RenderPage(t, out.Path, 1, 50, "-hide-annotations"))
	if marks == 0 || flat > marks/2 {
		t.Errorf("flattened page differs from the annotated one by %.4f; the annotations make %.4f", flat, marks)
	}
}

func TestFlattenBadInput(t *testing.T) {
	for name, path := range map[string]string{
		"not a pdf": toolstest.WriteTemp(t, "a.pdf", []byte("just some text\n")),
		"encrypted": corpusPDF(t, "libreoffice-writer-password.pdf"),
		"truncated": toolstest.WriteTemp(t, "cut.pdf", toolstest.FormPDF("x")[:300]),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := runForm(t, "flatten-pdf", nil, path)
			wantCode(t, err, docmill.CodeInvalidDocument)
			if msg := docmill.AsError(err).Message; strings.Contains(msg, "/") || strings.Contains(msg, "qpdf") {
				t.Errorf("public message names a path or the engine: %q", msg)
			}
		})
	}
}

// qpdfLinks returns the links of a PDF as qpdf reads them, one
// "page N: target" a link, target being its URI or "page M" for a
// destination in the document.
func qpdfLinks(t *testing.T, path string) []string {
	t.Helper()
	doc := toolstest.QPDFObjects(t, path)
	pageNr := map[string]int{}
	for i, p := range doc.Pages {
		pageNr[p] = i + 1
	}
	var links []string
	for i, p := range doc.Pages {
		for _, d := range doc.Annotations(p) {
			if d["/Subtype"] != "/Link" {
				continue
			}
			target := "?"
			if act, ok := doc.Deref(d["/A"]).(map[string]any); ok && act["/S"] == "/URI" {
				target = strings.TrimPrefix(fmt.Sprint(doc.Deref(act["/URI"])), "u:")
			} else if dest, ok := doc.Deref(d["/Dest"]).([]any); ok && len(dest) > 0 {
				target = fmt.Sprintf("page %d", pageNr[fmt.Sprint(dest[0])])
			}
			links = append(links, fmt.Sprintf("page %d: %s", i+1, target))
		}
	}
	slices.Sort(links)
	return links
}

// linkedPDF is two pages: the first has a web link, a link to the second
// page and a note without an appearance (which Ghostscript draws).
func linkedPDF() []byte {
	content := "BT /F1 24 Tf 72 720 Td (Links) Tj ET"
	return toolstest.PDF(
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 5 0 R >> >> /Contents 6 0 R /Annots [7 0 R 8 0 R 9 0 R] >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 5 0 R >> >> /Contents 6 0 R >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content),
		"<< /Type /Annot /Subtype /Link /Rect [72 700 200 740] /A << /S /URI /URI (https://example.com/docmill) >> >>",
		"<< /Type /Annot /Subtype /Link /Rect [72 600 200 640] /Dest [4 0 R /XYZ 0 800 0] >>",
		"<< /Type /Annot /Subtype /Text /Rect [300 700 320 720] /Contents (A note) /Open false >>",
	)
}

// TestFlattenKeepsLinks checks that links, which Ghostscript drops, are
// put back: a web link and a link within the document, and the named
// destinations of a pdflatex document.
func TestFlattenKeepsLinks(t *testing.T) {
	in := toolstest.WriteTemp(t, "links.pdf", linkedPDF())
	want := []string{"page 1: https://example.com/docmill", "page 1: page 2"}
	if got := qpdfLinks(t, in); !slices.Equal(got, want) {
		t.Fatalf("the test file's links read %v", got)
	}
	out, err := runForm(t, "flatten-pdf", nil, in)
	if err != nil {
		t.Fatal(err)
	}
	if got := qpdfLinks(t, out.Path); !slices.Equal(got, want) {
		t.Errorf("links %v, want %v", got, want)
	}
	if a := readForm(t, out.Path).annotations; len(a) != 2 {
		t.Errorf("annotations %v, want the two links only", a)
	}

	in = corpusPDF(t, "pdflatex-outline.pdf")
	out, err = runForm(t, "flatten-pdf", nil, in)
	if err != nil {
		t.Fatal(err)
	}
	got := qpdfLinks(t, out.Path)
	if len(got) != 9 || slices.ContainsFunc(got, func(l string) bool { return strings.HasSuffix(l, "?") || strings.HasSuffix(l, "page 0") }) {
		t.Errorf("pdflatex-outline.pdf's links after flattening: %v", got)
	}
}
