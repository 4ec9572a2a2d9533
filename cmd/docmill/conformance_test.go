package main

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
	"github.com/docmill/docmill/tools/pdfops"
	"github.com/docmill/docmill/tools/toolstest"
)

// TestToolConformance runs toolstest's conformance suite over the real
// registry, built as serve builds it: the engines found in the jail, the
// PDF helpers, the LibreOffice pool and Chromium, with a scratch
// directory of the test's. A tool whose engine is missing is skipped,
// or fails under CI.
func TestToolConformance(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs every engine")
	}
	start := time.Now()
	scratch := t.TempDir()
	limits := docmill.DefaultLimits()
	jail := sandbox.NewJail(sandbox.JailOptions{Memory: limits.EngineMemory, Dir: scratch})
	// url-to-pdf and url-to-image load their pages from the test's own
	// server, on loopback.
	tools, closeTools, err := toolset(findEngines(jail, nil), toolOptions{officeWorkers: 1, limits: limits, scratch: scratch, allowPrivateURLs: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		closeTools()
		t.Logf("conformance of %d tools: %v", len(tools), time.Since(start).Round(time.Second))
	})
	urlParams, urlValues := urlConformInputs(t)
	toolstest.Conformance(t, toolstest.Suite{
		Registry: docmill.NewRegistry(tools...),
		Sample:   conformSample,
		Dir:      scratch,
		Limits:   limits,
		Params:   urlParams,
		Values:   urlValues,
		NoEffect: conformNoEffect,
		Known:    conformKnown,
		// Inputs slow enough that the cancel check cancels mid-run.
		Slow:    conformSlow,
		NoPages: conformNoPages,
		Unavailable: func(t *testing.T, tool *docmill.Tool) {
			toolstest.Lacking(t, "%s: engine %s unavailable", tool.Slug, tool.Engine)
		},
		// Second inputs unlike the first (insert-pages, image-watermark).
		Companions: conformCompanions,
		// One LibreOffice worker: its tools run one at a time.
		Serial: map[string]bool{"word-to-pdf": true, "excel-to-pdf": true, "powerpoint-to-pdf": true, "convert-document": true, "document-thumbnail": true},
	})
}

// conformParams are base params beyond the derived ones.
var conformParams = map[string]map[string]string{
	// It needs a size or a percent; a box larger than the 96x64 sample
	// gives fit and enlarge something to change.
	"resize-image": {"width": "200", "height": "200"},
	// With page_size fit the page is the image, and orientation has
	// nothing to turn.
	"jpg-to-pdf": {"page_size": "a4"},
	// One source of bookmarks is required: a list on the sample's page.
	"edit-bookmarks": {"bookmarks": `[{"title": "Conformance", "page": 1}]`},
	// A field of the sample form (conformSample).
	"fill-pdf-form": {"values": `{"Name": "Conformance"}`},
	// One way of cropping is required (margins: auto's default, false,
	// must stay valid beside it).
	"crop-pdf": {"margins": "10"},
	// The password of the certificate file conformCompanions sends.
	"sign-pdf": {"certificate_password": conformCertPassword},
	// PNG has no quality to change; a full page is never shorter than
	// the viewport, so the viewport is made shorter than the sample.
	"html-to-image": {"format": "jpeg", "height": "100"},
	// Something to black out is required: a phrase of page 1.
	"redact-pdf": {"terms": "page one"},
}

// conformCertPassword is the password of sign-pdf's certificate file.
const conformCertPassword = "conformance"

// conformValues are candidate values of params whose declaration suggests
// none (JSON), by "slug/param".
var conformValues = map[string][]string{
	"fill-pdf-form/values":     {`{"Name": "Another name"}`},
	"edit-bookmarks/bookmarks": {`[{"title": "Another outline", "page": 1}]`},
	"redact-pdf/presets":       {"emails"},
	"redact-pdf/boxes":         {`[{"page": 2, "x": 72, "y": 100, "width": 100, "height": 40}]`},
}

