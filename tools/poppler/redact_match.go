package poppler

import (
	"encoding/json"
	"errors"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	docmill "github.com/docmill/docmill"
)

// Bounds of redact-pdf's text params: what a client may ask for is small
// next to what a document may hold, and every term becomes part of one
// RE2 expression, whose cost is linear in its size times the text's.
const (
	maxRedactTerms     = 200
	maxRedactTermChars = 200
	minRedactTermChars = 2
	maxRedactTermsLen  = 20_000 // the terms param, in characters
	maxRedactRegexLen  = 500
)

// redactPreset is a kind of personal data redact-pdf finds by itself: a
// pattern for candidates and, for numbers with check digits, a test
// that keeps only the valid ones, so that an order number is not taken
// for a card.
type redactPreset struct {
	name  string
	what  string
	re    *regexp.Regexp
	valid func(match string) bool // nil: every candidate
}

// redactPresets are the presets, in the order the catalogue lists them.
// Patterns are matched on one line of text at a time, as pdftotext lays
// it out, with its words joined by single spaces.
var redactPresets = []redactPreset{
	{name: "emails", what: "e-mail addresses",
		re: regexp.MustCompile(`[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}`)},
	{name: "phones", what: "phone numbers: 10 to 15 digits with a leading + or spaces, dots, dashes or brackets between them (a bare run of digits is too often another number)",
		re:    regexp.MustCompile(`\+?\(?\d[\d ().-]{7,22}\d`),
		valid: phoneValid},
	{name: "cards", what: "payment card numbers: 13 to 19 digits, in groups or not, that pass the Luhn check",
		re:    regexp.MustCompile(`\b\d(?:[ -]?\d){12,18}\b`),
		valid: digitsValid(luhnValid)},
	{name: "inn", what: "Russian taxpayer numbers (INN) of 10 or 12 digits whose check digits are right",
		re:    regexp.MustCompile(`\b(?:\d{12}|\d{10})\b`),
		valid: digitsValid(innValid)},
	{name: "snils", what: `Russian insurance numbers (SNILS), "123-456-789 01" or 11 digits, whose checksum is right`,
		re:    regexp.MustCompile(`\b\d{3}[- ]?\d{3}[- ]?\d{3}[- ]?\d{2}\b`),
		valid: digitsValid(snilsValid)},
	{name: "passports_ru", what: `Russian passport numbers written "45 06 123456" or "4506 123456" (ten digits without spaces are not taken: too many other numbers look so)`,
		re: regexp.MustCompile(`\b(?:\d{2} \d{2}|\d{4}) (?:№ ?)?\d{6}\b`)},
}

// redactPresetNames lists the presets' names.
func redactPresetNames() []string {
	names := make([]string, len(redactPresets))
	for i, p := range redactPresets {
		names[i] = p.name
	}
	return names
}

// textMatcher finds what redact-pdf blacks out in a line of text.
type textMatcher struct {
	exprs   []*regexp.Regexp // the terms' expression, then the regex param's
	presets []redactPreset
}

// span is a match in a line: bytes start to end.
type span struct{ start, end int }

// empty reports whether the matcher finds nothing anywhere.
func (m textMatcher) empty() bool { return len(m.exprs) == 0 && len(m.presets) == 0 }

// find returns the matches in line, merged where they overlap, in order.
func (m textMatcher) find(line string) []span {
	var spans []span
	add := func(loc []int) {
		if loc[1] > loc[0] {
			spans = append(spans, span{loc[0], loc[1]})
		}
	}
	for _, re := range m.exprs {
		for _, loc := range re.FindAllStringIndex(line, -1) {
			add(loc)
		}
	}
	for _, p := range m.presets {
		for _, loc := range p.re.FindAllStringIndex(line, -1) {
			if p.valid == nil || p.valid(line[loc[0]:loc[1]]) {
				add(loc)
			}
		}
	}
	slices.SortFunc(spans, func(a, b span) int { return a.start - b.start })
	var merged []span
	for _, s := range spans {
		if n := len(merged); n > 0 && s.start < merged[n-1].end {
			merged[n-1].end = max(merged[n-1].end, s.end)
			continue
		}
		merged = append(merged, s)
	}
	return merged
}

// newTextMatcher builds the matcher of validated params.
func newTextMatcher(p docmill.Params) textMatcher {
	var m textMatcher
	if terms, _ := parseRedactTerms(p.String(paramTerms)); len(terms) > 0 {
		m.exprs = append(m.exprs, termsExpr(terms))
	}
	if p.Has(paramRegex) {
		m.exprs = append(m.exprs, regexp.MustCompile(regexCaseless+p.String(paramRegex)))
	}
	for _, name := range parsePresetNames(p.String(paramPresets)) {
		for _, pr := range redactPresets {
			if pr.name == name {
				m.presets = append(m.presets, pr)
			}
		}
	}
	return m
}

// termsExpr is one case-insensitive expression matching any of terms,
// the longest first (so that "John Smith" wins over "John" where both
// match), with every run of spaces in a term matching any run of spaces
// in the text.
func termsExpr(terms []string) *regexp.Regexp {
	terms = slices.Clone(terms)
	slices.SortStableFunc(terms, func(a, b string) int { return len(b) - len(a) })
	alts := make([]string, len(terms))
	for i, t := range terms {
		words := strings.Fields(t)
		for j, w := range words {
			words[j] = regexp.QuoteMeta(w)
		}
		alts[i] = strings.Join(words, `\s+`)
	}
	return regexp.MustCompile(`(?i)(?:` + strings.Join(alts, "|") + `)`)
}

