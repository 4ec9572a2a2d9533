package poppler

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// mdBlock is a block of the Markdown document in the reading order: a
// paragraph (a heading or a list item too), a table or a picture.
type mdBlock struct {
	page, seq int
	para      *paragraph
	table     *table
	picture   *picture
}

// markdownBlocks merges the paragraphs and the tables by their place in
// the reading order, and puts each page's pictures after that page's
// last block (a page without text gets its pictures where it falls).
func markdownBlocks(paras []paragraph, tables []table, pics []picture) []mdBlock {
	var text []mdBlock
	for i := range paras {
		text = append(text, mdBlock{page: paras[i].page, seq: paras[i].seq, para: &paras[i]})
	}
	for i := range tables {
		text = append(text, mdBlock{page: tables[i].page, seq: tables[i].seq, table: &tables[i]})
	}
	slices.SortStableFunc(text, func(a, b mdBlock) int { return a.seq - b.seq })
	var out []mdBlock
	next := 0
	flush := func(upTo int) {
		for next < len(pics) && pics[next].page <= upTo {
			out = append(out, mdBlock{page: pics[next].page, picture: &pics[next]})
			next++
		}
	}
	for i, b := range text {
		flush(b.page - 1)
		out = append(out, b)
		if i == len(text)-1 || text[i+1].page != b.page {
			flush(b.page)
		}
	}
	flush(1 << 30)
	return out
}

// errTextTooLarge is returned once the Markdown would pass its cap.
var errTextTooLarge = errors.New("poppler: markdown over its size cap")

// cappedText is a writer that refuses to write past left bytes.
type cappedText struct {
	w    io.Writer
	left int64
}

func (c *cappedText) Write(p []byte) (int, error) {
	if int64(len(p)) > c.left {
		return 0, errTextTooLarge
	}
	c.left -= int64(len(p))
	return c.w.Write(p)
}

// writeMarkdown writes blocks as Markdown into the file at path, at most
// maxBytes of it (Limits.TextBytes); a picture links to mediaPath(its
// stored file's index).
func writeMarkdown(path string, blocks []mdBlock, maxBytes int64, mediaPath func(int) string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("poppler: create markdown: %w", err)
	}
	defer f.Close()
	buf := bufio.NewWriterSize(f, 1<<16)
	w := &markdownWriter{w: bufio.NewWriter(&cappedText{w: buf, left: maxBytes})}
	for _, b := range blocks {
		switch {
		case b.para != nil && b.para.level > 0:
			w.block(strings.Repeat("#", b.para.level) + " " + escapeText(b.para.text))
		case b.para != nil:
			w.paragraph(*b.para)
		case b.table != nil:
			w.table(b.table.rows)
		case b.picture != nil:
			w.pictures++
			w.block(fmt.Sprintf("![Image %d](%s)", w.pictures, mediaPath(b.picture.media)))
		}
	}
	w.endList()
	if err := w.w.Flush(); err != nil {
		return err
	}
	if err := buf.Flush(); err != nil {
		return err
	}
	return f.Close()
}

// markdownWriter writes Markdown blocks, a blank line between them; the
// items of a list are one block, nested by their indentation.
type markdownWriter struct {
	w *bufio.Writer
	// items are the open list items, outermost first: their left edge
	// and the indentation of their text.
	items    []listLevel
	pictures int
}

type listLevel struct {
	left   float64
	indent string
}

func (w *markdownWriter) block(s string) {
	w.endList()
	w.w.WriteString(s)
	w.w.WriteString("\n\n")
}

// endList ends the open list, if any, with a blank line.
func (w *markdownWriter) endList() {
	if len(w.items) > 0 {
		w.w.WriteString("\n")
		w.items = w.items[:0]
	}
}

// paragraph writes p, as a list item when it starts with a list marker:
// "1." for a number (its own), "-" for a bullet or a letter (kept in the
// text), nested under the item before it when indented past it.
func (w *markdownWriter) paragraph(p paragraph) {
	marker, ok := listMarker(p.text)
	if !ok {
		w.block(escapeText(p.text))
		return
	}
	text := strings.TrimSpace(strings.TrimPrefix(p.text, marker))
	bullet := "- "
	if digits := strings.TrimRight(marker, ".)"); strings.Trim(digits, "0123456789") == "" {
		bullet = digits + ". "
	} else if strings.HasSuffix(marker, ")") {
		text = marker + " " + text
	}
	tolerance := indentStep * p.size
	for n := len(w.items); n > 0 && w.items[n-1].left > p.left+tolerance; n-- {
		w.items = w.items[:n-1] // deeper items end
	}
	if n := len(w.items); n > 0 && w.items[n-1].left >= p.left-tolerance {
		w.items = w.items[:n-1] // an item of the same list
	}
	indent := ""
	if n := len(w.items); n > 0 {
		indent = w.items[n-1].indent
	}
	w.items = append(w.items, listLevel{left: p.left, indent: indent + strings.Repeat(" ", len(bullet))})
	w.w.WriteString(indent + bullet + escapeText(text) + "\n")
}

// table writes rows as a GitHub table, the first row its header.
func (w *markdownWriter) table(rows [][]string) {
	w.endList()
	row := func(cells []string) {
		w.w.WriteString("|")
		for _, c := range cells {
			w.w.WriteString(" " + escapeInline(c) + " |")
		}
		w.w.WriteString("\n")
	}
	row(rows[0])
	w.w.WriteString("|" + strings.Repeat(" --- |", len(rows[0])) + "\n")
	for _, r := range rows[1:] {
		row(r)
	}
	w.w.WriteString("\n")
}
