package poppler

import (
	"archive/zip"
	"bufio"
	"bytes"
	"fmt"
	"html"
	"image"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	gmhtml "github.com/yuin/goldmark/renderer/html"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
	"github.com/docmill/docmill/tools/toolstest"
)

// markdownTestTool returns pdf-to-markdown on the real engines with
// limits, skipping t when one is missing.
func markdownTestTool(t testing.TB, limits docmill.Limits) *docmill.Tool {
	t.Helper()
	find := func(name string) *sandbox.Engine {
		e := sandbox.Find(name, []string{"-v"}, sandbox.Options{View: sandbox.View{ReadOnly: DataPaths}})
		if !e.Available() {
			toolstest.Lacking(t, "%s is not available (not installed, or the jail cannot run)", name)
		}
		return e
	}
	return markdownTool(Engines{PDFToText: find("pdftotext"), PDFImages: find("pdfimages")}, limits)
}

// mdPart is a part of a document of known structure: a heading (level
// above 0) or paragraph of text, a bulleted or numbered list, or a
// table whose first row is its header.
type mdPart struct {
	level            int
	text             string
	bullets, numbers []string
	rows             [][]string
}

// reportParts is a report of every kind of part, with text that reads
// as Markdown and HTML in its last paragraphs.
var reportParts = []mdPart{
	{level: 1, text: "Quarterly report of the orchard"},
	{text: "The first paragraph tells the reader what this report is about and why it matters to the growers, " +
		"the pickers and the many customers who buy our fruit at markets around the country every week."},
	{level: 2, text: "Sales by region"},
	{text: "Sales grew in every region except the north, where a long and cold winter kept shoppers at home."},
	{bullets: []string{"Apples sold well in spring", "Pears held their price", "Plums fell behind the others"}},
	{rows: [][]string{{"Region", "Units", "Revenue"}, {"North", "1200", "34,000 EUR"}, {"South", "5400", "98,500 EUR"}, {"East coast", "310", "7,250 EUR"}}},
	{level: 3, text: "Next steps"},
	{numbers: []string{"Hire two more drivers", "Open the western depot", "Review the prices in June"}},
	{text: "Stars *here*, under_scores_, a [link](http://evil.example/x) and <b>bold</b> tags, # hash, | pipe, `tick` and &amp; too."},
	{level: 2, text: "Outlook"},
	{text: "Next year the orchard plants four hundred young trees on the southern slope, which the frost spared."},
}

