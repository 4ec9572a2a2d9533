// Code generated from the tool registry by `go run ./cmd/docmill docs go-params > client/tools_gen.go`; DO NOT EDIT.

package client

import "strconv"

// AddAttachments are the params of add-attachments: Add PDF attachments.
type AddAttachments struct {
	// A description given to every file attached, which PDF viewers show beside it. Allowed: length at most 1000.
	Description *string
}

// Tool is "add-attachments".
func (AddAttachments) Tool() string { return "add-attachments" }

// FormValues are the form fields of the params that are set.
func (p AddAttachments) FormValues() map[string]string {
	v := map[string]string{}
	if p.Description != nil {
		v["description"] = *p.Description
	}
	return v
}

// BookletPDF are the params of booklet-pdf: Booklet PDF.
type BookletPDF struct {
	// Pages on each side of a sheet: 2 makes a booklet of half the sheet's size; 4 makes one of a quarter, cut in two after folding. A whole number. Default: `2`.
	PerSheet *int
	// The sheet's size: a4, a3, a5, letter, legal, or width x height in millimetres such as "210x297"; a4 by default. Allowed: length at most 32. Default: `a4`.
	PageSize *string
}

// Tool is "booklet-pdf".
func (BookletPDF) Tool() string { return "booklet-pdf" }

// FormValues are the form fields of the params that are set.
func (p BookletPDF) FormValues() map[string]string {
	v := map[string]string{}
	if p.PerSheet != nil {
		v["per_sheet"] = strconv.Itoa(*p.PerSheet)
	}
	if p.PageSize != nil {
		v["page_size"] = *p.PageSize
	}
	return v
}

// ComparePDF are the params of compare-pdf: Compare PDFs.
type ComparePDF struct {
}

// Tool is "compare-pdf".
func (ComparePDF) Tool() string { return "compare-pdf" }

// FormValues are the form fields of the params that are set.
func (p ComparePDF) FormValues() map[string]string {
	v := map[string]string{}
	return v
}

// CompressImagePreset is a value of CompressImage's preset.
type CompressImagePreset string

const (
	CompressImagePresetLow         CompressImagePreset = "low"
	CompressImagePresetRecommended CompressImagePreset = "recommended"
	CompressImagePresetExtreme     CompressImagePreset = "extreme"
)

// CompressImage are the params of compress-image: Compress image.
type CompressImage struct {
	// Compression level: low keeps the most quality, extreme makes the smallest file. Default: `recommended`.
	Preset *CompressImagePreset
	// JPEG/WebP/AVIF quality 1-100 (for PNG, the quantization quality); overrides the preset. A whole number. Allowed: 1 to 100.
	Quality *int
}

// Tool is "compress-image".
func (CompressImage) Tool() string { return "compress-image" }

// FormValues are the form fields of the params that are set.
func (p CompressImage) FormValues() map[string]string {
	v := map[string]string{}
	if p.Preset != nil {
		v["preset"] = string(*p.Preset)
	}
	if p.Quality != nil {
		v["quality"] = strconv.Itoa(*p.Quality)
	}
	return v
}

// CompressPDFPreset is a value of CompressPDF's preset.
type CompressPDFPreset string

const (
	CompressPDFPresetLow         CompressPDFPreset = "low"
	CompressPDFPresetRecommended CompressPDFPreset = "recommended"
	CompressPDFPresetExtreme     CompressPDFPreset = "extreme"
)

// CompressPDF are the params of compress-pdf: Compress PDF.
type CompressPDF struct {
	// Compression level: low keeps images near their resolution (300 dpi), recommended aims at 150 dpi, extreme at 96 dpi with lower quality. Default: `recommended`.
	Preset *CompressPDFPreset
	// JPEG quality of re-encoded images (1-100); overrides the preset's. A whole number. Allowed: 1 to 100.
	Quality *int
}

// Tool is "compress-pdf".
func (CompressPDF) Tool() string { return "compress-pdf" }

// FormValues are the form fields of the params that are set.
func (p CompressPDF) FormValues() map[string]string {
	v := map[string]string{}
	if p.Preset != nil {
		v["preset"] = string(*p.Preset)
	}
	if p.Quality != nil {
		v["quality"] = strconv.Itoa(*p.Quality)
	}
	return v
}

// ConvertDocumentFormat is a value of ConvertDocument's format.
type ConvertDocumentFormat string

const (
	ConvertDocumentFormatDocx ConvertDocumentFormat = "docx"
	ConvertDocumentFormatODT  ConvertDocumentFormat = "odt"
	ConvertDocumentFormatRtf  ConvertDocumentFormat = "rtf"
	ConvertDocumentFormatTxt  ConvertDocumentFormat = "txt"
	ConvertDocumentFormatEpub ConvertDocumentFormat = "epub"
	ConvertDocumentFormatXlsx ConvertDocumentFormat = "xlsx"
	ConvertDocumentFormatOds  ConvertDocumentFormat = "ods"
	ConvertDocumentFormatCsv  ConvertDocumentFormat = "csv"
	ConvertDocumentFormatPptx ConvertDocumentFormat = "pptx"
	ConvertDocumentFormatOdp  ConvertDocumentFormat = "odp"
)

// ConvertDocument are the params of convert-document: Convert document.
type ConvertDocument struct {
	// The format to save in; it must fit the document: docx, odt, rtf, txt or epub for a text document, xlsx, ods or csv for a spreadsheet, pptx or odp for a presentation.
	Format ConvertDocumentFormat
}

// Tool is "convert-document".
func (ConvertDocument) Tool() string { return "convert-document" }

// FormValues are the form fields of the params that are set.
func (p ConvertDocument) FormValues() map[string]string {
	v := map[string]string{}
	v["format"] = string(p.Format)
	return v
}

// ConvertImageFormat is a value of ConvertImage's format.
type ConvertImageFormat string

const (
	ConvertImageFormatJPG  ConvertImageFormat = "jpg"
	ConvertImageFormatPNG  ConvertImageFormat = "png"
	ConvertImageFormatWebp ConvertImageFormat = "webp"
	ConvertImageFormatAvif ConvertImageFormat = "avif"
	ConvertImageFormatTiff ConvertImageFormat = "tiff"
	ConvertImageFormatGif  ConvertImageFormat = "gif"
)

// ConvertImage are the params of convert-image: Convert image.
type ConvertImage struct {
	// Output format; the list holds only the formats this server's libvips can write.
	Format ConvertImageFormat
	// Quality 1-100 of lossy outputs (jpg, webp, avif; default 85 for jpg and webp, 50 for avif); ignored otherwise. A whole number. Allowed: 1 to 100.
	Quality *int
}

// Tool is "convert-image".
func (ConvertImage) Tool() string { return "convert-image" }

// FormValues are the form fields of the params that are set.
func (p ConvertImage) FormValues() map[string]string {
	v := map[string]string{}
	v["format"] = string(p.Format)
	if p.Quality != nil {
		v["quality"] = strconv.Itoa(*p.Quality)
	}
	return v
}

// CropImage are the params of crop-image: Crop image.
type CropImage struct {
	// Pixels from the left edge to the box. A whole number. Allowed: 0 to 20000. Default: `0`.
	Left *int
	// Pixels from the top edge to the box. A whole number. Allowed: 0 to 20000. Default: `0`.
	Top *int
	// Width of the box in pixels. A whole number. Allowed: 1 to 20000.
	Width int
	// Height of the box in pixels. A whole number. Allowed: 1 to 20000.
	Height int
	// JPEG/WebP/AVIF quality 1-100 of the output (default 90). A whole number. Allowed: 1 to 100.
	Quality *int
}

// Tool is "crop-image".
func (CropImage) Tool() string { return "crop-image" }

// FormValues are the form fields of the params that are set.
func (p CropImage) FormValues() map[string]string {
	v := map[string]string{}
	if p.Left != nil {
		v["left"] = strconv.Itoa(*p.Left)
	}
	if p.Top != nil {
		v["top"] = strconv.Itoa(*p.Top)
	}
	v["width"] = strconv.Itoa(p.Width)
	v["height"] = strconv.Itoa(p.Height)
	if p.Quality != nil {
		v["quality"] = strconv.Itoa(*p.Quality)
	}
	return v
}

// CropPDF are the params of crop-pdf: Crop PDF.
type CropPDF struct {
	// Millimetres to cut from each page as shown: "top,right,bottom,left", or one number for all four, such as "10". Allowed: length at most 100.
	Margins *string
	// The area to keep, "x1,y1,x2,y2" in millimetres from the bottom-left corner of the page as shown, such as "20,20,190,277". Allowed: length at most 100.
	Box *string
	// Trim the white margins: keep what the page draws, with padding around it. Blank pages are left as they are. Default: `false`.
	Auto *bool
	// With auto, millimetres of margin kept around what the page draws; 2 by default. Allowed: 0 to 100.
	Padding *float64
	// Pages to crop, such as "1-3,5,8-"; all pages by default. A page selection such as `1-3,5,8-`. Default: `all`.
	Pages *string
}

// Tool is "crop-pdf".
func (CropPDF) Tool() string { return "crop-pdf" }

// FormValues are the form fields of the params that are set.
func (p CropPDF) FormValues() map[string]string {
	v := map[string]string{}
	if p.Margins != nil {
		v["margins"] = *p.Margins
	}
	if p.Box != nil {
		v["box"] = *p.Box
	}
	if p.Auto != nil {
		v["auto"] = strconv.FormatBool(*p.Auto)
	}
	if p.Padding != nil {
		v["padding"] = strconv.FormatFloat(*p.Padding, 'f', -1, 64)
	}
	if p.Pages != nil {
		v["pages"] = *p.Pages
	}
	return v
}

// DocumentThumbnail are the params of document-thumbnail: Document thumbnail.
type DocumentThumbnail struct {
	// Width of the picture in pixels, 16-2000; the height follows the page's proportions. A whole number. Allowed: 16 to 2000. Default: `400`.
	Width *int
}

// Tool is "document-thumbnail".
func (DocumentThumbnail) Tool() string { return "document-thumbnail" }

// FormValues are the form fields of the params that are set.
func (p DocumentThumbnail) FormValues() map[string]string {
	v := map[string]string{}
	if p.Width != nil {
		v["width"] = strconv.Itoa(*p.Width)
	}
	return v
}

// EditBookmarks are the params of edit-bookmarks: Edit PDF bookmarks.
type EditBookmarks struct {
	// The bookmarks as JSON: a list of {"title", "page", "children"}, or pdf-bookmarks' {"bookmarks": [...]}; at most 5000 bookmarks, 8 levels, titles of 500 characters. Required unless from_headings is true. Allowed: length at most 65536.
	Bookmarks *string
	// Build the bookmarks from the headings of the text (lines in a clearly larger font) instead of bookmarks. Scanned pages without text have none; run ocr-pdf first. Default: `false`.
	FromHeadings *bool
}

// Tool is "edit-bookmarks".
func (EditBookmarks) Tool() string { return "edit-bookmarks" }

// FormValues are the form fields of the params that are set.
func (p EditBookmarks) FormValues() map[string]string {
	v := map[string]string{}
	if p.Bookmarks != nil {
		v["bookmarks"] = *p.Bookmarks
	}
	if p.FromHeadings != nil {
		v["from_headings"] = strconv.FormatBool(*p.FromHeadings)
	}
	return v
}

// EditMetadata are the params of edit-metadata: Edit PDF metadata.
type EditMetadata struct {
	// The document's title. Left as it is when not given. Allowed: length at most 2000.
	Title *string
	// The person or organisation that wrote the document. Left as it is when not given. Allowed: length at most 2000.
	Author *string
	// What the document is about. Left as it is when not given. Allowed: length at most 2000.
	Subject *string
	// Keywords, such as "report, 2026, sales". Left as it is when not given. Allowed: length at most 2000.
	Keywords *string
	// The application that made the original document. Left as it is when not given. Allowed: length at most 2000.
	Creator *string
	// The document's language, a BCP 47 tag such as "en" or "ru-RU". Left as it is when not given. Allowed: length at most 35.
	Language *string
	// The application that made the PDF. The writer's own name (pdfcpu) when not given. Allowed: length at most 2000.
	Producer *string
	// Remove every existing entry first; values given are then set. A PDF/A or PDF/UA identification in the XMP metadata is kept. Default: `false`.
	Clear *bool
}

// Tool is "edit-metadata".
func (EditMetadata) Tool() string { return "edit-metadata" }

