package poppler

import (
	"archive/zip"
	"bytes"
	"fmt"
	"image"
	"image/jpeg"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
	"github.com/docmill/docmill/tools/toolstest"
)

// wordTestTool returns pdf-to-word or pdf-to-odt on the real engines,
// skipping t when one is missing.
func wordTestTool(t testing.TB, slug string) *docmill.Tool {
	t.Helper()
	find := func(name string) *sandbox.Engine {
		e := sandbox.Find(name, []string{"-v"}, sandbox.Options{View: sandbox.View{ReadOnly: DataPaths}})
		if !e.Available() {
			toolstest.Lacking(t, "%s is not available (not installed, or the jail cannot run)", name)
		}
		return e
	}
	return toolstest.Find(t, wordTools(Engines{PDFToText: find("pdftotext"), PDFImages: find("pdfimages")}, docmill.Limits{}), slug)
}

// plainText is pdftotext's reading of a PDF, the reference the reflowed
// text is held to.
func plainText(t testing.TB, path string) string {
	t.Helper()
	out, err := exec.Command("pdftotext", "-enc", "UTF-8", path, "-").Output()
	if err != nil {
		t.Fatalf("pdftotext: %v", err)
	}
	return string(out)
}

// wordQuality converts the PDF at path with tool and returns the share
// of pdftotext's words in order in the result, the characters in text
// frames and in flowing paragraphs, and the result.
func wordQuality(t testing.TB, tool *docmill.Tool, path string) (inOrder float64, framed, flowing int, out *docmill.RunOutput, data []byte) {
	t.Helper()
	out = mustRunTool(t, tool, path, nil)
	data, err := os.ReadFile(out.Path)
	if err != nil {
		t.Fatal(err)
	}
	framed, flowing = toolstest.FramedText(t, data)
	return toolstest.WordsInOrder(plainText(t, path), toolstest.OfficeText(t, data)), framed, flowing, out, data
}

// TestPDFToWord converts text PDFs of the corpus: pdftotext's words come
// back in order, in paragraphs (no text frames). pdflatex-4-pages.pdf is
// one paragraph that runs over four pages, numbered at the foot;
// google-doc-document.pdf is a title over twenty one-line paragraphs
// and a table.
func TestPDFToWord(t *testing.T) {
	cases := []struct {
		name                 string
		paragraphs, headings int
	}{
		{"pdflatex-4-pages.pdf", 1, 0},
		{"google-doc-document.pdf", 30, 1},
	}
	for _, slug := range []string{"pdf-to-word", "pdf-to-odt"} {
		tool := wordTestTool(t, slug)
		for _, tc := range cases {
			inOrder, framed, flowing, out, _ := wordQuality(t, tool, corpusPDF(t, tc.name))
			if inOrder < 0.95 || framed != 0 || flowing == 0 {
				t.Errorf("%s %s: %.3f of the words in order, %d characters framed, %d flowing", slug, tc.name, inOrder, framed, flowing)
			}
			p, h := out.Meta["paragraphs"].(int), out.Meta["headings"].(int)
			if tc.paragraphs == 1 && p != 1 || p < tc.paragraphs || h < tc.headings || out.Meta["pages"] == 0 {
				t.Errorf("%s %s: meta %v", slug, tc.name, out.Meta)
			}
		}
	}
}

// TestPDFToWordImages: the picture of pdflatex-image.pdf is in the
// document, as a part its document.xml refers to.
func TestPDFToWordImages(t *testing.T) {
	out := mustRunTool(t, wordTestTool(t, "pdf-to-word"), corpusPDF(t, "pdflatex-image.pdf"), nil)
	data, err := os.ReadFile(out.Path)
	if err != nil {
		t.Fatal(err)
	}
	z, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	doc := toolstest.ZipPart(t, z, "word/document.xml")
	rels := string(toolstest.ZipPart(t, z, "word/_rels/document.xml.rels"))
	if out.Meta["images"] != 1 || !bytes.Contains(doc, []byte(`r:embed="rIdImage1"`)) || !strings.Contains(rels, "media/image1.") {
		t.Fatalf("meta %v, rels %s", out.Meta, rels)
	}
}

