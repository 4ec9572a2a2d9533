package main

import (
	"errors"
	"flag"
	"math"
	"strconv"

	"github.com/docmill/docmill"
)

// Units of the limit flags: pixel counts are given in megapixels, sizes in
// MB (MiB, as --max-upload-mb).
const (
	megapixel = 1_000_000
	megabyte  = 1 << 20
)

// registerLimits sets *l to docmill.DefaultLimits and registers a flag
// for each limit a client's file can run into, so each can be changed
// from the command line or its DOCMILL_* variable (--max-pdf-pages:
// DOCMILL_MAX_PDF_PAGES). The engines' memory is not a client's limit and
// has a flag of its own. GET /v1/limits shows the values in force.
func registerLimits(fs *flag.FlagSet, l *docmill.Limits) {
	*l = docmill.DefaultLimits()
	fs.Var(limitVar(&l.ImagePixels, megapixel), "max-image-megapixels",
		"largest image, in `megapixels`, that the image tools (compress, resize, convert) and OCR read or make; checked on its header, before decoding")
	fs.Var(limitVar(&l.EmbeddedImagePixels, megapixel), "max-embedded-image-megapixels",
		"largest JPEG, in `megapixels`, that jpg-to-pdf embeds without decoding")
	fs.Var(limitVar(&l.DecodedImagePixels, megapixel), "max-decoded-image-megapixels",
		"largest PNG, GIF, TIFF or WebP image, in `megapixels`, that jpg-to-pdf decodes")
	fs.Var(limitVar(&l.DecodedImagePixelsTotal, megapixel), "max-decoded-megapixels-per-job",
		"`megapixels` that jpg-to-pdf decodes in one job, all images together")
	fs.Var(limitVar(&l.RenderPagePixels, megapixel), "max-render-page-megapixels",
		"largest page image, in `megapixels`, that pdf-to-jpg and pdf-to-png make")
	fs.Var(limitVar(&l.RenderPixelsTotal, megapixel), "max-render-megapixels",
		"`megapixels` that pdf-to-jpg and pdf-to-png make in one job, all pages together")
	fs.Var(limitVar(&l.RenderPages, 1), "max-render-pages",
		"`pages` that pdf-to-jpg and pdf-to-png render in one job")
	fs.Var(limitVar(&l.PDFPages, 1), "max-pdf-pages",
		"`pages` of a document (and of a merge's result) that the PDF tools take")
	fs.Var(limitVar(&l.PDFBytes, megabyte), "max-pdf-mb",
		"largest PDF, in `MB`, that the pdfcpu tools parse (also the inputs of a merge together); they hold a whole document in memory")
	fs.Var(limitVar(&l.StreamDecodedBytes, megabyte), "max-stream-mb",
		"largest PDF stream, in `MB`, once decoded (flate bombs)")
	fs.Var(limitVar(&l.JobDecodedBytes, megabyte), "max-decoded-mb-per-job",
		"`MB` of PDF streams decoded in one job, all streams together")
	fs.Var(limitVar(&l.TextBytes, megabyte), "max-text-mb",
		"`MB` of text that pdf-to-text, of Markdown that pdf-to-markdown, or of tables that pdf-to-csv and pdf-to-xlsx, writes for one document")
	fs.Var(limitVar(&l.LayoutBytes, megabyte), "max-layout-mb",
		"`MB` of text layout (every word with its coordinates) that edit-bookmarks, pdf-to-word, pdf-to-odt, pdf-to-markdown, pdf-to-csv, pdf-to-xlsx and redact-pdf read for one document")
	fs.Var(limitVar(&l.CompareLayoutBytes, megabyte), "max-compare-layout-mb",
		"`MB` of words and boxes that compare-pdf reads of each document")
	fs.Var(limitVar(&l.RenderOutputBytes, megabyte), "max-render-output-mb",
		"`MB` of images that pdf-to-jpg, pdf-to-png, pdf-to-svg and extract-images write in one job, all together")
	fs.Var(limitVar(&l.RedactOCRPages, 1), "max-redact-ocr-pages",
		"`pages` that redact-pdf reads again by OCR (ocr=true) in one job")
	fs.Var(limitVar(&l.RedactOCRPixels, megapixel), "max-redact-ocr-megapixels",
		"`megapixels` of page images that redact-pdf reads again by OCR in one job, all pages together")
	fs.Var(limitVar(&l.ImageToTextPages, 1), "max-image-to-text-pages",
		"`pages` of a PDF that image-to-text reads by OCR in one job")
	fs.Var(limitVar(&l.PrintedPDFBytes, megabyte), "max-printed-pdf-mb",
		"largest PDF, in `MB`, that html-to-pdf, markdown-to-pdf and url-to-pdf print")
	fs.Var(limitVar(&l.MarkdownBytes, megabyte), "max-markdown-mb",
		"largest Markdown file, in `MB`, that markdown-to-pdf reads")
	fs.Var(limitVar(&l.InvoiceXMLBytes, megabyte), "max-invoice-xml-mb",
		"largest invoice XML, in `MB`, that einvoice-pdf reads and extract-einvoice takes out of a PDF")
	fs.Var(limitVar(&l.FetchRequests, 1), "max-fetch-requests",
		"`requests` that the page of a url-to-pdf or url-to-image job may make, redirects included; more are blocked")
	fs.Var(limitVar(&l.FetchBytes, megabyte), "max-fetch-mb",
		"`MB` of responses that the page of a url-to-pdf or url-to-image job may get, all together")
	fs.Var(limitVar(&l.FetchResponseBytes, megabyte), "max-fetch-response-mb",
		"largest response, in `MB` once decoded, that the page of a url-to-pdf or url-to-image job may get")
	fs.Var(limitVar(&l.SheetCells, 1), "max-sheet-cells",
		"`cells` of a spreadsheet exported to CSV or PDF, counted from A1 to the end of each sheet's used area, empty cells too")
	fs.Var(limitVar(&l.ArchiveEntries, 1), "max-archive-entries",
		"`entries` of a zip input (a zipped web page, an OOXML or ODF document)")
	fs.Var(limitVar(&l.ArchiveBytes, megabyte), "max-archive-mb",
		"`MB` that a zip input's entries expand to, all together")
	fs.Var(limitVar(&l.ArchiveRatio, 1), "max-archive-ratio",
		"how many `times` an entry of a zip input larger than 1 MB may expand its compressed size")
}

// limitFlag is a flag.Value that sets a limit given in units of unit: a
// whole number above zero.
type limitFlag[T int | int64] struct {
	p    *T
	unit T
}

// limitVar returns the flag.Value of the limit at p, given in units of
// unit.
func limitVar[T int | int64](p *T, unit T) *limitFlag[T] {
	return &limitFlag[T]{p: p, unit: unit}
}

// String returns the limit in units; empty for the zero limitFlag that
// package flag makes to find a flag's zero value.
func (f *limitFlag[T]) String() string {
	if f == nil || f.p == nil {
		return ""
	}
	return strconv.FormatInt(int64(*f.p/f.unit), 10)
}

// Set parses a whole number of units above zero.
func (f *limitFlag[T]) Set(s string) error {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return errors.New("want a whole number above zero")
	}
	v := T(n) * f.unit
	if n > math.MaxInt64/int64(f.unit) || int64(v)/int64(f.unit) != n {
		return errors.New("too large")
	}
	*f.p = v
	return nil
}
