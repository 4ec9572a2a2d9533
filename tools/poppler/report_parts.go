package poppler

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"regexp"
	"slices"
	"strings"

	docmill "github.com/docmill/docmill"
)

// Bounds on the report: a hostile file may hold any number of fonts,
// images, page sizes or problems.
const (
	maxReportFonts   = 500
	maxReportImages  = 500
	maxSizeGroups    = 100
	maxProblems      = 50
	maxProblemLength = 300
)

// report is pdf-info's JSON output.
type report struct {
	PDFVersion string      `json:"pdf_version"`
	Linearized bool        `json:"linearized"`
	Pages      reportPages `json:"pages"`
	Metadata   struct {
		Title        string `json:"title"`
		Author       string `json:"author"`
		Subject      string `json:"subject"`
		Keywords     string `json:"keywords"`
		Creator      string `json:"creator"`
		Producer     string `json:"producer"`
		CreationDate string `json:"creation_date"`
		ModDate      string `json:"mod_date"`
	} `json:"metadata"`
	Encryption    reportEncryption `json:"encryption"`
	Fonts         []reportFont     `json:"fonts"`
	FontsOmitted  int              `json:"fonts_omitted"`
	Images        reportImages     `json:"images"`
	FormFields    int              `json:"form_fields"`
	Signatures    int              `json:"signatures"`
	PDFA          string           `json:"pdfa"`
	PDFUA         string           `json:"pdfua"`
	Tagged        bool             `json:"tagged"`
	StructureTree bool             `json:"structure_tree"`
	JavaScript    bool             `json:"javascript"`
	Problems      struct {
		QPDF    []string `json:"qpdf"`
		PDFCPU  []string `json:"pdfcpu"`
		Poppler []string `json:"poppler"`
	} `json:"problems"`

	readByPDFCPU bool
}

type reportPages struct {
	Count        int          `json:"count"`
	Sizes        []reportSize `json:"sizes"`
	SizesOmitted int          `json:"sizes_omitted"`
}

// reportSize is a page size in millimetres (pdfinfo's crop box, before
// rotation) and the pages that have it, as a page selection ("1-3,7").
type reportSize struct {
	WidthMM  float64 `json:"width_mm"`
	HeightMM float64 `json:"height_mm"`
	Rotation int     `json:"rotation"`
	Pages    string  `json:"pages"`
}

type reportEncryption struct {
	Encrypted        bool            `json:"encrypted"`
	PasswordRequired bool            `json:"password_required"`
	Method           string          `json:"method,omitempty"`
	Permissions      map[string]bool `json:"permissions,omitempty"`
}

// reportFont is a row of pdffonts.
type reportFont struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Encoding string `json:"encoding"`
	Embedded bool   `json:"embedded"`
	Subset   bool   `json:"subset"`
	Unicode  bool   `json:"unicode"`
}

type reportImages struct {
	Count   int           `json:"count"`
	MinPPI  int           `json:"min_ppi"`
	MaxPPI  int           `json:"max_ppi"`
	List    []reportImage `json:"list"`
	Omitted int           `json:"omitted"`
}

// reportImage is a row of pdfimages -list of type image.
type reportImage struct {
	Page     int    `json:"page"`
	Width    int    `json:"width"`
	Height   int    `json:"height"`
	Color    string `json:"color"`
	Encoding string `json:"encoding"`
	XPPI     int    `json:"x_ppi"`
	YPPI     int    `json:"y_ppi"`
}

func newReport() *report {
	r := &report{Fonts: []reportFont{}}
	r.Pages.Sizes = []reportSize{}
	r.Images.List = []reportImage{}
	r.Problems.QPDF, r.Problems.PDFCPU, r.Problems.Poppler = []string{}, []string{}, []string{}
	return r
}

// pathPattern matches absolute paths, which no problem may show.
var pathPattern = regexp.MustCompile(`/[^\s:'"]+`)