// FormValues are the form fields of the params that are set.
func (p EditMetadata) FormValues() map[string]string {
	v := map[string]string{}
	if p.Title != nil {
		v["title"] = *p.Title
	}
	if p.Author != nil {
		v["author"] = *p.Author
	}
	if p.Subject != nil {
		v["subject"] = *p.Subject
	}
	if p.Keywords != nil {
		v["keywords"] = *p.Keywords
	}
	if p.Creator != nil {
		v["creator"] = *p.Creator
	}
	if p.Language != nil {
		v["language"] = *p.Language
	}
	if p.Producer != nil {
		v["producer"] = *p.Producer
	}
	if p.Clear != nil {
		v["clear"] = strconv.FormatBool(*p.Clear)
	}
	return v
}

// EinvoicePDFLevel is a value of EinvoicePDF's level.
type EinvoicePDFLevel string

const (
	EinvoicePDFLevelMINIMUM   EinvoicePDFLevel = "MINIMUM"
	EinvoicePDFLevelBASICWL   EinvoicePDFLevel = "BASIC WL"
	EinvoicePDFLevelBASIC     EinvoicePDFLevel = "BASIC"
	EinvoicePDFLevelEN16931   EinvoicePDFLevel = "EN 16931"
	EinvoicePDFLevelEXTENDED  EinvoicePDFLevel = "EXTENDED"
	EinvoicePDFLevelXRECHNUNG EinvoicePDFLevel = "XRECHNUNG"
)

// EinvoicePDF are the params of einvoice-pdf: Make a Factur-X e-invoice.
type EinvoicePDF struct {
	// The level the invoice must have; when given and the XML's guideline ID names another, the request is refused. By default, the XML's own.
	Level *EinvoicePDFLevel
}

// Tool is "einvoice-pdf".
func (EinvoicePDF) Tool() string { return "einvoice-pdf" }

// FormValues are the form fields of the params that are set.
func (p EinvoicePDF) FormValues() map[string]string {
	v := map[string]string{}
	if p.Level != nil {
		v["level"] = string(*p.Level)
	}
	return v
}

// ExcelToPDF are the params of excel-to-pdf: Excel to PDF.
type ExcelToPDF struct {
	// Pages of the PDF to keep, such as "1-3,5,8-" (default: all). A page selection such as `1-3,5,8-`.
	Pages *string
}

// Tool is "excel-to-pdf".
func (ExcelToPDF) Tool() string { return "excel-to-pdf" }

// FormValues are the form fields of the params that are set.
func (p ExcelToPDF) FormValues() map[string]string {
	v := map[string]string{}
	if p.Pages != nil {
		v["pages"] = *p.Pages
	}
	return v
}

// ExtractAttachments are the params of extract-attachments: Extract PDF attachments.
type ExtractAttachments struct {
}

// Tool is "extract-attachments".
func (ExtractAttachments) Tool() string { return "extract-attachments" }

// FormValues are the form fields of the params that are set.
func (p ExtractAttachments) FormValues() map[string]string {
	v := map[string]string{}
	return v
}

// ExtractEinvoice are the params of extract-einvoice: Extract e-invoice XML.
type ExtractEinvoice struct {
}

// Tool is "extract-einvoice".
func (ExtractEinvoice) Tool() string { return "extract-einvoice" }

// FormValues are the form fields of the params that are set.
func (p ExtractEinvoice) FormValues() map[string]string {
	v := map[string]string{}
	return v
}

// ExtractImages are the params of extract-images: Extract images from PDF.
type ExtractImages struct {
	// Images whose smaller side is under this many pixels are left out (icons, bullets, spacers); 0 keeps every image. A whole number. Allowed: 0 to 10000. Default: `16`.
	MinSize *int
	// Pages whose images to extract, such as "1-3,5,8-"; every page when absent. A page selection such as `1-3,5,8-`.
	Pages *string
}

// Tool is "extract-images".
func (ExtractImages) Tool() string { return "extract-images" }

// FormValues are the form fields of the params that are set.
func (p ExtractImages) FormValues() map[string]string {
	v := map[string]string{}
	if p.MinSize != nil {
		v["min_size"] = strconv.Itoa(*p.MinSize)
	}
	if p.Pages != nil {
		v["pages"] = *p.Pages
	}
	return v
}

// ExtractPages are the params of extract-pages: Extract pages.
type ExtractPages struct {
	// Pages to keep, such as "1-3,5,8-" ("8-" runs to the last page). A page selection such as `1-3,5,8-`.
	Pages string
}

// Tool is "extract-pages".
func (ExtractPages) Tool() string { return "extract-pages" }

// FormValues are the form fields of the params that are set.
func (p ExtractPages) FormValues() map[string]string {
	v := map[string]string{}
	v["pages"] = p.Pages
	return v
}

// FillPDFForm are the params of fill-pdf-form: Fill PDF form.
type FillPDFForm struct {
	// A JSON object of field names to values: text for a text field, true or false (or its on state) for a check box, the chosen option for a radio group or a combo box, a list of options for a list box that takes several; such as {"Name": "Jane Roe", "Agree": true, "Size": "M"}. A name the form does not have, or a value not among a field's options, is refused. Allowed: length at most 64000.
	Values string
	// Draw the filled fields into the pages and remove the form, so the values can no longer be changed. Default: `false`.
	Flatten *bool
}

// Tool is "fill-pdf-form".
func (FillPDFForm) Tool() string { return "fill-pdf-form" }

// FormValues are the form fields of the params that are set.
func (p FillPDFForm) FormValues() map[string]string {
	v := map[string]string{}
	v["values"] = p.Values
	if p.Flatten != nil {
		v["flatten"] = strconv.FormatBool(*p.Flatten)
	}
	return v
}

// FlattenPDF are the params of flatten-pdf: Flatten PDF.
type FlattenPDF struct {
}

// Tool is "flatten-pdf".
func (FlattenPDF) Tool() string { return "flatten-pdf" }

// FormValues are the form fields of the params that are set.
func (p FlattenPDF) FormValues() map[string]string {
	v := map[string]string{}
	return v
}

// GrayscalePDF are the params of grayscale-pdf: Grayscale PDF.
type GrayscalePDF struct {
}

// Tool is "grayscale-pdf".
func (GrayscalePDF) Tool() string { return "grayscale-pdf" }

// FormValues are the form fields of the params that are set.
func (p GrayscalePDF) FormValues() map[string]string {
	v := map[string]string{}
	return v
}

// HTMLToImageFormat is a value of HTMLToImage's format.
type HTMLToImageFormat string

const (
	HTMLToImageFormatPNG  HTMLToImageFormat = "png"
	HTMLToImageFormatJpeg HTMLToImageFormat = "jpeg"
	HTMLToImageFormatWebp HTMLToImageFormat = "webp"
)

// HTMLToImage are the params of html-to-image: HTML to image.
type HTMLToImage struct {
	// Image format: png, jpeg or webp. Default: `png`.
	Format *HTMLToImageFormat
	// Width of the browser window (viewport) and of the image, in CSS pixels. A whole number. Allowed: 320 to 3840. Default: `1280`.
	Width *int
	// Height of the viewport, and of the image unless full_page is true. A whole number. Allowed: 100 to 16384. Default: `800`.
	Height *int
	// Capture the whole page, as tall as it scrolls (never less than height), up to 16384 pixels and 16 megapixels (meta.truncated tells when it was cut). Default: `false`.
	FullPage *bool
	// JPEG or WebP quality, 1 (smallest) to 100 (best); PNG ignores it. A whole number. Allowed: 1 to 100. Default: `85`.
	Quality *int
}

// Tool is "html-to-image".
func (HTMLToImage) Tool() string { return "html-to-image" }

// FormValues are the form fields of the params that are set.
func (p HTMLToImage) FormValues() map[string]string {
	v := map[string]string{}
	if p.Format != nil {
		v["format"] = string(*p.Format)
	}
	if p.Width != nil {
		v["width"] = strconv.Itoa(*p.Width)
	}
	if p.Height != nil {
		v["height"] = strconv.Itoa(*p.Height)
	}
	if p.FullPage != nil {
		v["full_page"] = strconv.FormatBool(*p.FullPage)
	}
	if p.Quality != nil {
		v["quality"] = strconv.Itoa(*p.Quality)
	}
	return v
}

// HTMLToPDFPageSize is a value of HTMLToPDF's page_size.
type HTMLToPDFPageSize string

const (
	HTMLToPDFPageSizeA4     HTMLToPDFPageSize = "a4"
	HTMLToPDFPageSizeLetter HTMLToPDFPageSize = "letter"
	HTMLToPDFPageSizeLegal  HTMLToPDFPageSize = "legal"
	HTMLToPDFPageSizeA3     HTMLToPDFPageSize = "a3"
	HTMLToPDFPageSizeA5     HTMLToPDFPageSize = "a5"
)

// HTMLToPDFMargin is a value of HTMLToPDF's margin.
type HTMLToPDFMargin string

const (
	HTMLToPDFMarginNone   HTMLToPDFMargin = "none"
	HTMLToPDFMarginSmall  HTMLToPDFMargin = "small"
	HTMLToPDFMarginNormal HTMLToPDFMargin = "normal"
)

// HTMLToPDFMedia is a value of HTMLToPDF's media.
type HTMLToPDFMedia string

const (
	HTMLToPDFMediaPrint  HTMLToPDFMedia = "print"
	HTMLToPDFMediaScreen HTMLToPDFMedia = "screen"
)

// HTMLToPDFPDFA is a value of HTMLToPDF's pdfa.
type HTMLToPDFPDFA string

const (
	HTMLToPDFPDFANone HTMLToPDFPDFA = "none"
	HTMLToPDFPDFA1b   HTMLToPDFPDFA = "1b"
	HTMLToPDFPDFA2b   HTMLToPDFPDFA = "2b"
	HTMLToPDFPDFA3b   HTMLToPDFPDFA = "3b"
)

