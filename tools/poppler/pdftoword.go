package poppler

import (
	"bufio"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
)

// Content types of the documents pdf-to-word and pdf-to-odt write.
const (
	docxContentType = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
	odtContentType  = "application/vnd.oasis.opendocument.text"
)

// wordTools returns pdf-to-word and pdf-to-odt: a PDF's text reflowed
// into an editable document. The text and its layout come from
// pdftotext -bbox-layout (blocks, lines and their sizes); lines are
// joined into paragraphs and lines set clearly larger than the body
// become headings (see reflow); the images pdfimages extracts as PNG or
// JPEG follow their page's text. LibreOffice's own PDF import is not
// used: it puts every line in a text frame of its own, which is what
// users of such tools complain about (see BenchmarkPDFToWordQuality).
func wordTools(e Engines, limits docmill.Limits) []*docmill.Tool {
	limits = limits.WithDefaults()
	return []*docmill.Tool{
		wordTool(e, limits, "pdf-to-word", "PDF to Word", "Word document (.docx)", docxContentType, ".docx", writeDocx),
		wordTool(e, limits, "pdf-to-odt", "PDF to ODT", "OpenDocument text (.odt)", odtContentType, ".odt", writeODT),
	}
}

func wordTool(e Engines, limits docmill.Limits, slug, title, kind, contentType, ext string, write func(string, docBody) error) *docmill.Tool {
	return engineTool(docmill.Tool{
		Slug: slug, Title: title,
		Description: "Turn a PDF into an editable " + kind + ": its text in flowing paragraphs, headings by font size, " +
			"its images after their page's text. Tables become paragraphs; a scanned PDF has no text to take (run ocr-pdf first).",
		Outputs: []string{contentType},
		Meta: []docmill.MetaField{
			{Name: "pages", Type: docmill.MetaInteger, Description: "Pages of the PDF read."},
			{Name: "paragraphs", Type: docmill.MetaInteger, Description: "Paragraphs written, headings included."},
			{Name: "headings", Type: docmill.MetaInteger, Description: "Paragraphs made headings."},
			{Name: "images", Type: docmill.MetaInteger, Description: "Images placed."},
		},
		Run: func(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
			body, pages, err := readDocument(ctx, e, limits, in)
			if err != nil {
				return nil, err
			}
			out := filepath.Join(in.WorkDir, "converted"+ext)
			if err := write(out, body); err != nil {
				return nil, fmt.Errorf("poppler: write %s: %w", ext, err)
			}
			headings := 0
			for _, p := range body.paras {
				if p.level > 0 {
					headings++
				}
			}
			return &docmill.RunOutput{
				Path: out, Filename: docmill.ResultName(in.Files[0].Filename, ".pdf", ext), ContentType: contentType,
				Meta: map[string]any{"pages": pages, "paragraphs": len(body.paras), "headings": headings, "images": len(body.pictures)},
			}, nil
		},
	}, e.PDFToText, e.PDFImages)
}

// readDocument reads the PDF's text as paragraphs and extracts its
// images; it returns them with the number of pages.
func readDocument(ctx context.Context, e Engines, limits docmill.Limits, in *docmill.RunInput) (docBody, int, error) {
	doc, err := readLayout(ctx, e, limits, in, layoutReading{})
	if err != nil {
		return docBody{}, 0, err
	}
	return docBody{paras: reflow(doc.lines), pictures: doc.pictures, media: doc.media}, doc.pages, nil
}

// layoutReading says what readLayout reads beyond the lines' text.
type layoutReading struct {
	// page, when set, is called with each page's lines, in order, their
	// words with their spans (textLine.words) read: the words are
	// dropped after it, so that one page's are held at a time.
	page func([]textLine)
	// maxPages, when above 0, refuses a document of more pages, read no
	// further than the page past it.
	maxPages int
	// pageOnly hands the lines to page alone: the document's lines are
	// not kept (layoutDocument.lines stays empty) and its images are not
	// extracted (pdf-to-csv and pdf-to-xlsx take only tables).
	pageOnly bool
}

// layoutDocument is a PDF as readLayout reads it: its lines in reading
// order, its page count, and its pictures with their files (see
// documentPictures).
type layoutDocument struct {
	lines    []textLine
	pages    int
	pictures []picture
	media    []string
}

