package docmill

import (
	"errors"
	"image/color"
	"maps"
	"slices"
	"strings"
	"testing"
)

// paramTool declares one parameter of each type and kind.
var paramTool = &Tool{
	Slug: "test-tool",
	Params: []Param{
		{Name: "password", Type: TypeString, Required: true, Secret: true},
		{Name: "preset", Type: TypeString, Enum: []string{"low", "recommended", "extreme"}, Default: "recommended"},
		{Name: "quality", Type: TypeInteger, Min: Bound(1), Max: Bound(100), Default: "80"},
		{Name: "start", Type: TypeInteger, Min: Bound(1)},
		{Name: "opacity", Type: TypeNumber, Min: Bound(0), Max: Bound(1)},
		{Name: "margin", Type: TypeNumber, Max: Bound(50)},
		{Name: "landscape", Type: TypeBoolean},
		{Name: "pages", Type: TypePages, Default: "all"},
		{Name: "text", Type: TypeString, Min: Bound(1), Max: Bound(5)},
		{Name: "color", Type: TypeColor},
	},
}

func TestParseParams(t *testing.T) {
	defaults := Params{"password": "pw", "preset": "recommended", "quality": "80", "pages": "all"}
	with := func(kv ...string) Params {
		p := maps.Clone(defaults)
		for i := 0; i < len(kv); i += 2 {
			p[kv[i]] = kv[i+1]
		}
		return p
	}
	tests := []struct {
		name string
		raw  map[string]string
		want Params
	}{
		{"defaults", map[string]string{"password": "pw"}, defaults},
		{"empty value takes the default", map[string]string{"password": "pw", "quality": "", "preset": "  "}, defaults},
		{"enum is case-insensitive", map[string]string{"password": "pw", "preset": "EXTREME"}, with("preset", "extreme")},
		{"enum canonical", map[string]string{"password": "pw", "preset": "Low"}, with("preset", "low")},
		{"integer", map[string]string{"password": "pw", "quality": " 7 "}, with("quality", "7")},
		{"integer bounds inclusive", map[string]string{"password": "pw", "quality": "100", "start": "1"}, with("quality", "100", "start", "1")},
		{"integer min only", map[string]string{"password": "pw", "start": "1000000"}, with("start", "1000000")},
		{"number", map[string]string{"password": "pw", "opacity": "0.5"}, with("opacity", "0.5")},
		{"number canonical", map[string]string{"password": "pw", "opacity": "1e-1", "margin": "-3.50"}, with("opacity", "0.1", "margin", "-3.5")},
		{"boolean true", map[string]string{"password": "pw", "landscape": "TRUE"}, with("landscape", "true")},
		{"boolean 0", map[string]string{"password": "pw", "landscape": "0"}, with("landscape", "false")},
		{"pages spaces removed", map[string]string{"password": "pw", "pages": " 1 - 3, 5 "}, with("pages", "1-3,5")},
		{"colour canonical", map[string]string{"password": "pw", "color": "FF00aA"}, with("color", "#ff00aa")},
		{"colour with #", map[string]string{"password": "pw", "color": "#0a0B0c"}, with("color", "#0a0b0c")},
		{"string length in runes", map[string]string{"password": "pw", "text": "ééééé"}, with("text", "ééééé")},
		{"strings trimmed, secrets kept verbatim", map[string]string{"password": " p w ", "text": " a b "}, with("password", " p w ", "text", "a b")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := paramTool.ParseParams(tt.raw)
			if err != nil {
				t.Fatal(err)
			}
			if !maps.Equal(got, tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestParseParamsErrors(t *testing.T) {
	tests := []struct {
		name string
		raw  map[string]string
		want []FieldError // in order
	}{
		{"required missing", map[string]string{}, []FieldError{{"password", "is required"}}},
		{"required blank", map[string]string{"password": "   "}, []FieldError{{"password", "is required"}}},
		{"unknown field", map[string]string{"password": "pw", "foo": "1"}, []FieldError{{"foo", "is not a parameter of test-tool"}}},
		{"enum", map[string]string{"password": "pw", "preset": "max"}, []FieldError{{"preset", "must be one of low, recommended, extreme"}}},
		{"integer below", map[string]string{"password": "pw", "quality": "0"}, []FieldError{{"quality", "must be between 1 and 100"}}},
		{"integer above", map[string]string{"password": "pw", "quality": "101"}, []FieldError{{"quality", "must be between 1 and 100"}}},
		{"integer min only", map[string]string{"password": "pw", "start": "0"}, []FieldError{{"start", "must be at least 1"}}},
		{"integer not integer", map[string]string{"password": "pw", "quality": "1.5"}, []FieldError{{"quality", "must be an integer"}}},
		{"integer text", map[string]string{"password": "pw", "quality": "high"}, []FieldError{{"quality", "must be an integer"}}},
		{"number above", map[string]string{"password": "pw", "opacity": "1.01"}, []FieldError{{"opacity", "must be between 0 and 1"}}},
		{"number max only", map[string]string{"password": "pw", "margin": "51"}, []FieldError{{"margin", "must be at most 50"}}},
		{"number NaN", map[string]string{"password": "pw", "opacity": "NaN"}, []FieldError{{"opacity", "must be a number"}}},
		{"number Inf", map[string]string{"password": "pw", "margin": "-Inf"}, []FieldError{{"margin", "must be a number"}}},
		{"boolean", map[string]string{"password": "pw", "landscape": "yes"}, []FieldError{{"landscape", "must be true or false"}}},
		{"pages backwards", map[string]string{"password": "pw", "pages": "3-1"}, []FieldError{{"pages", `has a backwards range "3-1"`}}},
		{"pages garbage", map[string]string{"password": "pw", "pages": "one"}, []FieldError{{"pages", `has "one" where a page number (1 or more) belongs`}}},
		{"colour short", map[string]string{"password": "pw", "color": "#fff"}, []FieldError{{"color", "must be a colour written #rrggbb, such as #ff0000 for red"}}},
		{"colour not hex", map[string]string{"password": "pw", "color": "#gg0000"}, []FieldError{{"color", "must be a colour written #rrggbb, such as #ff0000 for red"}}},
		{"colour name", map[string]string{"password": "pw", "color": "red"}, []FieldError{{"color", "must be a colour written #rrggbb, such as #ff0000 for red"}}},
		{"string too long", map[string]string{"password": "pw", "text": "abcdef"}, []FieldError{{"text", "length must be between 1 and 5"}}},
		{"all reported together", map[string]string{"zzz": "1", "foo": "1", "quality": "0", "preset": "max", "landscape": "maybe"}, []FieldError{
			{"foo", "is not a parameter of test-tool"},
			{"zzz", "is not a parameter of test-tool"},
			{"password", "is required"},
			{"preset", "must be one of low, recommended, extreme"},
			{"quality", "must be between 1 and 100"},
			{"landscape", "must be true or false"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := paramTool.ParseParams(tt.raw)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("ParseParams = %v, %v; want *Error", got, err)
			}
			if got != nil {
				t.Errorf("params = %v, want nil with an error", got)
			}
			if e.Code != CodeInvalidParameter {
				t.Errorf("code = %s", e.Code)
			}
			if !slices.Equal(e.Fields, tt.want) {
				t.Errorf("fields = %v, want %v", e.Fields, tt.want)
			}
			for _, f := range tt.want {
				if !strings.Contains(e.Message, `"`+f.Field+`" `+f.Message) {
					t.Errorf("message %q does not report %s", e.Message, f.Field)
				}
			}
		})
	}
}

func TestParamsAccessors(t *testing.T) {
	p := Params{"n": "42", "f": "0.25", "b": "true", "s": "x", "c": "#ff8000"}
	if p.Int("n") != 42 || p.Int("missing") != 0 {
		t.Error("Int")
	}
	if p.Float("f") != 0.25 || p.Float("missing") != 0 {
		t.Error("Float")
	}
	if !p.Bool("b") || p.Bool("s") || p.Bool("missing") {
		t.Error("Bool")
	}
	if p.String("s") != "x" || p.String("missing") != "" {
		t.Error("String")
	}
	if c := p.Color("c"); c != (color.RGBA{R: 0xff, G: 0x80, A: 0xff}) {
		t.Errorf("Color = %v", c)
	}
	if !p.Has("s") || p.Has("missing") {
		t.Error("Has")
	}
}

// TestParamsAccessorsPanicUnvalidated: a typed accessor cannot fail on a
// value that went through ParseParams, so a value that did not is a
// programming error, not a zero.
func TestParamsAccessorsPanicUnvalidated(t *testing.T) {
	p := Params{"x": "not a value"}
	for name, read := range map[string]func(){
		"Int":        func() { p.Int("x") },
		"Float":      func() { p.Float("x") },
		"Color":      func() { p.Color("x") },
		"PageRanges": func() { p.PageRanges("x") },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("%s of an unvalidated value did not panic", name)
				}
			}()
			read()
		})
	}
}