// The Chromium print tools' lengths (paper_width, margin_top...) take a
// unit, which none of the suite's derived strings has. Their wait_for
// is shown read by a selector the page's browser refuses (a derived
// string is a selector that never matches, waited for 30 s); the wait's
// end and meta.wait_timed_out are tools/chromium's TestWaitForHTML's.
func init() {
	for _, slug := range []string{"html-to-pdf", "markdown-to-pdf", "url-to-pdf", "url-to-image"} {
		conformValues[slug+"/wait_for"] = []string{"["}
	}
	for _, slug := range []string{"html-to-pdf", "markdown-to-pdf", "url-to-pdf"} {
		for _, name := range []string{"paper_width", "paper_height"} {
			conformValues[slug+"/"+name] = []string{"100mm"}
		}
		for _, name := range []string{"margin_top", "margin_right", "margin_bottom", "margin_left"} {
			conformValues[slug+"/"+name] = []string{"1in"}
		}
	}
}

// conformNoEffect lists the params that change nothing on the suite's
// samples, and why.
var conformNoEffect = map[string]string{
	// The sample is not encrypted: there is nothing to open with it.
	"unlock-pdf/password": "a password only opens an encrypted input",
	// The sample holds no e-mail address or other personal data.
	"redact-pdf/presets": "the sample has no personal data to find",
	// The base run is without OCR (ocr=true is judged on its own, by
	// meta.ocr_pages); e2e_redactocr_test.go checks lang=rus and eng.
	"redact-pdf/lang": "read only with ocr=true",
	// The samples set no CSS @page size and no @media rules;
	// tools/chromium's TestMediaScreen and the print tests check both.
	"html-to-pdf/prefer_css_page_size":     "the sample sets no @page size",
	"markdown-to-pdf/prefer_css_page_size": "the sample sets no @page size",
	"url-to-pdf/prefer_css_page_size":      "the sample sets no @page size",
	"html-to-pdf/media":                    "the sample has no @media rules",
	"markdown-to-pdf/media":                "the sample has no @media rules",
	"url-to-pdf/media":                     "the sample has no @media rules",
}

// conformKnown are the checks tools are known to fail (see Suite.Known).
var conformKnown = map[string]string{
	// Its result is encrypted with a fresh random key under the user
	// password, which Fingerprint cannot open: two runs always differ,
	// so the suite cannot judge its params (tools/pdfops's protect tests
	// check each of them).
	"protect-pdf/Params": "result encrypted with a random key: not reproducible",
	// margins and box take lists of millimetres, which none of the
	// suite's derived strings is; tools/pdfops's and the e2e tests check
	// every way of cropping.
	"crop-pdf/Params": "margins and box take number lists: no second valid value derivable",
	// The signature holds its signing time (in /M and in the signed
	// attributes) and a random field name: two runs always differ. The
	// e2e test (e2e_sign_test.go) checks the reason with pdfsig.
	"sign-pdf/Params": "signature holds its signing time: not reproducible",
}

// conformNoPages are the PDF-making tools without meta pages.
var conformNoPages = map[string]string{
	"html-to-pdf":     "Chromium's print does not count pages; meta has blocked_requests",
	"url-to-pdf":      "Chromium's print does not count pages; meta has blocked_requests",
	"markdown-to-pdf": "Chromium's print does not count pages; meta has blocked_requests",
	"compress-pdf":    "meta has input_size, output_size and the ratio instead",
}

