package pdfops_test

import (
	"slices"
	"strings"
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/toolstest"
)

func TestInsertPagesDocument(t *testing.T) {
	in, insert := numberedPDF(t, 3), layoutPDF(t, "Inserted one", "Inserted two")
	for _, tc := range []struct {
		name   string
		params map[string]string
		want   []string
	}{
		{"after a page", map[string]string{"after": "1"}, []string{"Page 1", "Inserted one", "Inserted two", "Page 2", "Page 3"}},
		{"before the first", map[string]string{"after": "0"}, []string{"Inserted one", "Inserted two", "Page 1", "Page 2", "Page 3"}},
		{"at the end by default", nil, []string{"Page 1", "Page 2", "Page 3", "Inserted one", "Inserted two"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := run(t, "insert-pages", tc.params, in, insert)
			if err != nil {
				t.Fatal(err)
			}
			if got := layoutTexts(t, out.Path); !slices.Equal(got, tc.want) {
				t.Errorf("page texts %q, want %q", got, tc.want)
			}
			if out.Meta["pages"] != 5 || out.Meta["input_pages"] != 3 || out.Meta["inserted_pages"] != 2 || out.Filename != "layout-inserted.pdf" {
				t.Errorf("filename %q, meta %v", out.Filename, out.Meta)
			}
		})
	}
}

// mixedSizesPDF has an A4 page, a landscape letter page shown turned a
// quarter (pdfinfo gives its size unturned) and a small page with a crop
// box.
func mixedSizesPDF(t *testing.T) string {
	return toolstest.WriteTemp(t, "mixed.pdf", toolstest.PDF(
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R 4 0 R 5 0 R] /Count 3 /MediaBox [0 0 595 842] >>",
		"<< /Type /Page /Parent 2 0 R >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 792 612] /Rotate 90 >>",
		"<< /Type /Page /Parent 2 0 R /CropBox [0 0 300 400] >>"))
}

func TestInsertPagesBlank(t *testing.T) {
	in := mixedSizesPDF(t)
	for _, tc := range []struct {
		name   string
		params map[string]string
		want   [][2]int
	}{
		{"after a turned page", map[string]string{"blank": "2", "after": "2"}, [][2]int{{595, 842}, {792, 612}, {792, 612}, {792, 612}, {300, 400}}},
		{"before the first", map[string]string{"blank": "1", "after": "0"}, [][2]int{{595, 842}, {595, 842}, {792, 612}, {300, 400}}},
		{"at the end, cropped", map[string]string{"blank": "1"}, [][2]int{{595, 842}, {792, 612}, {300, 400}, {300, 400}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := run(t, "insert-pages", tc.params, in)
			if err != nil {
				t.Fatal(err)
			}
			sizes := layoutSizes(t, out.Path)
			if !slices.Equal(sizes, tc.want) {
				t.Errorf("page sizes %v, want %v", sizes, tc.want)
			}
			for i, look := range selLooks(t, out.Path) {
				if turned := look.rotate == "90"; turned != (sizes[i] == [2]int{792, 612}) {
					t.Errorf("page %d of size %v has rotation %q", i+1, sizes[i], look.rotate)
				}
			}
		})
	}
	out, err := run(t, "insert-pages", map[string]string{"blank": "3", "after": "1"}, numberedPDF(t, 2))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := layoutTexts(t, out.Path), []string{"Page 1", "", "", "", "Page 2"}; !slices.Equal(got, want) {
		t.Errorf("page texts %q, want %q", got, want)
	}
}

func TestInsertPagesRefusals(t *testing.T) {
	in := numberedPDF(t, 3)
	_, err := run(t, "insert-pages", nil, in)
	toolstest.WantCode(t, err, docmill.CodeMissingFile, "")
	_, err = run(t, "insert-pages", map[string]string{"blank": "1"}, in, in)
	toolstest.WantCode(t, err, docmill.CodeInvalidParameter, "blank")
	_, err = run(t, "insert-pages", map[string]string{"after": "4"}, in, in)
	toolstest.WantCode(t, err, docmill.CodeInvalidParameter, "after")
	if _, err := tool(t, "insert-pages").ParseParams(map[string]string{"blank": "1001"}); err == nil {
		t.Error("blank 1001 accepted")
	}
	limits := docmill.DefaultLimits()
	limits.PDFPages = 10
	_, err = runLimited(t, "insert-pages", map[string]string{"blank": "8"}, limits, in)
	toolstest.WantCode(t, err, docmill.CodeInvalidParameter, "blank")

	damaged := toolstest.WriteTemp(t, "damaged.pdf", append([]byte("%PDF-1.7\n"), toolstest.Noise(2048)...))
	_, err = run(t, "insert-pages", nil, in, damaged)
	e := toolstest.WantCode(t, err, docmill.CodeInvalidDocument, "")
	if !strings.Contains(e.Message, `The PDF to insert ("damaged.pdf")`) {
		t.Errorf("message %q does not name the file to insert", e.Message)
	}
}
