package docmill

import (
	"encoding/hex"
	"errors"
	"fmt"
	"image/color"
	"math"
	"net/url"
	"sort"
	"strconv"
	"strings"
)

// ParamType is the type of a tool parameter as the catalogue shows it.
type ParamType string

// Parameter types.
const (
	TypeString  ParamType = "string"
	TypeInteger ParamType = "integer"
	TypeNumber  ParamType = "number"
	TypeBoolean ParamType = "boolean"
	// TypePages is a page selection such as "1-3,5,8-" (see ParsePageRanges).
	TypePages ParamType = "pages"
	// TypeColor is an RGB colour written "#rrggbb" (the '#' may be left
	// out); its canonical form is lower case with the '#'.
	TypeColor ParamType = "color"
	// TypeURL is the address of a web page the tool fetches (url-to-pdf):
	// an absolute http:// or https:// URL with a host and no user
	// information, at most MaxURLLength bytes. The HTTP edge also holds it
	// to the outbound rules (no private address without
	// --allow-private-urls) before a job is made; the tool's fetches are
	// checked again at dial time.
	TypeURL ParamType = "url"
)

// MaxURLLength bounds a TypeURL param, in bytes: a fact of the web
// (browsers and servers refuse longer addresses), not a cost.
const MaxURLLength = 2048

// Param declares one tool parameter. Values arrive as multipart form fields
// and are validated against the declaration before a job is created.
type Param struct {
	Name        string    `json:"name"`
	Type        ParamType `json:"type"`
	Description string    `json:"description,omitempty"`
	Required    bool      `json:"required"`
	// Enum, when set, lists the allowed values.
	Enum []string `json:"enum,omitempty"`
	// Min and Max bound numbers and integers, and the length of strings.
	Min *float64 `json:"min,omitempty"`
	Max *float64 `json:"max,omitempty"`
	// Default is the value used when the field is absent, in canonical
	// string form ("" for none).
	Default string `json:"default,omitempty"`
	// Example is a value that works with the tool's example input, in
	// canonical form, shown by the API reference's examples (GET /docs)
	// and the OpenAPI document. A required param without a Default or an
	// Enum should have one: the examples are run by a test.
	Example string `json:"-"`
	// Secret params (passwords) are never echoed back in job records.
	Secret bool `json:"-"`
	// Check, when set, validates a given value beyond its type, bounds and
	// enum (a list syntax, a colour, characters a font can draw), so that a
	// bad value is refused before a job is created. It returns a
	// ParamError naming this param, or another error for an internal
	// failure.
	Check func(value string) error `json:"-"`
}

// Bound returns a pointer to v, for Param.Min and Param.Max.
func Bound(v float64) *float64 { return &v }

// Params are a job's validated parameters in canonical string form.
type Params map[string]string

// String returns the named parameter.
func (p Params) String(name string) string { return p[name] }

// Int returns the named integer parameter; 0 when it is absent (a param
// with no default that was not given: check Has when 0 is a valid value).
// A present value passed ParseParams, so it parses; one that does not is a
// caller that skipped ParseParams, and Int panics rather than guess.
func (p Params) Int(name string) int {
	v, ok := p[name]
	if !ok {
		return 0
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		panic(fmt.Sprintf("docmill: parameter %q was not validated: %v", name, err))
	}
	return n
}

// Float returns the named number parameter, as Int does an integer.
func (p Params) Float(name string) float64 {
	v, ok := p[name]
	if !ok {
		return 0
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		panic(fmt.Sprintf("docmill: parameter %q was not validated: %v", name, err))
	}
	return f
}

// Color returns the named colour parameter (TypeColor), opaque; black when
// it is absent. Like Int, it panics on a value that skipped ParseParams.
func (p Params) Color(name string) color.RGBA {
	v, ok := p[name]
	if !ok {
		return color.RGBA{A: 0xff}
	}
	c, ok := parseColor(v)
	if !ok {
		panic(fmt.Sprintf("docmill: parameter %q was not validated: %q is not #rrggbb", name, v))
	}
	return c
}

// parseColor reads "#rrggbb" or "rrggbb", in either case.
func parseColor(s string) (color.RGBA, bool) {
	s = strings.TrimPrefix(s, "#")
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != 3 {
		return color.RGBA{}, false
	}
	return color.RGBA{R: b[0], G: b[1], B: b[2], A: 0xff}, true
}

// PageRanges returns the named page-selection parameter (TypePages),
// parsed; nil when it is absent, which tools read as every page. The value
// passed ParseParams, so it parses: a value that does not is a caller
// that skipped ParseParams, and PageRanges panics rather than guess.
func (p Params) PageRanges(name string) []PageRange {
	r, err := ParsePageRanges(p[name])
	if err != nil {
		panic(fmt.Sprintf("docmill: parameter %q was not validated: %v", name, err))
	}
	return r
}

// Bool returns the named parameter as a boolean.
func (p Params) Bool(name string) bool { return p[name] == "true" }

// Has reports whether the parameter has a value (given or default).
func (p Params) Has(name string) bool { _, ok := p[name]; return ok }

