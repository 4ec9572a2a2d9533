// Package formvalues reads the values fill-pdf-form is given: a JSON
// object of form field names to values, such as
//
//	{"Name": "Jane Roe", "Agree": true, "Color": "Red", "Toppings": ["Ham", "Olives"]}
//
// It is shared by the tool's declaration, which checks the param before a
// job is made, and its filling step, which runs in the PDF helper and
// gets the param as the same string; both read it with Parse.
package formvalues

import (
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	docmill "github.com/docmill/docmill"
)

// Param is the name of the param that holds the values.
const Param = "values"

// Bounds on what a client may give, beside the param's length (the
// multipart field's 64 KiB).
const (
	// MaxFields bounds the fields of one request.
	MaxFields = 1000
	// MaxNameBytes bounds a field name.
	MaxNameBytes = 1000
	// MaxListItems bounds the options chosen in one list box.
	MaxListItems = 1000
)

// Value is one field's value as the client gave it.
type Value struct {
	// Text is a string as given, a number as written, or "true" or
	// "false" for a JSON boolean.
	Text string
	// List holds the options of a JSON array (a multi-select list box);
	// IsList tells an empty array from a string.
	List   []string
	IsList bool
}

// Values are the values given, by field name.
type Values map[string]Value

// Names returns the field names, sorted.
func (v Values) Names() []string {
	names := make([]string, 0, len(v))
	for n := range v {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// errSyntax is the message of a value that is not the JSON object wanted.
const errSyntax = `must be a JSON object of field names to values, such as {"Name": "Jane Roe", "Agree": true}`

// Check is the param's Param.Check: Parse, keeping only the error.
func Check(s string) error {
	_, err := Parse(s)
	return err
}

// Parse reads s, refusing, as an invalid_parameter error naming Param,
// anything but a JSON object of 1 to MaxFields distinct, non-empty names
// whose values are strings, numbers, booleans or arrays of strings.
func Parse(s string) (Values, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, docmill.ParamError(Param, errSyntax)
	}
	values := Values{}
	for dec.More() {
		tok, err := dec.Token()
		name, ok := tok.(string)
		if err != nil || !ok {
			return nil, docmill.ParamError(Param, errSyntax)
		}
		switch _, dup := values[name]; {
		case name == "" || len(name) > MaxNameBytes || !utf8.ValidString(name):
			return nil, docmill.ParamError(Param, "field names must be 1 to %d bytes of UTF-8", MaxNameBytes)
		case dup:
			return nil, docmill.ParamError(Param, "the field %q is given twice", name)
		case len(values) == MaxFields:
			return nil, docmill.ParamError(Param, "may give at most %d fields", MaxFields)
		}
		var raw any
		if err := dec.Decode(&raw); err != nil {
			return nil, docmill.ParamError(Param, errSyntax)
		}
		v, err := value(raw)
		if err != nil {
			return nil, docmill.ParamError(Param, "the value of %q %s", name, err)
		}
		values[name] = v
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		return nil, docmill.ParamError(Param, errSyntax)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, docmill.ParamError(Param, errSyntax)
	}
	if len(values) == 0 {
		return nil, docmill.ParamError(Param, "gives no field")
	}
	return values, nil
}

// value reads one decoded JSON value.
func value(raw any) (Value, error) {
	switch r := raw.(type) {
	case string:
		return Value{Text: r}, nil
	case json.Number:
		return Value{Text: r.String()}, nil
	case bool:
		if r {
			return Value{Text: "true"}, nil
		}
		return Value{Text: "false"}, nil
	case []any:
		if len(r) > MaxListItems {
			return Value{}, errors.New("lists more than 1000 options")
		}
		list := make([]string, 0, len(r))
		for _, e := range r {
			s, ok := e.(string)
			if !ok {
				return Value{}, errors.New("must list strings only")
			}
			list = append(list, s)
		}
		return Value{List: list, IsList: true}, nil
	}
	return Value{}, errors.New("must be a string, a number, true or false, or a list of strings")
}
