package office_test

import (
	"archive/zip"
	"bytes"
	"errors"
	"github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
	"github.com/docmill/docmill/tools/toolstest"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// secretMarker is the text of a file outside the job's directory that a
// hostile document tries to pull into its PDF.
const secretMarker = "DOCMILLSECRETMARKER7F3A"

// secrets writes, in a directory of their own (outside any job's work
// dir), a PNG, a text file and an ODT holding secretMarker, and returns
// their paths.
func secrets(t *testing.T) (pngPath, txtPath, odtPath string) {
	t.Helper()
	dir := t.TempDir()
	img := image.NewRGBA(image.Rect(0, 0, 32, 32))
	for y := 0; y < 32; y++ {
		for x := 0; x < 32; x++ {
			img.Set(x, y, color.RGBA{R: 200, G: uint8(x * 8), B: uint8(y * 8), A: 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	pngPath = filepath.Join(dir, "secret.png")
	txtPath = filepath.Join(dir, "secret.txt")
	odtPath = filepath.Join(dir, "secret.odt")
	if err := os.WriteFile(pngPath, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(txtPath, []byte(secretMarker+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	writeZip(t, odtPath, odtParts(`<text:p>`+secretMarker+`</text:p>`))
	return pngPath, txtPath, odtPath
}

// writeZip writes the parts (name, content pairs, in order, the first
// stored) as a zip archive.
func writeZip(t *testing.T, path string, parts [][2]string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	z := zip.NewWriter(f)
	for i, p := range parts {
		h := &zip.FileHeader{Name: p[0], Method: zip.Deflate}
		if i == 0 {
			h.Method = zip.Store
		}
		w, err := z.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(p[1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

const odtNS = `xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" office:version="1.2"`

// odtParts is a minimal ODT text document whose body is body.
func odtParts(body string) [][2]string {
	return [][2]string{
		{"mimetype", "application/vnd.oasis.opendocument.text"},
		{"content.xml", `<?xml version="1.0" encoding="UTF-8"?><office:document-content ` + odtNS + `><office:body><office:text>` + body + `</office:text></office:body></office:document-content>`},
		{"META-INF/manifest.xml", `<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2"><manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.text"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>`},
	}
}

// docxParts is a minimal DOCX whose body is body and whose document part
// has the relationships rels (Relationship elements).
func docxParts(body, rels string) [][2]string {
	return [][2]string{
		{"[Content_Types].xml", `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Default Extension="png" ContentType="image/png"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`},
		{"_rels/.rels", `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`},
		{"word/_rels/document.xml.rels", `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` + rels + `</Relationships>`},
		{"word/document.xml", `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture"><w:body><w:p><w:r><w:t>visible text</w:t></w:r></w:p>` + body + `</w:body></w:document>`},
	}
}

// docxLinkedImage is a picture whose blip is the relationship rID.
func docxLinkedImage(attr string) string {
	return `<w:p><w:r><w:drawing><wp:inline><wp:extent cx="720000" cy="720000"/><wp:docPr id="1" name="p"/><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:pic><pic:nvPicPr><pic:cNvPr id="1" name="p"/><pic:cNvPicPr/></pic:nvPicPr><pic:blipFill><a:blip ` + attr + `/><a:stretch><a:fillRect/></a:stretch></pic:blipFill><pic:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="720000" cy="720000"/></a:xfrm><a:prstGeom prst="rect"/></pic:spPr></pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>`
}

// pdfImageCount is how many images pdfimages lists in the PDF.
func pdfImageCount(t *testing.T, path string) int {
	t.Helper()
	toolstest.Need(t, "pdfimages")
	bin, err := sandbox.LookPath("pdfimages")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "-list", path).Output()
	if err != nil {
		t.Fatalf("pdfimages: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) < 2 {
		t.Fatalf("pdfimages -list: %q", out)
	}
	return len(lines) - 2 // a header line and a rule
}

// TestNoLocalFiles: hostile documents that link to files outside the job's
// directory (linked images, linked sections, INCLUDETEXT and
// INCLUDEPICTURE fields, external relationships) convert without those
// files' content reaching the PDF.
func TestNoLocalFiles(t *testing.T) {
	p := sharedPool(t)
	word := toolOf(t, p, "word-to-pdf")
	pngPath, txtPath, odtPath := secrets(t)
	pngURL, txtURL, odtURL := "file://"+pngPath, "file://"+txtPath, "file://"+odtPath

	docs := t.TempDir()
	cases := []struct {
		name  string
		write func(path string)
	}{
		{"odt-linked-image.odt", func(path string) {
			writeZip(t, path, odtParts(`<text:p>visible text</text:p><text:p><draw:frame draw:name="i1" text:anchor-type="as-char" svg:width="2cm" svg:height="2cm"><draw:image xlink:href="`+pngURL+`" xlink:type="simple" xlink:show="embed" xlink:actuate="onLoad"/></draw:frame></text:p>`))
		}},
		{"odt-section-txt.odt", func(path string) {
			writeZip(t, path, odtParts(`<text:p>visible text</text:p><text:section text:name="s1"><text:section-source xlink:href="`+txtURL+`" xlink:type="simple"/><text:p>cached</text:p></text:section>`))
		}},
		{"odt-section-odt.odt", func(path string) {
			writeZip(t, path, odtParts(`<text:p>visible text</text:p><text:section text:name="s1"><text:section-source xlink:href="`+odtURL+`" xlink:type="simple"/><text:p>cached</text:p></text:section>`))
		}},
		{"odt-ole-link.odt", func(path string) {
			writeZip(t, path, odtParts(`<text:p>visible text</text:p><text:p><draw:frame draw:name="o1" text:anchor-type="as-char" svg:width="4cm" svg:height="2cm"><draw:object xlink:href="`+odtURL+`" xlink:type="simple" xlink:show="embed" xlink:actuate="onLoad"/></draw:frame></text:p>`))
		}},
		{"docx-linked-image.docx", func(path string) {
			writeZip(t, path, docxParts(docxLinkedImage(`r:link="rIdImg"`),
				`<Relationship Id="rIdImg" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="`+pngURL+`" TargetMode="External"/>`))
		}},
		{"docx-external-embed.docx", func(path string) {
			writeZip(t, path, docxParts(docxLinkedImage(`r:embed="rIdImg"`),
				`<Relationship Id="rIdImg" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="`+pngURL+`" TargetMode="External"/>`))
		}},
		{"docx-includetext.docx", func(path string) {
			writeZip(t, path, docxParts(`<w:p><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText xml:space="preserve"> INCLUDETEXT "`+txtPath+`" </w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>cached</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r></w:p>`+
				`<w:p><w:fldSimple w:instr=" INCLUDETEXT &quot;`+odtPath+`&quot; "><w:r><w:t>cached</w:t></w:r></w:fldSimple></w:p>`, ""))
		}},
		{"docx-includepicture.docx", func(path string) {
			writeZip(t, path, docxParts(`<w:p><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText xml:space="preserve"> INCLUDEPICTURE "`+pngPath+`" \d </w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>cached</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r></w:p>`, ""))
		}},
		{"rtf-fields.rtf", func(path string) {
			rtf := `{\rtf1\ansi visible text\par {\field{\*\fldinst INCLUDETEXT "` + txtPath + `"}{\fldrslt cached}}\par {\field{\*\fldinst INCLUDEPICTURE "` + pngPath + `" \\d}{\fldrslt }}\par}`
			if err := os.WriteFile(path, []byte(rtf), 0o600); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := filepath.Join(docs, c.name)
			c.write(src)
			out, err := run(t, word, src, nil)
			if err != nil {
				// Refusing the document leaks nothing either, when it is
				// refused as a document: an internal error or a crash
				// proves nothing of confinement.
				var e *docmill.Error
				if !errors.As(err, &e) || (e.Code != docmill.CodeInvalidDocument && e.Code != docmill.CodeUnprocessableDocument) {
					t.Fatalf("%v, want a conversion or invalid_document/unprocessable_document", err)
				}
				t.Logf("refused: %v", err)
				return
			}
			if txt := pdftotext(t, out.Path); strings.Contains(txt, secretMarker) {
				t.Errorf("the PDF holds the text of a file outside the job: %q", txt)
			}
			if n := pdfImageCount(t, out.Path); n > 0 {
				t.Errorf("the PDF holds %d image(s), read from a file outside the job", n)
			}
		})
	}
}