// readLayout reads the lines of the PDF of in from pdftotext's
// -bbox-layout, within limits.LayoutBytes, and extracts its images: the
// reading pdf-to-word, pdf-to-odt and pdf-to-markdown share.
func readLayout(ctx context.Context, e Engines, limits docmill.Limits, in *docmill.RunInput, how layoutReading) (layoutDocument, error) {
	src, err := filepath.Abs(in.Files[0].Path)
	if err != nil {
		return layoutDocument{}, fmt.Errorf("poppler: input path: %w", err)
	}
	var extra []string
	if how.maxPages > 0 {
		extra = []string{"-l", strconv.Itoa(how.maxPages + 1)}
	}
	layout, err := runLayout(ctx, e.PDFToText, src, in.WorkDir, limits.WithDefaults().LayoutBytes, extra...)
	if err != nil {
		return layoutDocument{}, err
	}
	var doc layoutDocument
	var page []textLine // the lines of the page being read, words held
	endPage := func() {
		if len(page) > 0 {
			how.page(page)
		}
		for _, l := range page {
			if !how.pageOnly {
				l.words = nil
				doc.lines = append(doc.lines, l)
			}
		}
		page = page[:0]
	}
	line := func(l textLine) { doc.lines = append(doc.lines, l) }
	if how.page != nil {
		line = func(l textLine) {
			if len(page) > 0 && page[0].page != l.page {
				endPage()
			}
			page = append(page, l)
		}
	}
	if err = scanLayout(layout, how.page != nil, line, func() { doc.pages++ }); err != nil {
		return layoutDocument{}, err
	}
	endPage()
	if how.maxPages > 0 && doc.pages > how.maxPages {
		return layoutDocument{}, docmill.InvalidDocument(nil, "The file has more than %d pages; this tool handles documents of up to %d pages.", how.maxPages, how.maxPages)
	}
	if how.pageOnly {
		return doc, nil
	}
	doc.pictures, doc.media, err = documentPictures(ctx, e.PDFImages, src, in.WorkDir, doc.pages, limits)
	return doc, err
}

// runLayout runs pdftotext -bbox-layout, after extra, into a file of
// dir, capped at maxBytes (Limits.LayoutBytes), and returns its path.
func runLayout(ctx context.Context, pdftotext *sandbox.Engine, src, dir string, maxBytes int64, extra ...string) (string, error) {
	path := filepath.Join(dir, "layout.xhtml")
	tooLarge := docmill.Errorf(docmill.CodeFileTooLarge, "The text of the document is too large to convert (over %d MB of layout).", maxBytes>>20)
	return path, runPDFToText(ctx, pdftotext, dir, path, layoutArgs(src, extra...), maxBytes, tooLarge, "reading its text")
}

// scanLayout is scanLayoutLines (the words too when words is set), also
// counting the pages: page is called for each page of the layout, lines
// or none.
func scanLayout(path string, words bool, line func(textLine), page func()) error {
	last := 0
	err := scanLayoutLines(path, words, func(l textLine) {
		for ; last < l.page; last++ {
			page()
		}
		line(l)
	})
	if err != nil {
		return err
	}
	n, err := countPages(path)
	for ; last < n; last++ {
		page()
	}
	return err
}

// countPages counts the <page> elements of the layout at path.
func countPages(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	n := 0
	for sc.Scan() {
		if strings.HasPrefix(strings.TrimSpace(sc.Text()), "<page ") {
			n++
		}
	}
	return n, sc.Err()
}

// documentPictures extracts the document's images that are pictures (not
// masks) and that pdfimages writes as PNG or JPEG, within limits (see
// listEmbedded), and returns them with their files, one a distinct
// content. pdfimages writes a file each time an image is drawn, so a
// logo on every page, or a hostile 186 KB PDF drawing one 150 KB JPEG
// 5,000 times, gives as many equal files; storing each once keeps the
// document to the size of the distinct images. A document of no pages
// has none.
func documentPictures(ctx context.Context, pdfimages *sandbox.Engine, src, dir string, pages int, limits docmill.Limits) ([]picture, []string, error) {
	if pages == 0 {
		return nil, nil, nil
	}
	listed, err := listEmbedded(ctx, pdfimages, src, dir, 1, pages, limits)
	if err != nil {
		return nil, nil, err
	}
	files, err := extractEmbedded(ctx, pdfimages, src, dir, 1, pages)
	if err != nil {
		return nil, nil, err
	}
	var pics []picture
	var media []string
	stored := map[[sha256.Size]byte]int{} // content -> index in media
	for _, im := range listed {
		p, ok := files[im.num]
		ext := strings.ToLower(filepath.Ext(p))
		if !ok || im.kind != "image" || ext != ".png" && ext != ".jpg" || im.w < 8 || im.h < 8 {
			continue
		}
		sum, err := fileSum(p)
		if err != nil {
			return nil, nil, err
		}
		m, ok := stored[sum]
		if !ok {
			m = len(media)
			stored[sum] = m
			media = append(media, p)
		}
		pics = append(pics, picture{media: m, page: im.page, w: im.w, h: im.h})
	}
	return pics, media, nil
}

// fileSum is the SHA-256 of the file at path: equal sums are one image
// in one format (a PNG and a JPEG never share their bytes).
func fileSum(path string) ([sha256.Size]byte, error) {
	var sum [sha256.Size]byte
	f, err := os.Open(path)
	if err != nil {
		return sum, fmt.Errorf("poppler: read image: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return sum, fmt.Errorf("poppler: read image: %w", err)
	}
	h.Sum(sum[:0])
	return sum, nil
}
