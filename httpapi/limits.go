package httpapi

import "net/http"

// handleLimits serves the node's processing limits (docmill.Limits, by its
// JSON names), so a client can see what a file may cost before sending
// it. They hold whatever the plan; a plan only lowers the file size.
func (s *Server) handleLimits(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.cfg.Limits)
}

// limitsSchema describes GET /v1/limits' body: one property for each JSON
// field of docmill.Limits.
func limitsSchema() obj {
	integer := func(desc string) obj { return obj{"type": "integer", "minimum": 1, "description": desc} }
	return obj{
		"type":        "object",
		"description": "Limits of one job on this server, whatever the plan. An input over one is refused with 400 (invalid_document, or invalid_parameter when a param such as dpi or width makes the output too large) before the work starts.",
		"required": []string{
			"image_pixels", "embedded_image_pixels", "decoded_image_pixels", "decoded_image_pixels_total",
			"render_page_pixels", "render_pixels_total", "render_pages", "pdf_pages", "pdf_bytes",
			"stream_decoded_bytes", "job_decoded_bytes", "text_bytes", "layout_bytes",
			"compare_layout_bytes", "render_output_bytes", "redact_ocr_pages", "redact_ocr_pixels", "image_to_text_pages",
			"printed_pdf_bytes", "markdown_bytes", "invoice_xml_bytes", "fetch_requests", "fetch_bytes", "fetch_response_bytes", "sheet_cells",
			"archive_entries", "archive_bytes", "archive_ratio", "engine_memory",
		},
		"properties": obj{
			"image_pixels":               integer("Pixels (width x height) of one image that compress-, resize-, convert-, rotate-, crop-, watermark-image or ocr-pdf reads or makes, read from its header before decoding."),
			"embedded_image_pixels":      integer("Pixels of one JPEG that jpg-to-pdf embeds without decoding."),
			"decoded_image_pixels":       integer("Pixels of one PNG, GIF, TIFF or WebP image that jpg-to-pdf decodes."),
			"decoded_image_pixels_total": integer("Pixels that jpg-to-pdf decodes in one job, all images together."),
			"render_page_pixels":         integer("Pixels of one page image that pdf-to-jpg or pdf-to-png makes."),
			"render_pixels_total":        integer("Pixels that pdf-to-jpg or pdf-to-png makes in one job, all pages together."),
			"render_pages":               integer("Pages that pdf-to-jpg or pdf-to-png renders in one job."),
			"pdf_pages":                  integer("Pages of a document (and of a merge's result) that the PDF tools take."),
			"pdf_bytes":                  integer("Bytes of a PDF (and of a merge's inputs together) that the in-process PDF tools parse."),
			"stream_decoded_bytes":       integer("Bytes of one PDF stream once decoded."),
			"job_decoded_bytes":          integer("Bytes of PDF streams decoded in one job, all together."),
			"text_bytes":                 integer("Bytes of text that pdf-to-text, of Markdown that pdf-to-markdown, or of tables that pdf-to-csv and pdf-to-xlsx, writes for one document."),
			"layout_bytes":               integer("Bytes of text layout (every word with its coordinates) that edit-bookmarks, pdf-to-word, pdf-to-odt, pdf-to-markdown, pdf-to-csv, pdf-to-xlsx and redact-pdf read for one document."),
			"compare_layout_bytes":       integer("Bytes of words and boxes that compare-pdf reads of each document."),
			"render_output_bytes":        integer("Bytes of images that pdf-to-jpg, pdf-to-png, pdf-to-svg and extract-images write in one job, all together (file_too_large past it)."),
			"redact_ocr_pages":           integer("Pages that redact-pdf reads again by OCR (ocr=true) in one job."),
			"redact_ocr_pixels":          integer("Pixels of the page images that redact-pdf reads again by OCR in one job, all pages together."),
			"image_to_text_pages":        integer("Pages of a PDF that image-to-text reads by OCR in one job."),
			"printed_pdf_bytes":          integer("Bytes of the PDF that html-to-pdf, markdown-to-pdf or url-to-pdf prints (file_too_large past it)."),
			"markdown_bytes":             integer("Bytes of the Markdown file that markdown-to-pdf reads (file_too_large past it)."),
			"invoice_xml_bytes":          integer("Bytes of the invoice XML that einvoice-pdf reads, or that extract-einvoice takes out of a PDF (file_too_large past it)."),
			"fetch_requests":             integer("Requests that the page of a url-to-pdf or url-to-image job may make, redirects included; more are blocked."),
			"fetch_bytes":                integer("Bytes of responses that the page of a url-to-pdf or url-to-image job may get, all together; past it requests are blocked."),
			"fetch_response_bytes":       integer("Bytes of one response, decoded, that the page of a url-to-pdf or url-to-image job may get; a larger one is blocked (the page itself: fetch_failed)."),
			"sheet_cells":                integer("Cells of a spreadsheet exported to CSV or PDF, counted from A1 to the end of each sheet's used area, empty cells too."),
			"archive_entries":            integer("Entries of a zip input (a zipped web page, an OOXML or ODF document)."),
			"archive_bytes":              integer("Bytes that a zip input's entries expand to, all together."),
			"archive_ratio":              integer("How many times an entry of a zip input larger than 1 MiB may expand its compressed size."),
			"engine_memory":              integer("Bytes of memory of each engine process (Ghostscript, LibreOffice, Chromium, ...); a document that needs more fails."),
		},
	}
}
