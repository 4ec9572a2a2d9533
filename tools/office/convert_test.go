package office_test

import (
	"encoding/csv"
	"os"
	"strings"
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/toolstest"
)

// TestConvertDocument saves a document of each family in another format
// of it, and reads the text back with archive/zip and encoding/xml (or
// encoding/csv), not with LibreOffice.
func TestConvertDocument(t *testing.T) {
	p := sharedPool(t)
	tl := toolOf(t, p, "convert-document")
	// Generated documents (path set), and the corpus's (file set), whose
	// rows skip without it.
	docx := writeDocx(t, "A generated paragraph to convert.")
	pptx := toolstest.OfficeFile(t, "slides.fodp", toolstest.FlatPresentation("A generated slide"), "pptx")
	cases := []struct {
		file, path, format, contentType, text string
	}{
		{"generated.docx", docx, "odt", "application/vnd.oasis.opendocument.text", "A generated paragraph to convert."},
		{"generated.docx", docx, "epub", "application/epub+zip", "A generated paragraph to convert."},
		{"generated.pptx", pptx, "odp", "application/vnd.oasis.opendocument.presentation", "A generated slide"},
		{"test.docx", "", "odt", "application/vnd.oasis.opendocument.text", "python-docx was here!"},
		{"libreoffice-writer.odt", "", "docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", "Lorem ipsum dolor sit amet"},
		{"test.docx", "", "epub", "application/epub+zip", "python-docx was here!"},
		{"ph-populated-placeholders.pptx", "", "odp", "application/vnd.oasis.opendocument.presentation", "Body text"},
	}
	for _, tc := range cases {
		t.Run(tc.file+"/"+tc.format, func(t *testing.T) {
			if tc.path == "" {
				tc.path = corpusFile(t, tc.file)
			}
			out, err := run(t, tl, tc.path, docmill.Params{"format": tc.format})
			if err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(out.Path)
			if err != nil {
				t.Fatal(err)
			}
			if text := toolstest.OfficeText(t, data); !strings.Contains(text, tc.text) {
				t.Fatalf("text %q lacks %q", text, tc.text)
			}
			if out.ContentType != tc.contentType || !strings.HasSuffix(out.Filename, "."+tc.format) {
				t.Fatalf("%s %s", out.ContentType, out.Filename)
			}
		})
	}
	t.Run("csv", func(t *testing.T) {
		src := toolstest.WriteTemp(t, "table.csv", []byte("name;count\nmerge;2\nsplit;3\n"))
		out, err := run(t, tl, src, docmill.Params{"format": "csv"})
		if err != nil {
			t.Fatal(err)
		}
		rows, err := readCSV(t, out.Path)
		if err != nil || len(rows) != 3 || rows[2][0] != "split" || rows[2][1] != "3" {
			t.Fatalf("rows %q, %v", rows, err)
		}
	})
	// A spreadsheet cannot become a text document: the format is refused,
	// by name, before any conversion.
	xlsx := toolstest.OfficeFile(t, "sheet.csv", []byte("a,b\n1,2\n"), "xlsx")
	_, err := run(t, tl, xlsx, docmill.Params{"format": "docx"})
	if e := toolstest.WantCode(t, err, docmill.CodeInvalidParameter, "format"); !strings.Contains(e.Message, "xlsx, ods, csv") {
		t.Fatalf("message %q", e.Message)
	}
}

// readCSV reads the CSV file at path.
func readCSV(t *testing.T, path string) ([][]string, error) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return csv.NewReader(f).ReadAll()
}