func TestParseParamsCheck(t *testing.T) {
	tl := &Tool{Slug: "t", Params: []Param{{
		Name: "list", Type: TypeString, Default: "a",
		Check: func(v string) error {
			if v == "boom" {
				return errors.New("disk on fire")
			}
			if v != "a" && v != "b" {
				return ParamError("list", "has an unknown item %q", v)
			}
			return nil
		},
	}}}
	if p, err := tl.ParseParams(map[string]string{"list": "b"}); err != nil || p["list"] != "b" {
		t.Fatalf("good value: %v %v", p, err)
	}
	if p, err := tl.ParseParams(nil); err != nil || p["list"] != "a" {
		t.Fatalf("default: %v %v", p, err)
	}
	_, err := tl.ParseParams(map[string]string{"list": "z"})
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeInvalidParameter || len(e.Fields) != 1 || e.Fields[0].Message != `has an unknown item "z"` {
		t.Fatalf("bad value: %#v", err)
	}
	if _, err := tl.ParseParams(map[string]string{"list": "boom"}); err == nil || ErrorCode(err) != CodeInternal {
		t.Fatalf("internal failure: %v", err)
	}
}

func TestParamsPageRanges(t *testing.T) {
	p := Params{"pages": "1-3,5,8-"}
	got := p.PageRanges("pages")
	want, _ := ParsePageRanges("1-3,5,8-")
	if len(got) != len(want) || len(got) != 3 {
		t.Errorf("PageRanges = %v, want %v", got, want)
	}
	if got := p.PageRanges("absent"); got != nil {
		t.Errorf("PageRanges of an absent param = %v, want nil (every page)", got)
	}
	defer func() {
		if recover() == nil {
			t.Error("PageRanges of a value that never passed ParseParams did not panic")
		}
	}()
	Params{"pages": "3-1"}.PageRanges("pages")
}

