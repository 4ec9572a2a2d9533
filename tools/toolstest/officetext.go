package toolstest

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"io"
	"path"
	"sort"
	"strings"
	"testing"
)

// OfficeText returns the text of an OOXML (docx, xlsx, pptx), ODF (odt,
// ods, odp) or EPUB document, read with archive/zip and encoding/xml
// only, independently of the program that wrote it: the parts that hold
// a document's text, each paragraph, cell or heading on a line of its
// own. It fails t when data is not such a document or a part is not
// well-formed XML.
func OfficeText(t testing.TB, data []byte) string {
	t.Helper()
	z, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatalf("not a zip archive: %v", err)
	}
	var parts []string
	for _, f := range z.File {
		n := f.Name
		switch {
		case n == "word/document.xml", n == "content.xml", n == "xl/sharedStrings.xml",
			strings.HasPrefix(n, "xl/worksheets/sheet"), strings.HasPrefix(n, "ppt/slides/slide") && strings.HasSuffix(n, ".xml"):
			parts = append(parts, n)
		}
	}
	if len(parts) == 0 {
		parts = epubParts(t, z)
	}
	if len(parts) == 0 {
		t.Fatal("no part holding text: not a docx, xlsx, pptx, odt, ods, odp or epub")
	}
	sort.Strings(parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(XMLText(t, ZipPart(t, z, p)))
	}
	return b.String()
}

// Unzip returns every entry of the zip archive data by name, failing t
// when data is not one or an entry cannot be read.
func Unzip(t testing.TB, data []byte) map[string][]byte {
	t.Helper()
	z, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatalf("not a zip: %v", err)
	}
	out := map[string][]byte{}
	for _, f := range z.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		out[f.Name] = b
	}
	return out
}

// ZipPart returns the entry name of z, failing t when it is missing.
func ZipPart(t testing.TB, z *zip.Reader, name string) []byte {
	t.Helper()
	f, err := z.Open(name)
	if err != nil {
		t.Fatalf("part %s: %v", name, err)
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		t.Fatalf("part %s: %v", name, err)
	}
	return b
}

// epubParts returns the XHTML documents of an EPUB's package, as its
// META-INF/container.xml and the package document (OPF) name them; none
// when z is not an EPUB.
func epubParts(t testing.TB, z *zip.Reader) []string {
	t.Helper()
	if _, err := z.Open("META-INF/container.xml"); err != nil {
		return nil
	}
	var container struct {
		Rootfiles []struct {
			Path string `xml:"full-path,attr"`
		} `xml:"rootfiles>rootfile"`
	}
	if err := xml.Unmarshal(ZipPart(t, z, "META-INF/container.xml"), &container); err != nil || len(container.Rootfiles) == 0 {
		t.Fatalf("EPUB container.xml names no package: %v", err)
	}
	opf := container.Rootfiles[0].Path
	var pkg struct {
		Items []struct {
			Href string `xml:"href,attr"`
			Type string `xml:"media-type,attr"`
		} `xml:"manifest>item"`
	}
	if err := xml.Unmarshal(ZipPart(t, z, opf), &pkg); err != nil {
		t.Fatalf("EPUB package %s: %v", opf, err)
	}
	var parts []string
	for _, it := range pkg.Items {
		if it.Type == "application/xhtml+xml" {
			parts = append(parts, path.Join(path.Dir(opf), it.Href))
		}
	}
	return parts
}

// lineEnds are the elements after which XMLText starts a new line:
// paragraphs and headings of WordprocessingML, ODF and XHTML, and the
// cells of spreadsheets.
var lineEnds = map[string]bool{"p": true, "h": true, "h1": true, "h2": true, "h3": true, "li": true, "si": true, "c": true, "table-cell": true}

// XMLText returns the character data of an XML document, a line per
// paragraph; it fails t when doc is not well-formed.
func XMLText(t testing.TB, doc []byte) string {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(doc))
	d.Strict = false // XHTML's entities
	d.Entity = xml.HTMLEntity
	var b strings.Builder
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return b.String()
		}
		if err != nil {
			t.Fatalf("XML: %v", err)
		}
		switch tok := tok.(type) {
		case xml.CharData:
			b.Write(tok)
		case xml.StartElement:
			if tok.Name.Local == "s" || tok.Name.Local == "tab" { // ODF's and Word's spaces
				b.WriteByte(' ')
			}
		case xml.EndElement:
			if lineEnds[tok.Name.Local] {
				b.WriteByte('\n')
			}
		}
	}
}

// WordsInOrder returns the share of want's words that got holds in the
// same order (their longest common subsequence over len(want)): 1 when
// got reads as want does, whatever the line breaks. It compares words
// without case and punctuation at their ends.
func WordsInOrder(want, got string) float64 {
	w, g := normWords(want), normWords(got)
	if len(w) == 0 {
		return 1
	}
	prev := make([]int, len(g)+1)
	cur := make([]int, len(g)+1)
	for i := range w {
		for j := range g {
			switch {
			case w[i] == g[j]:
				cur[j+1] = prev[j] + 1
			case prev[j+1] >= cur[j]:
				cur[j+1] = prev[j+1]
			default:
				cur[j+1] = cur[j]
			}
		}
		prev, cur = cur, prev
	}
	return float64(prev[len(g)]) / float64(len(w))
}

func normWords(s string) []string {
	var out []string
	for _, f := range strings.Fields(s) {
		if f = strings.ToLower(strings.Trim(f, ".,;:!?\"'()[]«»“”‘’-–—")); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// FramedText returns how many characters of a .docx's or an .odt's body
// text are in text frames (w:txbxContent, wps:txbx; text:p or text:h
// inside a draw:frame) and how many in paragraphs of the flowing text.
func FramedText(t testing.TB, data []byte) (framed, flowing int) {
	t.Helper()
	z, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatalf("not a zip archive: %v", err)
	}
	part := "word/document.xml"
	if _, err := z.Open(part); err != nil {
		part = "content.xml"
	}
	d := xml.NewDecoder(bytes.NewReader(ZipPart(t, z, part)))
	depth := 0 // open frame elements
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return framed, flowing
		}
		if err != nil {
			t.Fatalf("%s: %v", part, err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if frameElements[tok.Name.Local] {
				depth++
			}
		case xml.EndElement:
			if frameElements[tok.Name.Local] {
				depth--
			}
		case xml.CharData:
			n := len([]rune(strings.TrimSpace(string(tok))))
			if depth > 0 {
				framed += n
			} else {
				flowing += n
			}
		}
	}
}

// frameElements hold text set apart from the flow: Word's text boxes,
// ODF's frames.
var frameElements = map[string]bool{"txbxContent": true, "txbx": true, "textbox": true, "frame": true}
