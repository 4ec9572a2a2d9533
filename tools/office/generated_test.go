package office_test

import (
	"strings"
	"testing"

	"github.com/docmill/docmill/tools/toolstest"
)

// TestConvertGenerated: a document of each family, made here (the .docx
// by writeDocx, the .xlsx and .pptx saved by soffice from a CSV and a
// flat ODF presentation this test writes), becomes a PDF with the
// expected pages and text: TestConvertCorpus's check without the corpus.
func TestConvertGenerated(t *testing.T) {
	p := sharedPool(t)
	for _, c := range []struct {
		slug, file string
		pages      int
		text       []string
	}{
		{"word-to-pdf", writeDocx(t, "A generated paragraph."), 1, []string{"A generated paragraph."}},
		{"excel-to-pdf", toolstest.OfficeFile(t, "sheet.csv", []byte("tool,runs\nrotate-pdf,12\nmerge-pdf,7\n"), "xlsx"), 1, []string{"rotate-pdf", "12", "merge-pdf"}},
		{"powerpoint-to-pdf", toolstest.OfficeFile(t, "slides.fodp", toolstest.FlatPresentation("Generated slide one", "Generated slide two"), "pptx"), 2,
			[]string{"Generated slide one", "Generated slide two"}},
	} {
		out, err := run(t, toolOf(t, p, c.slug), c.file, nil)
		if err != nil {
			t.Errorf("%s: %v", c.slug, err)
			continue
		}
		if got := out.Meta["pages"]; got != c.pages {
			t.Errorf("%s: %v pages, want %d", c.slug, got, c.pages)
		}
		txt := pdftotext(t, out.Path)
		for _, want := range c.text {
			if !strings.Contains(txt, want) {
				t.Errorf("%s: text %q lacks %q", c.slug, txt, want)
			}
		}
	}
}