// HTMLToPDF are the params of html-to-pdf: HTML to PDF.
type HTMLToPDF struct {
	// Paper size: a4 (210x297 mm), letter (8.5x11 in), legal (8.5x14 in), a3 (297x420 mm) or a5 (148x210 mm). A page's CSS @page size is ignored unless prefer_css_page_size is true. Default: `a4`.
	PageSize *HTMLToPDFPageSize
	// Print in landscape orientation. Default: `false`.
	Landscape *bool
	// Page margins: none, small (0.4 in, 10 mm) or normal (0.8 in, 20 mm). Default: `normal`.
	Margin *HTMLToPDFMargin
	// Print background colours and images, as on screen. Default: `true`.
	PrintBackground *bool
	// Make a tagged (accessible) PDF: the page's structure (headings, paragraphs, lists, tables, image descriptions) for screen readers and reflow. Slower, and often several times larger. Default: `false`.
	Tagged *bool
	// Page header. An HTML template, printed in the margin of every page with the page's styles left out; elements of class pageNumber, totalPages, date, title and url get those values (<span class="pageNumber"></span> / <span class="totalPages"></span>). It loads nothing: images must be data: URLs. Its text is small unless styled (font-size). It is drawn within the margin on its side: when that margin is 0 (margin=none), 0.4 in (10 mm) is used. Allowed: length at most 32768.
	HeaderHTML *string
	// Page footer. An HTML template, printed in the margin of every page with the page's styles left out; elements of class pageNumber, totalPages, date, title and url get those values (<span class="pageNumber"></span> / <span class="totalPages"></span>). It loads nothing: images must be data: URLs. Its text is small unless styled (font-size). It is drawn within the margin on its side: when that margin is 0 (margin=none), 0.4 in (10 mm) is used. Allowed: length at most 32768.
	FooterHTML *string
	// Scale of the page's rendering, 0.1 to 2. Allowed: 0.1 to 2. Default: `1`.
	Scale *float64
	// Pages to print, such as 1-3,5 or 8- (from 8 to the end); all when left out. A selection with no page in the document is refused. A page selection such as `1-3,5,8-`.
	PageRanges *string
	// Use the page's CSS @page size, when it sets one, instead of page_size or paper_width and paper_height. Default: `false`.
	PreferCssPageSize *bool
	// The CSS media the page is laid out for: print, or screen (@media screen rules apply, as in a browser window). Default: `print`.
	Media *HTMLToPDFMedia
	// Paper width, overriding page_size, a length with its unit: mm, cm, in, pt or px, such as 210mm or 8.5in (1 in to 200 in). Allowed: length at most 32.
	PaperWidth *string
	// Paper height, overriding page_size, a length with its unit: mm, cm, in, pt or px, such as 297mm or 11in (1 in to 200 in). Allowed: length at most 32.
	PaperHeight *string
	// Top margin, overriding margin, a length with its unit: mm, cm, in, pt or px, such as 15mm or 0.5in (0 in to 20 in). Allowed: length at most 32.
	MarginTop *string
	// Right margin, overriding margin, a length with its unit: mm, cm, in, pt or px, such as 15mm or 0.5in (0 in to 20 in). Allowed: length at most 32.
	MarginRight *string
	// Bottom margin, overriding margin, a length with its unit: mm, cm, in, pt or px, such as 15mm or 0.5in (0 in to 20 in). Allowed: length at most 32.
	MarginBottom *string
	// Left margin, overriding margin, a length with its unit: mm, cm, in, pt or px, such as 15mm or 0.5in (0 in to 20 in). Allowed: length at most 32.
	MarginLeft *string
	// Once the page loaded, wait for this before printing: a number of milliseconds (0 to 30000), or a CSS selector that must match an element (waited for up to 30 s; if it never does, the page is printed as it is and meta.wait_timed_out is true). For a page whose scripts add content after it loaded. Allowed: length at most 500.
	WaitFor *string
	// Add bookmarks (the PDF's outline) made from the page's headings, h1 to h6, nested by level. Chromium builds them from the PDF's structure tree, so the PDF is tagged too (see tagged). Default: `false`.
	Outline *bool
	// Print the whole page on one PDF page as tall as its content (page_size or paper_width gives the width; landscape takes the paper's long side), with CSS page breaks ignored. A page taller than 200 in (the longest paper) goes on as many pages of that height as it needs. Not with paper_height, page_ranges or prefer_css_page_size. Default: `false`.
	SinglePage *bool
	// Make the PDF a PDF/A (archival) file of this part, level B, through pdf-to-pdfa's conversion (Ghostscript): fonts embedded, colours tied to an sRGB output intent, the claim in the XMP metadata. The conversion keeps the text, links and outline but not a structure tree, so it is refused with tagged or pdfua. Default: `none`.
	PDFA *HTMLToPDFPDFA
	// Mark the PDF for PDF/UA-1 (universal accessibility): tagged (as tagged=true), the title shown in the window's title bar, the language of the page's <html lang> as the document's, Marked content, and the PDF/UA-1 claim in the XMP metadata. Whether the file conforms depends on the page too (alt text, heading order, a title, a lang): see docs/api.md. Default: `false`.
	Pdfua *bool
}

// Tool is "html-to-pdf".
func (HTMLToPDF) Tool() string { return "html-to-pdf" }

// FormValues are the form fields of the params that are set.
func (p HTMLToPDF) FormValues() map[string]string {
	v := map[string]string{}
	if p.PageSize != nil {
		v["page_size"] = string(*p.PageSize)
	}
	if p.Landscape != nil {
		v["landscape"] = strconv.FormatBool(*p.Landscape)
	}
	if p.Margin != nil {
		v["margin"] = string(*p.Margin)
	}
	if p.PrintBackground != nil {
		v["print_background"] = strconv.FormatBool(*p.PrintBackground)
	}
	if p.Tagged != nil {
		v["tagged"] = strconv.FormatBool(*p.Tagged)
	}
	if p.HeaderHTML != nil {
		v["header_html"] = *p.HeaderHTML
	}
	if p.FooterHTML != nil {
		v["footer_html"] = *p.FooterHTML
	}
	if p.Scale != nil {
		v["scale"] = strconv.FormatFloat(*p.Scale, 'f', -1, 64)
	}
	if p.PageRanges != nil {
		v["page_ranges"] = *p.PageRanges
	}
	if p.PreferCssPageSize != nil {
		v["prefer_css_page_size"] = strconv.FormatBool(*p.PreferCssPageSize)
	}
	if p.Media != nil {
		v["media"] = string(*p.Media)
	}
	if p.PaperWidth != nil {
		v["paper_width"] = *p.PaperWidth
	}
	if p.PaperHeight != nil {
		v["paper_height"] = *p.PaperHeight
	}
	if p.MarginTop != nil {
		v["margin_top"] = *p.MarginTop
	}
	if p.MarginRight != nil {
		v["margin_right"] = *p.MarginRight
	}
	if p.MarginBottom != nil {
		v["margin_bottom"] = *p.MarginBottom
	}
	if p.MarginLeft != nil {
		v["margin_left"] = *p.MarginLeft
	}
	if p.WaitFor != nil {
		v["wait_for"] = *p.WaitFor
	}
	if p.Outline != nil {
		v["outline"] = strconv.FormatBool(*p.Outline)
	}
	if p.SinglePage != nil {
		v["single_page"] = strconv.FormatBool(*p.SinglePage)
	}
	if p.PDFA != nil {
		v["pdfa"] = string(*p.PDFA)
	}
	if p.Pdfua != nil {
		v["pdfua"] = strconv.FormatBool(*p.Pdfua)
	}
	return v
}

// ImageInfo are the params of image-info: Image info.
type ImageInfo struct {
}

// Tool is "image-info".
func (ImageInfo) Tool() string { return "image-info" }

// FormValues are the form fields of the params that are set.
func (p ImageInfo) FormValues() map[string]string {
	v := map[string]string{}
	return v
}

// ImageToTextFormat is a value of ImageToText's format.
type ImageToTextFormat string

const (
	ImageToTextFormatTxt  ImageToTextFormat = "txt"
	ImageToTextFormatHocr ImageToTextFormat = "hocr"
	ImageToTextFormatAlto ImageToTextFormat = "alto"
)

// ImageToTextLang is a value of ImageToText's lang.
type ImageToTextLang string

const (
	ImageToTextLangEng    ImageToTextLang = "eng"
	ImageToTextLangRus    ImageToTextLang = "rus"
	ImageToTextLangEngRus ImageToTextLang = "eng+rus"
)

// ImageToText are the params of image-to-text: Image to text (OCR).
type ImageToText struct {
	// txt: plain UTF-8 text; hocr: hOCR (XHTML with word boxes); alto: ALTO XML. Default: `txt`.
	Format *ImageToTextFormat
	// The language of the text: eng (English), rus (Russian) or eng+rus (both). Default: `eng+rus`.
	Lang *ImageToTextLang
}

// Tool is "image-to-text".
func (ImageToText) Tool() string { return "image-to-text" }

// FormValues are the form fields of the params that are set.
func (p ImageToText) FormValues() map[string]string {
	v := map[string]string{}
	if p.Format != nil {
		v["format"] = string(*p.Format)
	}
	if p.Lang != nil {
		v["lang"] = string(*p.Lang)
	}
	return v
}

// ImageWatermarkPosition is a value of ImageWatermark's position.
type ImageWatermarkPosition string

const (
	ImageWatermarkPositionTopLeft      ImageWatermarkPosition = "top-left"
	ImageWatermarkPositionTopCenter    ImageWatermarkPosition = "top-center"
	ImageWatermarkPositionTopRight     ImageWatermarkPosition = "top-right"
	ImageWatermarkPositionCenterLeft   ImageWatermarkPosition = "center-left"
	ImageWatermarkPositionCenter       ImageWatermarkPosition = "center"
	ImageWatermarkPositionCenterRight  ImageWatermarkPosition = "center-right"
	ImageWatermarkPositionBottomLeft   ImageWatermarkPosition = "bottom-left"
	ImageWatermarkPositionBottomCenter ImageWatermarkPosition = "bottom-center"
	ImageWatermarkPositionBottomRight  ImageWatermarkPosition = "bottom-right"
)

// ImageWatermark are the params of image-watermark: Image watermark PDF.
type ImageWatermark struct {
	// Where on the page the image goes; away from the center it keeps a margin of about 1 cm. Default: `center`.
	Position *ImageWatermarkPosition
	// The image's width as a fraction of the page's width (smaller if it would not fit the page). Allowed: 0.05 to 1. Default: `0.25`.
	Scale *float64
	// From 0 (invisible) to 1 (opaque). Allowed: 0 to 1. Default: `0.5`.
	Opacity *float64
	// Angle of the image in degrees, counter-clockwise. Allowed: -180 to 180. Default: `0`.
	Rotation *float64
	// Pages to stamp, such as "1-3,5,8-"; all pages by default. A page selection such as `1-3,5,8-`. Default: `all`.
	Pages *string
}

// Tool is "image-watermark".
func (ImageWatermark) Tool() string { return "image-watermark" }

// FormValues are the form fields of the params that are set.
func (p ImageWatermark) FormValues() map[string]string {
	v := map[string]string{}
	if p.Position != nil {
		v["position"] = string(*p.Position)
	}
	if p.Scale != nil {
		v["scale"] = strconv.FormatFloat(*p.Scale, 'f', -1, 64)
	}
	if p.Opacity != nil {
		v["opacity"] = strconv.FormatFloat(*p.Opacity, 'f', -1, 64)
	}
	if p.Rotation != nil {
		v["rotation"] = strconv.FormatFloat(*p.Rotation, 'f', -1, 64)
	}
	if p.Pages != nil {
		v["pages"] = *p.Pages
	}
	return v
}

// InsertPages are the params of insert-pages: Insert pages into PDF.
type InsertPages struct {
	// The page after which the pages go; 0 puts them before the first page. After the last page by default. A whole number. Allowed: 0 to 10000.
	After *int
	// Insert this many blank pages instead of a second PDF (send one file only). They take the size of the page they follow, or of the first page. A whole number. Allowed: 1 to 1000.
	Blank *int
}

// Tool is "insert-pages".
func (InsertPages) Tool() string { return "insert-pages" }

// FormValues are the form fields of the params that are set.
func (p InsertPages) FormValues() map[string]string {
	v := map[string]string{}
	if p.After != nil {
		v["after"] = strconv.Itoa(*p.After)
	}
	if p.Blank != nil {
		v["blank"] = strconv.Itoa(*p.Blank)
	}
	return v
}

// JPGToPDFPageSize is a value of JPGToPDF's page_size.
type JPGToPDFPageSize string

const (
	JPGToPDFPageSizeFit    JPGToPDFPageSize = "fit"
	JPGToPDFPageSizeA4     JPGToPDFPageSize = "a4"
	JPGToPDFPageSizeLetter JPGToPDFPageSize = "letter"
)

// JPGToPDFOrientation is a value of JPGToPDF's orientation.
type JPGToPDFOrientation string

const (
	JPGToPDFOrientationAuto      JPGToPDFOrientation = "auto"
	JPGToPDFOrientationPortrait  JPGToPDFOrientation = "portrait"
	JPGToPDFOrientationLandscape JPGToPDFOrientation = "landscape"
)

// JPGToPDFMargin is a value of JPGToPDF's margin.
type JPGToPDFMargin string

const (
	JPGToPDFMarginNone  JPGToPDFMargin = "none"
	JPGToPDFMarginSmall JPGToPDFMargin = "small"
	JPGToPDFMarginBig   JPGToPDFMargin = "big"
)

// JPGToPDF are the params of jpg-to-pdf: JPG to PDF.
type JPGToPDF struct {
	// fit: each page is the size of its image, at the image's declared resolution (72 dpi when none); a4, letter: each image is scaled to fill the page inside the margins, centred. Default: `fit`.
	PageSize *JPGToPDFPageSize
	// Page orientation for a4 and letter; auto makes a page landscape when its image is wider than tall. Ignored for fit. Default: `auto`.
	Orientation *JPGToPDFOrientation
	// White border around each image: none, small (20 pt, 7 mm) or big (50 pt, 18 mm). Default: `none`.
	Margin *JPGToPDFMargin
}

// Tool is "jpg-to-pdf".
func (JPGToPDF) Tool() string { return "jpg-to-pdf" }

// FormValues are the form fields of the params that are set.
func (p JPGToPDF) FormValues() map[string]string {
	v := map[string]string{}
	if p.PageSize != nil {
		v["page_size"] = string(*p.PageSize)
	}
	if p.Orientation != nil {
		v["orientation"] = string(*p.Orientation)
	}
	if p.Margin != nil {
		v["margin"] = string(*p.Margin)
	}
	return v
}

// LinearizePDF are the params of linearize-pdf: Linearize PDF (fast web view).
type LinearizePDF struct {
}

