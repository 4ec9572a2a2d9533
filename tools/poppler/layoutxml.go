package poppler

import (
	"encoding/xml"
	"io"
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
