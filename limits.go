package docmill

// Limits are every processing limit of a node, in one value: built once in
// cmd/docmill from flags and defaults, passed down to the tools (in each
// run's RunInput, or at construction) and the sandbox, and shown to
// clients by GET /v1/limits. Tools never fall back on defaults of their
// own: the bounds that remain constants in the tools' packages are facts
// of a format or of hostile structure, not what a job may cost. Plans only ever lower
// what a client may send (file size); these bound what one job may cost
// the node whatever the plan. A zero field means the default.
type Limits struct {
	// ImagePixels bounds one image an image tool (resize, compress,
	// convert, OCR of an image) decodes or makes, checked on its declared
	// size before decoding: 100 MP is about 400 MB as 8-bit RGBA.
	ImagePixels int64 `json:"image_pixels"`
	// EmbeddedImagePixels bounds one JPEG jpg-to-pdf embeds without
	// decoding it (it protects whoever renders the PDF): 200 MP admits the
	// largest phone sensors.
	EmbeddedImagePixels int64 `json:"embedded_image_pixels"`
	// DecodedImagePixels bounds one PNG, GIF, TIFF or WebP jpg-to-pdf
	// decodes in memory (50 MP: an A4 page at 600 dpi is 35 MP).
	DecodedImagePixels int64 `json:"decoded_image_pixels"`
	// DecodedImagePixelsTotal bounds the decoded images of one job
	// together, which drives its CPU time.
	DecodedImagePixelsTotal int64 `json:"decoded_image_pixels_total"`
	// RenderPagePixels bounds one page pdf-to-jpg/png renders (100 MP).
	RenderPagePixels int64 `json:"render_page_pixels"`
	// RenderPixelsTotal bounds the pixels of all pages one render makes.
	RenderPixelsTotal int64 `json:"render_pixels_total"`
	// RenderPages bounds the pages one render makes.
	RenderPages int `json:"render_pages"`
	// PDFPages bounds the pages of a document (and of a merge's result)
	// the PDF tools handle; the pdftotext of pdf-to-markdown, pdf-to-csv
	// and pdf-to-xlsx reads no further than the page past it.
	PDFPages int `json:"pdf_pages"`
	// PDFBytes bounds each PDF, and the inputs of a merge together, that
	// docmill parses itself (the pdfcpu tools), which hold a whole
	// document in memory.
	PDFBytes int64 `json:"pdf_bytes"`
	// StreamDecodedBytes bounds one PDF stream decoded (flate bombs).
	StreamDecodedBytes int64 `json:"stream_decoded_bytes"`
	// JobDecodedBytes bounds the streams of one job decoded together.
	JobDecodedBytes int64 `json:"job_decoded_bytes"`
	// TextBytes bounds the text pdf-to-text (the Markdown
	// pdf-to-markdown, the tables pdf-to-csv and pdf-to-xlsx) writes for
	// one document: text is far smaller
	// than the PDF it comes from, except in a document that draws the
	// same text over and over from a shared object.
	TextBytes int64 `json:"text_bytes"`
	// LayoutBytes bounds pdftotext's layout of one document, every word
	// with its coordinates (about ten times the text), that
	// edit-bookmarks (from_headings), pdf-to-word, pdf-to-odt,
	// pdf-to-markdown, pdf-to-csv, pdf-to-xlsx and redact-pdf read.
	LayoutBytes int64 `json:"layout_bytes"`
	// CompareLayoutBytes bounds the words and boxes pdftotext writes for
	// each document compare-pdf compares.
	CompareLayoutBytes int64 `json:"compare_layout_bytes"`
	// RenderOutputBytes bounds the images pdf-to-jpg, pdf-to-png and
	// pdf-to-svg write for one job, together (the archive, or the one
	// image), and the images extract-images would write, decoded.
	RenderOutputBytes int64 `json:"render_output_bytes"`
	// RedactOCRPages bounds the pages redact-pdf reads again by OCR
	// (ocr=true), all in one tesseract run within the tool's timeout.
	RedactOCRPages int `json:"redact_ocr_pages"`
	// RedactOCRPixels bounds the pixels of the page images redact-pdf
	// reads again by OCR, together: tesseract's time and memory grow
	// with them.
	RedactOCRPixels int64 `json:"redact_ocr_pixels"`
	// ImageToTextPages bounds the pages of a PDF image-to-text renders
	// and reads by OCR in one job.
	ImageToTextPages int `json:"image_to_text_pages"`
	// PrintedPDFBytes bounds the PDF Chromium prints for html-to-pdf,
	// markdown-to-pdf or url-to-pdf.
	PrintedPDFBytes int64 `json:"printed_pdf_bytes"`
	// MarkdownBytes bounds the Markdown file markdown-to-pdf parses, which
	// it holds in memory with its tree.
	MarkdownBytes int64 `json:"markdown_bytes"`
	// InvoiceXMLBytes bounds the invoice XML einvoice-pdf parses, and
	// the one extract-einvoice takes out of a PDF: an invoice of a
	// thousand lines is well under a megabyte.
	InvoiceXMLBytes int64 `json:"invoice_xml_bytes"`
	// FetchRequests bounds the requests the page of a url-to-pdf or
	// url-to-image job makes, redirects included; past it they are
	// blocked.
	FetchRequests int `json:"fetch_requests"`
	// FetchBytes bounds the bodies of all the responses such a page
	// gets, charged as they arrive: what its fetches hold in memory.
	FetchBytes int64 `json:"fetch_bytes"`
	// FetchResponseBytes bounds one response's body, decoded; a larger
	// one is blocked (the page's own document: fetch_failed).
	FetchResponseBytes int64 `json:"fetch_response_bytes"`
	// SheetCells bounds the cells of a spreadsheet that LibreOffice
	// exports to CSV (the sheet saved) or to PDF (every sheet), each
	// sheet counted from A1 to the end of its used area, empty cells
	// too: a file of a few KB with one value in a sheet's last cell spans
	// 17 billion cells, every one a separator to write or a cell to lay
	// out.
	SheetCells int64 `json:"sheet_cells"`
	// ArchiveEntries bounds the entries of a zip input (a zipped site, an
	// OOXML or ODF document).
	ArchiveEntries int `json:"archive_entries"`
	// ArchiveBytes bounds a zip input's entries expanded together.
	ArchiveBytes int64 `json:"archive_bytes"`
	// ArchiveRatio bounds how many times an entry larger than 1 MiB may
	// expand its compressed size.
	ArchiveRatio int `json:"archive_ratio"`
	// EngineMemory bounds the memory of each engine process (Ghostscript,
	// qpdf, poppler, libvips, tesseract, OCRmyPDF, LibreOffice, Chromium,
	// docmill's own PDF helper), in bytes. The default suits a 2-core,
	// 4 GB node running two jobs at once beside two warm LibreOffice
	// workers.
	EngineMemory int64 `json:"engine_memory"`
}

