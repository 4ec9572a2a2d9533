package formvalues_test

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/formvalues"
)

func TestParse(t *testing.T) {
	got, err := formvalues.Parse(`{"Name": "Jane", "Agree": true, "No": false, "Age": 42.5, "Toppings": ["Ham", "Olives"], "None": []}`)
	if err != nil {
		t.Fatal(err)
	}
	want := formvalues.Values{
		"Name": {Text: "Jane"}, "Agree": {Text: "true"}, "No": {Text: "false"}, "Age": {Text: "42.5"},
		"Toppings": {List: []string{"Ham", "Olives"}, IsList: true}, "None": {List: []string{}, IsList: true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Parse = %#v, want %#v", got, want)
	}
	if names := got.Names(); strings.Join(names, ",") != "Age,Agree,Name,No,None,Toppings" {
		t.Errorf("Names = %v", names)
	}
}

func TestParseRefused(t *testing.T) {
	// One field more than MaxFields.
	fields := make([]string, formvalues.MaxFields+1)
	for i := range fields {
		fields[i] = fmt.Sprintf("%q: %q", "f"+strconv.Itoa(i), "v")
	}
	many := "{" + strings.Join(fields, ",") + "}"
	for _, s := range []string{
		``, `Name=Jane`, `[]`, `"Name"`, `{}`, `{"Name": null}`, `{"Name": {"a": 1}}`, `{"Name": [1]}`,
		`{"Name": "a", "Name": "b"}`, `{"": "a"}`, `{"Name": "a"} {}`, `{"Name": "a"`, many,
	} {
		_, err := formvalues.Parse(s)
		if err == nil || docmill.ErrorCode(err) != docmill.CodeInvalidParameter {
			t.Errorf("Parse(%.40q) = %v, want invalid_parameter", s, err)
			continue
		}
		if e := docmill.AsError(err); len(e.Fields) != 1 || e.Fields[0].Field != formvalues.Param {
			t.Errorf("Parse(%.40q): fields %v, want %q", s, e.Fields, formvalues.Param)
		}
	}
}