// TestReflow: lines join into paragraphs by block, gap, size and page;
// hyphenated words are mended; the largest size is heading level 1.
func TestReflow(t *testing.T) {
	lines := []textLine{
		{page: 1, block: 1, top: 50, size: 20, text: "Title"},
		{page: 1, block: 2, top: 100, size: 10, text: "The first para-"},
		{page: 1, block: 2, top: 112, size: 10, text: "graph goes on and"},
		{page: 2, block: 3, top: 50, size: 10, text: "runs onto the next page."},
		{page: 2, block: 3, top: 90, size: 10, text: "A second one, after a gap."},
		{page: 2, block: 4, top: 102, size: 10, text: "Another block: well-"},
		{page: 2, block: 4, top: 114, size: 10, text: "Known words stay whole."},
		{page: 2, block: 5, top: 130, size: 14, text: "Section"},
		{page: 2, block: 6, top: 150, size: 10, text: "Body text."},
	}
	want := []paragraph{
		{page: 1, level: 1, size: 20, text: "Title"},
		{page: 1, size: 10, text: "The first paragraph goes on and runs onto the next page."},
		{page: 2, size: 10, text: "A second one, after a gap."},
		{page: 2, size: 10, text: "Another block: well- Known words stay whole."},
		{page: 2, level: 2, size: 14, text: "Section"},
		{page: 2, size: 10, text: "Body text."},
	}
	got := reflow(lines)
	if len(got) != len(want) {
		t.Fatalf("%d paragraphs %+v, want %d", len(got), got, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("paragraph %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}

// TestReflowListItems: a line that starts with a list marker starts a
// paragraph, and the item's next lines, indented under its text, go on
// it; a line after the list, at the margin, is a paragraph of its own.
func TestReflowListItems(t *testing.T) {
	lines := []textLine{
		{page: 1, block: 1, top: 100, size: 10, left: 20, right: 300, text: "• The first item runs"},
		{page: 1, block: 1, top: 112, size: 10, left: 32, right: 120, text: "onto a second line"},
		{page: 1, block: 1, top: 124, size: 10, left: 20, right: 200, text: "• The second item"},
		{page: 1, block: 1, top: 136, size: 10, left: 20, right: 200, text: "2. A numbered one"},
	}
	got := reflow(lines)
	want := []string{"• The first item runs onto a second line", "• The second item", "2. A numbered one"}
	if len(got) != len(want) {
		t.Fatalf("%d paragraphs %+v, want %d", len(got), got, len(want))
	}
	for i := range want {
		if got[i].text != want[i] {
			t.Errorf("paragraph %d: %q, want %q", i, got[i].text, want[i])
		}
	}
}

// BenchmarkPDFToWordQuality prints pdf-to-word's and pdf-to-odt's
// quality on the corpus's text PDFs: the share of pdftotext's words in
// order in the result, and the share of text in frames rather than in
// flowing paragraphs; and the same figures of LibreOffice's own PDF
// import into Writer (writer_pdf_import), when soffice is installed, the
// approach the tools do not take. It never fails on the figures. A smoke
// pass (toolstest.BenchSmoke) measures the first file only.
func BenchmarkPDFToWordQuality(b *testing.B) {
	files := []string{"pdflatex-4-pages.pdf", "google-doc-document.pdf", "002-trivial-libre-office-writer.pdf", "minimal-document.pdf"}
	files = toolstest.BenchSize(files, files[:1])
	var report strings.Builder // one log entry: a benchmark's log shows its first lines only
	for b.Loop() {
		report.Reset()
		for _, name := range files {
			path := corpusPDF(b, name)
			for _, slug := range []string{"pdf-to-word", "pdf-to-odt"} {
				inOrder, framed, flowing, out, _ := wordQuality(b, wordTestTool(b, slug), path)
				fmt.Fprintf(&report, "\n%-36s %-11s words in order %5.1f%%, text in frames %5.1f%%, %v paragraphs, %v headings, %v images",
					name, slug, 100*inOrder, 100*share(framed, flowing), out.Meta["paragraphs"], out.Meta["headings"], out.Meta["images"])
			}
			if data, ok := libreOfficeImport(b, path); ok {
				framed, flowing := toolstest.FramedText(b, data)
				inOrder := toolstest.WordsInOrder(plainText(b, path), toolstest.OfficeText(b, data))
				fmt.Fprintf(&report, "\n%-36s %-11s words in order %5.1f%%, text in frames %5.1f%%", name, "libreoffice", 100*inOrder, 100*share(framed, flowing))
			}
		}
	}
	b.Log(report.String())
	b.ReportMetric(0, "ns/op")
}

func share(part, rest int) float64 {
	if part+rest == 0 {
		return 0
	}
	return float64(part) / float64(part+rest)
}

// libreOfficeImport converts the PDF at path to .docx with LibreOffice's
// writer_pdf_import filter, for the benchmark's comparison only; false
// when soffice is missing or fails.
func libreOfficeImport(b *testing.B, path string) ([]byte, bool) {
	soffice, err := exec.LookPath("soffice")
	if err != nil {
		return nil, false
	}
	dir := b.TempDir()
	cmd := exec.Command(soffice, "-env:UserInstallation=file://"+filepath.Join(dir, "profile"), "--headless", "--norestore",
		"--infilter=writer_pdf_import", "--convert-to", "docx:MS Word 2007 XML", "--outdir", dir, path)
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Logf("soffice: %v: %s", err, out)
		return nil, false
	}
	data, err := os.ReadFile(filepath.Join(dir, strings.TrimSuffix(filepath.Base(path), ".pdf")+".docx"))
	return data, err == nil
}

// TestReflowLongParagraph: a paragraph of many long lines, a sentence
// that runs on across 10,000 pages (as a 300 KB PDF can make it), is
// joined in time linear in its length. Joining each line to the
// paragraph's string so far copied it whole each time: 10,000 lines of
// 2,000 characters took some 100 GB of copying.
func TestReflowLongParagraph(t *testing.T) {
	line := strings.Repeat("abcdefghij", 200)
	lines := make([]textLine, 10_000)
	for i := range lines {
		lines[i] = textLine{page: i + 1, block: i + 1, top: 50, size: 10, left: 10, right: 500, text: line}
	}
	done := make(chan []paragraph, 1)
	go func() { done <- reflow(lines) }()
	select {
	case got := <-done:
		if len(got) != 1 || len(got[0].text) != len(lines)*(len(line)+1)-1 {
			t.Fatalf("%d paragraphs, the first of %d bytes", len(got), len(got[0].text))
		}
	case <-time.After(5 * time.Second):
		t.Fatal("reflow of 10,000 lines took more than 5 s")
	}
}

// repeatedImagePDF is three A4 pages each drawing one JPEG image
// object (64 x 64 pixels of noise) 100 times, in one content stream the
// pages share.
func repeatedImagePDF(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 64, 64))
	copy(img.Pix, toolstest.Noise(len(img.Pix)))
	var jpg bytes.Buffer
	if err := jpeg.Encode(&jpg, img, &jpeg.Options{Quality: 95}); err != nil {
		t.Fatal(err)
	}
	var content strings.Builder
	for i := range 100 {
		fmt.Fprintf(&content, "q 20 0 0 20 %d %d cm /Im0 Do Q\n", 10+(i%25)*22, 10+(i/25)*30)
	}
	return toolstest.PDF("<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [5 0 R 6 0 R 7 0 R] /Count 3 >>",
		fmt.Sprintf("<< /Type /XObject /Subtype /Image /Width 64 /Height 64 /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode /Length %d >>\nstream\n%s\nendstream", jpg.Len(), jpg.Bytes()),
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", content.Len(), content.String()),
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /XObject << /Im0 3 0 R >> >> /Contents 4 0 R >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /XObject << /Im0 3 0 R >> >> /Contents 4 0 R >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /XObject << /Im0 3 0 R >> >> /Contents 4 0 R >>")
}

// TestPDFToWordRepeatedImage: an image drawn 300 times is stored once
// and placed 300 times. pdfimages writes a file for every time an image
// is drawn, and each became a part of its own: a 186 KB PDF drawing a
// 150 KB JPEG 5,000 times made a 763 MB .docx.
func TestPDFToWordRepeatedImage(t *testing.T) {
	src := toolstest.WriteTemp(t, "repeated.pdf", repeatedImagePDF(t))
	for _, slug := range []string{"pdf-to-word", "pdf-to-odt"} {
		out := mustRunTool(t, wordTestTool(t, slug), src, nil)
		data, err := os.ReadFile(out.Path)
		if err != nil {
			t.Fatal(err)
		}
		wellFormedParts(t, data)
		z, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		var media []string
		for _, f := range z.File {
			if strings.HasPrefix(f.Name, "word/media/") || strings.HasPrefix(f.Name, "Pictures/") {
				media = append(media, f.Name)
			}
		}
		content := "word/document.xml"
		if slug == "pdf-to-odt" {
			content = "content.xml"
		}
		placed := bytes.Count(toolstest.ZipPart(t, z, content), []byte(media[0]))
		if slug == "pdf-to-word" {
			placed = bytes.Count(toolstest.ZipPart(t, z, content), []byte(`r:embed="rIdImage1"`))
		}
		if out.Meta["images"] != 300 || len(media) != 1 || placed != 300 {
			t.Errorf("%s: meta %v, %d media parts, the first placed %d times", slug, out.Meta, len(media), placed)
		}
	}
}
