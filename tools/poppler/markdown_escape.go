package poppler

import "strings"

// escapeInline escapes the characters of s that Markdown (CommonMark and
// GitHub's extensions) would read as markup anywhere in a line, so that
// the text reads as the PDF's text and nothing else: emphasis and code
// (* _ `), links and images ([ ]), raw HTML and autolinks (< >),
// entities (&), tables (|), strikethrough (~), the backslash itself, a
// heading's closing # and the extended autolinks GitHub makes of bare
// addresses ("://", "www.", and "@" of an e-mail address). Every escape
// is a backslash before ASCII punctuation, which CommonMark shows as the
// character alone.
func escapeInline(s string) string {
	var b strings.Builder
	b.Grow(len(s) + len(s)/8)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\n' || c == '\r' || c == '\t':
			c = ' ' // a block is one line: a break would start another
		case strings.IndexByte("\\`*_[]<>&|~#@", c) >= 0:
			b.WriteByte('\\')
		case c == ':' && strings.HasPrefix(s[i+1:], "//"):
			b.WriteByte('\\')
		case c == '.' && i >= 3 && strings.EqualFold(s[i-3:i], "www"):
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return b.String()
}

// escapeLineStart escapes what s, escaped already (escapeInline), would
// mean at the start of a line: a heading, a block quote, a list item
// ("-", "+", "1." or "1)" before a space or the end), a thematic break
// or a setext underline ("=", "-"), and leading spaces (an indented code
// block; they are trimmed).
func escapeLineStart(s string) string {
	s = strings.TrimLeft(s, " \t")
	if s == "" {
		return s
	}
	if strings.IndexByte("+-=>", s[0]) >= 0 {
		return "\\" + s
	}
	digits := len(s) - len(strings.TrimLeft(s, "0123456789"))
	if digits > 0 && digits < len(s) && (s[digits] == '.' || s[digits] == ')') && (digits+1 == len(s) || s[digits+1] == ' ') {
		return s[:digits] + "\\" + s[digits:]
	}
	return s
}

// escapeText is s as the text of a paragraph, a heading or a list item:
// escapeInline, then escapeLineStart. A table cell holds inline text
// only, and is escapeInline's alone.
func escapeText(s string) string { return escapeLineStart(escapeInline(s)) }
