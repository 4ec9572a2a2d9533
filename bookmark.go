package docmill

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Bounds of an outline a client gives (edit-bookmarks' bookmarks): a
// real document's table of contents is far inside them, and they keep
// the outline a job writes, and its validation, small.
const (
	// MaxBookmarkDepth bounds the nesting of bookmarks: top-level
	// entries are at depth 1.
	MaxBookmarkDepth = 8
	// MaxBookmarks bounds the entries of an outline, at every depth.
	MaxBookmarks = 5000
	// MaxBookmarkTitle bounds a title, in characters.
	MaxBookmarkTitle = 500
)

// Bookmark is one entry of a PDF's outline (its bookmarks) as the
// bookmark tools read and write it: a title, the page it goes to
// (1-based) and the entries nested under it.
type Bookmark struct {
	Title    string     `json:"title"`
	Page     int        `json:"page"`
	Children []Bookmark `json:"children,omitempty"`
}

// ParseBookmarks reads an outline written as JSON: a list of bookmarks,
// or an object {"bookmarks": [...]} as pdf-bookmarks writes it, each
// bookmark {"title", "page", "children"}. It holds the outline to
// MaxBookmarkDepth, MaxBookmarks and MaxBookmarkTitle, a non-blank title
// and a page >= 1; whether the page exists is known only once the
// document is read. An empty list is valid: no bookmarks. Unknown fields
// are refused, so that a misspelt one is not silently dropped. The error
// says what is wrong in words a client can act on.
func ParseBookmarks(s string) ([]Bookmark, error) {
	s = strings.TrimSpace(s)
	var list []Bookmark
	var err error
	if strings.HasPrefix(s, "{") {
		var doc struct {
			Bookmarks *[]Bookmark `json:"bookmarks"`
		}
		if err = decodeStrict(s, &doc); err == nil && doc.Bookmarks == nil {
			err = errors.New(`the object has no "bookmarks" list`)
		}
		if doc.Bookmarks != nil {
			list = *doc.Bookmarks
		}
	} else {
		err = decodeStrict(s, &list)
	}
	if err != nil {
		return nil, err
	}
	count := 0
	if err := checkBookmarks(list, 1, &count); err != nil {
		return nil, err
	}
	if list == nil {
		list = []Bookmark{}
	}
	return list, nil
}

// decodeStrict decodes the one JSON value in s into v, refusing unknown
// fields and anything after the value.
func decodeStrict(s string, v any) error {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("is not a JSON list of bookmarks {\"title\", \"page\", \"children\"}: %s", jsonProblem(err))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("has text after the JSON value")
	}
	return nil
}

// jsonProblem words a decoding error without Go type names.
func jsonProblem(err error) string {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		return fmt.Sprintf("invalid JSON at byte %d", syntax.Offset)
	case errors.As(err, &typ):
		if typ.Field == "" {
			return "a list of bookmarks is expected"
		}
		return fmt.Sprintf("%q has the wrong type (a %s)", typ.Field, typ.Value)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "the JSON ends early"
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// checkBookmarks checks list, at depth, counting its entries into count.
func checkBookmarks(list []Bookmark, depth int, count *int) error {
	if len(list) > 0 && depth > MaxBookmarkDepth {
		return fmt.Errorf("nests bookmarks deeper than %d levels", MaxBookmarkDepth)
	}
	for _, b := range list {
		*count++
		if *count > MaxBookmarks {
			return fmt.Errorf("has more than %d bookmarks", MaxBookmarks)
		}
		switch n := utf8.RuneCountInString(b.Title); {
		case strings.TrimSpace(b.Title) == "":
			return fmt.Errorf("has bookmark %d with an empty title", *count)
		case n > MaxBookmarkTitle:
			return fmt.Errorf("has bookmark %d with a title of %d characters; at most %d", *count, n, MaxBookmarkTitle)
		case b.Page < 1:
			return fmt.Errorf("has bookmark %d (%q) without a page: \"page\" must be 1 or more", *count, b.Title)
		}
		if err := checkBookmarks(b.Children, depth+1, count); err != nil {
			return err
		}
	}
	return nil
}

// MarshalBookmarks writes list as the JSON ParseBookmarks reads, the
// compact list form.
func MarshalBookmarks(list []Bookmark) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if list == nil {
		list = []Bookmark{}
	}
	_ = enc.Encode(list) // strings and ints only: it cannot fail
	return strings.TrimSpace(b.String())
}
