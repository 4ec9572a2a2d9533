package poppler

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
)

// Bounds of compare-pdf's text comparison beside the job's
// Limits.CompareLayoutBytes, which caps each document's -bbox output
// (about 100 bytes a word). They keep the diff's algorithm within the
// memory its design assumes, whatever a node allows, and are not
// settings: a document of more than maxCompareWords words is refused,
// and the word diff stops looking for the shortest edit script past
// maxEditDistance edits (its memory grows with the square of that), then
// diffs page by page, and a page pair still past it counts as wholly
// replaced.
const (
	maxCompareWords = 200_000
	maxEditDistance = 2_000
)

// pageWord is a word of a document as pdftotext -bbox reports it: its
// page, its box in points from the top-left corner of the page as shown,
// and its text.
type pageWord struct {
	page int
	box  [4]float64
	text string
}

// documentWords runs pdftotext -bbox on the PDF at src into a file of
// dir, at most maxBytes of it (Limits.CompareLayoutBytes), and reads its
// words, in reading order. label names the document in messages ("File 2
// (\"b.pdf\")").
func documentWords(ctx context.Context, pdftotext *sandbox.Engine, src, dir, name, label string, maxBytes int64) ([]pageWord, error) {
	path := filepath.Join(dir, name)
	defer os.Remove(path)
	tooLarge := docmill.LimitExceeded(fmt.Sprintf("%s has more text than can be compared (over %d MB of words and boxes)", label, maxBytes>>20))
	err := runPDFToText(ctx, pdftotext, dir, path, []string{"-enc", "UTF-8", "-bbox", src, "-"}, maxBytes, tooLarge, "reading its text")
	if errors.Is(err, sandbox.ErrOutputTooLarge) {
		return nil, err
	}
	if err != nil {
		return nil, namedError(err, label)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("poppler: read words: %w", err)
	}
	defer f.Close()
	words, err := readWords(f, label)
	if err != nil {
		return nil, err
	}
	return words, ctx.Err()
}

// readWords reads the words of pdftotext's -bbox XHTML from r, at most
// maxCompareWords of them; empty words are skipped.
func readWords(r io.Reader, label string) ([]pageWord, error) {
	var words []pageWord
	var cur *pageWord
	page := 0
	err := eachLayoutToken(r, func(tok xml.Token) error {
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "page":
				page++
			case "word":
				cur = &pageWord{page: page, box: wordBox(t.Attr)}
			}
		case xml.CharData:
			if cur != nil {
				cur.text += string(t)
			}
		case xml.EndElement:
			if t.Name.Local != "word" || cur == nil {
				return nil
			}
			if cur.text = strings.TrimSpace(cur.text); cur.text != "" {
				if len(words) == maxCompareWords {
					return docmill.LimitExceeded(fmt.Sprintf("%s has more than %d words", label, maxCompareWords))
				}
				words = append(words, *cur)
			}
			cur = nil
		}
		return nil
	})
	var e *docmill.Error
	switch {
	case errors.As(err, &e):
		return nil, err
	case err != nil:
		return nil, docmill.InvalidDocument(err, "The text of %s could not be read.", strings.ToLower(label[:1])+label[1:])
	}
	return words, nil
}

// wordBox reads a word's xMin, yMin, xMax and yMax; a value that is
// missing or not a finite number stays 0.
func wordBox(attrs []xml.Attr) [4]float64 {
	var b [4]float64
	for _, a := range attrs {
		i := slices.Index([]string{"xMin", "yMin", "xMax", "yMax"}, a.Name.Local)
		if i < 0 {
			continue
		}
		if v, err := strconv.ParseFloat(a.Value, 64); err == nil && !math.IsInf(v, 0) && !math.IsNaN(v) {
			b[i] = v
		}
	}
	return b
}

// namedError puts label before the message of a client error, so that
// the client learns which of its files it concerns.
func namedError(err error, label string) error {
	var e *docmill.Error
	if !errors.As(err, &e) || e.Code == docmill.CodeInternal || e.Code == docmill.CodeEngineUnavailable {
		return err
	}
	named := *e
	named.Message = label + ": " + lowerFirst(e.Message)
	return &named
}

// lowerFirst lowers the first letter of s, "The file" becoming "the file".
func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}
