package chromium

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"

	docmill "github.com/docmill/docmill"
)

// Bounds of a Markdown input beside the job's Limits.MarkdownBytes.
const (
	// maxMarkdownNesting bounds the containers (block quotes, list
	// items) one line opens: goldmark walks every open container for
	// each line and recurses once a level when it renders. It is a bound
	// on hostile structure, not a cost: no real document nests a
	// hundred deep.
	maxMarkdownNesting = 100
	// markdownParseTimeout bounds the parse in the helper. A real
	// document of the default Limits.MarkdownBytes parses in about a
	// second; hostile inline markup (unclosed emphasis, brackets,
	// footnote references) can make goldmark's work grow with the square
	// of the input.
	markdownParseTimeout = 20 * time.Second
)

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

// MarkdownPageStep is markdown-to-pdf's first step,
// run in a jailed helper process (sandbox.Helpers), never in the server:
// it parses the Markdown file and writes the HTML page to print, so that
// the parse's time and memory are the jail's, and killing the helper stops
// it. Its output is the page, index.html.
func MarkdownPageStep() *docmill.EngineStep {
	return &docmill.EngineStep{
		Name:     "markdown-page",
		MinFiles: 1, MaxFiles: 1,
		Run: func(_ context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
			file := in.Files[0]
			src, err := readMarkdown(file.Path, in.Limits.WithDefaults().MarkdownBytes)
			if err != nil {
				return nil, err
			}
			page, err := renderMarkdown(src, strings.TrimSuffix(docmill.ResultName(file.Filename, "", ".pdf"), ".pdf"))
			if err != nil {
				return nil, err
			}
			dst := filepath.Join(in.WorkDir, "index.html")
			if err := os.WriteFile(dst, page, 0o600); err != nil {
				return nil, fmt.Errorf("chromium: write page: %w", err)
			}
			return &docmill.RunOutput{Path: dst, Filename: "index.html", ContentType: "text/html"}, nil
		},
	}
}

// readMarkdown reads a Markdown file of at most maxBytes
// (Limits.MarkdownBytes): goldmark holds the document and its tree in
// memory.
func readMarkdown(path string, maxBytes int64) ([]byte, error) {
	if st, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("chromium: read markdown: %w", err)
	} else if st.Size() > maxBytes {
		return nil, markdownTooLarge(maxBytes)
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("chromium: read markdown: %w", err)
	}
	if int64(len(src)) > maxBytes {
		return nil, markdownTooLarge(maxBytes)
	}
	return src, nil
}

// markdownTooLarge is the file_too_large error of a Markdown file over
// maxBytes.
func markdownTooLarge(maxBytes int64) *docmill.Error {
	return docmill.Errorf(docmill.CodeFileTooLarge, "The Markdown file is larger than %d MB.", maxBytes>>20)
}

// runMarkdown renders a Markdown file to a page in the helper
// (Options.MarkdownPage) and prints it.
func (b *Browser) runMarkdown(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
	file, s := in.Files[0], settingsFrom(in.Params, in.Limits, b.opts.selectorWait)
	if file.Size > s.limits.MarkdownBytes {
		return nil, markdownTooLarge(s.limits.MarkdownBytes)
	}
	parseCtx, cancel := context.WithTimeout(ctx, markdownParseTimeout)
	out, err := b.opts.MarkdownPage(parseCtx, &docmill.RunInput{Files: []docmill.LocalFile{file}, WorkDir: in.WorkDir, Limits: in.Limits})
	cancel()
	if err != nil {
		if ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
			return nil, docmill.Errorf(docmill.CodeProcessingTimeout, "Rendering the Markdown took longer than %s.", markdownParseTimeout)
		}
		return nil, err
	}
	root := filepath.Join(in.WorkDir, "site")
	if err := os.Mkdir(root, 0o700); err != nil {
		return nil, fmt.Errorf("chromium: site dir: %w", err)
	}
	if err := os.Rename(out.Path, filepath.Join(root, "index.html")); err != nil {
		return nil, fmt.Errorf("chromium: page: %w", err)
	}
	return b.printSite(ctx, in, file, root, s)
}

// renderMarkdown returns a complete UTF-8 HTML page for the Markdown src.
// A byte-order mark is dropped; bytes that are not UTF-8 are refused
// (invalid_document), since guessing a legacy encoding would print
// mojibake, and so are lines nested deeper than maxMarkdownNesting.
func renderMarkdown(src []byte, title string) ([]byte, error) {
	src = bytes.TrimPrefix(src, []byte("\xef\xbb\xbf"))
	if !utf8.Valid(src) {
		return nil, docmill.Errorf(docmill.CodeInvalidDocument, "The Markdown file is not UTF-8 text.")
	}
	if markdownNesting(src) > maxMarkdownNesting {
		return nil, docmill.Errorf(docmill.CodeInvalidDocument, "The Markdown nests block quotes or lists more than %d levels deep.", maxMarkdownNesting)
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

// markdownNesting is the most container markers one line of src begins
// with: block quote markers (>) and list markers (-, +, * or a number
// ending in . or ), each followed by a space), with the spaces between
// them. It counts what a line may open, an upper bound of its depth.
func markdownNesting(src []byte) int {
	most := 0
	for len(src) > 0 {
		line := src
		if i := bytes.IndexByte(src, '\n'); i >= 0 {
			line, src = src[:i], src[i+1:]
		} else {
			src = nil
		}
		if n := lineMarkers(line); n > most {
			most = n
		}
	}
	return most
}

// lineMarkers counts the container markers line begins with.
func lineMarkers(line []byte) int {
	n := 0
	for i := 0; i < len(line); {
		switch c := line[i]; {
		case c == ' ' || c == '\t':
			i++
		case c == '>':
			n++
			i++
		case (c == '-' || c == '+' || c == '*') && i+1 < len(line) && (line[i+1] == ' ' || line[i+1] == '\t'):
			n++
			i += 2
		case c >= '0' && c <= '9':
			j := i
			for j < len(line) && j-i < 9 && line[j] >= '0' && line[j] <= '9' {
				j++
			}
			if j+1 >= len(line) || (line[j] != '.' && line[j] != ')') || (line[j+1] != ' ' && line[j+1] != '\t') {
				return n
			}
			n++
			i = j + 2
		default:
			return n
		}
	}
	return n
}