// Tool is "linearize-pdf".
func (LinearizePDF) Tool() string { return "linearize-pdf" }

// FormValues are the form fields of the params that are set.
func (p LinearizePDF) FormValues() map[string]string {
	v := map[string]string{}
	return v
}

// MarkdownToPDFPageSize is a value of MarkdownToPDF's page_size.
type MarkdownToPDFPageSize string

const (
	MarkdownToPDFPageSizeA4     MarkdownToPDFPageSize = "a4"
	MarkdownToPDFPageSizeLetter MarkdownToPDFPageSize = "letter"
	MarkdownToPDFPageSizeLegal  MarkdownToPDFPageSize = "legal"
	MarkdownToPDFPageSizeA3     MarkdownToPDFPageSize = "a3"
	MarkdownToPDFPageSizeA5     MarkdownToPDFPageSize = "a5"
)

// MarkdownToPDFMargin is a value of MarkdownToPDF's margin.
type MarkdownToPDFMargin string

const (
	MarkdownToPDFMarginNone   MarkdownToPDFMargin = "none"
	MarkdownToPDFMarginSmall  MarkdownToPDFMargin = "small"
	MarkdownToPDFMarginNormal MarkdownToPDFMargin = "normal"
)

// MarkdownToPDFMedia is a value of MarkdownToPDF's media.
type MarkdownToPDFMedia string

const (
	MarkdownToPDFMediaPrint  MarkdownToPDFMedia = "print"
	MarkdownToPDFMediaScreen MarkdownToPDFMedia = "screen"
)

// MarkdownToPDFPDFA is a value of MarkdownToPDF's pdfa.
type MarkdownToPDFPDFA string

const (
	MarkdownToPDFPDFANone MarkdownToPDFPDFA = "none"
	MarkdownToPDFPDFA1b   MarkdownToPDFPDFA = "1b"
	MarkdownToPDFPDFA2b   MarkdownToPDFPDFA = "2b"
	MarkdownToPDFPDFA3b   MarkdownToPDFPDFA = "3b"
)

// MarkdownToPDF are the params of markdown-to-pdf: Markdown to PDF.
type MarkdownToPDF struct {
	// Paper size: a4 (210x297 mm), letter (8.5x11 in), legal (8.5x14 in), a3 (297x420 mm) or a5 (148x210 mm). A page's CSS @page size is ignored unless prefer_css_page_size is true. Default: `a4`.
	PageSize *MarkdownToPDFPageSize
	// Print in landscape orientation. Default: `false`.
	Landscape *bool
	// Page margins: none, small (0.4 in, 10 mm) or normal (0.8 in, 20 mm). Default: `normal`.
	Margin *MarkdownToPDFMargin
	// Print background colours and images, as on screen. Default: `true`.
	PrintBackground *bool
	// Make a tagged (accessible) PDF: the page's structure (headings, paragraphs, lists, tables, image descriptions) for screen readers and reflow. Slower, and often several times larger. Default: `false`.
	Tagged *bool
	// Page header. An HTML template, printed in the margin of every page with the page's styles left out; elements of class pageNumber, totalPages, date, title and url get those values (<span class="pageNumber"></span> / <span class="totalPages"></span>). It loads nothing: images must be data: URLs. Its text is small unless styled (font-size). It is drawn within the margin on its side: when that margin is 0 (margin=none), 0.4 in (10 mm) is used. Allowed: length at most 32768.
	HeaderHTML *string
	// Page footer. An HTML template, printed in the margin of every page with the page's styles left out; elements of class pageNumber, totalPages, date, title and url get those values (<span class="pageNumber"></span> / <span class="totalPages"></span>). It loads nothing: images must be data: URLs. Its text is small unless styled (font-size). It is drawn within the margin on its side: when that margin is 0 (margin=none), 0.4 in (10 mm) is used. Allowed: length at most 32768.
	FooterHTML *string
	// Scale of the page's rendering, 0.1 to 2. Allowed: 0.1 to 2. Default: `1`.
	Scale *float64
	// Pages to print, such as 1-3,5 or 8- (from 8 to the end); all when left out. A selection with no page in the document is refused. A page selection such as `1-3,5,8-`.
	PageRanges *string
	// Use the page's CSS @page size, when it sets one, instead of page_size or paper_width and paper_height. Default: `false`.
	PreferCssPageSize *bool
	// The CSS media the page is laid out for: print, or screen (@media screen rules apply, as in a browser window). Default: `print`.
	Media *MarkdownToPDFMedia
	// Paper width, overriding page_size, a length with its unit: mm, cm, in, pt or px, such as 210mm or 8.5in (1 in to 200 in). Allowed: length at most 32.
	PaperWidth *string
	// Paper height, overriding page_size, a length with its unit: mm, cm, in, pt or px, such as 297mm or 11in (1 in to 200 in). Allowed: length at most 32.
	PaperHeight *string
	// Top margin, overriding margin, a length with its unit: mm, cm, in, pt or px, such as 15mm or 0.5in (0 in to 20 in). Allowed: length at most 32.
	MarginTop *string
	// Right margin, overriding margin, a length with its unit: mm, cm, in, pt or px, such as 15mm or 0.5in (0 in to 20 in). Allowed: length at most 32.
	MarginRight *string
	// Bottom margin, overriding margin, a length with its unit: mm, cm, in, pt or px, such as 15mm or 0.5in (0 in to 20 in). Allowed: length at most 32.
	MarginBottom *string
	// Left margin, overriding margin, a length with its unit: mm, cm, in, pt or px, such as 15mm or 0.5in (0 in to 20 in). Allowed: length at most 32.
	MarginLeft *string
	// Once the page loaded, wait for this before printing: a number of milliseconds (0 to 30000), or a CSS selector that must match an element (waited for up to 30 s; if it never does, the page is printed as it is and meta.wait_timed_out is true). For a page whose scripts add content after it loaded. Allowed: length at most 500.
	WaitFor *string
	// Add bookmarks (the PDF's outline) made from the page's headings, h1 to h6, nested by level. Chromium builds them from the PDF's structure tree, so the PDF is tagged too (see tagged). Default: `false`.
	Outline *bool
	// Print the whole page on one PDF page as tall as its content (page_size or paper_width gives the width; landscape takes the paper's long side), with CSS page breaks ignored. A page taller than 200 in (the longest paper) goes on as many pages of that height as it needs. Not with paper_height, page_ranges or prefer_css_page_size. Default: `false`.
	SinglePage *bool
	// Make the PDF a PDF/A (archival) file of this part, level B, through pdf-to-pdfa's conversion (Ghostscript): fonts embedded, colours tied to an sRGB output intent, the claim in the XMP metadata. The conversion keeps the text, links and outline but not a structure tree, so it is refused with tagged or pdfua. Default: `none`.
	PDFA *MarkdownToPDFPDFA
	// Mark the PDF for PDF/UA-1 (universal accessibility): tagged (as tagged=true), the title shown in the window's title bar, the language of the page's <html lang> as the document's, Marked content, and the PDF/UA-1 claim in the XMP metadata. Whether the file conforms depends on the page too (alt text, heading order, a title, a lang): see docs/api.md. Default: `false`.
	Pdfua *bool
}

// Tool is "markdown-to-pdf".
func (MarkdownToPDF) Tool() string { return "markdown-to-pdf" }

// FormValues are the form fields of the params that are set.
func (p MarkdownToPDF) FormValues() map[string]string {
	v := map[string]string{}
	if p.PageSize != nil {
		v["page_size"] = string(*p.PageSize)
	}
	if p.Landscape != nil {
		v["landscape"] = strconv.FormatBool(*p.Landscape)
	}
	if p.Margin != nil {
		v["margin"] = string(*p.Margin)
	}
	if p.PrintBackground != nil {
		v["print_background"] = strconv.FormatBool(*p.PrintBackground)
	}
	if p.Tagged != nil {
		v["tagged"] = strconv.FormatBool(*p.Tagged)
	}
	if p.HeaderHTML != nil {
		v["header_html"] = *p.HeaderHTML
	}
	if p.FooterHTML != nil {
		v["footer_html"] = *p.FooterHTML
	}
	if p.Scale != nil {
		v["scale"] = strconv.FormatFloat(*p.Scale, 'f', -1, 64)
	}
	if p.PageRanges != nil {
		v["page_ranges"] = *p.PageRanges
	}
	if p.PreferCssPageSize != nil {
		v["prefer_css_page_size"] = strconv.FormatBool(*p.PreferCssPageSize)
	}
	if p.Media != nil {
		v["media"] = string(*p.Media)
	}
	if p.PaperWidth != nil {
		v["paper_width"] = *p.PaperWidth
	}
	if p.PaperHeight != nil {
		v["paper_height"] = *p.PaperHeight
	}
	if p.MarginTop != nil {
		v["margin_top"] = *p.MarginTop
	}
	if p.MarginRight != nil {
		v["margin_right"] = *p.MarginRight
	}
	if p.MarginBottom != nil {
		v["margin_bottom"] = *p.MarginBottom
	}
	if p.MarginLeft != nil {
		v["margin_left"] = *p.MarginLeft
	}
	if p.WaitFor != nil {
		v["wait_for"] = *p.WaitFor
	}
	if p.Outline != nil {
		v["outline"] = strconv.FormatBool(*p.Outline)
	}
	if p.SinglePage != nil {
		v["single_page"] = strconv.FormatBool(*p.SinglePage)
	}
	if p.PDFA != nil {
		v["pdfa"] = string(*p.PDFA)
	}
	if p.Pdfua != nil {
		v["pdfua"] = strconv.FormatBool(*p.Pdfua)
	}
	return v
}

// MergePDFBookmarks is a value of MergePDF's bookmarks.
type MergePDFBookmarks string

const (
	MergePDFBookmarksNone      MergePDFBookmarks = "none"
	MergePDFBookmarksFileNames MergePDFBookmarks = "file_names"
	MergePDFBookmarksTitles    MergePDFBookmarks = "titles"
)

// MergePDF are the params of merge-pdf: Merge PDF.
type MergePDF struct {
	// none: each file's bookmarks kept as they are; file_names or titles: one bookmark per file at its first page, named by its file name or its document title (the file name when it has none), with the file's own bookmarks under it. Default: `none`.
	Bookmarks *MergePDFBookmarks
}

// Tool is "merge-pdf".
func (MergePDF) Tool() string { return "merge-pdf" }

// FormValues are the form fields of the params that are set.
func (p MergePDF) FormValues() map[string]string {
	v := map[string]string{}
	if p.Bookmarks != nil {
		v["bookmarks"] = string(*p.Bookmarks)
	}
	return v
}

// NupPDFOrder is a value of NupPDF's order.
type NupPDFOrder string

const (
	NupPDFOrderAcrossThenDown    NupPDFOrder = "across-then-down"
	NupPDFOrderDownThenAcross    NupPDFOrder = "down-then-across"
	NupPDFOrderAcrossThenDownRtl NupPDFOrder = "across-then-down-rtl"
	NupPDFOrderDownThenAcrossRtl NupPDFOrder = "down-then-across-rtl"
)

// NupPDF are the params of nup-pdf: N-up PDF.
type NupPDF struct {
	// Pages on each sheet. A whole number. Default: `2`.
	PerSheet *int
	// The sheet's size; it is turned to landscape when that fits the pages better: a4, a3, a5, letter, legal, or width x height in millimetres such as "210x297"; a4 by default. Allowed: length at most 32. Default: `a4`.
	PageSize *string
	// How the pages fill a sheet: across-then-down fills rows left to right from the top; down-then-across fills columns top to bottom from the left; the -rtl forms go right to left. Default: `across-then-down`.
	Order *NupPDFOrder
	// Draw a thin line around each page. Default: `false`.
	Border *bool
}

// Tool is "nup-pdf".
func (NupPDF) Tool() string { return "nup-pdf" }

// FormValues are the form fields of the params that are set.
func (p NupPDF) FormValues() map[string]string {
	v := map[string]string{}
	if p.PerSheet != nil {
		v["per_sheet"] = strconv.Itoa(*p.PerSheet)
	}
	if p.PageSize != nil {
		v["page_size"] = *p.PageSize
	}
	if p.Order != nil {
		v["order"] = string(*p.Order)
	}
	if p.Border != nil {
		v["border"] = strconv.FormatBool(*p.Border)
	}
	return v
}

// OCRPDFLang is a value of OCRPDF's lang.
type OCRPDFLang string