// conformSample makes the suite's inputs, all generated (never read from
// the corpus, TestEveryToolHasGeneratedSample checks): by this file, by
// toolstest's generators, and by LibreOffice, vips and poppler from
// content they write.
func conformSample(t *testing.T, tool *docmill.Tool, contentType string) string {
	dir := t.TempDir()
	switch contentType {
	case "application/pdf":
		switch tool.Slug {
		case "compress-pdf", "extract-images": // their params act on images
			return toolstest.WriteTemp(t, "conform-images.pdf", conformImagePDF)
		case "ocr-pdf", "image-to-text":
			return toolstest.WriteTemp(t, "conform-sample.pdf", toolstest.TextPDF("Conformance of every tool"))
		case "flatten-pdf", "fill-pdf-form": // a form
			return toolstest.WriteTemp(t, "conform-form.pdf", toolstest.FormPDF("Conformance"))
		case "remove-annotations", "sanitize-pdf": // their params act on annotations and active content
			return toolstest.WriteTemp(t, "conform-sample.pdf", toolstest.ActivePDF())
		case "verify-pdf-signatures": // a signature to verify, made by the project's signer
			return signedSample(t)
		case "extract-einvoice": // an invoice to take out
			return einvoiceSample(t)
		case "pdf-to-csv", "pdf-to-xlsx": // a table to take out
			return toolstest.WriteTemp(t, "conform-table.pdf", toolstest.GridPDF("Conformance table",
				[][]string{{"tool", "passes"}, {"rotate-pdf", "1"}, {"merge-pdf", "1"}}))
		}
		return toolstest.WriteTemp(t, "conform-sample.pdf", toolstest.TextPDF("Conformance page one", "Conformance page two", "Conformance page three"))
	case "image/png", "image/jpeg", "image/gif", "image/tiff", "image/webp", "image/avif", "image/heif":
		if tool.Slug == "image-watermark" { // its image comes second: conformCompanions
			return ""
		}
		if tool.Slug == "image-to-text" { // it needs words to recognize
			return textImage(t, dir, contentType)
		}
		return sampleImage(t, dir, contentType)
	case "text/html":
		return toolstest.WriteTemp(t, "conform-sample.html", []byte(sampleHTML))
	case "text/markdown":
		return toolstest.WriteTemp(t, "conform-sample.md", []byte(sampleMarkdown))
	case "text/rtf", "application/rtf":
		if tool.Slug != "word-to-pdf" && tool.Slug != "convert-document" && tool.Slug != "document-thumbnail" { // RTF is a text document
			return ""
		}
		return toolstest.WriteTemp(t, "conform-sample.rtf", []byte(`{\rtf1\ansi Conformance of every tool.\par}`))
	case "text/plain":
		switch tool.Slug {
		case "einvoice-pdf": // its XML comes second: conformCompanions
			return ""
		case "excel-to-pdf":
			return toolstest.WriteTemp(t, "conform-sample.csv", []byte(sampleCSV))
		case "markdown-to-pdf":
			return toolstest.WriteTemp(t, "conform-sample.md", []byte(sampleMarkdown))
		}
		return toolstest.WriteTemp(t, "conform-sample.txt", []byte("Conformance of every tool.\n"))
	case "application/zip":
		switch tool.Slug {
		case "word-to-pdf", "convert-document", "document-thumbnail":
			return toolstest.WriteTemp(t, "conform-sample.docx", zipOf(t, sampleDocx))
		case "excel-to-pdf": // a workbook LibreOffice saves from a CSV
			return toolstest.OfficeFile(t, "conform-sample.csv", []byte(sampleCSV), "xlsx")
		case "powerpoint-to-pdf": // a presentation LibreOffice saves from a flat ODF one
			return toolstest.OfficeFile(t, "conform-sample.fodp", toolstest.FlatPresentation("Conformance slide one", "Conformance slide two"), "pptx")
		case "html-to-pdf", "html-to-image":
			return toolstest.WriteTemp(t, "conform-sample.zip", zipOf(t, map[string]string{"index.html": sampleHTML}))
		}
	}
	return "" // application/octet-stream (legacy Office binaries): not generated
}

