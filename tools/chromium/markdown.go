package chromium

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"

	docmill "github.com/docmill/docmill"
)

// maxMarkdownBytes bounds a Markdown input. goldmark holds the document
// and its tree in memory; 10 MB is far beyond any real document.
const maxMarkdownBytes = 10 << 20

// stylesheet is the page style of rendered Markdown, embedded in the page.
//
//go:embed markdown.css
var stylesheet string

// markdown is the renderer: GitHub-flavoured (tables, strikethrough, task
// lists, autolinks), with heading ids for in-page links. Raw HTML in the
// source is left out (goldmark's default, not WithUnsafe): the PDF shows
// what the Markdown says, and no script from the source runs.
var markdown = goldmark.New(
	goldmark.WithExtensions(extension.GFM, extension.Footnote),
	goldmark.WithParserOptions(parser.WithAutoHeadingID()),
)

// runMarkdown renders a Markdown file to a page and prints it.
func (b *Browser) runMarkdown(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
	file, s := in.Files[0], settingsFrom(in.Params)
	if file.Size > maxMarkdownBytes {
		return nil, docmill.Errorf(docmill.CodeFileTooLarge, "The Markdown file is larger than %d MB.", maxMarkdownBytes>>20)
	}
	src, err := os.ReadFile(file.Path)
	if err != nil {
		return nil, fmt.Errorf("chromium: read markdown: %w", err)
	}
	if len(src) > maxMarkdownBytes {
		return nil, docmill.Errorf(docmill.CodeFileTooLarge, "The Markdown file is larger than %d MB.", maxMarkdownBytes>>20)
	}
	page, err := renderMarkdown(src, strings.TrimSuffix(docmill.ResultName(file.Filename, "", ".pdf"), ".pdf"))
	if err != nil {
		return nil, err
	}
	root := filepath.Join(in.WorkDir, "site")
	if err := os.Mkdir(root, 0o700); err != nil {
		return nil, fmt.Errorf("chromium: site dir: %w", err)
	}
	if err := os.WriteFile(filepath.Join(root, "index.html"), page, 0o600); err != nil {
		return nil, fmt.Errorf("chromium: write page: %w", err)
	}
	return b.printSite(ctx, in, file, root, s)
}

// renderMarkdown returns a complete UTF-8 HTML page for the Markdown src.
// A byte-order mark is dropped; bytes that are not UTF-8 are refused
// (invalid_document), since guessing a legacy encoding would print
// mojibake.
func renderMarkdown(src []byte, title string) ([]byte, error) {
	src = bytes.TrimPrefix(src, []byte("\xef\xbb\xbf"))
	if !utf8.Valid(src) {
		return nil, docmill.Errorf(docmill.CodeInvalidDocument, "The Markdown file is not UTF-8 text.")
	}
	var body bytes.Buffer
	if err := markdown.Convert(src, &body); err != nil {
		return nil, fmt.Errorf("chromium: markdown: %w", err)
	}
	var out bytes.Buffer
	out.Grow(body.Len() + len(stylesheet) + 256)
	out.WriteString("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n<title>")
	out.WriteString(html.EscapeString(title))
	out.WriteString("</title>\n<style>\n")
	out.WriteString(stylesheet)
	out.WriteString("</style>\n</head><body><main class=\"markdown-body\">\n")
	out.Write(body.Bytes())
	out.WriteString("</main></body></html>\n")
	return out.Bytes(), nil
}