// problem adds a message to the problems of part ("qpdf", "pdfcpu",
// "poppler"): on one line, without paths, cut to maxProblemLength.
func (r *report) problem(part, msg string) {
	msg = pathPattern.ReplaceAllString(msg, "the file")
	msg = strings.Join(strings.Fields(msg), " ")
	if rs := []rune(msg); len(rs) > maxProblemLength {
		msg = string(rs[:maxProblemLength]) + "…"
	}
	list := map[string]*[]string{"qpdf": &r.Problems.QPDF, "pdfcpu": &r.Problems.PDFCPU, "poppler": &r.Problems.Poppler}[part]
	if msg != "" && len(*list) < maxProblems && !slices.Contains(*list, msg) {
		*list = append(*list, msg)
	}
}

// addStructure takes the meta of the pdfcpu step (pdfops.InspectStep),
// as decoded from JSON.
func (r *report) addStructure(m map[string]any) {
	r.readByPDFCPU, _ = m["read"].(bool)
	if b, _ := m["password_required"].(bool); b {
		r.Encryption.Encrypted, r.Encryption.PasswordRequired = true, true
	}
	num := func(k string) int {
		switch v := m[k].(type) {
		case json.Number: // as the PDF helpers decode numbers
			n, _ := v.Int64()
			return int(n)
		case float64:
			return int(v)
		case int:
			return v
		}
		return 0
	}
	if n := num("pages"); n > 0 {
		r.Pages.Count = n
	}
	r.FormFields, r.Signatures = num("form_fields"), num("signatures")
	r.Tagged, _ = m["tagged"].(bool)
	r.StructureTree, _ = m["structure_tree"].(bool)
	r.JavaScript, _ = m["javascript"].(bool)
	r.PDFA, _ = m["pdfa"].(string)
	r.PDFUA, _ = m["pdfua"].(string)
	if ps, ok := m["problems"].([]any); ok {
		for _, p := range ps {
			if s, ok := p.(string); ok {
				r.problem("pdfcpu", s)
			}
		}
	}
}

// addPdfinfo takes pdfinfo's metadata, version, linearization, page
// count and page sizes. The document's own values come first in its
// output and may hold line breaks that forge later lines, so the first
// line of a metadata key is taken, and the last of pdfinfo's own keys.
func (r *report) addPdfinfo(out []byte) {
	md := map[string]*string{"Title": &r.Metadata.Title, "Author": &r.Metadata.Author, "Subject": &r.Metadata.Subject,
		"Keywords": &r.Metadata.Keywords, "Creator": &r.Metadata.Creator, "Producer": &r.Metadata.Producer,
		"CreationDate": &r.Metadata.CreationDate, "ModDate": &r.Metadata.ModDate}
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, maxInfoOutput)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		if p := md[k]; p != nil && !seen[k] {
			*p, seen[k] = v, true
		}
		switch k {
		case "PDF version":
			r.PDFVersion = v
		case "Optimized":
			r.Linearized = v == "yes"
		case "Encrypted":
			r.Encryption.Encrypted = strings.HasPrefix(v, "yes")
		}
	}
	if n, ok := parsePageCount(out); ok && n > 0 {
		r.Pages.Count = n
	}
	r.Pages.Sizes, r.Pages.SizesOmitted = sizeGroups(parsePageSizes(out))
}

// sizeGroups groups pages by size (to 0.1 mm) and rotation, in the order
// of their first page, at most maxSizeGroups; it returns the number of
// groups left out too.
func sizeGroups(sizes map[int]pageSize) ([]reportSize, int) {
	pages := make([]int, 0, len(sizes))
	for p := range sizes {
		pages = append(pages, p)
	}
	slices.Sort(pages)
	mm := func(pt float64) float64 { return math.Round(pt*254/72) / 10 }
	var groups []reportSize
	lists := map[reportSize][]int{}
	for _, p := range pages {
		s := sizes[p]
		key := reportSize{WidthMM: mm(s.w), HeightMM: mm(s.h), Rotation: s.rot}
		if lists[key] == nil {
			groups = append(groups, key)
		}
		lists[key] = append(lists[key], p)
	}
	omitted := max(0, len(groups)-maxSizeGroups)
	groups = groups[:min(len(groups), maxSizeGroups)]
	for i := range groups {
		groups[i].Pages = docmill.FormatPages(lists[groups[i]])
	}
	if groups == nil {
		groups = []reportSize{}
	}
	return groups, omitted
}

// containsPassword reports whether poppler's standard error says the
// file needs a password.
func containsPassword(stderr string) bool {
	return strings.Contains(stderr, "Incorrect password")
}
