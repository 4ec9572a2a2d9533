package poppler

import (
	"archive/zip"
	"bytes"
	"fmt"
	"html"
	"os"
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