const (
	OCRPDFLangEng    OCRPDFLang = "eng"
	OCRPDFLangRus    OCRPDFLang = "rus"
	OCRPDFLangEngRus OCRPDFLang = "eng+rus"
)

// OCRPDF are the params of ocr-pdf: OCR PDF.
type OCRPDF struct {
	// The language of the text: eng (English), rus (Russian) or eng+rus (both). Default: `eng+rus`.
	Lang *OCRPDFLang
}

// Tool is "ocr-pdf".
func (OCRPDF) Tool() string { return "ocr-pdf" }

// FormValues are the form fields of the params that are set.
func (p OCRPDF) FormValues() map[string]string {
	v := map[string]string{}
	if p.Lang != nil {
		v["lang"] = string(*p.Lang)
	}
	return v
}

// OrganizePDF are the params of organize-pdf: Organize PDF.
type OrganizePDF struct {
	// The pages of the new document, in order, such as "3,1,2,4-" ("4-" runs to the last page). A page selection such as `1-3,5,8-`.
	Order string
}

// Tool is "organize-pdf".
func (OrganizePDF) Tool() string { return "organize-pdf" }

// FormValues are the form fields of the params that are set.
func (p OrganizePDF) FormValues() map[string]string {
	v := map[string]string{}
	v["order"] = p.Order
	return v
}

// PageNumbersPosition is a value of PageNumbers's position.
type PageNumbersPosition string

const (
	PageNumbersPositionTopLeft      PageNumbersPosition = "top-left"
	PageNumbersPositionTopCenter    PageNumbersPosition = "top-center"
	PageNumbersPositionTopRight     PageNumbersPosition = "top-right"
	PageNumbersPositionBottomLeft   PageNumbersPosition = "bottom-left"
	PageNumbersPositionBottomCenter PageNumbersPosition = "bottom-center"
	PageNumbersPositionBottomRight  PageNumbersPosition = "bottom-right"
)

// PageNumbers are the params of page-numbers: Add page numbers.
type PageNumbers struct {
	// Where the number goes, about 1 cm from the page edges. Default: `bottom-center`.
	Position *PageNumbersPosition
	// The number printed on the first numbered page. Later pages count on by their position, so a page left out of pages keeps its place in the count. A whole number. Allowed: 0 to 100000. Default: `1`.
	Start *int
	// The text printed: {n} is the page's number, {total} the number of the last numbered page; any other text is kept, as in "Page {n} of {total}". Latin, Greek or Cyrillic. Allowed: length at most 100. Default: `{n}`.
	Format *string
	// Font size in points. A whole number. Allowed: 6 to 72. Default: `12`.
	FontSize *int
	// Pages that get a number, such as "2-" to leave out a cover; all pages by default. A page selection such as `1-3,5,8-`. Default: `all`.
	Pages *string
}

// Tool is "page-numbers".
func (PageNumbers) Tool() string { return "page-numbers" }

// FormValues are the form fields of the params that are set.
func (p PageNumbers) FormValues() map[string]string {
	v := map[string]string{}
	if p.Position != nil {
		v["position"] = string(*p.Position)
	}
	if p.Start != nil {
		v["start"] = strconv.Itoa(*p.Start)
	}
	if p.Format != nil {
		v["format"] = *p.Format
	}
	if p.FontSize != nil {
		v["font_size"] = strconv.Itoa(*p.FontSize)
	}
	if p.Pages != nil {
		v["pages"] = *p.Pages
	}
	return v
}

// PDFBookmarks are the params of pdf-bookmarks: PDF bookmarks.
type PDFBookmarks struct {
}

// Tool is "pdf-bookmarks".
func (PDFBookmarks) Tool() string { return "pdf-bookmarks" }

// FormValues are the form fields of the params that are set.
func (p PDFBookmarks) FormValues() map[string]string {
	v := map[string]string{}
	return v
}

// PDFFormFields are the params of pdf-form-fields: PDF form fields.
type PDFFormFields struct {
}

// Tool is "pdf-form-fields".
func (PDFFormFields) Tool() string { return "pdf-form-fields" }

// FormValues are the form fields of the params that are set.
func (p PDFFormFields) FormValues() map[string]string {
	v := map[string]string{}
	return v
}

// PDFInfo are the params of pdf-info: PDF info.
type PDFInfo struct {
}

// Tool is "pdf-info".
func (PDFInfo) Tool() string { return "pdf-info" }

// FormValues are the form fields of the params that are set.
func (p PDFInfo) FormValues() map[string]string {
	v := map[string]string{}
	return v
}

// PDFToCsv are the params of pdf-to-csv: PDF to CSV.
type PDFToCsv struct {
}

// Tool is "pdf-to-csv".
func (PDFToCsv) Tool() string { return "pdf-to-csv" }

// FormValues are the form fields of the params that are set.
func (p PDFToCsv) FormValues() map[string]string {
	v := map[string]string{}
	return v
}

// PDFToJPG are the params of pdf-to-jpg: PDF to JPG.
type PDFToJPG struct {
	// Resolution of the images, in dots per inch; a page of W x H points becomes W*dpi/72 x H*dpi/72 pixels. A whole number. Allowed: 72 to 600. Default: `150`.
	DPI *int
	// JPEG quality, 1 (smallest) to 100 (best). A whole number. Allowed: 1 to 100. Default: `85`.
	Quality *int
	// Pages to convert, such as "1-3,5,8-"; every page when absent. Each page is converted once, in page order, whatever order or repeats the selection has. A page selection such as `1-3,5,8-`.
	Pages *string
}

// Tool is "pdf-to-jpg".
func (PDFToJPG) Tool() string { return "pdf-to-jpg" }

// FormValues are the form fields of the params that are set.
func (p PDFToJPG) FormValues() map[string]string {
	v := map[string]string{}
	if p.DPI != nil {
		v["dpi"] = strconv.Itoa(*p.DPI)
	}
	if p.Quality != nil {
		v["quality"] = strconv.Itoa(*p.Quality)
	}
	if p.Pages != nil {
		v["pages"] = *p.Pages
	}
	return v
}

// PDFToMarkdown are the params of pdf-to-markdown: PDF to Markdown.
type PDFToMarkdown struct {
}

// Tool is "pdf-to-markdown".
func (PDFToMarkdown) Tool() string { return "pdf-to-markdown" }

// FormValues are the form fields of the params that are set.
func (p PDFToMarkdown) FormValues() map[string]string {
	v := map[string]string{}
	return v
}

// PDFToODT are the params of pdf-to-odt: PDF to ODT.
type PDFToODT struct {
}

// Tool is "pdf-to-odt".
func (PDFToODT) Tool() string { return "pdf-to-odt" }

// FormValues are the form fields of the params that are set.
func (p PDFToODT) FormValues() map[string]string {
	v := map[string]string{}
	return v
}

// PDFToPDFAConformance is a value of PDFToPDFA's conformance.
type PDFToPDFAConformance string

const (
	PDFToPDFAConformance1b PDFToPDFAConformance = "1b"
	PDFToPDFAConformance2b PDFToPDFAConformance = "2b"
	PDFToPDFAConformance3b PDFToPDFAConformance = "3b"
)

// PDFToPDFA are the params of pdf-to-pdfa: PDF to PDF/A.
type PDFToPDFA struct {
	// PDF/A part and level: 1b, 2b or 3b. Default: `2b`.
	Conformance *PDFToPDFAConformance
}

// Tool is "pdf-to-pdfa".
func (PDFToPDFA) Tool() string { return "pdf-to-pdfa" }

// FormValues are the form fields of the params that are set.
func (p PDFToPDFA) FormValues() map[string]string {
	v := map[string]string{}
	if p.Conformance != nil {
		v["conformance"] = string(*p.Conformance)
	}
	return v
}

// PDFToPNG are the params of pdf-to-png: PDF to PNG.
type PDFToPNG struct {
	// Resolution of the images, in dots per inch; a page of W x H points becomes W*dpi/72 x H*dpi/72 pixels. A whole number. Allowed: 72 to 600. Default: `150`.
	DPI *int
	// Pages to convert, such as "1-3,5,8-"; every page when absent. Each page is converted once, in page order, whatever order or repeats the selection has. A page selection such as `1-3,5,8-`.
	Pages *string
}

// Tool is "pdf-to-png".
func (PDFToPNG) Tool() string { return "pdf-to-png" }

// FormValues are the form fields of the params that are set.
func (p PDFToPNG) FormValues() map[string]string {
	v := map[string]string{}
	if p.DPI != nil {
		v["dpi"] = strconv.Itoa(*p.DPI)
	}
	if p.Pages != nil {
		v["pages"] = *p.Pages
	}
	return v
}

// PDFToSVG are the params of pdf-to-svg: PDF to SVG.
type PDFToSVG struct {
	// Pages to convert, such as "1-3,5,8-"; every page when absent. Each page is converted once, in page order, whatever order or repeats the selection has. A page selection such as `1-3,5,8-`.
	Pages *string
}

// Tool is "pdf-to-svg".
func (PDFToSVG) Tool() string { return "pdf-to-svg" }

// FormValues are the form fields of the params that are set.
func (p PDFToSVG) FormValues() map[string]string {
	v := map[string]string{}
	if p.Pages != nil {
		v["pages"] = *p.Pages
	}
	return v
}

// PDFToText are the params of pdf-to-text: PDF to text.
type PDFToText struct {
	// Keep the physical layout of the page (columns, indentation) with spaces, instead of the reading order. Default: `false`.
	Layout *bool
}

// Tool is "pdf-to-text".
func (PDFToText) Tool() string { return "pdf-to-text" }

// FormValues are the form fields of the params that are set.
func (p PDFToText) FormValues() map[string]string {
	v := map[string]string{}
	if p.Layout != nil {
		v["layout"] = strconv.FormatBool(*p.Layout)
	}
	return v
}

// PDFToWord are the params of pdf-to-word: PDF to Word.
type PDFToWord struct {
}

// Tool is "pdf-to-word".
func (PDFToWord) Tool() string { return "pdf-to-word" }

// FormValues are the form fields of the params that are set.
func (p PDFToWord) FormValues() map[string]string {
	v := map[string]string{}
	return v
}

// PDFToXlsx are the params of pdf-to-xlsx: PDF to Excel.
type PDFToXlsx struct {
}

// Tool is "pdf-to-xlsx".
func (PDFToXlsx) Tool() string { return "pdf-to-xlsx" }

// FormValues are the form fields of the params that are set.
func (p PDFToXlsx) FormValues() map[string]string {
	v := map[string]string{}
	return v
}

// Pipeline are the params of pipeline: Pipeline.
type Pipeline struct {
	// JSON array of up to 10 steps, each {"tool": slug, "params": {...}}, such as [{"tool": "merge-pdf"}, {"tool": "compress-pdf", "params": {"preset": "extreme"}}]; the params are the tool's own, as GET /v1/tools lists them.
	Steps string
}

// Tool is "pipeline".
func (Pipeline) Tool() string { return "pipeline" }

// FormValues are the form fields of the params that are set.
func (p Pipeline) FormValues() map[string]string {
	v := map[string]string{}
	v["steps"] = p.Steps
	return v
}

// PowerpointToPDF are the params of powerpoint-to-pdf: PowerPoint to PDF.
type PowerpointToPDF struct {
	// Pages of the PDF to keep, such as "1-3,5,8-" (default: all). A page selection such as `1-3,5,8-`.
	Pages *string
}

// Tool is "powerpoint-to-pdf".
func (PowerpointToPDF) Tool() string { return "powerpoint-to-pdf" }

// FormValues are the form fields of the params that are set.
func (p PowerpointToPDF) FormValues() map[string]string {
	v := map[string]string{}
	if p.Pages != nil {
		v["pages"] = *p.Pages
	}
	return v
}

// ProtectPDF are the params of protect-pdf: Protect PDF.
type ProtectPDF struct {
	// Password needed to open the document: letters, digits and ASCII symbols, no spaces, at most 127 bytes in UTF-8. Allowed: length 1 to 127.
	Password string
	// Password that lifts the restrictions, with the same rules as password. If absent: the open password when every permission is allowed, otherwise a random one. Allowed: length 1 to 127.
	OwnerPassword *string
	// What a reader may do once the document is open: "all", "none", or a comma-separated list of print, copy, modify, annotate, fill-forms. annotate also allows filling forms; extraction for accessibility is always allowed. Allowed: length at most 64. Default: `all`.
	Permissions *string
}