// signedSample signs a generated PDF with sign-pdf's own code, run in
// this process, under a certificate made here, and returns its path.
func signedSample(t *testing.T) string {
	tool := pdfops.SignTool()
	params, err := tool.ParseParams(map[string]string{"certificate_password": conformCertPassword})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	pdf := toolstest.Input(t, dir, toolstest.WriteTemp(t, "conform-signed.pdf", toolstest.TextPDF("Conformance signed page")), "application/pdf")
	p12, cert := filepath.Join(dir, "input-1.p12"), signPKCS12(t, "Conformance", conformCertPassword)
	if err := os.WriteFile(p12, cert, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := tool.Run(context.Background(), &docmill.RunInput{Params: params, WorkDir: dir, Files: []docmill.LocalFile{pdf,
		{Path: p12, Filename: "conform.p12", ContentType: "application/x-pkcs12", Size: int64(len(cert))}}})
	if err != nil {
		t.Fatalf("signing the sample: %v", err)
	}
	b, err := os.ReadFile(out.Path)
	if err != nil {
		t.Fatal(err)
	}
	return toolstest.WriteTemp(t, "conform-signed.pdf", b)
}

// einvoiceSample is a generated PDF holding a CII invoice as
// factur-x.xml, attached by add-attachments' own code, run in this
// process.
func einvoiceSample(t *testing.T) string {
	dir := t.TempDir()
	tool := toolstest.Find(t, pdfops.Tools(), "add-attachments")
	pdf := toolstest.Input(t, dir, toolstest.WriteTemp(t, "conform-einvoice.pdf", toolstest.TextPDF("Conformance invoice")), "application/pdf")
	xml := filepath.Join(dir, "input-1.xml")
	if err := os.WriteFile(xml, toolstest.CIIInvoice(toolstest.GuidelineMinimum, 0), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := tool.Run(context.Background(), &docmill.RunInput{Params: docmill.Params{}, WorkDir: dir, Files: []docmill.LocalFile{pdf,
		{Path: xml, Filename: "factur-x.xml", ContentType: "text/xml"}}})
	if err != nil {
		t.Fatalf("attaching the sample's invoice: %v", err)
	}
	b, err := os.ReadFile(out.Path)
	if err != nil {
		t.Fatal(err)
	}
	return toolstest.WriteTemp(t, "conform-einvoice.pdf", b)
}

// conformCompanions are the files that follow the sample for the tools
// whose second input differs from the first.
func conformCompanions(t *testing.T, tool *docmill.Tool) []toolstest.Companion {
	switch tool.Slug {
	case "insert-pages": // the PDF to insert
		return []toolstest.Companion{{Path: toolstest.WriteTemp(t, "conform-insert.pdf", toolstest.TextPDF("Inserted page")), ContentType: "application/pdf"}}
	case "image-watermark": // the image to stamp
		return []toolstest.Companion{{Path: sampleImage(t, t.TempDir(), "image/png"), ContentType: "image/png"}}
	case "sign-pdf": // the certificate and key to sign with
		return []toolstest.Companion{{Path: toolstest.WriteTemp(t, "conform.p12", signPKCS12(t, "Conformance", conformCertPassword)), ContentType: "application/x-pkcs12"}}
	case "einvoice-pdf": // the invoice to embed
		return []toolstest.Companion{{Path: toolstest.WriteTemp(t, "conform-invoice.xml", toolstest.CIIInvoice(toolstest.GuidelineEN16931, 2)), ContentType: "text/xml"}}
	}
	return nil
}

// sampleCSV is the table excel-to-pdf's samples hold.
const sampleCSV = "tool,passes\nrotate-pdf,1\nmerge-pdf,1\n"

// conformImagePDF has pictures on two pages for compress-pdf's and
// extract-images' params to act on: one at 300 dpi (which each preset
// downsamples or re-encodes differently), one at 150 dpi, and an 8x8 one
// under extract-images' default min_size.
var conformImagePDF = toolstest.ImagePDF(
	[]image.Image{toolstest.Picture(600, 600, 1)},
	[]image.Image{toolstest.Picture(300, 200, 2), toolstest.Picture(8, 8, 3)},
)

// sampleMarkdown has a code block, whose shading print_background keeps
// or drops.
const sampleMarkdown = "# Conformance\n\nEvery *tool* passes.\n\n    go test ./...\n"

const sampleHTML = `<!doctype html><html><head><style>body{background:#fed}</style></head>` +
	`<body><h1>Conformance</h1><p>Every tool passes.</p></body></html>`

// sampleDocx is a minimal .docx of one paragraph.
var sampleDocx = map[string]string{
	"[Content_Types].xml": `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`,
	"_rels/.rels":         `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`,
	"word/document.xml":   `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>Conformance of every tool.</w:t></w:r></w:p></w:body></w:document>`,
}

// zipOf returns a zip of files, [Content_Types].xml first (as Office
// writes it; the family detection reads the first entries).
func zipOf(t *testing.T, files map[string]string) []byte {
	var b bytes.Buffer
	z := zip.NewWriter(&b)
	names := []string{"[Content_Types].xml"}
	for name := range files {
		if name != names[0] {
			names = append(names, name)
		}
	}
	for _, name := range names {
		body, ok := files[name]
		if !ok {
			continue
		}
		w, err := z.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(body))
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// sampleImage writes a 96x64 picture with dark text-like bars (so that
// OCR has something to look at) in contentType; TIFF, WebP, AVIF and HEIC are made
// from the PNG by vips.
func sampleImage(t *testing.T, dir, contentType string) string {
	img := image.NewRGBA(image.Rect(0, 0, 96, 64))
	for y := 0; y < 64; y++ {
		for x := 0; x < 96; x++ {
			c := color.RGBA{uint8(x * 2), uint8(y * 3), 180, 255}
			if y%16 < 4 && x > 8 && x < 88 {
				c = color.RGBA{10, 10, 10, 255}
			}
			img.Set(x, y, c)
		}
	}
	var b bytes.Buffer
	var err error
	ext := map[string]string{"image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif", "image/tiff": ".tif", "image/webp": ".webp",
		"image/avif": ".avif", "image/heif": ".heic"}[contentType]
	switch contentType {
	case "image/jpeg":
		err = jpeg.Encode(&b, img, &jpeg.Options{Quality: 90})
	case "image/gif":
		err = gif.Encode(&b, img, nil)
	default:
		err = png.Encode(&b, img)
	}
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "conform-sample"+ext)
	if ext == ".png" || ext == ".jpg" || ext == ".gif" {
		if err := os.WriteFile(p, b.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	src := filepath.Join(dir, "src.png")
	if err := os.WriteFile(src, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("vips", "copy", src, p).CombinedOutput(); err != nil {
		t.Fatalf("vips copy to %s: %v\n%s", ext, err, out)
	}
	return p
}

// textImage renders a page of words to an image of contentType (PNG,
// JPEG or TIFF) with pdftoppm, for the OCR tools; "" for another type.
func textImage(t *testing.T, dir, contentType string) string {
	format, ext := map[string]string{"image/png": "-png", "image/jpeg": "-jpeg", "image/tiff": "-tiff"}[contentType],
		map[string]string{"image/png": ".png", "image/jpeg": ".jpg", "image/tiff": ".tif"}[contentType]
	if format == "" {
		return ""
	}
	pdf := toolstest.WriteTemp(t, "conform-words.pdf", toolstest.TextPDF("Conformance of every tool"))
	root := filepath.Join(dir, "conform-sample")
	if b, err := exec.Command("pdftoppm", format, "-r", "150", "-singlefile", pdf, root).CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm: %v\n%s", err, b)
	}
	if ext == ".jpg" { // pdftoppm names its JPEGs .jpg, its TIFFs .tif
		return root + ".jpg"
	}
	return root + ext
}

// urlConformServer serves the pages of url-to-pdf's and url-to-image's
// conformance runs: sampleHTML at /, another page at /other.
//
// 1.5 s after it loads, the sample puts a <conform> element first on the
// page: the suite's first candidate for wait_for, "conform", then finds
// it and prints a page that differs from the base run's, instead of
// waiting out the 30 s a selector is waited for.
func urlConformServer(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if r.URL.Path == "/other" {
			fmt.Fprint(w, `<!DOCTYPE html><html><body style="background:#036"><h1>Another page</h1><p>Not the sample at all.</p></body></html>`)
			return
		}
		fmt.Fprint(w, strings.Replace(sampleHTML, "</body>", lateElement+"</body>", 1))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// lateElement is the script that adds the sample's late element.
const lateElement = `<script>setTimeout(function () {
  var e = document.createElement("conform");
  e.textContent = "Waited for this.";
  e.style.cssText = "display:block;background:#fc0;font-size:40px";
  document.body.insertBefore(e, document.body.firstChild);
}, 1500);</script>`

// urlConformInputs are conformParams and conformValues with the URL
// tools' pages: the base page, and another one for the params check.
func urlConformInputs(t *testing.T) (map[string]map[string]string, map[string][]string) {
	page := urlConformServer(t) + "/"
	params, values := maps.Clone(conformParams), maps.Clone(conformValues)
	params["url-to-pdf"] = map[string]string{"url": page}
	// As html-to-image: a viewport shorter than the page.
	params["url-to-image"] = map[string]string{"url": page, "format": "jpeg", "height": "100"}
	values["url-to-pdf/url"] = []string{page + "other"}
	values["url-to-image/url"] = []string{page + "other"}
	return params, values
}
