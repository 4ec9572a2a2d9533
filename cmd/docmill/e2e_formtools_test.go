package main

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/tools/toolstest"
)

// qpdfAnnotations returns the subtypes of the annotations of every page
// of a PDF, as qpdf reads them.
func qpdfAnnotations(t *testing.T, path string) []string {
	t.Helper()
	doc := toolstest.QPDFObjects(t, path)
	var subtypes []string
	for _, p := range doc.Pages {
		for _, a := range doc.Annotations(p) {
			sub, _ := a["/Subtype"].(string)
			subtypes = append(subtypes, sub)
		}
	}
	return subtypes
}

// pdftotext returns the words of a PDF's text as poppler extracts it,
// joined by single spaces.
func pdftotext(t *testing.T, data []byte) string {
	t.Helper()
	out, err := exec.Command("pdftotext", toolstest.WriteTemp(t, "text.pdf", data), "-").Output()
	if err != nil {
		t.Fatalf("pdftotext: %v", err)
	}
	return string(bytes.Join(bytes.Fields(out), []byte(" ")))
}

// TestFormAndAttachmentToolsE2E runs flatten-pdf, fill-pdf-form and
// add-attachments through one real server and checks their results with
// qpdf and poppler.
func TestFormAndAttachmentToolsE2E(t *testing.T) {
	t.Parallel()
	s := startServer(t, "")
	c := s.client(s.DevKey)

	t.Run("flatten a filled form", func(t *testing.T) {
		form := toolstest.FormPDF("Jane Roe")
		if len(qpdfFields(t, toolstest.WriteTemp(t, "form.pdf", form))) == 0 {
			t.Fatal("the test form has no fields")
		}
		j, data := runTool(t, c, "flatten-pdf", []client.File{{Name: "form.pdf", Body: bytes.NewReader(form)}}, nil)
		if j.Result.Filename != "form-flattened.pdf" || j.Meta["pages"] != float64(1) {
			t.Fatalf("result %+v, meta %v", j.Result, j.Meta)
		}
		out := toolstest.WriteTemp(t, "flat.pdf", data)
		if f, a := qpdfFields(t, out), qpdfAnnotations(t, out); len(f) != 0 || len(a) != 0 {
			t.Fatalf("qpdf still reads fields %v, annotations %v", f, a)
		}
		if text := pdftotext(t, data); !strings.Contains(text, "Jane Roe") {
			t.Fatalf("the value is not on the page: %q", text)
		}
	})

	t.Run("flatten in the PDF helper", func(t *testing.T) {
		// Every annotation carries its appearance: the PDF helper draws
		// them, and no engine program runs.
		before := scrape(t, s.URL)
		_, data := runTool(t, c, "flatten-pdf", []client.File{{Name: "annotated.pdf", Body: bytes.NewReader(toolstest.AnnotatedPDF())}}, nil)
		after := scrape(t, s.URL)
		for _, engine := range []string{"qpdf", "gs"} {
			runs := `docmill_engine_runs_total{engine="` + engine + `",outcome="ok"}`
			if after[runs] != before[runs] {
				t.Errorf("%s ran %v times", engine, after[runs]-before[runs])
			}
		}
		out := toolstest.WriteTemp(t, "flat.pdf", data)
		if f, a := qpdfFields(t, out), qpdfAnnotations(t, out); len(f) != 0 || len(a) != 1 || a[0] != "/Link" {
			t.Fatalf("qpdf reads fields %v, annotations %v; want the link alone", f, a)
		}
	})

	t.Run("flatten keeps links", func(t *testing.T) {
		in := corpus(t, "pdf", "pdflatex-outline.pdf")
		_, data := runTool(t, c, "flatten-pdf", []client.File{file(t, "pdf", "pdflatex-outline.pdf")}, nil)
		before, after := qpdfAnnotations(t, in), qpdfAnnotations(t, toolstest.WriteTemp(t, "flat.pdf", data))
		if len(before) == 0 || !equalStrings(after, before) {
			t.Fatalf("annotations %v, were %v (all links)", after, before)
		}
	})

	t.Run("flatten the corpus", func(t *testing.T) {
		for _, name := range []string{formsPDF, "annotated_pdf.pdf"} {
			in := corpus(t, "pdf", name)
			if len(qpdfFields(t, in))+len(qpdfAnnotations(t, in)) == 0 {
				t.Fatalf("%s has neither fields nor annotations", name)
			}
			_, data := runTool(t, c, "flatten-pdf", []client.File{file(t, "pdf", name)}, nil)
			out := toolstest.WriteTemp(t, "flat.pdf", data)
			if f, a := qpdfFields(t, out), qpdfAnnotations(t, out); len(f) != 0 || len(a) != 0 {
				t.Fatalf("%s: qpdf still reads fields %v, annotations %v", name, f, a)
			}
			// The page's own text stays, with what the widgets drew.
			got, was := pdftotext(t, data), pdftotext(t, corpusBytes(t, "pdf", name))
			for _, w := range strings.Fields(was) {
				if !strings.Contains(got, w) {
					t.Fatalf("%s: %q lost: text %q, was %q", name, w, got, was)
				}
			}
		}
	})

	t.Run("fill", func(t *testing.T) {
		values := `{"Name": "Jane Roe", "Agree": true, "Color": "Green", "Size": "L", "Toppings": ["Ham", "Olives"]}`
		form := func() []client.File {
			return []client.File{{Name: "form.pdf", Body: bytes.NewReader(toolstest.FormPDF(""))}}
		}
		j, data := runTool(t, c, "fill-pdf-form", form(), map[string]string{"values": values})
		if j.Result.Filename != "form-filled.pdf" || j.Meta["fields"] != float64(5) || j.Meta["appearances_generated"] != true {
			t.Fatalf("result %+v, meta %v", j.Result, j.Meta)
		}
		got := toolstest.QPDFValues(t, toolstest.WriteTemp(t, "filled.pdf", data))
		want := map[string]string{"Name": "Jane Roe", "Agree": "/Yes", "Color": "/Green", "Size": "L", "Toppings": "Ham,Olives"}
		if !equalMaps(got, want) {
			t.Fatalf("qpdf reads %v, want %v", got, want)
		}
		// Drawn by qpdf into the fields' appearances, which poppler reads.
		if text := pdftotext(t, data); !strings.Contains(text, "Jane Roe") {
			t.Fatalf("pdftotext reads %q", text)
		}

		j, data = runTool(t, c, "fill-pdf-form", form(), map[string]string{"values": `{"Name": "Jane Roe"}`, "flatten": "true"})
		out := toolstest.WriteTemp(t, "flat.pdf", data)
		if f, a := qpdfFields(t, out), qpdfAnnotations(t, out); len(f) != 0 || len(a) != 0 || j.Meta["flattened"] != true {
			t.Fatalf("flattened: qpdf reads fields %v, annotations %v; meta %v", f, a, j.Meta)
		}
		if text := pdftotext(t, data); !strings.Contains(text, "Jane Roe") {
			t.Fatalf("flattened: pdftotext reads %q", text)
		}
		_, fields := runTool(t, c, "pdf-form-fields", []client.File{{Name: "flat.pdf", Body: bytes.NewReader(data)}}, nil)
		if !strings.Contains(string(fields), `"fields": []`) {
			t.Fatalf("pdf-form-fields of the flattened form: %s", fields)
		}

		// Beyond Latin-1, drawn by docmill in the jailed helper, then
		// flattened by Ghostscript.
		j, data = runTool(t, c, "fill-pdf-form", form(), map[string]string{"values": `{"Name": "Анна Каренина", "Size": "M"}`, "flatten": "true"})
		if j.Meta["appearances_generated"] != true || j.Meta["flattened"] != true {
			t.Fatalf("Cyrillic, flattened: meta %v", j.Meta)
		}
		if text := pdftotext(t, data); !strings.Contains(text, "Анна Каренина") || strings.Contains(text, "?") {
			t.Fatalf("Cyrillic, flattened: pdftotext reads %q", text)
		}
	})

	t.Run("fill refused", func(t *testing.T) {
		_, _, err := c.Process(context.Background(), "fill-pdf-form", []client.File{file(t, "pdf", formsPDF)},
			client.ProcessOptions{Params: map[string]string{"values": `{"Nmae": "x", "Name": "y", "Chek": true}`}, Prefer: "wait=60"})
		if err == nil || !strings.Contains(err.Error(), "invalid_parameter") || !strings.Contains(err.Error(), `"Chek", "Nmae"`) {
			t.Fatalf("unknown names: %v", err)
		}
	})

	t.Run("add attachments", func(t *testing.T) { testAddAttachments(t, c) })
}