// ParseParams validates raw form values against t's declarations and returns
// them in canonical form with defaults filled in. Every problem is reported
// at once, as an invalid_parameter error naming each field.
func (t *Tool) ParseParams(raw map[string]string) (Params, error) {
	out := Params{}
	var fields []FieldError
	names := make([]string, 0, len(raw))
	for name := range raw {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if _, ok := t.Param(name); !ok {
			fields = append(fields, FieldError{Field: name, Message: fmt.Sprintf("is not a parameter of %s", t.Slug)})
		}
	}
	for _, p := range t.Params {
		v, given := raw[p.Name]
		if !p.Secret {
			// A password's spaces are part of it; any other value's are not.
			v = strings.TrimSpace(v)
		}
		if !given || strings.TrimSpace(v) == "" {
			if p.Required {
				fields = append(fields, FieldError{Field: p.Name, Message: "is required"})
			} else if p.Default != "" {
				out[p.Name] = p.Default
			}
			continue
		}
		canon, msg := p.check(v)
		if msg == "" && p.Check != nil {
			var err error
			if msg, err = checkMessage(p.Check(canon)); err != nil {
				return nil, err
			}
		}
		if msg != "" {
			fields = append(fields, FieldError{Field: p.Name, Message: msg})
			continue
		}
		out[p.Name] = canon
	}
	if len(fields) == 0 && t.CheckParams != nil {
		if err := t.CheckParams(out); err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Code != CodeInvalidParameter {
				return nil, err
			}
			fields = e.Fields
			if len(fields) == 0 {
				return nil, e
			}
		}
	}
	if len(fields) > 0 {
		parts := make([]string, len(fields))
		for i, f := range fields {
			parts[i] = fmt.Sprintf("%q %s", f.Field, f.Message)
		}
		return nil, &Error{
			Code:    CodeInvalidParameter,
			Message: "Invalid parameter: " + strings.Join(parts, "; ") + ".",
			Fields:  fields,
		}
	}
	return out, nil
}

// checkMessage turns the result of a Param.Check into a field message, or
// passes on an error that is not an invalid_parameter one.
func checkMessage(err error) (string, error) {
	if err == nil {
		return "", nil
	}
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeInvalidParameter {
		return "", err
	}
	if len(e.Fields) > 0 {
		return e.Fields[0].Message, nil
	}
	return e.Message, nil
}

// check validates one given value and returns its canonical form, or a
// message saying what is wrong.
func (p Param) check(v string) (string, string) {
	if len(p.Enum) > 0 {
		for _, e := range p.Enum {
			if strings.EqualFold(v, e) {
				return e, ""
			}
		}
		return "", "must be one of " + strings.Join(p.Enum, ", ")
	}
	switch p.Type {
	case TypeInteger:
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return "", "must be an integer"
		}
		if msg := p.checkBounds(float64(n)); msg != "" {
			return "", msg
		}
		return strconv.FormatInt(n, 10), ""
	case TypeNumber:
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return "", "must be a number"
		}
		if msg := p.checkBounds(f); msg != "" {
			return "", msg
		}
		return strconv.FormatFloat(f, 'g', -1, 64), ""
	case TypeBoolean:
		b, err := strconv.ParseBool(strings.ToLower(v))
		if err != nil {
			return "", "must be true or false"
		}
		return strconv.FormatBool(b), ""
	case TypeColor:
		c, ok := parseColor(v)
		if !ok {
			return "", "must be a colour written #rrggbb, such as #ff0000 for red"
		}
		return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B), ""
	case TypeURL:
		return checkURL(v)
	case TypePages:
		if _, err := ParsePageRanges(v); err != nil {
			return "", err.Error()
		}
		return strings.ReplaceAll(v, " ", ""), ""
	default:
		if msg := p.checkBounds(float64(len([]rune(v)))); msg != "" {
			return "", "length " + msg
		}
		return v, ""
	}
}

// checkURL validates a TypeURL value, kept as given (a fragment
// included: a single-page application may route by it).
func checkURL(v string) (string, string) {
	if len(v) > MaxURLLength {
		return "", fmt.Sprintf("must be at most %d characters long", MaxURLLength)
	}
	u, err := url.Parse(v)
	switch {
	case err != nil || !u.IsAbs() || u.Opaque != "" || u.Host == "" || u.Hostname() == "":
		return "", "must be an absolute http:// or https:// URL, such as https://example.com/"
	case u.Scheme != "http" && u.Scheme != "https":
		return "", "must be an http:// or https:// URL"
	case u.User != nil:
		return "", "must not carry a user name or password"
	}
	return v, ""
}

func (p Param) checkBounds(f float64) string {
	switch {
	case p.Min != nil && p.Max != nil && (f < *p.Min || f > *p.Max):
		return fmt.Sprintf("must be between %s and %s", fmtNum(*p.Min), fmtNum(*p.Max))
	case p.Min != nil && f < *p.Min:
		return "must be at least " + fmtNum(*p.Min)
	case p.Max != nil && f > *p.Max:
		return "must be at most " + fmtNum(*p.Max)
	}
	return ""
}

func fmtNum(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