// DefaultLimits returns the limits a node has when no flag changes them.
func DefaultLimits() Limits {
	return Limits{
		ImagePixels:             100_000_000,
		EmbeddedImagePixels:     200_000_000,
		DecodedImagePixels:      50_000_000,
		DecodedImagePixelsTotal: 300_000_000,
		RenderPagePixels:        100_000_000,
		RenderPixelsTotal:       5_000_000_000,
		RenderPages:             2000,
		PDFPages:                10_000,
		PDFBytes:                512 << 20,
		StreamDecodedBytes:      256 << 20,
		JobDecodedBytes:         1 << 30,
		TextBytes:               512 << 20,
		LayoutBytes:             1 << 30,
		CompareLayoutBytes:      256 << 20,
		RenderOutputBytes:       2 << 30,
		RedactOCRPages:          20,
		RedactOCRPixels:         50_000_000,
		ImageToTextPages:        50,
		PrintedPDFBytes:         512 << 20,
		MarkdownBytes:           10 << 20,
		InvoiceXMLBytes:         16 << 20,
		FetchRequests:           500,
		FetchBytes:              64 << 20,
		FetchResponseBytes:      16 << 20,
		SheetCells:              100_000_000,
		ArchiveEntries:          10_000,
		ArchiveBytes:            512 << 20,
		ArchiveRatio:            200,
		EngineMemory:            1 << 30,
	}
}

// WithDefaults returns l with every zero field set to its default.
func (l Limits) WithDefaults() Limits {
	d := DefaultLimits()
	set := func(v *int64, def int64) {
		if *v <= 0 {
			*v = def
		}
	}
	seti := func(v *int, def int) {
		if *v <= 0 {
			*v = def
		}
	}
	set(&l.ImagePixels, d.ImagePixels)
	set(&l.EmbeddedImagePixels, d.EmbeddedImagePixels)
	set(&l.DecodedImagePixels, d.DecodedImagePixels)
	set(&l.DecodedImagePixelsTotal, d.DecodedImagePixelsTotal)
	set(&l.RenderPagePixels, d.RenderPagePixels)
	set(&l.RenderPixelsTotal, d.RenderPixelsTotal)
	seti(&l.RenderPages, d.RenderPages)
	seti(&l.PDFPages, d.PDFPages)
	set(&l.PDFBytes, d.PDFBytes)
	set(&l.StreamDecodedBytes, d.StreamDecodedBytes)
	set(&l.JobDecodedBytes, d.JobDecodedBytes)
	set(&l.TextBytes, d.TextBytes)
	set(&l.LayoutBytes, d.LayoutBytes)
	set(&l.CompareLayoutBytes, d.CompareLayoutBytes)
	set(&l.RenderOutputBytes, d.RenderOutputBytes)
	seti(&l.RedactOCRPages, d.RedactOCRPages)
	set(&l.RedactOCRPixels, d.RedactOCRPixels)
	seti(&l.ImageToTextPages, d.ImageToTextPages)
	set(&l.PrintedPDFBytes, d.PrintedPDFBytes)
	set(&l.MarkdownBytes, d.MarkdownBytes)
	set(&l.InvoiceXMLBytes, d.InvoiceXMLBytes)
	seti(&l.FetchRequests, d.FetchRequests)
	set(&l.FetchBytes, d.FetchBytes)
	set(&l.FetchResponseBytes, d.FetchResponseBytes)
	set(&l.SheetCells, d.SheetCells)
	seti(&l.ArchiveEntries, d.ArchiveEntries)
	set(&l.ArchiveBytes, d.ArchiveBytes)
	seti(&l.ArchiveRatio, d.ArchiveRatio)
	set(&l.EngineMemory, d.EngineMemory)
	return l
}

// LimitExceeded returns the invalid_document error of an input refused
// for exceeding a processing limit; what says which ("The document's
// streams expand to more than 1024 MB").
func LimitExceeded(what string) *Error {
	return Errorf(CodeInvalidDocument, "%s: a processing limit of this server was exceeded.", what)
}