// testAddAttachments embeds a text file, an image and a second file of
// the same name in a PDF, then reads them back with qpdf and with
// extract-attachments.
func testAddAttachments(t *testing.T, c *client.Client) {
	notes, notes2 := []byte("Meeting notes\n"), []byte("Other notes, same name\n")
	image := corpusBytes(t, "image", "photo.jpg")
	files := []client.File{file(t, "pdf", fourPages),
		{Name: "notes.txt", Body: bytes.NewReader(notes)},
		{Name: "photo.jpg", Body: bytes.NewReader(image)},
		{Name: "notes.txt", Body: bytes.NewReader(notes2)}}
	j, data := runTool(t, c, "add-attachments", files, map[string]string{"description": "Sent with the report"})
	if j.Result.Filename != "pdflatex-4-pages-attachments.pdf" || j.Meta["files"] != float64(3) || j.Meta["pages"] != float64(4) {
		t.Fatalf("result %+v, meta %v", j.Result, j.Meta)
	}
	out := toolstest.WriteTemp(t, "attached.pdf", data)
	want := map[string][]byte{"notes.txt": notes, "photo.jpg": image, "notes-2.txt": notes2}
	list, err := exec.Command("qpdf", "--list-attachments", "--verbose", out).Output()
	listed := 0 // one unindented "name -> object" line an attachment
	for line := range strings.Lines(string(list)) {
		if !strings.HasPrefix(line, " ") && strings.Contains(line, " -> ") {
			listed++
		}
	}
	if err != nil || listed != len(want) || strings.Count(string(list), "description: Sent with the report") != len(want) {
		t.Fatalf("qpdf --list-attachments: %v\n%s", err, list)
	}
	for name, b := range want {
		got, err := exec.Command("qpdf", "--show-attachment="+name, out).Output()
		if err != nil || !bytes.Equal(got, b) {
			t.Fatalf("qpdf --show-attachment=%s: %v, %d bytes, want %d", name, err, len(got), len(b))
		}
	}
	_, zipped := runTool(t, c, "extract-attachments", []client.File{{Name: "attached.pdf", Body: bytes.NewReader(data)}}, nil)
	entries := toolstest.Unzip(t, zipped)
	for name, b := range want {
		if !bytes.Equal(entries[name], b) {
			t.Fatalf("extract-attachments gives %s of %d bytes, want %d", name, len(entries[name]), len(b))
		}
	}

	// A first file that is not a PDF is refused.
	_, _, err = c.Process(context.Background(), "add-attachments",
		[]client.File{{Name: "notes.txt", Body: bytes.NewReader(notes)}, file(t, "pdf", fourPages)}, client.ProcessOptions{Prefer: "wait=60"})
	if err == nil || !strings.Contains(err.Error(), "unsupported_file_type") || !strings.Contains(err.Error(), "notes.txt") {
		t.Fatalf("text first: %v", err)
	}
}