// TestParseParamsCheckParams: a tool's rule across params runs on values
// that passed their own checks, canonical and defaulted, and its refusal
// is an invalid_parameter error naming the field.
func TestParseParamsCheckParams(t *testing.T) {
	tool := &Tool{
		Slug:   "split",
		Params: []Param{{Name: "every", Type: TypeInteger, Min: Bound(1)}, {Name: "ranges", Type: TypePages}},
		CheckParams: func(p Params) error {
			if p.Has("every") && p.Has("ranges") {
				return ParamError("every", "cannot be combined with ranges")
			}
			return nil
		},
	}
	if p, err := tool.ParseParams(map[string]string{"every": " 02 "}); err != nil || p["every"] != "2" {
		t.Fatalf("one param: %v, %v", p, err)
	}
	_, err := tool.ParseParams(map[string]string{"every": "2", "ranges": "1-3"})
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeInvalidParameter || !slices.Equal(e.Fields, []FieldError{{"every", "cannot be combined with ranges"}}) ||
		!strings.Contains(e.Message, `"every" cannot be combined with ranges`) {
		t.Fatalf("both params: %v", err)
	}
	// A param's own error comes first: the rule never sees invalid values.
	_, err = tool.ParseParams(map[string]string{"every": "0", "ranges": "1-3"})
	if !errors.As(err, &e) || !slices.Equal(e.Fields, []FieldError{{"every", "must be at least 1"}}) {
		t.Fatalf("invalid and combined: %v", err)
	}
}

// TestParseParamsURL: a TypeURL param takes an absolute http or https URL
// with a host, no user information and at most MaxURLLength bytes, kept
// as given.
func TestParseParamsURL(t *testing.T) {
	tool := &Tool{Slug: "url-to-pdf", Params: []Param{{Name: "url", Type: TypeURL, Required: true}}}
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{"https://example.com/", true},
		{"http://127.0.0.1:8080/a?b=c#frag", true},
		{"https://[::1]/", true},
		{"ftp://example.com/", false},
		{"file:///etc/passwd", false},
		{"javascript:alert(1)", false},
		{"data:text/html,<p>x</p>", false},
		{"//example.com/", false},
		{"/relative", false},
		{"https://", false},
		{"https://user:pass@example.com/", false},
		{"https://user@example.com/", false},
		{"https://example.com/" + strings.Repeat("a", MaxURLLength), false},
	} {
		got, err := tool.ParseParams(map[string]string{"url": tc.in})
		if (err == nil) != tc.ok {
			t.Errorf("%q: %v, want ok %v", tc.in, err, tc.ok)
			continue
		}
		if tc.ok && got["url"] != tc.in {
			t.Errorf("%q: kept as %q", tc.in, got["url"])
		}
	}
}
