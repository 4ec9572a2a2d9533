package office_test

import (
	"archive/zip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/office"
	"github.com/docmill/docmill/tools/toolstest"
)

// writeDocx writes a minimal .docx holding paragraphs.
func writeDocx(t testing.TB, paragraphs ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "russian.docx")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	z := zip.NewWriter(f)
	var body strings.Builder
	for _, p := range paragraphs {
		body.WriteString(`<w:p><w:r><w:t>` + p + `</w:t></w:r></w:p>`)
	}
	parts := map[string]string{
		"[Content_Types].xml": `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`,
		"_rels/.rels":         `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`,
		"word/document.xml":   `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>` + body.String() + `</w:body></w:document>`,
	}
	for _, name := range []string{"[Content_Types].xml", "_rels/.rels", "word/document.xml"} {
		w, err := z.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(parts[name]))
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return path
}

func writeFile(t testing.TB, name, content string) string {
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func code(err error) docmill.Code { return docmill.ErrorCode(err) }

// TestInputs: Cyrillic text, plain text, CSV, page selection and the
// refusals (wrong family, damaged archive, pages past the end).
func TestInputs(t *testing.T) {
	p := sharedPool(t)
	word, excel := toolOf(t, p, "word-to-pdf"), toolOf(t, p, "excel-to-pdf")

	out, err := run(t, word, writeDocx(t, "Съешь же ещё этих мягких французских булок", "да выпей чаю"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if txt := pdftotext(t, out.Path); !strings.Contains(txt, "Съешь же ещё этих мягких французских булок") {
		t.Errorf("Cyrillic lost: %q", txt)
	}
	out, err = run(t, word, writeFile(t, "notes.txt", "Привет, plain text\n"), nil)
	if err != nil || !strings.Contains(pdftotext(t, out.Path), "Привет, plain text") {
		t.Errorf("txt: %v", err)
	}
	out, err = run(t, excel, writeFile(t, "t.csv", "name;city\nИван;Москва\n"), nil)
	if err != nil || !strings.Contains(pdftotext(t, out.Path), "Москва") {
		t.Errorf("csv: %v", err)
	}
	out, err = run(t, word, writeFile(t, "r.rtf", `{\rtf1\ansi Hello RTF\par}`), nil)
	if err != nil || !strings.Contains(pdftotext(t, out.Path), "Hello RTF") {
		t.Errorf("rtf: %v", err)
	}

	// A presentation and a workbook soffice saves from content written here.
	pptx := toolstest.OfficeFile(t, "slides.fodp", toolstest.FlatPresentation("Slide one", "Slide two", "Slide three", "Slide four", "Slide five"), "pptx")
	xlsx := toolstest.OfficeFile(t, "sheet.csv", []byte("a,b\n1,2\n"), "xlsx")
	out, err = run(t, toolOf(t, p, "powerpoint-to-pdf"), pptx, docmill.Params{"pages": "5,2-3"})
	if err != nil || out.Meta["pages"] != 3 {
		t.Fatalf("pages: %v %v", err, out)
	}
	if txt := pdftotext(t, out.Path); !strings.HasPrefix(strings.TrimSpace(txt), "Slide five") {
		t.Errorf("page 5 not first: %q", txt)
	}
	if _, err = run(t, toolOf(t, p, "powerpoint-to-pdf"), pptx, docmill.Params{"pages": "20"}); code(err) != docmill.CodeInvalidParameter {
		t.Errorf("page past the end: %v", err)
	}

	if _, err = run(t, word, xlsx, nil); code(err) != docmill.CodeUnsupportedFileType || !strings.Contains(err.Error(), "excel-to-pdf") {
		t.Errorf("xlsx to word-to-pdf: %v", err)
	}
	docx := writeDocx(t, "A paragraph of a document.")
	if _, err = run(t, excel, docx, nil); code(err) != docmill.CodeUnsupportedFileType {
		t.Errorf("docx to excel-to-pdf: %v", err)
	}
	b, err := os.ReadFile(docx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err = run(t, word, writeFile(t, "broken.docx", string(b[:len(b)/2])), nil); code(err) != docmill.CodeInvalidDocument {
		t.Errorf("truncated docx: %v", err)
	}
	if _, err = run(t, word, writeFile(t, "junk.doc", "\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1"+strings.Repeat("\x00", 600)), nil); code(err) != docmill.CodeUnsupportedFileType && code(err) != docmill.CodeInvalidDocument {
		t.Errorf("junk OLE2: %v", err)
	}
}

// TestCrashRecovery: a soffice that dies while idle is replaced and the
// next conversion succeeds.
func TestCrashRecovery(t *testing.T) {
	p := newPool(t, office.Options{Workers: 1})
	word := toolOf(t, p, "word-to-pdf")
	doc := writeDocx(t, "Before the crash.")
	if _, err := run(t, word, doc, nil); err != nil {
		t.Fatal(err)
	}
	office.CrashSoffice(p)
	if _, err := run(t, word, doc, nil); err != nil {
		t.Fatalf("after crash: %v", err)
	}
	if n := p.Starts(); n != 2 {
		t.Errorf("%d starts, want 2", n)
	}
}

// TestHang: a conversion that overruns its deadline fails as
// processing_timeout, its
// worker is replaced, and the next conversion succeeds.
func TestHang(t *testing.T) {
	p := newPool(t, office.Options{Workers: 1})
	word := toolOf(t, p, "word-to-pdf")
	doc := corpusFile(t, "having-images.docx")
	if _, err := run(t, word, doc, nil); err != nil { // warm
		t.Fatal(err)
	}
	office.SetTimeout(p, time.Millisecond)
	_, err := run(t, word, doc, nil)
	if code(err) != docmill.CodeProcessingTimeout || !strings.Contains(err.Error(), "took longer than") {
		t.Fatalf("overrun: %v", err)
	}
	office.SetTimeout(p, time.Minute)
	if _, err := run(t, word, doc, nil); err != nil {
		t.Fatalf("after overrun: %v", err)
	}
	if n := p.Starts(); n != 2 {
		t.Errorf("%d starts, want 2", n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dir := t.TempDir()
	_, err = word.Invoke(ctx, &docmill.RunInput{Files: []docmill.LocalFile{{Path: doc}}, WorkDir: dir})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("canceled job: %v", err)
	}
}

// TestMaxConversions: a worker is restarted after MaxConversions.
func TestMaxConversions(t *testing.T) {
	p := newPool(t, office.Options{Workers: 1, MaxConversions: 2})
	word := toolOf(t, p, "word-to-pdf")
	doc := writeDocx(t, "One of three conversions.")
	for i := 0; i < 3; i++ {
		if _, err := run(t, word, doc, nil); err != nil {
			t.Fatal(err)
		}
	}
	if n := p.Starts(); n != 2 {
		t.Errorf("%d starts after 3 conversions with MaxConversions 2, want 2", n)
	}
}