// mdHTML writes parts as an HTML page; columns sets its text in two
// columns.
func mdHTML(parts []mdPart, columns bool) []byte {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html><head><meta charset="utf-8"><style>body{font-family:"DejaVu Serif";font-size:11pt}` +
		`h1{font-size:24pt}h2{font-size:17pt}h3{font-size:14pt}table{border-collapse:collapse}td,th{border:1px solid black;padding:3px 8px}`)
	if columns {
		b.WriteString(`body{column-count:2;column-gap:28pt}`)
	}
	b.WriteString(`</style></head><body>`)
	for _, p := range parts {
		switch {
		case p.level > 0:
			fmt.Fprintf(&b, "<h%d>%s</h%d>\n", p.level, html.EscapeString(p.text), p.level)
		case p.bullets != nil, p.numbers != nil:
			tag, items := "ul", p.bullets
			if p.numbers != nil {
				tag, items = "ol", p.numbers
			}
			fmt.Fprintf(&b, "<%s>", tag)
			for _, it := range items {
				fmt.Fprintf(&b, "<li>%s</li>", html.EscapeString(it))
			}
			fmt.Fprintf(&b, "</%s>\n", tag)
		case p.rows != nil:
			b.WriteString("<table>")
			for i, r := range p.rows {
				cell := "td"
				if i == 0 {
					cell = "th"
				}
				b.WriteString("<tr>")
				for _, c := range r {
					fmt.Fprintf(&b, "<%s>%s</%s>", cell, html.EscapeString(c), cell)
				}
				b.WriteString("</tr>")
			}
			b.WriteString("</table>\n")
		default:
			fmt.Fprintf(&b, "<p>%s</p>\n", html.EscapeString(p.text))
		}
	}
	b.WriteString("</body></html>")
	return []byte(b.String())
}

// mdWords is the text of parts in reading order, the words the
// Markdown must hold in order.
func mdWords(parts []mdPart) string {
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.text + " " + strings.Join(p.bullets, " ") + " " + strings.Join(p.numbers, " ") + " ")
		for _, r := range p.rows {
			b.WriteString(strings.Join(r, " ") + " ")
		}
	}
	return b.String()
}

// renderedMarkdown is Markdown as GitHub's flavour renders it, raw HTML
// let through (so that HTML the Markdown would inject shows).
type renderedMarkdown struct {
	html string
}

func renderMarkdown(t testing.TB, md []byte) renderedMarkdown {
	t.Helper()
	var out bytes.Buffer
	gm := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(gmhtml.WithUnsafe()))
	if err := gm.Convert(md, &out); err != nil {
		t.Fatal(err)
	}
	return renderedMarkdown{html: out.String()}
}

var (
	tagPattern     = regexp.MustCompile(`<[^>]*>`)
	headingPattern = regexp.MustCompile(`(?s)<h([1-6])[^>]*>(.*?)</h[1-6]>`)
	tablePattern   = regexp.MustCompile(`(?s)<table>(.*?)</table>`)
	rowPattern     = regexp.MustCompile(`(?s)<tr>(.*?)</tr>`)
	cellPattern    = regexp.MustCompile(`(?s)<t[hd][^>]*>(.*?)</t[hd]>`)
	itemPattern    = regexp.MustCompile(`(?s)<(ul|ol)[^>]*>(.*?)</(?:ul|ol)>`)
	liPattern      = regexp.MustCompile(`(?s)<li>(.*?)</li>`)
)

// plain is an HTML fragment's text.
func plain(s string) string {
	return strings.TrimSpace(html.UnescapeString(tagPattern.ReplaceAllString(s, " ")))
}

func (r renderedMarkdown) text() string { return plain(r.html) }

// headings are the rendered headings by their text, their level.
func (r renderedMarkdown) headings() map[string]int {
	out := map[string]int{}
	for _, m := range headingPattern.FindAllStringSubmatch(r.html, -1) {
		out[strings.Join(strings.Fields(plain(m[2])), " ")] = int(m[1][0] - '0')
	}
	return out
}

// tables are the rendered tables' cells, row by row.
func (r renderedMarkdown) tables() [][][]string {
	var out [][][]string
	for _, tm := range tablePattern.FindAllStringSubmatch(r.html, -1) {
		var rows [][]string
		for _, rm := range rowPattern.FindAllStringSubmatch(tm[1], -1) {
			var cells []string
			for _, cm := range cellPattern.FindAllStringSubmatch(rm[1], -1) {
				cells = append(cells, plain(cm[1]))
			}
			rows = append(rows, cells)
		}
		out = append(out, rows)
	}
	return out
}

// items are the rendered list items' text, "ul: " or "ol: " before each.
func (r renderedMarkdown) items() map[string]bool {
	out := map[string]bool{}
	for _, lm := range itemPattern.FindAllStringSubmatch(r.html, -1) {
		for _, im := range liPattern.FindAllStringSubmatch(lm[2], -1) {
			out[lm[1]+": "+strings.Join(strings.Fields(plain(im[1])), " ")] = true
		}
	}
	return out
}

// structureFound measures the Markdown got of parts: the share of the
// words in order, the headings found at their level, the table cells
// found in their row and column, and the list items found in a list of
// their kind, each as found of all.
type structureFound struct {
	words                                              float64
	headings, allHeadings, cells, allCells, items, all int
}

func (s structureFound) String() string {
	return fmt.Sprintf("words in order %5.1f%%, headings %d/%d, table cells %d/%d, list items %d/%d",
		100*s.words, s.headings, s.allHeadings, s.cells, s.allCells, s.items, s.all)
}

func measureStructure(t testing.TB, parts []mdPart, md []byte) structureFound {
	t.Helper()
	r := renderMarkdown(t, md)
	s := structureFound{words: toolstest.WordsInOrder(mdWords(parts), r.text())}
	headings, tables, items := r.headings(), r.tables(), r.items()
	for _, p := range parts {
		if p.level > 0 {
			s.allHeadings++
			if headings[p.text] == p.level {
				s.headings++
			}
		}
		for _, it := range p.bullets {
			s.all++
			if items["ul: "+it] {
				s.items++
			}
		}
		for _, it := range p.numbers {
			s.all++
			if items["ol: "+it] {
				s.items++
			}
		}
		if p.rows != nil {
			s.allCells += len(p.rows) * len(p.rows[0])
			s.cells += cellsInPlace(p.rows, tables)
		}
	}
	return s
}

// cellsInPlace counts the cells of want that the table of tables with
// want's header holds in the same row and column.
func cellsInPlace(want [][]string, tables [][][]string) int {
	best := 0
	for _, got := range tables {
		n := 0
		for i, row := range want {
			for j, c := range row {
				if i < len(got) && j < len(got[i]) && got[i][j] == c {
					n++
				}
			}
		}
		best = max(best, n)
	}
	return best
}

// convertedMarkdown runs pdf-to-markdown on the PDF at path and returns
// its result and the Markdown (the .md, or the .md of the zip).
func convertedMarkdown(t testing.TB, tool *docmill.Tool, path string) (*docmill.RunOutput, []byte) {
	t.Helper()
	out := mustRunTool(t, tool, path, nil)
	data, err := os.ReadFile(out.Path)
	if err != nil {
		t.Fatal(err)
	}
	if out.ContentType != markdownContentType {
		z, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		data = toolstest.ZipPart(t, z, strings.TrimSuffix(out.Filename, ".zip")+".md")
	}
	return out, data
}

// reportPDFs are the report laid out by LibreOffice and by Chromium.
func reportPDFs(t testing.TB) map[string]string {
	return map[string]string{
		"libreoffice": toolstest.OfficeFile(t, "report.html", mdHTML(reportParts, false), "pdf"),
		"chromium":    toolstest.ChromiumPDF(t, "report.html", mdHTML(reportParts, false)),
	}
}

// TestPDFToMarkdown converts the report as LibreOffice and Chromium lay
// it out: its words come back in order (98% or more), every heading at
// its level, every table cell in its row and column, and (LibreOffice's
// bullets being characters) every list item in a list of its kind.
func TestPDFToMarkdown(t *testing.T) {
	tool := markdownTestTool(t, docmill.Limits{})
	for maker, pdf := range reportPDFs(t) {
		out, md := convertedMarkdown(t, tool, pdf)
		s := measureStructure(t, reportParts, md)
		t.Logf("%s: %v; meta %v", maker, s, out.Meta)
		if s.words < 0.98 || s.headings != s.allHeadings || s.cells != s.allCells || maker == "libreoffice" && s.items != s.all {
			t.Errorf("%s: %v\n%s", maker, s, md)
		}
		if out.ContentType != markdownContentType || !strings.HasSuffix(out.Filename, ".md") || out.Meta["tables"] != 1 {
			t.Errorf("%s: %s %s, meta %v", maker, out.Filename, out.ContentType, out.Meta)
		}
	}
}

// columnParts are a heading over paragraphs of words that each say
// where they are, long enough to fill two columns of a page.
func columnParts() []mdPart {
	parts := []mdPart{{level: 1, text: "Two columns of text"}}
	for i := range 10 {
		var words []string
		for j := range 40 {
			words = append(words, fmt.Sprintf("p%dw%d", i, j))
		}
		parts = append(parts, mdPart{text: strings.Join(words, " ") + "."})
	}
	return parts
}

// sideBySide matches a line of pdftotext -layout holding two words far
// apart: columns side by side.
var sideBySide = regexp.MustCompile(`(?m)p\d+w\d+ {4,}p\d+w\d+`)

// TestPDFToMarkdownColumns: a page set in two columns (by Chromium) is
// read down the left column, then down the right one.
func TestPDFToMarkdownColumns(t *testing.T) {
	parts := columnParts()
	pdf := toolstest.ChromiumPDF(t, "columns.html", mdHTML(parts, true))
	out, err := exec.Command("pdftotext", "-layout", pdf, "-").Output()
	if err != nil {
		t.Fatal(err)
	}
	if !sideBySide.Match(out) {
		t.Fatalf("the page is not set in two columns:\n%s", out)
	}
	_, md := convertedMarkdown(t, markdownTestTool(t, docmill.Limits{}), pdf)
	s := measureStructure(t, parts, md)
	t.Logf("two columns: %v", s)
	if s.words < 0.98 || s.headings != 1 {
		t.Errorf("two columns: %v\n%s", s, md)
	}
}

// hostileText is text that reads as Markdown or HTML, line by line.
var hostileText = []string{
	"# not a heading", "> not a quote", "=====",
	"<script>alert(1)</script> <img src=x onerror=alert(1)> <!-- hidden -->",
	"[click](javascript:alert(1)) and ![pixel](http://evil.example/p.png)",
	"**strong** _em_ ~~struck~~ `code` &lt; &amp;amp;",
	"http://evil.example/a www.evil.example mail@evil.example",
	"| a | b |", "| --- | --- |", "\\*backslashed\\*",
}

// TestPDFToMarkdownEscapes: text that reads as Markdown or HTML comes
// out as that text, which GitHub's flavour renders as text alone: no
// link, image, raw HTML, emphasis, code, heading, quote, rule or table
// the PDF did not hold.
func TestPDFToMarkdownEscapes(t *testing.T) {
	var page strings.Builder
	page.WriteString(`<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>`)
	for _, l := range hostileText {
		page.WriteString("<p>" + html.EscapeString(l) + "</p>")
	}
	page.WriteString("</body></html>")
	_, md := convertedMarkdown(t, markdownTestTool(t, docmill.Limits{}), toolstest.ChromiumPDF(t, "hostile.html", []byte(page.String())))
	r := renderMarkdown(t, md)
	for _, tag := range []string{"<a", "<img", "<script", "<em", "<strong", "<code", "<del", "<h1", "<blockquote", "<table", "<hr", "<!--", "<li"} {
		if strings.Contains(r.html, tag) {
			t.Errorf("rendered Markdown holds %s:\n%s\nfrom\n%s", tag, r.html, md)
		}
	}
	want := strings.Join(hostileText, " ")
	if got := strings.Join(strings.Fields(r.text()), " "); got != want {
		t.Errorf("rendered text\n%q, want\n%q", got, want)
	}
}

// TestPDFToMarkdownHostile: a damaged PDF is invalid_document; a PDF of
// no text gives its image alone (a zip of the .md linking it) or an
// empty .md; a document of as many pages as Limits.PDFPages converts and
// one of a page more is refused; the layout and the Markdown are held to
// Limits.LayoutBytes and Limits.TextBytes.
func TestPDFToMarkdownHostile(t *testing.T) {
	tool := markdownTestTool(t, docmill.Limits{})
	damaged := toolstest.WriteTemp(t, "damaged.pdf", []byte("%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 9 0 R >>\nendobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"))
	_, err := runTool(t, tool, damaged, nil)
	toolstest.WantCode(t, err, docmill.CodeInvalidDocument, "")

	imageOnly := toolstest.WriteTemp(t, "scan.pdf", toolstest.ImagePDF([]image.Image{toolstest.Picture(64, 64, 1)}))
	out, md := convertedMarkdown(t, tool, imageOnly)
	if out.ContentType != "application/zip" || strings.TrimSpace(string(md)) != "![Image 1](images/image1.jpg)" || out.Meta["paragraphs"] != 0 {
		t.Errorf("image only: %s %s, meta %v, Markdown %q", out.Filename, out.ContentType, out.Meta, md)
	}
	blank := toolstest.WriteTemp(t, "blank.pdf", toolstest.PDF("<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>", "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>"))
	if out, md := convertedMarkdown(t, tool, blank); len(md) != 0 || out.Meta["pages"] != 1 {
		t.Errorf("blank: meta %v, Markdown %q", out.Meta, md)
	}

	texts := make([]string, 3000)
	for i := range texts {
		texts[i] = fmt.Sprintf("Page %d of many", i+1)
	}
	many := toolstest.WriteTemp(t, "many.pdf", toolstest.TextPDF(texts...))
	if out, md := convertedMarkdown(t, markdownTestTool(t, docmill.Limits{PDFPages: 3000}), many); out.Meta["pages"] != 3000 || !bytes.Contains(md, []byte("Page 3000 of many")) {
		t.Errorf("3000 pages within the limit: meta %v", out.Meta)
	}
	_, err = runTool(t, markdownTestTool(t, docmill.Limits{PDFPages: 2999}), many, nil)
	if e := toolstest.WantCode(t, err, docmill.CodeInvalidDocument, ""); !strings.Contains(e.Message, "2999 pages") {
		t.Errorf("message %q", e.Message)
	}
	_, err = runTool(t, markdownTestTool(t, docmill.Limits{LayoutBytes: 1000}), many, nil)
	toolstest.WantCode(t, err, docmill.CodeFileTooLarge, "")
	_, err = runTool(t, markdownTestTool(t, docmill.Limits{TextBytes: 1000}), many, nil)
	toolstest.WantCode(t, err, docmill.CodeFileTooLarge, "")
}

// TestListMarker: bullets, numbers and a lower-case letter with ")" mark
// list items; a year ending a sentence, initials and a lone marker do not.
func TestListMarker(t *testing.T) {
	for s, want := range map[string]string{
		"• Apples": "•", "- dash item": "-", "1. One": "1.", "12) Twelve": "12)", "a) first": "a)",
		"2019. The year": "", "A. Smith wrote": "", "•": "", "1.": "", "word. Next": "",
	} {
		if got, ok := listMarker(s); got != want || ok != (want != "") {
			t.Errorf("listMarker(%q) = %q, %v; want %q", s, got, ok, want)
		}
	}
}

// TestMarkdownTableCells: a table's cells render as their text alone,
// numbers and dashes included, each in its column.
func TestMarkdownTableCells(t *testing.T) {
	rows := [][]string{{"Population", "273.879.750", "-"}, {"1. first", "a | b", "<i>x</i>"}}
	var b strings.Builder
	w := &markdownWriter{w: bufio.NewWriter(&b)}
	w.table(rows)
	w.w.Flush()
	if got := renderMarkdown(t, []byte(b.String())).tables(); len(got) != 1 || fmt.Sprint(got[0]) != fmt.Sprint(rows) {
		t.Errorf("rendered %v from\n%s", got, b.String())
	}
}

// TestEscapeTextLineBreaks: a line break inside a word's text (which a
// PDF's ToUnicode map can give) does not start a block of its own.
func TestEscapeTextLineBreaks(t *testing.T) {
	r := renderMarkdown(t, []byte(escapeText("x\n# y\r\n- z\n    code")+"\n"))
	if strings.Contains(r.html, "<h1") || strings.Contains(r.html, "<li") || strings.Contains(r.html, "<code") || strings.Count(r.html, "<p>") != 1 {
		t.Errorf("rendered %s", r.html)
	}
}
