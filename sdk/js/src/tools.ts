// Generated from the tool registry by `go run ./cmd/docmill docs js-types > sdk/js/src/tools.ts`; do not edit.

/** The params of every tool, by slug, as the server's registry declares them. */
export interface ToolParams {
  /** Add PDF attachments. */
  "add-attachments": {
    /** A description given to every file attached, which PDF viewers show beside it. Allowed: length at most 1000. */
    description?: string;
  };
  /** Booklet PDF. */
  "booklet-pdf": {
    /** Pages on each side of a sheet: 2 makes a booklet of half the sheet's size; 4 makes one of a quarter, cut in two after folding. A whole number. Default: `2`. */
    per_sheet?: 2 | 4;
    /** The sheet's size: a4, a3, a5, letter, legal, or width x height in millimetres such as "210x297"; a4 by default. Allowed: length at most 32. Default: `a4`. */
    page_size?: string;
  };
  /** Compare PDFs. */
  "compare-pdf": {};
  /** Compress image. */
  "compress-image": {
    /** Compression level: low keeps the most quality, extreme makes the smallest file. Default: `recommended`. */
    preset?: "low" | "recommended" | "extreme";
    /** JPEG/WebP/AVIF quality 1-100 (for PNG, the quantization quality); overrides the preset. A whole number. Allowed: 1 to 100. */
    quality?: number;
  };
  /** Compress PDF. */
  "compress-pdf": {
    /** Compression level: low keeps images near their resolution (300 dpi), recommended aims at 150 dpi, extreme at 96 dpi with lower quality. Default: `recommended`. */
    preset?: "low" | "recommended" | "extreme";
    /** JPEG quality of re-encoded images (1-100); overrides the preset's. A whole number. Allowed: 1 to 100. */
    quality?: number;
  };
  /** Convert document. */
  "convert-document": {
    /** The format to save in; it must fit the document: docx, odt, rtf, txt or epub for a text document, xlsx, ods or csv for a spreadsheet, pptx or odp for a presentation. */
    format: "docx" | "odt" | "rtf" | "txt" | "epub" | "xlsx" | "ods" | "csv" | "pptx" | "odp";
  };
  /** Convert image. */
  "convert-image": {
    /** Output format; the list holds only the formats this server's libvips can write. */
    format: "jpg" | "png" | "webp" | "avif" | "tiff" | "gif";
    /** Quality 1-100 of lossy outputs (jpg, webp, avif; default 85 for jpg and webp, 50 for avif); ignored otherwise. A whole number. Allowed: 1 to 100. */
    quality?: number;
  };
  /** Crop image. */
  "crop-image": {
    /** Pixels from the left edge to the box. A whole number. Allowed: 0 to 20000. Default: `0`. */
    left?: number;
    /** Pixels from the top edge to the box. A whole number. Allowed: 0 to 20000. Default: `0`. */
    top?: number;
    /** Width of the box in pixels. A whole number. Allowed: 1 to 20000. */
    width: number;
    /** Height of the box in pixels. A whole number. Allowed: 1 to 20000. */
    height: number;
    /** JPEG/WebP/AVIF quality 1-100 of the output (default 90). A whole number. Allowed: 1 to 100. */
    quality?: number;
  };
  /** Crop PDF. */
  "crop-pdf": {
    /** Millimetres to cut from each page as shown: "top,right,bottom,left", or one number for all four, such as "10". Allowed: length at most 100. */
    margins?: string;
    /** The area to keep, "x1,y1,x2,y2" in millimetres from the bottom-left corner of the page as shown, such as "20,20,190,277". Allowed: length at most 100. */
    box?: string;
    /** Trim the white margins: keep what the page draws, with padding around it. Blank pages are left as they are. Default: `false`. */
    auto?: boolean;
    /** With auto, millimetres of margin kept around what the page draws; 2 by default. Allowed: 0 to 100. */
    padding?: number;
    /** Pages to crop, such as "1-3,5,8-"; all pages by default. A page selection such as `1-3,5,8-`. Default: `all`. */
    pages?: string;
  };
  /** Document thumbnail. */
  "document-thumbnail": {
    /** Width of the picture in pixels, 16-2000; the height follows the page's proportions. A whole number. Allowed: 16 to 2000. Default: `400`. */
    width?: number;
  };
  /** Edit PDF bookmarks. */
  "edit-bookmarks": {
    /** The bookmarks as JSON: a list of {"title", "page", "children"}, or pdf-bookmarks' {"bookmarks": [...]}; at most 5000 bookmarks, 8 levels, titles of 500 characters. Required unless from_headings is true. Allowed: length at most 65536. */
    bookmarks?: string;
    /** Build the bookmarks from the headings of the text (lines in a clearly larger font) instead of bookmarks. Scanned pages without text have none; run ocr-pdf first. Default: `false`. */
    from_headings?: boolean;
  };
  /** Edit PDF metadata. */
  "edit-metadata": {
    /** The document's title. Left as it is when not given. Allowed: length at most 2000. */
    title?: string;
    /** The person or organisation that wrote the document. Left as it is when not given. Allowed: length at most 2000. */
    author?: string;
    /** What the document is about. Left as it is when not given. Allowed: length at most 2000. */
    subject?: string;
    /** Keywords, such as "report, 2026, sales". Left as it is when not given. Allowed: length at most 2000. */
    keywords?: string;
    /** The application that made the original document. Left as it is when not given. Allowed: length at most 2000. */
    creator?: string;
    /** The document's language, a BCP 47 tag such as "en" or "ru-RU". Left as it is when not given. Allowed: length at most 35. */
    language?: string;
    /** The application that made the PDF. The writer's own name (pdfcpu) when not given. Allowed: length at most 2000. */
    producer?: string;
    /** Remove every existing entry first; values given are then set. A PDF/A or PDF/UA identification in the XMP metadata is kept. Default: `false`. */
    clear?: boolean;
  };
  /** Make a Factur-X e-invoice. */
  "einvoice-pdf": {
    /** The level the invoice must have; when given and the XML's guideline ID names another, the request is refused. By default, the XML's own. */
    level?: "MINIMUM" | "BASIC WL" | "BASIC" | "EN 16931" | "EXTENDED" | "XRECHNUNG";
  };
  /** Excel to PDF. */
  "excel-to-pdf": {
    /** Pages of the PDF to keep, such as "1-3,5,8-" (default: all). A page selection such as `1-3,5,8-`. */
    pages?: string;
  };
  /** Extract PDF attachments. */
  "extract-attachments": {};
  /** Extract e-invoice XML. */
  "extract-einvoice": {};
  /** Extract images from PDF. */
  "extract-images": {
    /** Images whose smaller side is under this many pixels are left out (icons, bullets, spacers); 0 keeps every image. A whole number. Allowed: 0 to 10000. Default: `16`. */
    min_size?: number;
    /** Pages whose images to extract, such as "1-3,5,8-"; every page when absent. A page selection such as `1-3,5,8-`. */
    pages?: string;
  };
  /** Extract pages. */
  "extract-pages": {
    /** Pages to keep, such as "1-3,5,8-" ("8-" runs to the last page). A page selection such as `1-3,5,8-`. */
    pages: string;
  };
  /** Fill PDF form. */
  "fill-pdf-form": {
    /** A JSON object of field names to values: text for a text field, true or false (or its on state) for a check box, the chosen option for a radio group or a combo box, a list of options for a list box that takes several; such as {"Name": "Jane Roe", "Agree": true, "Size": "M"}. A name the form does not have, or a value not among a field's options, is refused. Allowed: length at most 64000. */
    values: string;
    /** Draw the filled fields into the pages and remove the form, so the values can no longer be changed. Default: `false`. */
    flatten?: boolean;
  };
  /** Flatten PDF. */
  "flatten-pdf": {};
  /** Grayscale PDF. */
  "grayscale-pdf": {};
  /** HTML to image. */
  "html-to-image": {
    /** Image format: png, jpeg or webp. Default: `png`. */
    format?: "png" | "jpeg" | "webp";
    /** Width of the browser window (viewport) and of the image, in CSS pixels. A whole number. Allowed: 320 to 3840. Default: `1280`. */
    width?: number;
    /** Height of the viewport, and of the image unless full_page is true. A whole number. Allowed: 100 to 16384. Default: `800`. */
    height?: number;
    /** Capture the whole page, as tall as it scrolls (never less than height), up to 16384 pixels and 16 megapixels (meta.truncated tells when it was cut). Default: `false`. */
    full_page?: boolean;
    /** JPEG or WebP quality, 1 (smallest) to 100 (best); PNG ignores it. A whole number. Allowed: 1 to 100. Default: `85`. */
    quality?: number;
  };
  /** HTML to PDF. */
  "html-to-pdf": {
    /** Paper size: a4 (210x297 mm), letter (8.5x11 in), legal (8.5x14 in), a3 (297x420 mm) or a5 (148x210 mm). A page's CSS @page size is ignored unless prefer_css_page_size is true. Default: `a4`. */
    page_size?: "a4" | "letter" | "legal" | "a3" | "a5";
    /** Print in landscape orientation. Default: `false`. */
    landscape?: boolean;
    /** Page margins: none, small (0.4 in, 10 mm) or normal (0.8 in, 20 mm). Default: `normal`. */
    margin?: "none" | "small" | "normal";
    /** Print background colours and images, as on screen. Default: `true`. */
    print_background?: boolean;
    /** Make a tagged (accessible) PDF: the page's structure (headings, paragraphs, lists, tables, image descriptions) for screen readers and reflow. Slower, and often several times larger. Default: `false`. */
    tagged?: boolean;
    /** Page header. An HTML template, printed in the margin of every page with the page's styles left out; elements of class pageNumber, totalPages, date, title and url get those values (<span class="pageNumber"></span> / <span class="totalPages"></span>). It loads nothing: images must be data: URLs. Its text is small unless styled (font-size). It is drawn within the margin on its side: when that margin is 0 (margin=none), 0.4 in (10 mm) is used. Allowed: length at most 32768. */
    header_html?: string;
    /** Page footer. An HTML template, printed in the margin of every page with the page's styles left out; elements of class pageNumber, totalPages, date, title and url get those values (<span class="pageNumber"></span> / <span class="totalPages"></span>). It loads nothing: images must be data: URLs. Its text is small unless styled (font-size). It is drawn within the margin on its side: when that margin is 0 (margin=none), 0.4 in (10 mm) is used. Allowed: length at most 32768. */
    footer_html?: string;
    /** Scale of the page's rendering, 0.1 to 2. Allowed: 0.1 to 2. Default: `1`. */
    scale?: number;
    /** Pages to print, such as 1-3,5 or 8- (from 8 to the end); all when left out. A selection with no page in the document is refused. A page selection such as `1-3,5,8-`. */
    page_ranges?: string;
    /** Use the page's CSS @page size, when it sets one, instead of page_size or paper_width and paper_height. Default: `false`. */
    prefer_css_page_size?: boolean;
    /** The CSS media the page is laid out for: print, or screen (@media screen rules apply, as in a browser window). Default: `print`. */
    media?: "print" | "screen";
    /** Paper width, overriding page_size, a length with its unit: mm, cm, in, pt or px, such as 210mm or 8.5in (1 in to 200 in). Allowed: length at most 32. */
    paper_width?: string;
    /** Paper height, overriding page_size, a length with its unit: mm, cm, in, pt or px, such as 297mm or 11in (1 in to 200 in). Allowed: length at most 32. */
    paper_height?: string;
    /** Top margin, overriding margin, a length with its unit: mm, cm, in, pt or px, such as 15mm or 0.5in (0 in to 20 in). Allowed: length at most 32. */
    margin_top?: string;
    /** Right margin, overriding margin, a length with its unit: mm, cm, in, pt or px, such as 15mm or 0.5in (0 in to 20 in). Allowed: length at most 32. */
    margin_right?: string;
    /** Bottom margin, overriding margin, a length with its unit: mm, cm, in, pt or px, such as 15mm or 0.5in (0 in to 20 in). Allowed: length at most 32. */
    margin_bottom?: string;
    /** Left margin, overriding margin, a length with its unit: mm, cm, in, pt or px, such as 15mm or 0.5in (0 in to 20 in). Allowed: length at most 32. */
    margin_left?: string;
    /** Once the page loaded, wait for this before printing: a number of milliseconds (0 to 30000), or a CSS selector that must match an element (waited for up to 30 s; if it never does, the page is printed as it is and meta.wait_timed_out is true). For a page whose scripts add content after it loaded. Allowed: length at most 500. */
    wait_for?: string;
    /** Add bookmarks (the PDF's outline) made from the page's headings, h1 to h6, nested by level. Chromium builds them from the PDF's structure tree, so the PDF is tagged too (see tagged). Default: `false`. */
    outline?: boolean;
    /** Print the whole page on one PDF page as tall as its content (page_size or paper_width gives the width; landscape takes the paper's long side), with CSS page breaks ignored. A page taller than 200 in (the longest paper) goes on as many pages of that height as it needs. Not with paper_height, page_ranges or prefer_css_page_size. Default: `false`. */
    single_page?: boolean;
    /** Make the PDF a PDF/A (archival) file of this part, level B, through pdf-to-pdfa's conversion (Ghostscript): fonts embedded, colours tied to an sRGB output intent, the claim in the XMP metadata. The conversion keeps the text, links and outline but not a structure tree, so it is refused with tagged or pdfua. Default: `none`. */
    pdfa?: "none" | "1b" | "2b" | "3b";
    /** Mark the PDF for PDF/UA-1 (universal accessibility): tagged (as tagged=true), the title shown in the window's title bar, the language of the page's <html lang> as the document's, Marked content, and the PDF/UA-1 claim in the XMP metadata. Whether the file conforms depends on the page too (alt text, heading order, a title, a lang): see docs/api.md. Default: `false`. */
    pdfua?: boolean;
  };
  /** Image info. */
  "image-info": {};
  /** Image to text (OCR). */
  "image-to-text": {
    /** txt: plain UTF-8 text; hocr: hOCR (XHTML with word boxes); alto: ALTO XML. Default: `txt`. */
    format?: "txt" | "hocr" | "alto";
    /** The language of the text: eng (English), rus (Russian) or eng+rus (both). Default: `eng+rus`. */
    lang?: "eng" | "rus" | "eng+rus";
  };
  /** Image watermark PDF. */
  "image-watermark": {
    /** Where on the page the image goes; away from the center it keeps a margin of about 1 cm. Default: `center`. */
    position?: "top-left" | "top-center" | "top-right" | "center-left" | "center" | "center-right" | "bottom-left" | "bottom-center" | "bottom-right";
    /** The image's width as a fraction of the page's width (smaller if it would not fit the page). Allowed: 0.05 to 1. Default: `0.25`. */
    scale?: number;
    /** From 0 (invisible) to 1 (opaque). Allowed: 0 to 1. Default: `0.5`. */
    opacity?: number;
    /** Angle of the image in degrees, counter-clockwise. Allowed: -180 to 180. Default: `0`. */
    rotation?: number;
    /** Pages to stamp, such as "1-3,5,8-"; all pages by default. A page selection such as `1-3,5,8-`. Default: `all`. */
    pages?: string;
  };
  /** Insert pages into PDF. */
  "insert-pages": {
    /** The page after which the pages go; 0 puts them before the first page. After the last page by default. A whole number. Allowed: 0 to 10000. */
    after?: number;
    /** Insert this many blank pages instead of a second PDF (send one file only). They take the size of the page they follow, or of the first page. A whole number. Allowed: 1 to 1000. */
    blank?: number;
  };
  /** JPG to PDF. */
  "jpg-to-pdf": {
    /** fit: each page is the size of its image, at the image's declared resolution (72 dpi when none); a4, letter: each image is scaled to fill the page inside the margins, centred. Default: `fit`. */
    page_size?: "fit" | "a4" | "letter";
    /** Page orientation for a4 and letter; auto makes a page landscape when its image is wider than tall. Ignored for fit. Default: `auto`. */
    orientation?: "auto" | "portrait" | "landscape";
    /** White border around each image: none, small (20 pt, 7 mm) or big (50 pt, 18 mm). Default: `none`. */
    margin?: "none" | "small" | "big";
  };
  /** Linearize PDF (fast web view). */
  "linearize-pdf": {};
  /** Markdown to PDF. */
  "markdown-to-pdf": {
    /** Paper size: a4 (210x297 mm), letter (8.5x11 in), legal (8.5x14 in), a3 (297x420 mm) or a5 (148x210 mm). A page's CSS @page size is ignored unless prefer_css_page_size is true. Default: `a4`. */
    page_size?: "a4" | "letter" | "legal" | "a3" | "a5";
    /** Print in landscape orientation. Default: `false`. */
    landscape?: boolean;
    /** Page margins: none, small (0.4 in, 10 mm) or normal (0.8 in, 20 mm). Default: `normal`. */
    margin?: "none" | "small" | "normal";
    /** Print background colours and images, as on screen. Default: `true`. */
    print_background?: boolean;
    /** Make a tagged (accessible) PDF: the page's structure (headings, paragraphs, lists, tables, image descriptions) for screen readers and reflow. Slower, and often several times larger. Default: `false`. */
    tagged?: boolean;
    /** Page header. An HTML template, printed in the margin of every page with the page's styles left out; elements of class pageNumber, totalPages, date, title and url get those values (<span class="pageNumber"></span> / <span class="totalPages"></span>). It loads nothing: images must be data: URLs. Its text is small unless styled (font-size). It is drawn within the margin on its side: when that margin is 0 (margin=none), 0.4 in (10 mm) is used. Allowed: length at most 32768. */
    header_html?: string;
    /** Page footer. An HTML template, printed in the margin of every page with the page's styles left out; elements of class pageNumber, totalPages, date, title and url get those values (<span class="pageNumber"></span> / <span class="totalPages"></span>). It loads nothing: images must be data: URLs. Its text is small unless styled (font-size). It is drawn within the margin on its side: when that margin is 0 (margin=none), 0.4 in (10 mm) is used. Allowed: length at most 32768. */
    footer_html?: string;
    /** Scale of the page's rendering, 0.1 to 2. Allowed: 0.1 to 2. Default: `1`. */
    scale?: number;
    /** Pages to print, such as 1-3,5 or 8- (from 8 to the end); all when left out. A selection with no page in the document is refused. A page selection such as `1-3,5,8-`. */
    page_ranges?: string;
    /** Use the page's CSS @page size, when it sets one, instead of page_size or paper_width and paper_height. Default: `false`. */
    prefer_css_page_size?: boolean;
    /** The CSS media the page is laid out for: print, or screen (@media screen rules apply, as in a browser window). Default: `print`. */
    media?: "print" | "screen";
    /** Paper width, overriding page_size, a length with its unit: mm, cm, in, pt or px, such as 210mm or 8.5in (1 in to 200 in). Allowed: length at most 32. */
    paper_width?: string;
    /** Paper height, overriding page_size, a length with its unit: mm, cm, in, pt or px, such as 297mm or 11in (1 in to 200 in). Allowed: length at most 32. */
    paper_height?: string;
    /** Top margin, overriding margin, a length with its unit: mm, cm, in, pt or px, such as 15mm or 0.5in (0 in to 20 in). Allowed: length at most 32. */
    margin_top?: string;
    /** Right margin, overriding margin, a length with its unit: mm, cm, in, pt or px, such as 15mm or 0.5in (0 in to 20 in). Allowed: length at most 32. */
    margin_right?: string;
    /** Bottom margin, overriding margin, a length with its unit: mm, cm, in, pt or px, such as 15mm or 0.5in (0 in to 20 in). Allowed: length at most 32. */
    margin_bottom?: string;
    /** Left margin, overriding margin, a length with its unit: mm, cm, in, pt or px, such as 15mm or 0.5in (0 in to 20 in). Allowed: length at most 32. */
    margin_left?: string;
    /** Once the page loaded, wait for this before printing: a number of milliseconds (0 to 30000), or a CSS selector that must match an element (waited for up to 30 s; if it never does, the page is printed as it is and meta.wait_timed_out is true). For a page whose scripts add content after it loaded. Allowed: length at most 500. */
    wait_for?: string;
    /** Add bookmarks (the PDF's outline) made from the page's headings, h1 to h6, nested by level. Chromium builds them from the PDF's structure tree, so the PDF is tagged too (see tagged). Default: `false`. */
    outline?: boolean;
    /** Print the whole page on one PDF page as tall as its content (page_size or paper_width gives the width; landscape takes the paper's long side), with CSS page breaks ignored. A page taller than 200 in (the longest paper) goes on as many pages of that height as it needs. Not with paper_height, page_ranges or prefer_css_page_size. Default: `false`. */
    single_page?: boolean;
    /** Make the PDF a PDF/A (archival) file of this part, level B, through pdf-to-pdfa's conversion (Ghostscript): fonts embedded, colours tied to an sRGB output intent, the claim in the XMP metadata. The conversion keeps the text, links and outline but not a structure tree, so it is refused with tagged or pdfua. Default: `none`. */
    pdfa?: "none" | "1b" | "2b" | "3b";
    /** Mark the PDF for PDF/UA-1 (universal accessibility): tagged (as tagged=true), the title shown in the window's title bar, the language of the page's <html lang> as the document's, Marked content, and the PDF/UA-1 claim in the XMP metadata. Whether the file conforms depends on the page too (alt text, heading order, a title, a lang): see docs/api.md. Default: `false`. */
    pdfua?: boolean;
  };
  /** Merge PDF. */
  "merge-pdf": {
    /** none: each file's bookmarks kept as they are; file_names or titles: one bookmark per file at its first page, named by its file name or its document title (the file name when it has none), with the file's own bookmarks under it. Default: `none`. */
    bookmarks?: "none" | "file_names" | "titles";
  };
  /** N-up PDF. */
  "nup-pdf": {
    /** Pages on each sheet. A whole number. Default: `2`. */
    per_sheet?: 2 | 4 | 6 | 8 | 9 | 16;
    /** The sheet's size; it is turned to landscape when that fits the pages better: a4, a3, a5, letter, legal, or width x height in millimetres such as "210x297"; a4 by default. Allowed: length at most 32. Default: `a4`. */
    page_size?: string;
    /** How the pages fill a sheet: across-then-down fills rows left to right from the top; down-then-across fills columns top to bottom from the left; the -rtl forms go right to left. Default: `across-then-down`. */
    order?: "across-then-down" | "down-then-across" | "across-then-down-rtl" | "down-then-across-rtl";
    /** Draw a thin line around each page. Default: `false`. */
    border?: boolean;
  };
  /** OCR PDF. */
  "ocr-pdf": {
    /** The language of the text: eng (English), rus (Russian) or eng+rus (both). Default: `eng+rus`. */
    lang?: "eng" | "rus" | "eng+rus";
  };
  /** Organize PDF. */
  "organize-pdf": {
    /** The pages of the new document, in order, such as "3,1,2,4-" ("4-" runs to the last page). A page selection such as `1-3,5,8-`. */
    order: string;
  };
  /** Add page numbers. */
  "page-numbers": {
    /** Where the number goes, about 1 cm from the page edges. Default: `bottom-center`. */
    position?: "top-left" | "top-center" | "top-right" | "bottom-left" | "bottom-center" | "bottom-right";
    /** The number printed on the first numbered page. Later pages count on by their position, so a page left out of pages keeps its place in the count. A whole number. Allowed: 0 to 100000. Default: `1`. */
    start?: number;
    /** The text printed: {n} is the page's number, {total} the number of the last numbered page; any other text is kept, as in "Page {n} of {total}". Latin, Greek or Cyrillic. Allowed: length at most 100. Default: `{n}`. */
    format?: string;
    /** Font size in points. A whole number. Allowed: 6 to 72. Default: `12`. */
    font_size?: number;
    /** Pages that get a number, such as "2-" to leave out a cover; all pages by default. A page selection such as `1-3,5,8-`. Default: `all`. */
    pages?: string;
  };
  /** PDF bookmarks. */
  "pdf-bookmarks": {};
  /** PDF form fields. */
  "pdf-form-fields": {};
  /** PDF info. */
  "pdf-info": {};
  /** PDF to CSV. */
  "pdf-to-csv": {};
  /** PDF to JPG. */
  "pdf-to-jpg": {
    /** Resolution of the images, in dots per inch; a page of W x H points becomes W*dpi/72 x H*dpi/72 pixels. A whole number. Allowed: 72 to 600. Default: `150`. */
    dpi?: number;
    /** JPEG quality, 1 (smallest) to 100 (best). A whole number. Allowed: 1 to 100. Default: `85`. */
    quality?: number;
    /** Pages to convert, such as "1-3,5,8-"; every page when absent. Each page is converted once, in page order, whatever order or repeats the selection has. A page selection such as `1-3,5,8-`. */
    pages?: string;
  };
  /** PDF to Markdown. */
  "pdf-to-markdown": {};
  /** PDF to ODT. */
  "pdf-to-odt": {};
  /** PDF to PDF/A. */
  "pdf-to-pdfa": {
    /** PDF/A part and level: 1b, 2b or 3b. Default: `2b`. */
    conformance?: "1b" | "2b" | "3b";
  };
  /** PDF to PNG. */
  "pdf-to-png": {
    /** Resolution of the images, in dots per inch; a page of W x H points becomes W*dpi/72 x H*dpi/72 pixels. A whole number. Allowed: 72 to 600. Default: `150`. */
    dpi?: number;
    /** Pages to convert, such as "1-3,5,8-"; every page when absent. Each page is converted once, in page order, whatever order or repeats the selection has. A page selection such as `1-3,5,8-`. */
    pages?: string;
  };
  /** PDF to SVG. */
  "pdf-to-svg": {
    /** Pages to convert, such as "1-3,5,8-"; every page when absent. Each page is converted once, in page order, whatever order or repeats the selection has. A page selection such as `1-3,5,8-`. */
    pages?: string;
  };
  /** PDF to text. */
  "pdf-to-text": {
    /** Keep the physical layout of the page (columns, indentation) with spaces, instead of the reading order. Default: `false`. */
    layout?: boolean;
  };
  /** PDF to Word. */
  "pdf-to-word": {};
  /** PDF to Excel. */
  "pdf-to-xlsx": {};
  /** Pipeline. */
  "pipeline": {
    /** JSON array of up to 10 steps, each {"tool": slug, "params": {...}}, such as [{"tool": "merge-pdf"}, {"tool": "compress-pdf", "params": {"preset": "extreme"}}]; the params are the tool's own, as GET /v1/tools lists them. */
    steps: string;
  };
  /** PowerPoint to PDF. */
  "powerpoint-to-pdf": {
    /** Pages of the PDF to keep, such as "1-3,5,8-" (default: all). A page selection such as `1-3,5,8-`. */
    pages?: string;
  };
  /** Protect PDF. */
  "protect-pdf": {
    /** Password needed to open the document: letters, digits and ASCII symbols, no spaces, at most 127 bytes in UTF-8. Allowed: length 1 to 127. */
    password: string;
    /** Password that lifts the restrictions, with the same rules as password. If absent: the open password when every permission is allowed, otherwise a random one. Allowed: length 1 to 127. */
    owner_password?: string;
    /** What a reader may do once the document is open: "all", "none", or a comma-separated list of print, copy, modify, annotate, fill-forms. annotate also allows filling forms; extraction for accessibility is always allowed. Allowed: length at most 64. Default: `all`. */
    permissions?: string;
  };
  /** Redact PDF. */
  "redact-pdf": {
    /** Text to black out: one term per line, or a JSON list of strings. Matched without regard to case, anywhere in a word, and across the words of one line (a term's spaces match any spacing); every word a match touches is blacked out whole. At most 200 terms of 2 to 200 characters. Allowed: length at most 20000. */
    terms?: string;
    /** A regular expression in Go's RE2 syntax (no backreferences; matching takes linear time), matched on each line of text, its words joined by single spaces; case is ignored unless it starts with (?-i). Every word a match touches is blacked out whole. Allowed: length at most 500. */
    regex?: string;
    /** Kinds of personal data to find, comma-separated: emails (e-mail addresses); phones (phone numbers: 10 to 15 digits with a leading + or spaces, dots, dashes or brackets between them (a bare run of digits is too often another number)); cards (payment card numbers: 13 to 19 digits, in groups or not, that pass the Luhn check); inn (Russian taxpayer numbers (INN) of 10 or 12 digits whose check digits are right); snils (Russian insurance numbers (SNILS), "123-456-789 01" or 11 digits, whose checksum is right); passports_ru (Russian passport numbers written "45 06 123456" or "4506 123456" (ten digits without spaces are not taken: too many other numbers look so)). Allowed: length at most 200. */
    presets?: string;
    /** Areas to black out, as JSON: [{"page": 1, "x": 72, "y": 100, "width": 200, "height": 30}], in points (1/72 inch), x and y the top left corner of the area measured from the top left corner of the page as it is shown (its crop box, turned by its rotation). At most 1000 boxes. Allowed: length at most 200000. */
    boxes?: string;
    /** Pages whose text is searched for terms, regex and presets, such as "1-3,5,8-"; every page when absent. Boxes apply to the pages they name. A page selection such as `1-3,5,8-`. */
    pages?: string;
    /** Give the redacted pages an invisible text layer again, recognized by OCR (tesseract) in their images with the boxes already black, so that they can be searched and copied from. Takes seconds per page; at most 20 redacted pages. Default: `false`. */
    ocr?: boolean;
    /** With ocr=true, the language of the text: eng (English), rus (Russian) or eng+rus (both). Default: `eng+rus`. */
    lang?: "eng" | "rus" | "eng+rus";
  };
  /** Remove PDF annotations. */
  "remove-annotations": {
    /** Pages whose annotations are removed, such as "1-3,5,8-"; all pages by default. A page selection such as `1-3,5,8-`. Default: `all`. */
    pages?: string;
    /** Keep link annotations (table of contents, web links); every annotation is removed by default. Default: `false`. */
    keep_links?: boolean;
    /** Keep the widgets of form fields, without which a form cannot be seen or filled. When false they are removed too, with the fields left without any widget. Default: `true`. */
    keep_forms?: boolean;
  };
  /** Remove blank pages. */
  "remove-blank-pages": {
    /** The share of a page's pixels, in percent, that may be ink (darker than a 22% grey, the page drawn in grey at 20 dpi, where an A4 page is 166 x 234 pixels) for the page to count as blank: 0 removes only pages without any ink; 0.01 (the default, 4 pixels of A4) also pages with a speck or a stray dot; 1 (390 pixels of A4) also pages with a short line of text, such as a page number. At 20 dpi a lone mark smaller than 10-point text may leave no ink at all. Allowed: 0 to 10. Default: `0.01`. */
    threshold?: number;
  };
  /** Remove pages. */
  "remove-pages": {
    /** Pages to delete, such as "1-3,5,8-" ("8-" runs to the last page). A page selection such as `1-3,5,8-`. */
    pages: string;
  };
  /** Repair PDF. */
  "repair-pdf": {};
  /** Resize image. */
  "resize-image": {
    /** Target width in pixels. A whole number. Allowed: 1 to 20000. */
    width?: number;
    /** Target height in pixels. A whole number. Allowed: 1 to 20000. */
    height?: number;
    /** Scale both sides by this percentage; not with width or height. A whole number. Allowed: 1 to 1000. */
    percent?: number;
    /** With width and height: inside keeps the aspect ratio within the box, cover fills the box and crops the overflow (centred), fill stretches to exactly the box. With one side, the other follows the aspect ratio. Default: `inside`. */
    fit?: "inside" | "cover" | "fill";
    /** Whether an image smaller than the box may be enlarged to it. Default: `true`. */
    enlarge?: boolean;
    /** JPEG/WebP quality 1-100 of the output (default 85). A whole number. Allowed: 1 to 100. */
    quality?: number;
  };
  /** Resize PDF pages. */
  "resize-pdf": {
    /** The new page size; a landscape page gets the size turned to landscape: a4, a3, a5, letter, legal, or width x height in millimetres such as "210x297"; a4 by default. Allowed: length at most 32. Default: `a4`. */
    page_size?: string;
    /** Pages to resize, such as "1-3,5,8-"; all pages by default. A page selection such as `1-3,5,8-`. Default: `all`. */
    pages?: string;
  };
  /** Rotate image. */
  "rotate-image": {
    /** Clockwise turn in degrees, or auto: only apply the EXIF orientation (a photo taken sideways comes out upright). Default: `90`. */
    angle?: "90" | "180" | "270" | "auto";
    /** JPEG/WebP/AVIF quality 1-100 of the output (default 90). A whole number. Allowed: 1 to 100. */
    quality?: number;
  };
  /** Rotate PDF. */
  "rotate-pdf": {
    /** Degrees to rotate clockwise, added to each page's current rotation. A whole number. Default: `90`. */
    angle?: 90 | 180 | 270;
    /** Pages to rotate, such as "1-3,5,8-"; all pages by default. A page selection such as `1-3,5,8-`. Default: `all`. */
    pages?: string;
  };
  /** Sanitize PDF. */
  "sanitize-pdf": {
    /** Remove javaScript: the document's scripts, JavaScript actions of pages, links, form fields and bookmarks, javascript: links, and XFA forms (which carry scripts). Default: `true`. */
    javascript?: boolean;
    /** Remove actions run when the document or a page is opened or closed, printed or saved. An open action that only shows a page is kept. Default: `true`. */
    open_action?: boolean;
    /** Remove launch actions, which start a program or open a file on the reader's computer. Default: `true`. */
    launch_actions?: boolean;
    /** Remove embedded files: attachments, file attachment annotations, associated files and portfolios. Default: `true`. */
    embedded_files?: boolean;
    /** Remove links to other files: to other PDFs (GoToR), to embedded PDFs (GoToE), file: URLs and data imports. Default: `true`. */
    file_links?: boolean;
    /** Remove document metadata: the XMP streams and the title, author and other entries of the Info dictionary. This drops a PDF/A claim. Default: `true`. */
    metadata?: boolean;
  };
  /** Sign PDF. */
  "sign-pdf": {
    /** Password of the PKCS#12 file; leave empty for a file without one. Allowed: length at most 256. */
    certificate_password?: string;
    /** Reason for signing, stored in the signature ("I approve this document"). Allowed: length at most 200. */
    reason?: string;
    /** Where it was signed, stored in the signature ("Moscow"). Allowed: length at most 200. */
    location?: string;
    /** How to reach the signer, stored in the signature (an e-mail address or a phone number). Allowed: length at most 200. */
    contact?: string;
    /** pades: ETSI.CAdES.detached, the PAdES baseline format current readers and EU validators expect; pkcs7: adbe.pkcs7.detached, for older readers. Default: `pades`. */
    format?: "pades" | "pkcs7";
    /** Draw the signature as a box on a page; otherwise it is invisible. Default: `false`. */
    visible?: boolean;
    /** Page of the visible signature. A whole number. Allowed: 1 to 10000. Default: `1`. */
    page?: number;
    /** Where on the page the visible signature goes, about 1 cm from the edges it is near. Default: `bottom-right`. */
    position?: "top-left" | "top-center" | "top-right" | "center-left" | "center" | "center-right" | "bottom-left" | "bottom-center" | "bottom-right";
    /** Text of the visible signature, up to 8 lines; by default who signed, when, and the reason and location. Allowed: length at most 400. */
    text?: string;
  };
  /** Split PDF. */
  "split-pdf": {
    /** One output file per range, such as "1-3,5,8-" (three files: pages 1-3, page 5, pages 8 to the last). Not with every, by_bookmarks or max_size_mb. A page selection such as `1-3,5,8-`. */
    ranges?: string;
    /** Pages per output file, from the first page on; the last file takes what is left. Not with the other ways. 1 (each page its own file) when no way is given. A whole number. Allowed: 1 to 10000. */
    every?: number;
    /** true: one file per top-level bookmark, from its page to the page before the next one's, named by its number and title; pages before the first bookmark make a file of their own (00-start). A document without bookmarks to a page is refused. Not with the other ways. */
    by_bookmarks?: boolean;
    /** Parts of at most this many megabytes each, in page order, each as many pages as fit; a page that alone makes a larger PDF is refused. Not with the other ways. Allowed: 0.1 to 2048. */
    max_size_mb?: number;
  };
  /** Unlock PDF. */
  "unlock-pdf": {
    /** The password that opens the document, or its owner password. Not needed for a document that opens without one. Allowed: length at most 1024. */
    password?: string;
  };
  /** URL to image. */
  "url-to-image": {
    /** The page to load: an https:// address (http:// and private, loopback and link-local addresses only on a server started with --allow-private-urls). Every request the page makes, redirects included, is held to the same rules; other schemes (file://, ws://) and methods other than GET are blocked. A URL. Allowed: at most 2048. */
    url: string;
    /** Once the page loaded, wait for this before printing: a number of milliseconds (0 to 30000), or a CSS selector that must match an element (waited for up to 30 s; if it never does, the page is printed as it is and meta.wait_timed_out is true). For a page whose scripts add content after it loaded. Allowed: length at most 500. */
    wait_for?: string;
    /** Image format: png, jpeg or webp. Default: `png`. */
    format?: "png" | "jpeg" | "webp";
    /** Width of the browser window (viewport) and of the image, in CSS pixels. A whole number. Allowed: 320 to 3840. Default: `1280`. */
    width?: number;
    /** Height of the viewport, and of the image unless full_page is true. A whole number. Allowed: 100 to 16384. Default: `800`. */
    height?: number;
    /** Capture the whole page, as tall as it scrolls (never less than height), up to 16384 pixels and 16 megapixels (meta.truncated tells when it was cut). Default: `false`. */
    full_page?: boolean;
    /** JPEG or WebP quality, 1 (smallest) to 100 (best); PNG ignores it. A whole number. Allowed: 1 to 100. Default: `85`. */
    quality?: number;
  };
  /** URL to PDF. */
  "url-to-pdf": {
    /** The page to load: an https:// address (http:// and private, loopback and link-local addresses only on a server started with --allow-private-urls). Every request the page makes, redirects included, is held to the same rules; other schemes (file://, ws://) and methods other than GET are blocked. A URL. Allowed: at most 2048. */
    url: string;
    /** Paper size: a4 (210x297 mm), letter (8.5x11 in), legal (8.5x14 in), a3 (297x420 mm) or a5 (148x210 mm). A page's CSS @page size is ignored unless prefer_css_page_size is true. Default: `a4`. */
    page_size?: "a4" | "letter" | "legal" | "a3" | "a5";
    /** Print in landscape orientation. Default: `false`. */
    landscape?: boolean;
    /** Page margins: none, small (0.4 in, 10 mm) or normal (0.8 in, 20 mm). Default: `normal`. */
    margin?: "none" | "small" | "normal";
    /** Print background colours and images, as on screen. Default: `true`. */
    print_background?: boolean;
    /** Make a tagged (accessible) PDF: the page's structure (headings, paragraphs, lists, tables, image descriptions) for screen readers and reflow. Slower, and often several times larger. Default: `false`. */
    tagged?: boolean;
    /** Page header. An HTML template, printed in the margin of every page with the page's styles left out; elements of class pageNumber, totalPages, date, title and url get those values (<span class="pageNumber"></span> / <span class="totalPages"></span>). It loads nothing: images must be data: URLs. Its text is small unless styled (font-size). It is drawn within the margin on its side: when that margin is 0 (margin=none), 0.4 in (10 mm) is used. Allowed: length at most 32768. */
    header_html?: string;
    /** Page footer. An HTML template, printed in the margin of every page with the page's styles left out; elements of class pageNumber, totalPages, date, title and url get those values (<span class="pageNumber"></span> / <span class="totalPages"></span>). It loads nothing: images must be data: URLs. Its text is small unless styled (font-size). It is drawn within the margin on its side: when that margin is 0 (margin=none), 0.4 in (10 mm) is used. Allowed: length at most 32768. */
    footer_html?: string;
    /** Scale of the page's rendering, 0.1 to 2. Allowed: 0.1 to 2. Default: `1`. */
    scale?: number;
    /** Pages to print, such as 1-3,5 or 8- (from 8 to the end); all when left out. A selection with no page in the document is refused. A page selection such as `1-3,5,8-`. */
    page_ranges?: string;
    /** Use the page's CSS @page size, when it sets one, instead of page_size or paper_width and paper_height. Default: `false`. */
    prefer_css_page_size?: boolean;
    /** The CSS media the page is laid out for: print, or screen (@media screen rules apply, as in a browser window). Default: `print`. */
    media?: "print" | "screen";
    /** Paper width, overriding page_size, a length with its unit: mm, cm, in, pt or px, such as 210mm or 8.5in (1 in to 200 in). Allowed: length at most 32. */
    paper_width?: string;
    /** Paper height, overriding page_size, a length with its unit: mm, cm, in, pt or px, such as 297mm or 11in (1 in to 200 in). Allowed: length at most 32. */
    paper_height?: string;
    /** Top margin, overriding margin, a length with its unit: mm, cm, in, pt or px, such as 15mm or 0.5in (0 in to 20 in). Allowed: length at most 32. */
    margin_top?: string;
    /** Right margin, overriding margin, a length with its unit: mm, cm, in, pt or px, such as 15mm or 0.5in (0 in to 20 in). Allowed: length at most 32. */
    margin_right?: string;
    /** Bottom margin, overriding margin, a length with its unit: mm, cm, in, pt or px, such as 15mm or 0.5in (0 in to 20 in). Allowed: length at most 32. */
    margin_bottom?: string;
    /** Left margin, overriding margin, a length with its unit: mm, cm, in, pt or px, such as 15mm or 0.5in (0 in to 20 in). Allowed: length at most 32. */
    margin_left?: string;
    /** Once the page loaded, wait for this before printing: a number of milliseconds (0 to 30000), or a CSS selector that must match an element (waited for up to 30 s; if it never does, the page is printed as it is and meta.wait_timed_out is true). For a page whose scripts add content after it loaded. Allowed: length at most 500. */
    wait_for?: string;
    /** Add bookmarks (the PDF's outline) made from the page's headings, h1 to h6, nested by level. Chromium builds them from the PDF's structure tree, so the PDF is tagged too (see tagged). Default: `false`. */
    outline?: boolean;
    /** Print the whole page on one PDF page as tall as its content (page_size or paper_width gives the width; landscape takes the paper's long side), with CSS page breaks ignored. A page taller than 200 in (the longest paper) goes on as many pages of that height as it needs. Not with paper_height, page_ranges or prefer_css_page_size. Default: `false`. */
    single_page?: boolean;
    /** Make the PDF a PDF/A (archival) file of this part, level B, through pdf-to-pdfa's conversion (Ghostscript): fonts embedded, colours tied to an sRGB output intent, the claim in the XMP metadata. The conversion keeps the text, links and outline but not a structure tree, so it is refused with tagged or pdfua. Default: `none`. */
    pdfa?: "none" | "1b" | "2b" | "3b";
    /** Mark the PDF for PDF/UA-1 (universal accessibility): tagged (as tagged=true), the title shown in the window's title bar, the language of the page's <html lang> as the document's, Marked content, and the PDF/UA-1 claim in the XMP metadata. Whether the file conforms depends on the page too (alt text, heading order, a title, a lang): see docs/api.md. Default: `false`. */
    pdfua?: boolean;
  };
  /** Verify PDF signatures. */
  "verify-pdf-signatures": {};
  /** Watermark image. */
  "watermark-image": {
    /** The text; a line break, or the two characters \n, starts a new line. Allowed: length 1 to 200. */
    text: string;
    /** Where the text goes; away from the center it keeps a small margin from the edges. Default: `center`. */
    position?: "center" | "top-left" | "top" | "top-right" | "left" | "right" | "bottom-left" | "bottom" | "bottom-right";
    /** From 0.05 (faint) to 1 (opaque). Allowed: 0.05 to 1. Default: `0.5`. */
    opacity?: number;
    /** Font size in pixels. By default a twelfth of the image's shorter side (at least 12). A whole number. Allowed: 6 to 1000. */
    font_size?: number;
    /** Text colour as #rrggbb. A colour, `#rrggbb`. Default: `#808080`. */
    color?: string;
    /** JPEG/WebP/AVIF quality 1-100 of the output (default 90). A whole number. Allowed: 1 to 100. */
    quality?: number;
  };
  /** Watermark PDF. */
  "watermark-pdf": {
    /** The watermark text: Latin, Greek or Cyrillic. A line break, or the two characters \n, starts a new line. Allowed: length 1 to 200. */
    text: string;
    /** From 0 (invisible) to 1 (opaque). Allowed: 0 to 1. Default: `0.3`. */
    opacity?: number;
    /** Angle of the text in degrees, counter-clockwise; 45 runs from bottom left to top right. Allowed: -180 to 180. Default: `45`. */
    rotation?: number;
    /** Font size in points. By default the text is sized to each page: three quarters of it (at most 144 pt) when centered, 30% (at most 72 pt) elsewhere. A whole number. Allowed: 6 to 300. */
    font_size?: number;
    /** Text colour as #rrggbb. A colour, `#rrggbb`. Default: `#808080`. */
    color?: string;
    /** Where on the page the text goes; away from the center it keeps a margin of about 1 cm. Default: `center`. */
    position?: "top-left" | "top-center" | "top-right" | "center-left" | "center" | "center-right" | "bottom-left" | "bottom-center" | "bottom-right";
    /** over: on top of the page content (visible on scanned pages); under: behind it. Default: `over`. */
    layer?: "over" | "under";
    /** Pages to watermark, such as "1-3,5,8-"; all pages by default. A page selection such as `1-3,5,8-`. Default: `all`. */
    pages?: string;
  };
  /** Word to PDF. */
  "word-to-pdf": {
    /** Pages of the PDF to keep, such as "1-3,5,8-" (default: all). A page selection such as `1-3,5,8-`. */
    pages?: string;
  };
}