// Tool is "protect-pdf".
func (ProtectPDF) Tool() string { return "protect-pdf" }

// FormValues are the form fields of the params that are set.
func (p ProtectPDF) FormValues() map[string]string {
	v := map[string]string{}
	v["password"] = p.Password
	if p.OwnerPassword != nil {
		v["owner_password"] = *p.OwnerPassword
	}
	if p.Permissions != nil {
		v["permissions"] = *p.Permissions
	}
	return v
}

// RedactPDFLang is a value of RedactPDF's lang.
type RedactPDFLang string

const (
	RedactPDFLangEng    RedactPDFLang = "eng"
	RedactPDFLangRus    RedactPDFLang = "rus"
	RedactPDFLangEngRus RedactPDFLang = "eng+rus"
)

// RedactPDF are the params of redact-pdf: Redact PDF.
type RedactPDF struct {
	// Text to black out: one term per line, or a JSON list of strings. Matched without regard to case, anywhere in a word, and across the words of one line (a term's spaces match any spacing); every word a match touches is blacked out whole. At most 200 terms of 2 to 200 characters. Allowed: length at most 20000.
	Terms *string
	// A regular expression in Go's RE2 syntax (no backreferences; matching takes linear time), matched on each line of text, its words joined by single spaces; case is ignored unless it starts with (?-i). Every word a match touches is blacked out whole. Allowed: length at most 500.
	Regex *string
	// Kinds of personal data to find, comma-separated: emails (e-mail addresses); phones (phone numbers: 10 to 15 digits with a leading + or spaces, dots, dashes or brackets between them (a bare run of digits is too often another number)); cards (payment card numbers: 13 to 19 digits, in groups or not, that pass the Luhn check); inn (Russian taxpayer numbers (INN) of 10 or 12 digits whose check digits are right); snils (Russian insurance numbers (SNILS), "123-456-789 01" or 11 digits, whose checksum is right); passports_ru (Russian passport numbers written "45 06 123456" or "4506 123456" (ten digits without spaces are not taken: too many other numbers look so)). Allowed: length at most 200.
	Presets *string
	// Areas to black out, as JSON: [{"page": 1, "x": 72, "y": 100, "width": 200, "height": 30}], in points (1/72 inch), x and y the top left corner of the area measured from the top left corner of the page as it is shown (its crop box, turned by its rotation). At most 1000 boxes. Allowed: length at most 200000.
	Boxes *string
	// Pages whose text is searched for terms, regex and presets, such as "1-3,5,8-"; every page when absent. Boxes apply to the pages they name. A page selection such as `1-3,5,8-`.
	Pages *string
	// Give the redacted pages an invisible text layer again, recognized by OCR (tesseract) in their images with the boxes already black, so that they can be searched and copied from. Takes seconds per page; at most 20 redacted pages. Default: `false`.
	OCR *bool
	// With ocr=true, the language of the text: eng (English), rus (Russian) or eng+rus (both). Default: `eng+rus`.
	Lang *RedactPDFLang
}

// Tool is "redact-pdf".
func (RedactPDF) Tool() string { return "redact-pdf" }

// FormValues are the form fields of the params that are set.
func (p RedactPDF) FormValues() map[string]string {
	v := map[string]string{}
	if p.Terms != nil {
		v["terms"] = *p.Terms
	}
	if p.Regex != nil {
		v["regex"] = *p.Regex
	}
	if p.Presets != nil {
		v["presets"] = *p.Presets
	}
	if p.Boxes != nil {
		v["boxes"] = *p.Boxes
	}
	if p.Pages != nil {
		v["pages"] = *p.Pages
	}
	if p.OCR != nil {
		v["ocr"] = strconv.FormatBool(*p.OCR)
	}
	if p.Lang != nil {
		v["lang"] = string(*p.Lang)
	}
	return v
}

// RemoveAnnotations are the params of remove-annotations: Remove PDF annotations.
type RemoveAnnotations struct {
	// Pages whose annotations are removed, such as "1-3,5,8-"; all pages by default. A page selection such as `1-3,5,8-`. Default: `all`.
	Pages *string
	// Keep link annotations (table of contents, web links); every annotation is removed by default. Default: `false`.
	KeepLinks *bool
	// Keep the widgets of form fields, without which a form cannot be seen or filled. When false they are removed too, with the fields left without any widget. Default: `true`.
	KeepForms *bool
}

// Tool is "remove-annotations".
func (RemoveAnnotations) Tool() string { return "remove-annotations" }

// FormValues are the form fields of the params that are set.
func (p RemoveAnnotations) FormValues() map[string]string {
	v := map[string]string{}
	if p.Pages != nil {
		v["pages"] = *p.Pages
	}
	if p.KeepLinks != nil {
		v["keep_links"] = strconv.FormatBool(*p.KeepLinks)
	}
	if p.KeepForms != nil {
		v["keep_forms"] = strconv.FormatBool(*p.KeepForms)
	}
	return v
}

// RemoveBlankPages are the params of remove-blank-pages: Remove blank pages.
type RemoveBlankPages struct {
	// The share of a page's pixels, in percent, that may be ink (darker than a 22% grey, the page drawn in grey at 20 dpi, where an A4 page is 166 x 234 pixels) for the page to count as blank: 0 removes only pages without any ink; 0.01 (the default, 4 pixels of A4) also pages with a speck or a stray dot; 1 (390 pixels of A4) also pages with a short line of text, such as a page number. At 20 dpi a lone mark smaller than 10-point text may leave no ink at all. Allowed: 0 to 10. Default: `0.01`.
	Threshold *float64
}

// Tool is "remove-blank-pages".
func (RemoveBlankPages) Tool() string { return "remove-blank-pages" }

// FormValues are the form fields of the params that are set.
func (p RemoveBlankPages) FormValues() map[string]string {
	v := map[string]string{}
	if p.Threshold != nil {
		v["threshold"] = strconv.FormatFloat(*p.Threshold, 'f', -1, 64)
	}
	return v
}

// RemovePages are the params of remove-pages: Remove pages.
type RemovePages struct {
	// Pages to delete, such as "1-3,5,8-" ("8-" runs to the last page). A page selection such as `1-3,5,8-`.
	Pages string
}

// Tool is "remove-pages".
func (RemovePages) Tool() string { return "remove-pages" }

// FormValues are the form fields of the params that are set.
func (p RemovePages) FormValues() map[string]string {
	v := map[string]string{}
	v["pages"] = p.Pages
	return v
}

// RepairPDF are the params of repair-pdf: Repair PDF.
type RepairPDF struct {
}

// Tool is "repair-pdf".
func (RepairPDF) Tool() string { return "repair-pdf" }

// FormValues are the form fields of the params that are set.
func (p RepairPDF) FormValues() map[string]string {
	v := map[string]string{}
	return v
}

// ResizeImageFit is a value of ResizeImage's fit.
type ResizeImageFit string

const (
	ResizeImageFitInside ResizeImageFit = "inside"
	ResizeImageFitCover  ResizeImageFit = "cover"
	ResizeImageFitFill   ResizeImageFit = "fill"
)

// ResizeImage are the params of resize-image: Resize image.
type ResizeImage struct {
	// Target width in pixels. A whole number. Allowed: 1 to 20000.
	Width *int
	// Target height in pixels. A whole number. Allowed: 1 to 20000.
	Height *int
	// Scale both sides by this percentage; not with width or height. A whole number. Allowed: 1 to 1000.
	Percent *int
	// With width and height: inside keeps the aspect ratio within the box, cover fills the box and crops the overflow (centred), fill stretches to exactly the box. With one side, the other follows the aspect ratio. Default: `inside`.
	Fit *ResizeImageFit
	// Whether an image smaller than the box may be enlarged to it. Default: `true`.
	Enlarge *bool
	// JPEG/WebP quality 1-100 of the output (default 85). A whole number. Allowed: 1 to 100.
	Quality *int
}

// Tool is "resize-image".
func (ResizeImage) Tool() string { return "resize-image" }

// FormValues are the form fields of the params that are set.
func (p ResizeImage) FormValues() map[string]string {
	v := map[string]string{}
	if p.Width != nil {
		v["width"] = strconv.Itoa(*p.Width)
	}
	if p.Height != nil {
		v["height"] = strconv.Itoa(*p.Height)
	}
	if p.Percent != nil {
		v["percent"] = strconv.Itoa(*p.Percent)
	}
	if p.Fit != nil {
		v["fit"] = string(*p.Fit)
	}
	if p.Enlarge != nil {
		v["enlarge"] = strconv.FormatBool(*p.Enlarge)
	}
	if p.Quality != nil {
		v["quality"] = strconv.Itoa(*p.Quality)
	}
	return v
}

// ResizePDF are the params of resize-pdf: Resize PDF pages.
type ResizePDF struct {
	// The new page size; a landscape page gets the size turned to landscape: a4, a3, a5, letter, legal, or width x height in millimetres such as "210x297"; a4 by default. Allowed: length at most 32. Default: `a4`.
	PageSize *string
	// Pages to resize, such as "1-3,5,8-"; all pages by default. A page selection such as `1-3,5,8-`. Default: `all`.
	Pages *string
}

// Tool is "resize-pdf".
func (ResizePDF) Tool() string { return "resize-pdf" }

// FormValues are the form fields of the params that are set.
func (p ResizePDF) FormValues() map[string]string {
	v := map[string]string{}
	if p.PageSize != nil {
		v["page_size"] = *p.PageSize
	}
	if p.Pages != nil {
		v["pages"] = *p.Pages
	}
	return v
}

// RotateImageAngle is a value of RotateImage's angle.
type RotateImageAngle string

const (
	RotateImageAngle90   RotateImageAngle = "90"
	RotateImageAngle180  RotateImageAngle = "180"
	RotateImageAngle270  RotateImageAngle = "270"
	RotateImageAngleAuto RotateImageAngle = "auto"
)

// RotateImage are the params of rotate-image: Rotate image.
type RotateImage struct {
	// Clockwise turn in degrees, or auto: only apply the EXIF orientation (a photo taken sideways comes out upright). Default: `90`.
	Angle *RotateImageAngle
	// JPEG/WebP/AVIF quality 1-100 of the output (default 90). A whole number. Allowed: 1 to 100.
	Quality *int
}

// Tool is "rotate-image".
func (RotateImage) Tool() string { return "rotate-image" }

// FormValues are the form fields of the params that are set.
func (p RotateImage) FormValues() map[string]string {
	v := map[string]string{}
	if p.Angle != nil {
		v["angle"] = string(*p.Angle)
	}
	if p.Quality != nil {
		v["quality"] = strconv.Itoa(*p.Quality)
	}
	return v
}

// RotatePDF are the params of rotate-pdf: Rotate PDF.
type RotatePDF struct {
	// Degrees to rotate clockwise, added to each page's current rotation. A whole number. Default: `90`.
	Angle *int
	// Pages to rotate, such as "1-3,5,8-"; all pages by default. A page selection such as `1-3,5,8-`. Default: `all`.
	Pages *string
}

// Tool is "rotate-pdf".
func (RotatePDF) Tool() string { return "rotate-pdf" }

// FormValues are the form fields of the params that are set.
func (p RotatePDF) FormValues() map[string]string {
	v := map[string]string{}
	if p.Angle != nil {
		v["angle"] = strconv.Itoa(*p.Angle)
	}
	if p.Pages != nil {
		v["pages"] = *p.Pages
	}
	return v
}

// SanitizePDF are the params of sanitize-pdf: Sanitize PDF.
type SanitizePDF struct {
	// Remove javaScript: the document's scripts, JavaScript actions of pages, links, form fields and bookmarks, javascript: links, and XFA forms (which carry scripts). Default: `true`.
	Javascript *bool
	// Remove actions run when the document or a page is opened or closed, printed or saved. An open action that only shows a page is kept. Default: `true`.
	OpenAction *bool
	// Remove launch actions, which start a program or open a file on the reader's computer. Default: `true`.
	LaunchActions *bool
	// Remove embedded files: attachments, file attachment annotations, associated files and portfolios. Default: `true`.
	EmbeddedFiles *bool
	// Remove links to other files: to other PDFs (GoToR), to embedded PDFs (GoToE), file: URLs and data imports. Default: `true`.
	FileLinks *bool
	// Remove document metadata: the XMP streams and the title, author and other entries of the Info dictionary. This drops a PDF/A claim. Default: `true`.
	Metadata *bool
}

