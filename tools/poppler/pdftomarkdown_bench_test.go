package poppler

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/toolstest"
)

// BenchmarkPDFToMarkdownQuality prints pdf-to-markdown's figures on the
// documents of known structure the tests make: the report as LibreOffice
// and Chromium lay it out, and the two-column page, each next to its
// target (words in order >= 98%, every heading at its level, every table
// cell in its row and column); then, with the corpus, the share of
// pdftotext's words in order on some of its PDFs, and what was found. It
// never fails on the figures. A smoke pass (toolstest.BenchSmoke)
// measures Chromium's report only.
func BenchmarkPDFToMarkdownQuality(b *testing.B) {
	tool := markdownTestTool(b, docmill.Limits{})
	type doc struct {
		name  string
		parts []mdPart
		pdf   func() string
	}
	docs := []doc{
		{"report, Chromium", reportParts, func() string { return toolstest.ChromiumPDF(b, "report.html", mdHTML(reportParts, false)) }},
		{"report, LibreOffice", reportParts, func() string { return toolstest.OfficeFile(b, "report.html", mdHTML(reportParts, false), "pdf") }},
		{"two columns, Chromium", columnParts(), func() string { return toolstest.ChromiumPDF(b, "columns.html", mdHTML(columnParts(), true)) }},
	}
	docs = toolstest.BenchSize(docs, docs[:1])
	var report strings.Builder // one log entry: a benchmark's log shows its first lines only
	for b.Loop() {
		report.Reset()
		for _, d := range docs {
			_, md := convertedMarkdown(b, tool, d.pdf())
			fmt.Fprintf(&report, "\n%-22s %v (targets: words >= 98%%, every heading, every cell)", d.name, measureStructure(b, d.parts, md))
		}
		for _, name := range toolstest.BenchSize([]string{"google-doc-document.pdf", "pdflatex-outline.pdf", "GeoTopo-komprimiert.pdf"}, nil) {
			path, ok := toolstest.CorpusIfPresent("pdf", name)
			if !ok {
				continue
			}
			out, md := convertedMarkdown(b, tool, path)
			fmt.Fprintf(&report, "\n%-26s pdftotext's words in order %5.1f%% (no target: its order is not the truth), meta %v",
				name, 100*toolstest.WordsInOrder(plainText(b, path), renderMarkdown(b, md).text()), out.Meta)
		}
	}
	b.Log(report.String())
	b.ReportMetric(0, "ns/op")
}

// BenchmarkPDFToMarkdownFloor times pdf-to-markdown on
// GeoTopo-komprimiert.pdf (117 pages, 10 images) against its engine
// floor, the same three poppler runs outside the jail (pdftotext
// -bbox-layout, pdfimages -list, pdfimages), alternating the two so that
// both meet the same load, and prints the ratio of the medians. It never
// fails on the figure. A smoke pass times the generated report instead.
func BenchmarkPDFToMarkdownFloor(b *testing.B) {
	tool := markdownTestTool(b, docmill.Limits{})
	var path string
	if toolstest.BenchSmoke() {
		path = toolstest.ChromiumPDF(b, "report.html", mdHTML(reportParts, false))
	} else {
		path = corpusPDF(b, "GeoTopo-komprimiert.pdf")
	}
	var toolRuns, floorRuns []time.Duration
	for b.Loop() {
		start := time.Now()
		convertedMarkdown(b, tool, path)
		toolRuns = append(toolRuns, time.Since(start))
		dir := b.TempDir()
		start = time.Now()
		for _, args := range [][]string{{"pdftotext", "-enc", "UTF-8", "-bbox-layout", path, filepath.Join(dir, "layout.xhtml")},
			{"pdfimages", "-list", path}, slices.Concat([]string{"pdfimages"}, imageArgs, []string{path, filepath.Join(dir, "i")})} {
			if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
				b.Fatalf("%s: %v: %s", args[0], err, out)
			}
		}
		floorRuns = append(floorRuns, time.Since(start))
	}
	tool50, floor50 := median(toolRuns), median(floorRuns)
	b.ReportMetric(0, "ns/op")
	b.Logf("pdf-to-markdown %s: %.2fs, floor (pdftotext -bbox-layout + pdfimages -list + pdfimages) %.2fs: %.2fx the floor, medians of %d",
		filepath.Base(path), tool50.Seconds(), floor50.Seconds(), tool50.Seconds()/floor50.Seconds(), len(toolRuns))
}

// BenchmarkPDFToTablesQuality prints pdf-to-csv's and pdf-to-xlsx's
// figures beside pdf-to-markdown's: the cells of the known tables found
// in their row and column (target: every one) in PDFs made by Chromium
// (with borders, without, and with no style) and by LibreOffice Calc
// (tableMakers), the CSVs read back with encoding/csv and the workbook
// by LibreOffice. It never fails on the figures.
// A smoke pass measures Chromium's ruled tables only.
func BenchmarkPDFToTablesQuality(b *testing.B) {
	csvTool, xlsxTool := tablesTestTools(b, docmill.Limits{})
	makers := toolstest.BenchSize(tableMakers, tableMakers[:1])
	var report strings.Builder
	for b.Loop() {
		report.Reset()
		for _, m := range makers {
			pdf := m.pdf(b, knownTables)
			line := func(tool string, got [][][]string) {
				found, all := cellsFound(knownTables, got)
				fmt.Fprintf(&report, "\n%-28s %s: cells in place %d/%d (%5.1f%%), tables %d/%d", m.name, tool, found, all,
					100*float64(found)/float64(all), len(got), len(knownTables))
			}
			if out, err := runTool(b, csvTool, pdf, nil); err != nil {
				fmt.Fprintf(&report, "\n%-28s pdf-to-csv: %v", m.name, err)
			} else {
				line("pdf-to-csv ", csvTables(b, out))
			}
			if out, err := runTool(b, xlsxTool, pdf, nil); err != nil {
				fmt.Fprintf(&report, "\n%-28s pdf-to-xlsx: %v", m.name, err)
			} else {
				line("pdf-to-xlsx", toolstest.SheetsCSV(b, out.Path))
			}
		}
	}
	b.Log(report.String())
	b.ReportMetric(0, "ns/op")
}
