package poppler

import (
	"bufio"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
)

// layoutDecoder returns a decoder of pdftotext's -bbox or -bbox-layout
// XHTML read from r: not strict (an XHTML DOCTYPE, entities as HTML has
// them), and with C0 control characters read as spaces (controlSpaces).
// Every reader of that XHTML in this package goes through it.
func layoutDecoder(r io.Reader) *xml.Decoder {
	dec := xml.NewDecoder(controlSpaces{r})
	dec.Strict = false
	dec.Entity = xml.HTMLEntity
	return dec
}

// controlSpaces reads r with every C0 control character XML 1.0 cannot
// hold (U+0000-U+001F but tab, line feed and carriage return) replaced
// by a space. pdftotext writes a word's characters as the PDF's
// ToUnicode map gives them, escaping only &, < and >, so a hostile or
// broken map puts such characters in its XHTML, where encoding/xml
// refuses them and with them the whole document. They never draw
// anything, and a space keeps the words on either side apart. Bytes
// below 0x20 are never part of a longer UTF-8 sequence, so replacing
// them byte by byte is safe. (pdftotext already turns surrogates and
// U+FFFE/U+FFFF into U+FFFD itself.)
type controlSpaces struct{ r io.Reader }

func (c controlSpaces) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	for i, b := range p[:n] {
		if b < 0x20 && b != '\t' && b != '\n' && b != '\r' {
			p[i] = ' '
		}
	}
	return n, err
}

// eachLayoutToken calls fn for every token of pdftotext's XHTML read from
// r (layoutDecoder), in order, until r ends (nil) or fn returns an error,
// which it returns. XHTML that does not decode ends the walk with an
// internal error wrapping the decoder's.
func eachLayoutToken(r io.Reader, fn func(xml.Token) error) error {
	dec := layoutDecoder(r)
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("poppler: pdftotext layout: %w", err)
		}
		if err := fn(tok); err != nil {
			return err
		}
	}
}

// eachLayoutTokenIn is eachLayoutToken on the file at path.
func eachLayoutTokenIn(path string, fn func(xml.Token) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return eachLayoutToken(f, fn)
}

// runPDFToText runs pdftotext with args, which end with the source and
// "-" (standard output), writing its output into the file at path in
// dir, capped at maxBytes by the sandbox (MaxOutput): the one way this
// package runs pdftotext. Past the cap the error is tooLarge, wrapping
// sandbox.ErrOutputTooLarge; an engine failure is engineError's, doing
// naming the work ("reading its text"). The file is complete and closed
// when it returns nil; the caller removes it.
func runPDFToText(ctx context.Context, pdftotext *sandbox.Engine, dir, path string, args []string, maxBytes int64, tooLarge *docmill.Error, doing string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("poppler: create %s: %w", filepath.Base(path), err)
	}
	defer f.Close()
	buf := bufio.NewWriterSize(f, 1<<20)
	_, err = pdftotext.Run(ctx, sandbox.Cmd{Args: args, Dir: dir, Stdout: buf, MaxOutput: maxBytes})
	if errors.Is(err, sandbox.ErrOutputTooLarge) {
		tooLarge.Err = err
		return tooLarge
	}
	if err != nil {
		return engineError(err, doing)
	}
	if err := buf.Flush(); err != nil {
		return fmt.Errorf("poppler: write %s: %w", filepath.Base(path), err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("poppler: close %s: %w", filepath.Base(path), err)
	}
	return nil
}

// layoutArgs are pdftotext's arguments for the -bbox-layout XHTML of the
// PDF at src (blocks, lines and words with their boxes) on standard
// output, after extra.
func layoutArgs(src string, extra ...string) []string {
	return append(append([]string{"-enc", "UTF-8", "-bbox-layout"}, extra...), src, "-")
}