/** A tool's slug. */
export type ToolSlug = keyof ToolParams;

/** What each tool takes: its files (a tool with maxFiles 0 takes its params only) and whether it is long (answered 202 at once). */
export const TOOLS: { readonly [T in ToolSlug]: { readonly minFiles: number; readonly maxFiles: number; readonly long: boolean } } = {
  "add-attachments": { minFiles: 2, maxFiles: 51, long: false },
  "booklet-pdf": { minFiles: 1, maxFiles: 1, long: false },
  "compare-pdf": { minFiles: 2, maxFiles: 2, long: false },
  "compress-image": { minFiles: 1, maxFiles: 1, long: false },
  "compress-pdf": { minFiles: 1, maxFiles: 1, long: false },
  "convert-document": { minFiles: 1, maxFiles: 1, long: false },
  "convert-image": { minFiles: 1, maxFiles: 1, long: false },
  "crop-image": { minFiles: 1, maxFiles: 1, long: false },
  "crop-pdf": { minFiles: 1, maxFiles: 1, long: false },
  "document-thumbnail": { minFiles: 1, maxFiles: 1, long: false },
  "edit-bookmarks": { minFiles: 1, maxFiles: 1, long: false },
  "edit-metadata": { minFiles: 1, maxFiles: 1, long: false },
  "einvoice-pdf": { minFiles: 2, maxFiles: 2, long: false },
  "excel-to-pdf": { minFiles: 1, maxFiles: 1, long: false },
  "extract-attachments": { minFiles: 1, maxFiles: 1, long: false },
  "extract-einvoice": { minFiles: 1, maxFiles: 1, long: false },
  "extract-images": { minFiles: 1, maxFiles: 1, long: false },
  "extract-pages": { minFiles: 1, maxFiles: 1, long: false },
  "fill-pdf-form": { minFiles: 1, maxFiles: 1, long: false },
  "flatten-pdf": { minFiles: 1, maxFiles: 1, long: false },
  "grayscale-pdf": { minFiles: 1, maxFiles: 1, long: false },
  "html-to-image": { minFiles: 1, maxFiles: 1, long: false },
  "html-to-pdf": { minFiles: 1, maxFiles: 1, long: false },
  "image-info": { minFiles: 1, maxFiles: 1, long: false },
  "image-to-text": { minFiles: 1, maxFiles: 1, long: true },
  "image-watermark": { minFiles: 2, maxFiles: 2, long: false },
  "insert-pages": { minFiles: 1, maxFiles: 2, long: false },
  "jpg-to-pdf": { minFiles: 1, maxFiles: 200, long: false },
  "linearize-pdf": { minFiles: 1, maxFiles: 1, long: false },
  "markdown-to-pdf": { minFiles: 1, maxFiles: 1, long: false },
  "merge-pdf": { minFiles: 2, maxFiles: 50, long: false },
  "nup-pdf": { minFiles: 1, maxFiles: 1, long: false },
  "ocr-pdf": { minFiles: 1, maxFiles: 1, long: true },
  "organize-pdf": { minFiles: 1, maxFiles: 1, long: false },
  "page-numbers": { minFiles: 1, maxFiles: 1, long: false },
  "pdf-bookmarks": { minFiles: 1, maxFiles: 1, long: false },
  "pdf-form-fields": { minFiles: 1, maxFiles: 1, long: false },
  "pdf-info": { minFiles: 1, maxFiles: 1, long: false },
  "pdf-to-csv": { minFiles: 1, maxFiles: 1, long: false },
  "pdf-to-jpg": { minFiles: 1, maxFiles: 1, long: false },
  "pdf-to-markdown": { minFiles: 1, maxFiles: 1, long: false },
  "pdf-to-odt": { minFiles: 1, maxFiles: 1, long: false },
  "pdf-to-pdfa": { minFiles: 1, maxFiles: 1, long: false },
  "pdf-to-png": { minFiles: 1, maxFiles: 1, long: false },
  "pdf-to-svg": { minFiles: 1, maxFiles: 1, long: false },
  "pdf-to-text": { minFiles: 1, maxFiles: 1, long: false },
  "pdf-to-word": { minFiles: 1, maxFiles: 1, long: false },
  "pdf-to-xlsx": { minFiles: 1, maxFiles: 1, long: false },
  "pipeline": { minFiles: 1, maxFiles: 200, long: false },
  "powerpoint-to-pdf": { minFiles: 1, maxFiles: 1, long: false },
  "protect-pdf": { minFiles: 1, maxFiles: 1, long: false },
  "redact-pdf": { minFiles: 1, maxFiles: 1, long: false },
  "remove-annotations": { minFiles: 1, maxFiles: 1, long: false },
  "remove-blank-pages": { minFiles: 1, maxFiles: 1, long: false },
  "remove-pages": { minFiles: 1, maxFiles: 1, long: false },
  "repair-pdf": { minFiles: 1, maxFiles: 1, long: false },
  "resize-image": { minFiles: 1, maxFiles: 1, long: false },
  "resize-pdf": { minFiles: 1, maxFiles: 1, long: false },
  "rotate-image": { minFiles: 1, maxFiles: 1, long: false },
  "rotate-pdf": { minFiles: 1, maxFiles: 1, long: false },
  "sanitize-pdf": { minFiles: 1, maxFiles: 1, long: false },
  "sign-pdf": { minFiles: 2, maxFiles: 2, long: false },
  "split-pdf": { minFiles: 1, maxFiles: 1, long: false },
  "unlock-pdf": { minFiles: 1, maxFiles: 1, long: false },
  "url-to-image": { minFiles: 0, maxFiles: 0, long: false },
  "url-to-pdf": { minFiles: 0, maxFiles: 0, long: false },
  "verify-pdf-signatures": { minFiles: 1, maxFiles: 1, long: false },
  "watermark-image": { minFiles: 1, maxFiles: 1, long: false },
  "watermark-pdf": { minFiles: 1, maxFiles: 1, long: false },
  "word-to-pdf": { minFiles: 1, maxFiles: 1, long: false },
};