// parseRedactTerms reads the terms param: a JSON list of strings when it
// starts with "[", else one term per line. Blank lines are skipped; a
// term's own spaces are trimmed.
func parseRedactTerms(v string) ([]string, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return nil, nil
	}
	var raw []string
	if strings.HasPrefix(v, "[") {
		if err := json.Unmarshal([]byte(v), &raw); err != nil {
			return nil, docmill.ParamError(paramTerms, `is not a JSON list of strings, such as ["John Smith", "+7 916 123-45-67"]`)
		}
	} else {
		raw = strings.Split(v, "\n")
	}
	var terms []string
	for _, t := range raw {
		t = strings.TrimSpace(t)
		if t == "" {
			continue
		}
		n := utf8.RuneCountInString(t)
		switch {
		case n < minRedactTermChars:
			return nil, docmill.ParamError(paramTerms, "holds %q: a term needs at least %d characters", t, minRedactTermChars)
		case n > maxRedactTermChars:
			return nil, docmill.ParamError(paramTerms, "holds a term of %d characters; at most %d", n, maxRedactTermChars)
		case strings.ContainsFunc(t, unicode.IsControl):
			return nil, docmill.ParamError(paramTerms, "holds a term with a control character")
		}
		terms = append(terms, t)
	}
	if len(terms) > maxRedactTerms {
		return nil, docmill.ParamError(paramTerms, "holds %d terms; at most %d", len(terms), maxRedactTerms)
	}
	return terms, nil
}

func checkRedactTerms(v string) error {
	_, err := parseRedactTerms(v)
	return err
}

// regexCaseless starts the regex param's expression: it ignores case,
// as terms do, unless it says (?-i).
const regexCaseless = "(?i)"

// checkRedactRegex holds the regex param to RE2 syntax and to matching
// something: an expression that matches the empty string would match
// everywhere and nothing.
func checkRedactRegex(v string) error {
	re, err := regexp.Compile(regexCaseless + v)
	if err != nil {
		return docmill.ParamError(paramRegex, "is not a valid RE2 regular expression (Go syntax): %s", regexSyntaxProblem(err))
	}
	if re.MatchString("") {
		return docmill.ParamError(paramRegex, "matches the empty text; it must match at least one character")
	}
	return nil
}

// regexSyntaxProblem is the part of a regexp error that says what is
// wrong, without repeating the whole expression.
func regexSyntaxProblem(err error) string {
	var se *syntax.Error
	if errors.As(err, &se) {
		return string(se.Code)
	}
	return err.Error()
}

// parsePresetNames splits the presets param, a comma-separated list.
func parsePresetNames(v string) []string {
	var names []string
	for _, n := range strings.Split(v, ",") {
		if n = strings.ToLower(strings.TrimSpace(n)); n != "" && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return names
}

func checkRedactPresets(v string) error {
	known := redactPresetNames()
	for _, n := range parsePresetNames(v) {
		if !slices.Contains(known, n) {
			return docmill.ParamError(paramPresets, "names %q; the presets are %s", n, strings.Join(known, ", "))
		}
	}
	return nil
}

// digitsOf returns the ASCII digits of s.
func digitsOf(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, s)
}

// digitsValid applies valid to a match's digits.
func digitsValid(valid func(digits string) bool) func(string) bool {
	return func(match string) bool { return valid(digitsOf(match)) }
}

// phoneValid reports whether match is written as a phone number: 10 to
// 15 digits, and a leading + or a separator between them.
func phoneValid(match string) bool {
	n := len(digitsOf(match))
	return n >= 10 && n <= 15 && (strings.HasPrefix(match, "+") || len(match) > n)
}

// luhnValid reports whether d, 13 to 19 digits, passes the Luhn check of
// payment card numbers.
func luhnValid(d string) bool {
	if len(d) < 13 || len(d) > 19 {
		return false
	}
	sum := 0
	for i := range len(d) {
		n := int(d[len(d)-1-i] - '0')
		if i%2 == 1 {
			if n *= 2; n > 9 {
				n -= 9
			}
		}
		sum += n
	}
	return sum%10 == 0
}

// innValid reports whether d is a Russian INN with the right check
// digits: the last of 10 digits (an organisation's), or the last two of
// 12 (a person's), each a weighted sum mod 11 mod 10.
func innValid(d string) bool {
	check := func(weights []int) int {
		sum := 0
		for i, w := range weights {
			sum += w * int(d[i]-'0')
		}
		return sum % 11 % 10
	}
	switch len(d) {
	case 10:
		return check([]int{2, 4, 10, 3, 5, 9, 4, 6, 8}) == int(d[9]-'0')
	case 12:
		return check([]int{7, 2, 4, 10, 3, 5, 9, 4, 6, 8}) == int(d[10]-'0') &&
			check([]int{3, 7, 2, 4, 10, 3, 5, 9, 4, 6, 8}) == int(d[11]-'0')
	}
	return false
}

// snilsValid reports whether d, 11 digits, is a SNILS whose last two are
// its checksum: the first nine weighted 9 down to 1, summed, mod 101,
// where 100 counts as 0.
func snilsValid(d string) bool {
	if len(d) != 11 {
		return false
	}
	sum := 0
	for i := range 9 {
		sum += (9 - i) * int(d[i]-'0')
	}
	sum = sum % 101 % 100
	return sum == int(d[9]-'0')*10+int(d[10]-'0')
}