// Tool is "sanitize-pdf".
func (SanitizePDF) Tool() string { return "sanitize-pdf" }

// FormValues are the form fields of the params that are set.
func (p SanitizePDF) FormValues() map[string]string {
	v := map[string]string{}
	if p.Javascript != nil {
		v["javascript"] = strconv.FormatBool(*p.Javascript)
	}
	if p.OpenAction != nil {
		v["open_action"] = strconv.FormatBool(*p.OpenAction)
	}
	if p.LaunchActions != nil {
		v["launch_actions"] = strconv.FormatBool(*p.LaunchActions)
	}
	if p.EmbeddedFiles != nil {
		v["embedded_files"] = strconv.FormatBool(*p.EmbeddedFiles)
	}
	if p.FileLinks != nil {
		v["file_links"] = strconv.FormatBool(*p.FileLinks)
	}
	if p.Metadata != nil {
		v["metadata"] = strconv.FormatBool(*p.Metadata)
	}
	return v
}

// SignPDFFormat is a value of SignPDF's format.
type SignPDFFormat string

const (
	SignPDFFormatPades SignPDFFormat = "pades"
	SignPDFFormatPkcs7 SignPDFFormat = "pkcs7"
)

// SignPDFPosition is a value of SignPDF's position.
type SignPDFPosition string

const (
	SignPDFPositionTopLeft      SignPDFPosition = "top-left"
	SignPDFPositionTopCenter    SignPDFPosition = "top-center"
	SignPDFPositionTopRight     SignPDFPosition = "top-right"
	SignPDFPositionCenterLeft   SignPDFPosition = "center-left"
	SignPDFPositionCenter       SignPDFPosition = "center"
	SignPDFPositionCenterRight  SignPDFPosition = "center-right"
	SignPDFPositionBottomLeft   SignPDFPosition = "bottom-left"
	SignPDFPositionBottomCenter SignPDFPosition = "bottom-center"
	SignPDFPositionBottomRight  SignPDFPosition = "bottom-right"
)

// SignPDF are the params of sign-pdf: Sign PDF.
type SignPDF struct {
	// Password of the PKCS#12 file; leave empty for a file without one. Allowed: length at most 256.
	CertificatePassword *string
	// Reason for signing, stored in the signature ("I approve this document"). Allowed: length at most 200.
	Reason *string
	// Where it was signed, stored in the signature ("Moscow"). Allowed: length at most 200.
	Location *string
	// How to reach the signer, stored in the signature (an e-mail address or a phone number). Allowed: length at most 200.
	Contact *string
	// pades: ETSI.CAdES.detached, the PAdES baseline format current readers and EU validators expect; pkcs7: adbe.pkcs7.detached, for older readers. Default: `pades`.
	Format *SignPDFFormat
	// Draw the signature as a box on a page; otherwise it is invisible. Default: `false`.
	Visible *bool
	// Page of the visible signature. A whole number. Allowed: 1 to 10000. Default: `1`.
	Page *int
	// Where on the page the visible signature goes, about 1 cm from the edges it is near. Default: `bottom-right`.
	Position *SignPDFPosition
	// Text of the visible signature, up to 8 lines; by default who signed, when, and the reason and location. Allowed: length at most 400.
	Text *string
}

// Tool is "sign-pdf".
func (SignPDF) Tool() string { return "sign-pdf" }

// FormValues are the form fields of the params that are set.
func (p SignPDF) FormValues() map[string]string {
	v := map[string]string{}
	if p.CertificatePassword != nil {
		v["certificate_password"] = *p.CertificatePassword
	}
	if p.Reason != nil {
		v["reason"] = *p.Reason
	}
	if p.Location != nil {
		v["location"] = *p.Location
	}
	if p.Contact != nil {
		v["contact"] = *p.Contact
	}
	if p.Format != nil {
		v["format"] = string(*p.Format)
	}
	if p.Visible != nil {
		v["visible"] = strconv.FormatBool(*p.Visible)
	}
	if p.Page != nil {
		v["page"] = strconv.Itoa(*p.Page)
	}
	if p.Position != nil {
		v["position"] = string(*p.Position)
	}
	if p.Text != nil {
		v["text"] = *p.Text
	}
	return v
}

// SplitPDF are the params of split-pdf: Split PDF.
type SplitPDF struct {
	// One output file per range, such as "1-3,5,8-" (three files: pages 1-3, page 5, pages 8 to the last). Not with every, by_bookmarks or max_size_mb. A page selection such as `1-3,5,8-`.
	Ranges *string
	// Pages per output file, from the first page on; the last file takes what is left. Not with the other ways. 1 (each page its own file) when no way is given. A whole number. Allowed: 1 to 10000.
	Every *int
	// true: one file per top-level bookmark, from its page to the page before the next one's, named by its number and title; pages before the first bookmark make a file of their own (00-start). A document without bookmarks to a page is refused. Not with the other ways.
	ByBookmarks *bool
	// Parts of at most this many megabytes each, in page order, each as many pages as fit; a page that alone makes a larger PDF is refused. Not with the other ways. Allowed: 0.1 to 2048.
	MaxSizeMB *float64
}

// Tool is "split-pdf".
func (SplitPDF) Tool() string { return "split-pdf" }

// FormValues are the form fields of the params that are set.
func (p SplitPDF) FormValues() map[string]string {
	v := map[string]string{}
	if p.Ranges != nil {
		v["ranges"] = *p.Ranges
	}
	if p.Every != nil {
		v["every"] = strconv.Itoa(*p.Every)
	}
	if p.ByBookmarks != nil {
		v["by_bookmarks"] = strconv.FormatBool(*p.ByBookmarks)
	}
	if p.MaxSizeMB != nil {
		v["max_size_mb"] = strconv.FormatFloat(*p.MaxSizeMB, 'f', -1, 64)
	}
	return v
}

// UnlockPDF are the params of unlock-pdf: Unlock PDF.
type UnlockPDF struct {
	// The password that opens the document, or its owner password. Not needed for a document that opens without one. Allowed: length at most 1024.
	Password *string
}

// Tool is "unlock-pdf".
func (UnlockPDF) Tool() string { return "unlock-pdf" }

// FormValues are the form fields of the params that are set.
func (p UnlockPDF) FormValues() map[string]string {
	v := map[string]string{}
	if p.Password != nil {
		v["password"] = *p.Password
	}
	return v
}

// URLToImageFormat is a value of URLToImage's format.
type URLToImageFormat string

const (
	URLToImageFormatPNG  URLToImageFormat = "png"
	URLToImageFormatJpeg URLToImageFormat = "jpeg"
	URLToImageFormatWebp URLToImageFormat = "webp"
)

// URLToImage are the params of url-to-image: URL to image.
type URLToImage struct {
	// The page to load: an https:// address (http:// and private, loopback and link-local addresses only on a server started with --allow-private-urls). Every request the page makes, redirects included, is held to the same rules; other schemes (file://, ws://) and methods other than GET are blocked. A URL. Allowed: at most 2048.
	URL string
	// Once the page loaded, wait for this before printing: a number of milliseconds (0 to 30000), or a CSS selector that must match an element (waited for up to 30 s; if it never does, the page is printed as it is and meta.wait_timed_out is true). For a page whose scripts add content after it loaded. Allowed: length at most 500.
	WaitFor *string
	// Image format: png, jpeg or webp. Default: `png`.
	Format *URLToImageFormat
	// Width of the browser window (viewport) and of the image, in CSS pixels. A whole number. Allowed: 320 to 3840. Default: `1280`.
	Width *int
	// Height of the viewport, and of the image unless full_page is true. A whole number. Allowed: 100 to 16384. Default: `800`.
	Height *int
	// Capture the whole page, as tall as it scrolls (never less than height), up to 16384 pixels and 16 megapixels (meta.truncated tells when it was cut). Default: `false`.
	FullPage *bool
	// JPEG or WebP quality, 1 (smallest) to 100 (best); PNG ignores it. A whole number. Allowed: 1 to 100. Default: `85`.
	Quality *int
}

// Tool is "url-to-image".
func (URLToImage) Tool() string { return "url-to-image" }

// FormValues are the form fields of the params that are set.
func (p URLToImage) FormValues() map[string]string {
	v := map[string]string{}
	v["url"] = p.URL
	if p.WaitFor != nil {
		v["wait_for"] = *p.WaitFor
	}
	if p.Format != nil {
		v["format"] = string(*p.Format)
	}
	if p.Width != nil {
		v["width"] = strconv.Itoa(*p.Width)
	}
	if p.Height != nil {
		v["height"] = strconv.Itoa(*p.Height)
	}
	if p.FullPage != nil {
		v["full_page"] = strconv.FormatBool(*p.FullPage)
	}
	if p.Quality != nil {
		v["quality"] = strconv.Itoa(*p.Quality)
	}
	return v
}

// URLToPDFPageSize is a value of URLToPDF's page_size.
type URLToPDFPageSize string

const (
	URLToPDFPageSizeA4     URLToPDFPageSize = "a4"
	URLToPDFPageSizeLetter URLToPDFPageSize = "letter"
	URLToPDFPageSizeLegal  URLToPDFPageSize = "legal"
	URLToPDFPageSizeA3     URLToPDFPageSize = "a3"
	URLToPDFPageSizeA5     URLToPDFPageSize = "a5"
)

// URLToPDFMargin is a value of URLToPDF's margin.
type URLToPDFMargin string

const (
	URLToPDFMarginNone   URLToPDFMargin = "none"
	URLToPDFMarginSmall  URLToPDFMargin = "small"
	URLToPDFMarginNormal URLToPDFMargin = "normal"
)

// URLToPDFMedia is a value of URLToPDF's media.
type URLToPDFMedia string

const (
	URLToPDFMediaPrint  URLToPDFMedia = "print"
	URLToPDFMediaScreen URLToPDFMedia = "screen"
)

// URLToPDFPDFA is a value of URLToPDF's pdfa.
type URLToPDFPDFA string

const (
	URLToPDFPDFANone URLToPDFPDFA = "none"
	URLToPDFPDFA1b   URLToPDFPDFA = "1b"
	URLToPDFPDFA2b   URLToPDFPDFA = "2b"
	URLToPDFPDFA3b   URLToPDFPDFA = "3b"
)

