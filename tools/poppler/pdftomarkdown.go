package poppler

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/ziparchive"
)

// markdownContentType is the type of a result without images: what the
// files handler serves a .md file as.
const markdownContentType = "text/markdown; charset=utf-8"

// markdownTool declares pdf-to-markdown: a PDF's text as Markdown, read
// as pdf-to-word reads it (readLayout, reflow) with its words' spans, from
// which tables are found page by page (pageTables). limits bound the pages read
// (PDFPages), the layout (LayoutBytes), the Markdown written (TextBytes)
// and the images (as extract-images').
func markdownTool(e Engines, limits docmill.Limits) *docmill.Tool {
	limits = limits.WithDefaults()
	return engineTool(docmill.Tool{
		Slug: "pdf-to-markdown", Title: "PDF to Markdown",
		Description: "Turn a PDF into Markdown: headings by font size (#, ##, ###), paragraphs, bulleted and numbered lists, " +
			"tables of aligned columns as GitHub tables, in reading order across columns. Without images the result is " +
			"<name>.md; with images, a zip of <name>.md and an images/ folder it links to. Text that looks like Markdown " +
			"or HTML is escaped. A scanned PDF has no text to take (run ocr-pdf first).",
		Outputs: []string{"text/markdown", ziparchive.ContentType},
		Meta: []docmill.MetaField{
			{Name: "pages", Type: docmill.MetaInteger, Description: "Pages of the PDF read."},
			{Name: "paragraphs", Type: docmill.MetaInteger, Description: "Paragraphs written: headings and list items included."},
			{Name: "headings", Type: docmill.MetaInteger, Description: "Headings written."},
			{Name: "list_items", Type: docmill.MetaInteger, Description: "List items written."},
			{Name: "tables", Type: docmill.MetaInteger, Description: "Tables written."},
			{Name: "images", Type: docmill.MetaInteger, Description: "Image links written; each distinct image is one file under images/."},
		},
		Run: func(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
			return runMarkdown(ctx, e, limits, in)
		},
	}, e.PDFToText, e.PDFImages)
}

// runMarkdown converts the PDF of in within limits.
func runMarkdown(ctx context.Context, e Engines, limits docmill.Limits, in *docmill.RunInput) (*docmill.RunOutput, error) {
	var tables []table
	taken := map[int]bool{} // the lines of the tables, by seq
	findTables := func(page []textLine) {
		for _, t := range pageTables(page) {
			tables = append(tables, t)
			for s := range t.lines {
				taken[s] = true
			}
		}
	}
	doc, err := readLayout(ctx, e, limits, in, layoutReading{page: findTables, maxPages: limits.PDFPages})
	if err != nil {
		return nil, err
	}
	var rest []textLine
	for _, l := range doc.lines {
		if !taken[l.seq] {
			rest = append(rest, l)
		}
	}
	doc.lines = nil
	paras := reflow(markShapeLists(rest))
	blocks := markdownBlocks(paras, tables, doc.pictures)

	mdName := docmill.ResultName(in.Files[0].Filename, ".pdf", ".md")
	md := filepath.Join(in.WorkDir, "converted.md")
	mediaPath := func(m int) string { return "images/image" + strconv.Itoa(m+1) + "." + mediaExt(doc.media[m]) }
	if err := writeMarkdown(md, blocks, limits.TextBytes, mediaPath); err != nil {
		if errors.Is(err, errTextTooLarge) {
			return nil, docmill.Errorf(docmill.CodeFileTooLarge, "The Markdown of the document would be larger than %d MB.", limits.TextBytes>>20)
		}
		return nil, fmt.Errorf("poppler: write markdown: %w", err)
	}
	meta := markdownMeta(paras, len(tables), len(doc.pictures), doc.pages)
	if len(doc.media) == 0 {
		return &docmill.RunOutput{Path: md, Filename: mdName, ContentType: markdownContentType, Meta: meta}, nil
	}
	entries := []zipEntry{{name: mdName, path: md}}
	for m, path := range doc.media {
		entries = append(entries, zipEntry{name: mediaPath(m), path: path})
	}
	out := filepath.Join(in.WorkDir, "converted.zip")
	maxZip := limits.TextBytes + limits.RenderOutputBytes
	if err := writeZip(ctx, out, entries, maxZip); err != nil {
		if errors.Is(err, ziparchive.ErrTooLarge) {
			return nil, docmill.Errorf(docmill.CodeFileTooLarge, "The Markdown and its images would total more than %d MB.", maxZip>>20)
		}
		return nil, err
	}
	return ziparchive.Result(out, docmill.ResultName(in.Files[0].Filename, ".pdf", ".zip"), meta), nil
}

// markdownMeta is the meta of a run: its paragraphs, headings and list
// items, and the tables, images and pages.
func markdownMeta(paras []paragraph, tables, images, pages int) map[string]any {
	headings, items := 0, 0
	for _, p := range paras {
		if _, ok := listMarker(p.text); p.level > 0 {
			headings++
		} else if ok {
			items++
		}
	}
	return map[string]any{"pages": pages, "paragraphs": len(paras), "headings": headings, "list_items": items,
		"tables": tables, "images": images}
}
