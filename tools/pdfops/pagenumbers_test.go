package pdfops_test

import (
	"fmt"
	"strings"
	"testing"

	docmill "github.com/docmill/docmill"
)

func TestPageNumbers(t *testing.T) {
	needPoppler(t)
	tests := []struct {
		name   string
		file   string
		params map[string]string
		want   []string // what each page shows, squashed; "" for none
	}{
		{"n of total", "pdflatex-4-pages.pdf", map[string]string{"format": "{n} / {total}"},
			[]string{"1/4", "2/4", "3/4", "4/4"}},
		{"skip the cover, start at 1", "pdflatex-4-pages.pdf", map[string]string{"format": "Page {n} of {total}", "pages": "2-"},
			[]string{"", "Page1of3", "Page2of3", "Page3of3"}},
		{"start", "pdflatex-4-pages.pdf", map[string]string{"format": "[{n}/{total}]", "start": "10"},
			[]string{"[10/13]", "[11/13]", "[12/13]", "[13/13]"}},
		{"start at zero", "pdflatex-4-pages.pdf", map[string]string{"format": "#{n}", "start": "0", "pages": "1-2"},
			[]string{"#0", "#1", "", ""}},
		{"a gap keeps its place", "pdflatex-4-pages.pdf", map[string]string{"format": "<{n}/{total}>", "pages": "1,3-4"},
			[]string{"<1/4>", "", "<3/4>", "<4/4>"}},
		{"duplicates number once", "pdflatex-4-pages.pdf", map[string]string{"format": "-{n}-", "pages": "2,2,3"},
			[]string{"", "-1-", "-2-", ""}},
		{"cyrillic", "pdflatex-4-pages.pdf", map[string]string{"format": "Страница {n} из {total}", "position": "top-right"},
			[]string{"Страница1из4", "Страница2из4", "Страница3из4", "Страница4из4"}},
		{"literal percent and syntax", "minimal-document.pdf", map[string]string{"format": `{n}: 100% %p, (x) \`},
			[]string{`1:100%%p,(x)\`}},
		{"rotated pages", "habibi-rotated.pdf", map[string]string{"format": "p{n}", "font_size": "20"},
			[]string{"p1", "p2", "p3", "p4"}},
		{"many pages", "GeoTopo-komprimiert.pdf", map[string]string{"format": "({n}/{total})", "pages": "100-101"},
			nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out, before, after := runStamp(t, "page-numbers", tt.params, tt.file)
			if len(after) != len(before) {
				t.Fatalf("output has %d pages, input %d", len(after), len(before))
			}
			want := tt.want
			if want == nil { // GeoTopo: only pages 100 and 101
				want = make([]string, len(before))
				want[99], want[100] = "(1/2)", "(2/2)"
			}
			numbered := 0
			for i, w := range want {
				added := squash(after[i])
				switch {
				case w == "":
					if squash(after[i]) != squash(before[i]) {
						t.Errorf("page %d changed: %q", i+1, after[i])
					}
				case !strings.Contains(added, w) || strings.Contains(squash(before[i]), w):
					t.Errorf("page %d text lacks %q:\n%s", i+1, w, after[i])
				default:
					numbered++
				}
			}
			wantFontEmbedded(t, out.Path)
			if out.Meta["pages"] != len(before) || out.Meta["numbered_pages"] != numbered {
				t.Errorf("meta = %v, want pages %d, numbered_pages %d", out.Meta, len(before), numbered)
			}
			wantName := strings.TrimSuffix(tt.file, ".pdf") + "-numbered.pdf"
			if out.Filename != wantName {
				t.Errorf("filename = %q, want %q", out.Filename, wantName)
			}
		})
	}
}

// TestPageNumbersPosition checks with pdftotext -bbox that numbers sit at
// the visual edge of upright, rotated (habibi-rotated.pdf: 90, 180, 270
// and 0 degrees) and cropped-origin pages.
func TestPageNumbersPosition(t *testing.T) {
	needPoppler(t)
	for _, file := range []string{"pdflatex-4-pages.pdf", "habibi-rotated.pdf"} {
		for _, pos := range []string{"top-left", "top-center", "top-right", "bottom-left", "bottom-center", "bottom-right"} {
			t.Run(file+"/"+pos, func(t *testing.T) {
				t.Parallel()
				out, err := runValidated(t, "page-numbers", map[string]string{"format": "N{n}", "position": pos}, pdfCorpus(t)+file)
				if err != nil {
					t.Fatal(err)
				}
				for page := 1; page <= 4; page++ {
					w, ok := findWord(t, out.Path, page, fmt.Sprintf("N%d", page))
					if !ok {
						t.Errorf("page %d: no number", page)
						continue
					}
					wantPlaced(t, w, pos, 0.08)
				}
			})
		}
	}
}

func TestPageNumbersBadParams(t *testing.T) {
	file := fourPagesPDF(t)
	testStampBadParams(t, "page-numbers", file, []stampBadParams{
		{"format without n", map[string]string{"format": "Page"}, "format"},
		{"format with only total", map[string]string{"format": "{total}"}, "format"},
		{"format without glyphs", map[string]string{"format": "第{n}页"}, "format"},
		{"format too long", map[string]string{"format": "{n}" + strings.Repeat("x", 100)}, "format"},
		{"negative start", map[string]string{"start": "-1"}, "start"},
		{"start not a number", map[string]string{"start": "one"}, "start"},
		{"font size", map[string]string{"font_size": "100"}, "font_size"},
		{"center is no footer", map[string]string{"position": "center"}, "position"},
		{"page past the end", map[string]string{"pages": "3-5"}, "pages"},
		{"open range past the end", map[string]string{"pages": "7-"}, "pages"},
		{"unknown param", map[string]string{"text": "x"}, "text"},
	})
}

func TestStampDeclarations(t *testing.T) {
	tests := []struct {
		slug     string
		params   []string
		defaults map[string]string
	}{
		{"watermark-pdf", []string{"text", "opacity", "rotation", "font_size", "color", "position", "layer", "pages"},
			map[string]string{"text": "x", "opacity": "0.3", "rotation": "45", "color": "#808080", "position": "center", "layer": "over", "pages": "all"}},
		{"page-numbers", []string{"position", "start", "format", "font_size", "pages"},
			map[string]string{"position": "bottom-center", "start": "1", "format": "{n}", "font_size": "12", "pages": "all"}},
	}
	for _, tt := range tests {
		t.Run(tt.slug, func(t *testing.T) {
			tl := tool(t, tt.slug)
			wantPDFTool(t, tl, 1, 1)
			var names []string
			for _, p := range tl.Params {
				names = append(names, p.Name)
				if p.Description == "" {
					t.Errorf("param %s has no description", p.Name)
				}
			}
			if fmt.Sprint(names) != fmt.Sprint(tt.params) {
				t.Errorf("params = %v, want %v", names, tt.params)
			}
			raw := map[string]string{}
			if tt.slug == "watermark-pdf" {
				raw["text"] = "x"
			}
			got, err := tl.ParseParams(raw)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(map[string]string(got)) != fmt.Sprint(tt.defaults) {
				t.Errorf("defaults = %v, want %v", got, tt.defaults)
			}
		})
	}
	_ = docmill.NewRegistry(tool(t, "watermark-pdf"), tool(t, "page-numbers"))
}