// URLToPDF are the params of url-to-pdf: URL to PDF.
type URLToPDF struct {
	// The page to load: an https:// address (http:// and private, loopback and link-local addresses only on a server started with --allow-private-urls). Every request the page makes, redirects included, is held to the same rules; other schemes (file://, ws://) and methods other than GET are blocked. A URL. Allowed: at most 2048.
	URL string
	// Paper size: a4 (210x297 mm), letter (8.5x11 in), legal (8.5x14 in), a3 (297x420 mm) or a5 (148x210 mm). A page's CSS @page size is ignored unless prefer_css_page_size is true. Default: `a4`.
	PageSize *URLToPDFPageSize
	// Print in landscape orientation. Default: `false`.
	Landscape *bool
	// Page margins: none, small (0.4 in, 10 mm) or normal (0.8 in, 20 mm). Default: `normal`.
	Margin *URLToPDFMargin
	// Print background colours and images, as on screen. Default: `true`.
	PrintBackground *bool
	// Make a tagged (accessible) PDF: the page's structure (headings, paragraphs, lists, tables, image descriptions) for screen readers and reflow. Slower, and often several times larger. Default: `false`.
	Tagged *bool
	// Page header. An HTML template, printed in the margin of every page with the page's styles left out; elements of class pageNumber, totalPages, date, title and url get those values (<span class="pageNumber"></span> / <span class="totalPages"></span>). It loads nothing: images must be data: URLs. Its text is small unless styled (font-size). It is drawn within the margin on its side: when that margin is 0 (margin=none), 0.4 in (10 mm) is used. Allowed: length at most 32768.
	HeaderHTML *string
	// Page footer. An HTML template, printed in the margin of every page with the page's styles left out; elements of class pageNumber, totalPages, date, title and url get those values (<span class="pageNumber"></span> / <span class="totalPages"></span>). It loads nothing: images must be data: URLs. Its text is small unless styled (font-size). It is drawn within the margin on its side: when that margin is 0 (margin=none), 0.4 in (10 mm) is used. Allowed: length at most 32768.
	FooterHTML *string
	// Scale of the page's rendering, 0.1 to 2. Allowed: 0.1 to 2. Default: `1`.
	Scale *float64
	// Pages to print, such as 1-3,5 or 8- (from 8 to the end); all when left out. A selection with no page in the document is refused. A page selection such as `1-3,5,8-`.
	PageRanges *string
	// Use the page's CSS @page size, when it sets one, instead of page_size or paper_width and paper_height. Default: `false`.
	PreferCssPageSize *bool
	// The CSS media the page is laid out for: print, or screen (@media screen rules apply, as in a browser window). Default: `print`.
	Media *URLToPDFMedia
	// Paper width, overriding page_size, a length with its unit: mm, cm, in, pt or px, such as 210mm or 8.5in (1 in to 200 in). Allowed: length at most 32.
	PaperWidth *string
	// Paper height, overriding page_size, a length with its unit: mm, cm, in, pt or px, such as 297mm or 11in (1 in to 200 in). Allowed: length at most 32.
	PaperHeight *string
	// Top margin, overriding margin, a length with its unit: mm, cm, in, pt or px, such as 15mm or 0.5in (0 in to 20 in). Allowed: length at most 32.
	MarginTop *string
	// Right margin, overriding margin, a length with its unit: mm, cm, in, pt or px, such as 15mm or 0.5in (0 in to 20 in). Allowed: length at most 32.
	MarginRight *string
	// Bottom margin, overriding margin, a length with its unit: mm, cm, in, pt or px, such as 15mm or 0.5in (0 in to 20 in). Allowed: length at most 32.
	MarginBottom *string
	// Left margin, overriding margin, a length with its unit: mm, cm, in, pt or px, such as 15mm or 0.5in (0 in to 20 in). Allowed: length at most 32.
	MarginLeft *string
	// Once the page loaded, wait for this before printing: a number of milliseconds (0 to 30000), or a CSS selector that must match an element (waited for up to 30 s; if it never does, the page is printed as it is and meta.wait_timed_out is true). For a page whose scripts add content after it loaded. Allowed: length at most 500.
	WaitFor *string
	// Add bookmarks (the PDF's outline) made from the page's headings, h1 to h6, nested by level. Chromium builds them from the PDF's structure tree, so the PDF is tagged too (see tagged). Default: `false`.
	Outline *bool
	// Print the whole page on one PDF page as tall as its content (page_size or paper_width gives the width; landscape takes the paper's long side), with CSS page breaks ignored. A page taller than 200 in (the longest paper) goes on as many pages of that height as it needs. Not with paper_height, page_ranges or prefer_css_page_size. Default: `false`.
	SinglePage *bool
	// Make the PDF a PDF/A (archival) file of this part, level B, through pdf-to-pdfa's conversion (Ghostscript): fonts embedded, colours tied to an sRGB output intent, the claim in the XMP metadata. The conversion keeps the text, links and outline but not a structure tree, so it is refused with tagged or pdfua. Default: `none`.
	PDFA *URLToPDFPDFA
	// Mark the PDF for PDF/UA-1 (universal accessibility): tagged (as tagged=true), the title shown in the window's title bar, the language of the page's <html lang> as the document's, Marked content, and the PDF/UA-1 claim in the XMP metadata. Whether the file conforms depends on the page too (alt text, heading order, a title, a lang): see docs/api.md. Default: `false`.
	Pdfua *bool
}

// Tool is "url-to-pdf".
func (URLToPDF) Tool() string { return "url-to-pdf" }

// FormValues are the form fields of the params that are set.
func (p URLToPDF) FormValues() map[string]string {
	v := map[string]string{}
	v["url"] = p.URL
	if p.PageSize != nil {
		v["page_size"] = string(*p.PageSize)
	}
	if p.Landscape != nil {
		v["landscape"] = strconv.FormatBool(*p.Landscape)
	}
	if p.Margin != nil {
		v["margin"] = string(*p.Margin)
	}
	if p.PrintBackground != nil {
		v["print_background"] = strconv.FormatBool(*p.PrintBackground)
	}
	if p.Tagged != nil {
		v["tagged"] = strconv.FormatBool(*p.Tagged)
	}
	if p.HeaderHTML != nil {
		v["header_html"] = *p.HeaderHTML
	}
	if p.FooterHTML != nil {
		v["footer_html"] = *p.FooterHTML
	}
	if p.Scale != nil {
		v["scale"] = strconv.FormatFloat(*p.Scale, 'f', -1, 64)
	}
	if p.PageRanges != nil {
		v["page_ranges"] = *p.PageRanges
	}
	if p.PreferCssPageSize != nil {
		v["prefer_css_page_size"] = strconv.FormatBool(*p.PreferCssPageSize)
	}
	if p.Media != nil {
		v["media"] = string(*p.Media)
	}
	if p.PaperWidth != nil {
		v["paper_width"] = *p.PaperWidth
	}
	if p.PaperHeight != nil {
		v["paper_height"] = *p.PaperHeight
	}
	if p.MarginTop != nil {
		v["margin_top"] = *p.MarginTop
	}
	if p.MarginRight != nil {
		v["margin_right"] = *p.MarginRight
	}
	if p.MarginBottom != nil {
		v["margin_bottom"] = *p.MarginBottom
	}
	if p.MarginLeft != nil {
		v["margin_left"] = *p.MarginLeft
	}
	if p.WaitFor != nil {
		v["wait_for"] = *p.WaitFor
	}
	if p.Outline != nil {
		v["outline"] = strconv.FormatBool(*p.Outline)
	}
	if p.SinglePage != nil {
		v["single_page"] = strconv.FormatBool(*p.SinglePage)
	}
	if p.PDFA != nil {
		v["pdfa"] = string(*p.PDFA)
	}
	if p.Pdfua != nil {
		v["pdfua"] = strconv.FormatBool(*p.Pdfua)
	}
	return v
}

// VerifyPDFSignatures are the params of verify-pdf-signatures: Verify PDF signatures.
type VerifyPDFSignatures struct {
}

// Tool is "verify-pdf-signatures".
func (VerifyPDFSignatures) Tool() string { return "verify-pdf-signatures" }

// FormValues are the form fields of the params that are set.
func (p VerifyPDFSignatures) FormValues() map[string]string {
	v := map[string]string{}
	return v
}

// WatermarkImagePosition is a value of WatermarkImage's position.
type WatermarkImagePosition string

const (
	WatermarkImagePositionCenter      WatermarkImagePosition = "center"
	WatermarkImagePositionTopLeft     WatermarkImagePosition = "top-left"
	WatermarkImagePositionTop         WatermarkImagePosition = "top"
	WatermarkImagePositionTopRight    WatermarkImagePosition = "top-right"
	WatermarkImagePositionLeft        WatermarkImagePosition = "left"
	WatermarkImagePositionRight       WatermarkImagePosition = "right"
	WatermarkImagePositionBottomLeft  WatermarkImagePosition = "bottom-left"
	WatermarkImagePositionBottom      WatermarkImagePosition = "bottom"
	WatermarkImagePositionBottomRight WatermarkImagePosition = "bottom-right"
)

// WatermarkImage are the params of watermark-image: Watermark image.
type WatermarkImage struct {
	// The text; a line break, or the two characters \n, starts a new line. Allowed: length 1 to 200.
	Text string
	// Where the text goes; away from the center it keeps a small margin from the edges. Default: `center`.
	Position *WatermarkImagePosition
	// From 0.05 (faint) to 1 (opaque). Allowed: 0.05 to 1. Default: `0.5`.
	Opacity *float64
	// Font size in pixels. By default a twelfth of the image's shorter side (at least 12). A whole number. Allowed: 6 to 1000.
	FontSize *int
	// Text colour as #rrggbb. A colour, `#rrggbb`. Default: `#808080`.
	Color *string
	// JPEG/WebP/AVIF quality 1-100 of the output (default 90). A whole number. Allowed: 1 to 100.
	Quality *int
}

// Tool is "watermark-image".
func (WatermarkImage) Tool() string { return "watermark-image" }

// FormValues are the form fields of the params that are set.
func (p WatermarkImage) FormValues() map[string]string {
	v := map[string]string{}
	v["text"] = p.Text
	if p.Position != nil {
		v["position"] = string(*p.Position)
	}
	if p.Opacity != nil {
		v["opacity"] = strconv.FormatFloat(*p.Opacity, 'f', -1, 64)
	}
	if p.FontSize != nil {
		v["font_size"] = strconv.Itoa(*p.FontSize)
	}
	if p.Color != nil {
		v["color"] = *p.Color
	}
	if p.Quality != nil {
		v["quality"] = strconv.Itoa(*p.Quality)
	}
	return v
}

// WatermarkPDFPosition is a value of WatermarkPDF's position.
type WatermarkPDFPosition string

const (
	WatermarkPDFPositionTopLeft      WatermarkPDFPosition = "top-left"
	WatermarkPDFPositionTopCenter    WatermarkPDFPosition = "top-center"
	WatermarkPDFPositionTopRight     WatermarkPDFPosition = "top-right"
	WatermarkPDFPositionCenterLeft   WatermarkPDFPosition = "center-left"
	WatermarkPDFPositionCenter       WatermarkPDFPosition = "center"
	WatermarkPDFPositionCenterRight  WatermarkPDFPosition = "center-right"
	WatermarkPDFPositionBottomLeft   WatermarkPDFPosition = "bottom-left"
	WatermarkPDFPositionBottomCenter WatermarkPDFPosition = "bottom-center"
	WatermarkPDFPositionBottomRight  WatermarkPDFPosition = "bottom-right"
)

// WatermarkPDFLayer is a value of WatermarkPDF's layer.
type WatermarkPDFLayer string

const (
	WatermarkPDFLayerOver  WatermarkPDFLayer = "over"
	WatermarkPDFLayerUnder WatermarkPDFLayer = "under"
)

// WatermarkPDF are the params of watermark-pdf: Watermark PDF.
type WatermarkPDF struct {
	// The watermark text: Latin, Greek or Cyrillic. A line break, or the two characters \n, starts a new line. Allowed: length 1 to 200.
	Text string
	// From 0 (invisible) to 1 (opaque). Allowed: 0 to 1. Default: `0.3`.
	Opacity *float64
	// Angle of the text in degrees, counter-clockwise; 45 runs from bottom left to top right. Allowed: -180 to 180. Default: `45`.
	Rotation *float64
	// Font size in points. By default the text is sized to each page: three quarters of it (at most 144 pt) when centered, 30% (at most 72 pt) elsewhere. A whole number. Allowed: 6 to 300.
	FontSize *int
	// Text colour as #rrggbb. A colour, `#rrggbb`. Default: `#808080`.
	Color *string
	// Where on the page the text goes; away from the center it keeps a margin of about 1 cm. Default: `center`.
	Position *WatermarkPDFPosition
	// over: on top of the page content (visible on scanned pages); under: behind it. Default: `over`.
	Layer *WatermarkPDFLayer
	// Pages to watermark, such as "1-3,5,8-"; all pages by default. A page selection such as `1-3,5,8-`. Default: `all`.
	Pages *string
}

// Tool is "watermark-pdf".
func (WatermarkPDF) Tool() string { return "watermark-pdf" }

// FormValues are the form fields of the params that are set.
func (p WatermarkPDF) FormValues() map[string]string {
	v := map[string]string{}
	v["text"] = p.Text
	if p.Opacity != nil {
		v["opacity"] = strconv.FormatFloat(*p.Opacity, 'f', -1, 64)
	}
	if p.Rotation != nil {
		v["rotation"] = strconv.FormatFloat(*p.Rotation, 'f', -1, 64)
	}
	if p.FontSize != nil {
		v["font_size"] = strconv.Itoa(*p.FontSize)
	}
	if p.Color != nil {
		v["color"] = *p.Color
	}
	if p.Position != nil {
		v["position"] = string(*p.Position)
	}
	if p.Layer != nil {
		v["layer"] = string(*p.Layer)
	}
	if p.Pages != nil {
		v["pages"] = *p.Pages
	}
	return v
}

// WordToPDF are the params of word-to-pdf: Word to PDF.
type WordToPDF struct {
	// Pages of the PDF to keep, such as "1-3,5,8-" (default: all). A page selection such as `1-3,5,8-`.
	Pages *string
}

// Tool is "word-to-pdf".
func (WordToPDF) Tool() string { return "word-to-pdf" }

// FormValues are the form fields of the params that are set.
func (p WordToPDF) FormValues() map[string]string {
	v := map[string]string{}
	if p.Pages != nil {
		v["pages"] = *p.Pages
	}
	return v
}
