package docmill

import (
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// Fuzz targets of the root package's parsers: page selections and tool
// parameters, the two kinds of client text every tool takes. `make fuzz`
// runs each for a while; `go test` runs their seeds.

// pageSeeds are real and hostile page selections.
var pageSeeds = []string{
	"", "all", "ALL", " aLl ", "a l l", "1", "1-3", "1-3,5,8-", " 1 - 3 , 5 ", "-3", "8-", "-",
	"3-3", "5,1,5", "100000", "100001", "1-100000", "99999-", "3-1", "0", "-0", "1-0", "1,,2",
	",", "1,", ",1", "1-2-3", "--1", "1--", "+5", "-+3", "+1-+2", "007", "1e3", "0x10", "1.5",
	"١", "1\t-3", "\t1\n", "1 2", "9223372036854775807", "-9223372036854775808",
	"99999999999999999999", "1-99999999999999999999", "all,1", "1,all", "\x00", "1-\u00a02",
	strings.Repeat("1-,", 40) + "1-", strings.Repeat("9", 400),
}

// formatPageRanges writes ranges in the syntax ParsePageRanges reads.
func formatPageRanges(ranges []PageRange) string {
	if ranges == nil {
		return "all"
	}
	parts := make([]string, len(ranges))
	for i, r := range ranges {
		switch {
		case r.To == 0:
			parts[i] = strconv.Itoa(r.From) + "-"
		case r.To == r.From:
			parts[i] = strconv.Itoa(r.From)
		default:
			parts[i] = strconv.Itoa(r.From) + "-" + strconv.Itoa(r.To)
		}
	}
	return strings.Join(parts, ",")
}

// FuzzParsePageRanges: a selection parses to ranges within 1..MaxPageNumber
// that are never backwards; the ranges written out again, and the
// canonical form the pages param stores, parse to the same ranges; and
// Pages resolves them to pages within the document, in range order, or
// refuses with the page count, never selecting a page past the end.
func FuzzParsePageRanges(f *testing.F) {
	for i, s := range pageSeeds {
		f.Add(s, uint16(i*7%23))
	}
	f.Add("1-3,5,8-", uint16(10))
	f.Add("8-", uint16(7))
	f.Add("", uint16(0))
	f.Add("1-", uint16(MaxPageNumber%65536))
	// 41 x 2999 pages: past MaxPageNumber, refused.
	f.Add(strings.Repeat("1-,", 40)+"1-", uint16(2999))
	f.Add(strings.Repeat("1-,", 33)+"1-", uint16(2941))
	f.Fuzz(func(t *testing.T, s string, count uint16) {
		ranges, err := ParsePageRanges(s)
		if err != nil {
			if ranges != nil {
				t.Fatalf("ParsePageRanges(%q) = %v with error %v", s, ranges, err)
			}
			if msg := err.Error(); msg == "" || !utf8.ValidString(msg) && utf8.ValidString(s) {
				t.Fatalf("ParsePageRanges(%q): bad message %q", s, msg)
			}
			return
		}
		if ranges != nil && len(ranges) == 0 {
			t.Fatalf("ParsePageRanges(%q) = empty non-nil ranges", s)
		}
		for _, r := range ranges {
			if r.From < 1 || r.From > MaxPageNumber || r.To < 0 || r.To > MaxPageNumber || r.To != 0 && r.To < r.From {
				t.Fatalf("ParsePageRanges(%q) = %v: range %v out of bounds", s, ranges, r)
			}
		}
		if len(ranges) > (len(s)+1)/2 {
			t.Fatalf("ParsePageRanges(%q): %d ranges from %d bytes", s, len(ranges), len(s))
		}
		for _, again := range []string{formatPageRanges(ranges), strings.ReplaceAll(strings.TrimSpace(s), " ", "")} {
			back, err := ParsePageRanges(again)
			if err != nil || !slices.Equal(back, ranges) {
				t.Fatalf("ParsePageRanges(%q) = %v, but %q parses to %v, %v", s, ranges, again, back, err)
			}
		}

		// Pages against a document of n pages (bounded, so that repeated
		// open ranges stay cheap).
		n := int(count) % 3000
		want := 0
		fits := true
		for _, r := range ranges {
			to := r.To
			if to == 0 {
				to = n
			}
			if r.From > n || to > n {
				fits = false
			}
			want += max(to-r.From+1, 0)
		}
		if ranges == nil {
			want, fits = n, n >= 1
		}
		if want > max(n, MaxPageNumber) {
			// Repeated ranges must not make a huge page list.
			fits = false
		}
		pages, err := Pages(ranges, n)
		if err != nil {
			if fits {
				t.Fatalf("Pages(%v, %d): %v; want %d pages", ranges, n, err, want)
			}
			if pages != nil || !strings.Contains(err.Error(), strconv.Itoa(n)) && !strings.Contains(err.Error(), "pages") {
				t.Fatalf("Pages(%v, %d) = %d pages, %v", ranges, n, len(pages), err)
			}
			return
		}
		if !fits {
			t.Fatalf("Pages(%v, %d) = %d pages, want an error", ranges, n, len(pages))
		}
		if len(pages) != want {
			t.Fatalf("Pages(%v, %d) = %d pages, want %d", ranges, n, len(pages), want)
		}
		i := 0
		if ranges == nil {
			ranges = []PageRange{{From: 1}}
		}
		for _, r := range ranges {
			to := r.To
			if to == 0 {
				to = n
			}
			for p := r.From; p <= to; p++ {
				if pages[i] != p || p < 1 || p > n {
					t.Fatalf("Pages(%v, %d)[%d] = %d, want %d", ranges, n, i, pages[i], p)
				}
				i++
			}
		}
	})
}

// errCheckFailed is what the fuzzed tools' Check returns for an internal
// failure; ParseParams must pass it on as is.
var errCheckFailed = errors.New("check failed")

// fuzzTools are declarations shaped like the real tools' (protect-pdf,
// watermark-pdf, pdf-to-jpg, html-to-pdf, split-pdf): secrets, enums,
// bounded numbers, booleans, page selections, defaults and Checks.
var fuzzTools = []*Tool{
	{Slug: "protect-pdf", Params: []Param{
		{Name: "password", Type: TypeString, Required: true, Min: Bound(1), Max: Bound(127), Secret: true},
		{Name: "owner_password", Type: TypeString, Min: Bound(1), Max: Bound(127), Secret: true},
		{Name: "permissions", Type: TypeString, Max: Bound(64), Default: "all"},
	}},
	{Slug: "watermark-pdf", Params: []Param{
		{Name: "text", Type: TypeString, Required: true, Min: Bound(1), Max: Bound(200), Check: func(v string) error {
			if strings.ContainsRune(v, '\u0378') {
				return errCheckFailed
			}
			if strings.ContainsAny(v, "\x00\u4e00") {
				return ParamError("text", "has a character the font cannot draw")
			}
			return nil
		}},
		{Name: "opacity", Type: TypeNumber, Min: Bound(0), Max: Bound(1), Default: "0.3"},
		{Name: "rotation", Type: TypeNumber, Min: Bound(-180), Max: Bound(180), Default: "45"},
		{Name: "font_size", Type: TypeInteger, Min: Bound(6), Max: Bound(300)},
		{Name: "color", Type: TypeString, Default: "#808080", Check: func(v string) error {
			if len(v) != 7 || v[0] != '#' {
				return ParamError("color", "must be a colour as #rrggbb")
			}
			if _, err := strconv.ParseUint(v[1:], 16, 32); err != nil {
				return ParamError("color", "must be a colour as #rrggbb")
			}
			return nil
		}},
		{Name: "layer", Type: TypeString, Enum: []string{"over", "under"}, Default: "over"},
		{Name: "pages", Type: TypePages},
	}},
	{Slug: "pdf-to-jpg", Params: []Param{
		{Name: "dpi", Type: TypeInteger, Default: "150", Min: Bound(36), Max: Bound(600)},
		{Name: "quality", Type: TypeInteger, Default: "85", Min: Bound(1), Max: Bound(100)},
		{Name: "pages", Type: TypePages},
	}},
	{Slug: "html-to-pdf", Params: []Param{
		{Name: "page_size", Type: TypeString, Default: "a4", Enum: []string{"a4", "letter", "legal", "a3", "a5"}},
		{Name: "landscape", Type: TypeBoolean, Default: "false"},
		{Name: "margin", Type: TypeString, Default: "normal", Enum: []string{"none", "small", "normal"}},
		{Name: "print_background", Type: TypeBoolean, Default: "true"},
	}},
	{Slug: "split-pdf", Params: []Param{
		{Name: "ranges", Type: TypePages},
		{Name: "every", Type: TypeInteger, Min: Bound(1), Max: Bound(MaxPageNumber)},
		{Name: "scale", Type: TypeNumber},
	}},
}

// decodeForm turns fuzz input into form fields: "name=value" pairs
// separated by '&' (a name without '=' has an empty value).
func decodeForm(s string) map[string]string {
	raw := map[string]string{}
	for _, pair := range strings.Split(s, "&") {
		if pair == "" {
			continue
		}
		name, value, _ := strings.Cut(pair, "=")
		raw[name] = value
	}
	return raw
}

// FuzzParseParams: a tool's declaration either takes the form, giving
// every declared value in a canonical form that parses to itself (a
// fixed point), within its type, bounds and enum, with the declared
// defaults and nothing undeclared; or refuses it with an invalid_parameter
// *Error naming only fields of the form or the declaration, in which a
// secret's message says nothing about its value but its length. A
// Check's internal error passes through unchanged.
func FuzzParseParams(f *testing.F) {
	seeds := []string{
		"", "password=hunter2", "password=  spaced  &owner_password=x", "password=&permissions=print,copy",
		"password=" + strings.Repeat("é", 128), "password=a&bogus=1", "password=%00\x00",
		"text=DRAFT", "text=DRAFT&opacity=0.5&rotation=-180&font_size=6&color=#ff00aa&layer=UNDER&pages=1-3, 5",
		"text=x&opacity=NaN", "text=x&opacity=Inf", "text=x&opacity=-0", "text=x&opacity=1e-400", "text=x&opacity=0x1p-2",
		"text=x&rotation=180.0000000000001", "text=x&font_size=9223372036854775807", "text=x&font_size=+7",
		"text=x&font_size=07", "text=x&font_size=6.0", "text=x&color=#GGGGGG", "text=x&color=red",
		"text=\u4e00", "text=\u0378", "text= \t \n", "text=x&pages=3-1", "text=x&pages=all", "text=x&pages= - ",
		"dpi=36&quality=100&pages=8-", "dpi=35", "dpi=601", "dpi=1e2", "quality=0", "pages=0",
		"page_size=A4&landscape=TRUE&margin=Small&print_background=0", "landscape=yes", "landscape=T",
		"page_size=a6", "margin=", "=", "=x", "&&&", "ranges=1-3,5,8-&every=2&scale=1e308", "every=100001",
		"scale=1.7976931348623157e309", "scale=-0.0", "scale=  12  ",
	}
	for i, s := range seeds {
		f.Add(uint8(i), s)
	}
	f.Fuzz(func(t *testing.T, which uint8, form string) {
		tool := fuzzTools[int(which)%len(fuzzTools)]
		raw := decodeForm(form)
		params, err := tool.ParseParams(raw)
		if err != nil {
			checkParamsError(t, tool, raw, err)
			return
		}
		for name := range raw {
			if _, ok := tool.Param(name); !ok {
				t.Fatalf("%s took the undeclared field %q", tool.Slug, name)
			}
		}
		for name := range params {
			if _, ok := tool.Param(name); !ok {
				t.Fatalf("%s: params hold the undeclared %q", tool.Slug, name)
			}
		}
		for _, p := range tool.Params {
			v, ok := params[p.Name]
			given := strings.TrimSpace(raw[p.Name]) != ""
			switch {
			case !ok && (p.Required || p.Default != "" || given):
				t.Fatalf("%s: %q missing from %v (raw %q)", tool.Slug, p.Name, params, raw[p.Name])
			case ok && !given && v != p.Default:
				t.Fatalf("%s: %q = %q, want the default %q", tool.Slug, p.Name, v, p.Default)
			case ok:
				checkCanonical(t, p, v)
			}
		}
		again, err := tool.ParseParams(params)
		if err != nil || !equalParams(again, params) {
			t.Fatalf("%s: %v parses again to %v, %v", tool.Slug, params, again, err)
		}
	})
}

// checkCanonical checks one accepted value against its declaration.
func checkCanonical(t *testing.T, p Param, v string) {
	t.Helper()
	if len(p.Enum) > 0 {
		if !slices.Contains(p.Enum, v) {
			t.Fatalf("%q = %q, not one of %v", p.Name, v, p.Enum)
		}
		return
	}
	within := func(f float64) bool {
		return (p.Min == nil || f >= *p.Min) && (p.Max == nil || f <= *p.Max)
	}
	switch p.Type {
	case TypeInteger:
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || strconv.FormatInt(n, 10) != v || !within(float64(n)) || (Params{"x": v}).Int("x") != int(n) {
			t.Fatalf("%q = %q: not a canonical integer within bounds", p.Name, v)
		}
	case TypeNumber:
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || strconv.FormatFloat(f, 'g', -1, 64) != v || !within(f) {
			t.Fatalf("%q = %q: not a canonical finite number within bounds", p.Name, v)
		}
	case TypeBoolean:
		if v != "true" && v != "false" {
			t.Fatalf("%q = %q: not true or false", p.Name, v)
		}
	case TypePages:
		if strings.ContainsAny(v, " ") {
			t.Fatalf("%q = %q: spaces kept", p.Name, v)
		}
		if _, err := ParsePageRanges(v); err != nil {
			t.Fatalf("%q = %q: %v", p.Name, v, err)
		}
	default:
		if !p.Secret && v != strings.TrimSpace(v) {
			t.Fatalf("%q = %q: not trimmed", p.Name, v)
		}
		if !within(float64(utf8.RuneCountInString(v))) {
			t.Fatalf("%q = %q: length out of bounds", p.Name, v)
		}
	}
}

// checkParamsError checks a refusal of raw by tool.
func checkParamsError(t *testing.T, tool *Tool, raw map[string]string, err error) {
	t.Helper()
	if errors.Is(err, errCheckFailed) {
		if ErrorCode(err) != CodeInternal {
			t.Fatalf("%s: a Check's internal error became %v", tool.Slug, err)
		}
		return
	}
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeInvalidParameter || len(e.Fields) == 0 || e.Err != nil {
		t.Fatalf("%s: error %#v, want an invalid_parameter *Error with fields", tool.Slug, err)
	}
	if !strings.HasPrefix(e.Message, "Invalid parameter: ") || !strings.HasSuffix(e.Message, ".") {
		t.Fatalf("%s: message %q", tool.Slug, e.Message)
	}
	for _, fe := range e.Fields {
		_, declared := tool.Param(fe.Field)
		_, sent := raw[fe.Field]
		if !declared && !sent || fe.Message == "" || !strings.Contains(e.Message, strconv.Quote(fe.Field)+" "+fe.Message) {
			t.Fatalf("%s: field error %+v in %q", tool.Slug, fe, e.Message)
		}
		p, _ := tool.Param(fe.Field)
		if !p.Secret {
			continue
		}
		// A secret's message depends only on its length: the same
		// message comes for any other value of as many characters.
		v := raw[fe.Field]
		if strings.TrimSpace(v) == "" {
			continue
		}
		canary := map[string]string{fe.Field: strings.Repeat("Z", utf8.RuneCountInString(v))}
		_, cerr := tool.ParseParams(canary)
		var ce *Error
		var want string
		if errors.As(cerr, &ce) {
			for _, cf := range ce.Fields {
				if cf.Field == fe.Field {
					want = cf.Message
				}
			}
		}
		if fe.Message != want {
			t.Fatalf("%s: secret %q: message %q depends on its value (%q for a canary)", tool.Slug, fe.Field, fe.Message, want)
		}
	}
}

func equalParams(a, b Params) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
