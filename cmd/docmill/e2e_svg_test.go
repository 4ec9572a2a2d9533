package main

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/tools/toolstest"
)

// svgDoc is what the test reads of an SVG: its root and the glyphs it
// draws (pdftocairo draws text as <use> of glyph symbols).
type svgDoc struct {
	XMLName xml.Name
	Width   string `xml:"width,attr"`
	Height  string `xml:"height,attr"`
	Uses    []struct {
		Href string `xml:"http://www.w3.org/1999/xlink href,attr"`
	} `xml:"g>g>use"`
}

// checkSVGE2E: pdf-to-svg of four pages gives a zip of four SVGs, each
// well-formed XML with an <svg> root of the page's size (pdfinfo) that
// draws as many glyphs as pdftotext finds characters on the page (within
// ligatures); one page of a rotated document gives a bare .svg, served as
// image/svg+xml, with the page's size turned.
func checkSVGE2E(t *testing.T, c *client.Client) {
	j, data := runTool(t, c, "pdf-to-svg", []client.File{file(t, "pdf", fourPages)}, nil)
	entries := toolstest.Unzip(t, data)
	if j.Result.Filename != "pdflatex-4-pages-svg.zip" || len(entries) != 4 {
		t.Fatalf("%s: %d entries", j.Result.Filename, len(entries))
	}
	sizes := pageSizesByNumber(t, toolstest.ReadCorpus(t, "pdf", fourPages))
	for p := 1; p <= 4; p++ {
		doc := parseSVG(t, entries[fmt.Sprintf("pdflatex-4-pages-%d.svg", p)])
		checkSVGSize(t, doc, sizes[p])
		chars := 0
		for _, r := range corpusPageText(t, fourPages, p) {
			if !unicode.IsSpace(r) {
				chars++
			}
		}
		glyphs := 0
		for _, u := range doc.Uses {
			if strings.HasPrefix(u.Href, "#glyph") {
				glyphs++
			}
		}
		if chars == 0 || math.Abs(float64(glyphs-chars)) > 0.05*float64(chars) {
			t.Fatalf("page %d draws %d glyphs; pdftotext finds %d characters", p, glyphs, chars)
		}
	}

	j, data = runTool(t, c, "pdf-to-svg", []client.File{file(t, "pdf", "habibi-rotated.pdf")}, map[string]string{"pages": "1"})
	if j.Result.Filename != "habibi-rotated-1.svg" || j.Result.ContentType != "image/svg+xml" {
		t.Fatalf("one page: %+v", j.Result)
	}
	resp, err := http.Head(j.Result.URL)
	if err != nil || resp.Header.Get("Content-Type") != "image/svg+xml" {
		t.Fatalf("served as %q (%v)", resp.Header.Get("Content-Type"), err)
	}
	rot := pageSizesByNumber(t, toolstest.ReadCorpus(t, "pdf", "habibi-rotated.pdf"))[1]
	checkSVGSize(t, parseSVG(t, data), [2]float64{rot[1], rot[0]}) // /Rotate 90
}

// parseSVG parses an SVG whole, failing t unless it is well formed with
// an <svg> root.
func parseSVG(t *testing.T, b []byte) svgDoc {
	t.Helper()
	var doc svgDoc
	if err := xml.NewDecoder(bytes.NewReader(b)).Decode(&doc); err != nil || doc.XMLName.Local != "svg" {
		t.Fatalf("not an SVG (root %q): %v", doc.XMLName.Local, err)
	}
	return doc
}

// checkSVGSize fails t unless doc's width and height are size, in points.
func checkSVGSize(t *testing.T, doc svgDoc, size [2]float64) {
	t.Helper()
	w, errW := strconv.ParseFloat(strings.TrimSuffix(doc.Width, "pt"), 64)
	h, errH := strconv.ParseFloat(strings.TrimSuffix(doc.Height, "pt"), 64)
	if errW != nil || errH != nil || math.Abs(w-size[0]) > 0.01 || math.Abs(h-size[1]) > 0.01 {
		t.Fatalf("svg of %s x %s, page of %v pt", doc.Width, doc.Height, size)
	}
}

// pageSizesByNumber returns each page's size in points as pdfinfo reports it
// (before its /Rotate).
func pageSizesByNumber(t *testing.T, pdf []byte) map[int][2]float64 {
	t.Helper()
	out := map[int][2]float64{}
	for _, m := range pageSizeRE.FindAllStringSubmatch(pdfinfoReport(t, pdf, "-f", "1", "-l", "1000"), -1) {
		p, _ := strconv.Atoi(m[1])
		w, _ := strconv.ParseFloat(m[2], 64)
		h, _ := strconv.ParseFloat(m[3], 64)
		out[p] = [2]float64{w, h}
	}
	return out
}
