package pdfops_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/pdfops"
	"github.com/docmill/docmill/tools/toolstest"
)

func TestPageToolsDeclarations(t *testing.T) {
	tests := []struct {
		slug     string
		param    string
		required bool
	}{
		{"split-pdf", "ranges", false},
		{"extract-pages", "pages", true},
		{"remove-pages", "pages", true},
		{"organize-pdf", "order", true},
	}
	for _, tt := range tests {
		t.Run(tt.slug, func(t *testing.T) {
			tl := tool(t, tt.slug)
			wantPDFTool(t, tl, 1, 1)
			p, ok := tl.Param(tt.param)
			if !ok || p.Type != docmill.TypePages || p.Required != tt.required || p.Default != "" || p.Description == "" {
				t.Errorf("param %s = %+v", tt.param, p)
			}
			if _, err := tl.ParseParams(nil); (err != nil) != tt.required {
				t.Errorf("ParseParams(nil) = %v, want an error: %v", err, tt.required)
			}
		})
	}
	every, ok := tool(t, "split-pdf").Param("every")
	if !ok || every.Type != docmill.TypeInteger || every.Default != "" || every.Required ||
		every.Min == nil || *every.Min != 1 || every.Max == nil || *every.Max != pdfops.MaxPages {
		t.Errorf("every = %+v", every)
	}
}

func TestPageTools(t *testing.T) {
	selPoppler(t)
	four := fourPagesPDF(t)
	rotated := optionalPDF("habibi-rotated.pdf") // pages at 90, 180, 270, 0
	long := optionalPDF("GeoTopo-komprimiert.pdf")
	inherited := selPDF(t, "inherited.pdf", "/Rotate -90 /CropBox [10 10 190 290]", "", "/Rotate 180", "/CropBox [0 0 100 100]")
	flat := selFlatPDF(t)
	for _, f := range []string{four, inherited, flat} {
		selDistinctPages(t, f)
	}
	tests := []struct {
		slug, sel string
		file      string
		want      []int
		filename  string
	}{
		{"extract-pages", "2,4", four, []int{2, 4}, "four-pages-extracted.pdf"},
		{"extract-pages", "4,2", four, []int{2, 4}, ""},
		{"extract-pages", "1-2,2-3,2", four, []int{1, 2, 3}, ""},
		{"extract-pages", "3-", four, []int{3, 4}, ""},
		{"extract-pages", "-2", four, []int{1, 2}, ""},
		{"extract-pages", "all", four, []int{1, 2, 3, 4}, ""},
		{"extract-pages", "4,1", rotated, []int{1, 4}, "habibi-rotated-extracted.pdf"},
		{"extract-pages", "100-,1", long, append([]int{1}, selSeq(100, 117)...), ""},
		{"extract-pages", "3,1", inherited, []int{1, 3}, ""},
		{"remove-pages", "2", four, []int{1, 3, 4}, "four-pages-removed.pdf"},
		{"remove-pages", "1,1,4", four, []int{2, 3}, ""},
		{"remove-pages", "2-", four, []int{1}, ""},
		{"remove-pages", "-3", four, []int{4}, ""},
		{"remove-pages", "2-3", rotated, []int{1, 4}, ""},
		{"remove-pages", "2-116", long, []int{1, 117}, ""},
		{"remove-pages", "2", inherited, []int{1, 3}, ""},
		{"organize-pdf", "3,1,2,4-", four, []int{3, 1, 2, 4}, "four-pages-organized.pdf"},
		{"organize-pdf", "4-,1", four, []int{4, 1}, ""},
		{"organize-pdf", "1,1,2,2", four, []int{1, 1, 2, 2}, ""},
		{"organize-pdf", "2-,1", four, []int{2, 3, 4, 1}, ""},
		{"organize-pdf", "all", four, []int{1, 2, 3, 4}, ""},
		{"organize-pdf", "4,3,2,1", rotated, []int{4, 3, 2, 1}, ""},
		{"organize-pdf", "117,1,58,58", long, []int{117, 1, 58, 58}, ""},
		{"organize-pdf", "3,2,1,3", inherited, []int{3, 2, 1, 3}, ""},
		{"organize-pdf", "200,1,100-102,1", flat, []int{200, 1, 100, 101, 102, 1}, "flat-organized.pdf"},
		{"remove-pages", "2-199", flat, []int{1, 200}, ""},
		{"extract-pages", "64-66,8,1", flat, []int{1, 8, 64, 65, 66}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.slug+" "+filepath.Base(tt.file)+" "+tt.sel, func(t *testing.T) {
			skipWithoutCorpus(t, tt.file)
			t.Parallel()
			field := "pages"
			if tt.slug == "organize-pdf" {
				field = "order"
			}
			out, err := runValidated(t, tt.slug, map[string]string{field: tt.sel}, tt.file)
			if err != nil {
				t.Fatal(err)
			}
			if out.ContentType != "application/pdf" || (tt.filename != "" && out.Filename != tt.filename) {
				t.Errorf("output %q %q, want %q", out.Filename, out.ContentType, tt.filename)
			}
			if out.Meta["pages"] != len(tt.want) || out.Meta["input_pages"] != selPageCount(t, tt.file) {
				t.Errorf("meta = %v", out.Meta)
			}
			selWantPages(t, out.Path, tt.file, tt.want)
		})
	}
}

// TestPageToolsKeepAnnotations checks that annotations, form fields and
// the named destinations of kept pages come along.
func TestPageToolsKeepAnnotations(t *testing.T) {
	tests := []struct {
		slug, field, sel string
		file             string
		want             []int // input pages
		form             bool
	}{
		{"extract-pages", "pages", "1", "annotated_pdf.pdf", []int{1}, false},
		{"organize-pdf", "order", "1,1", "pdflatex-forms.pdf", []int{1, 1}, true},
		{"extract-pages", "pages", "11-20", "GeoTopo-komprimiert.pdf", selSeq(11, 20), false},
		{"remove-pages", "pages", "1-3", "GeoTopo-komprimiert.pdf", selSeq(4, 117), false},
		{"organize-pdf", "order", "50,4", "GeoTopo-komprimiert.pdf", []int{50, 4}, false},
	}
	for _, tt := range tests {
		t.Run(tt.slug+" "+tt.file, func(t *testing.T) {
			t.Parallel()
			inAnnots, inForm := selAnnots(t, pdfCorpus(t)+tt.file)
			out, err := runValidated(t, tt.slug, map[string]string{tt.field: tt.sel}, pdfCorpus(t)+tt.file)
			if err != nil {
				t.Fatal(err)
			}
			got, form := selAnnots(t, out.Path)
			var want []int
			for _, p := range tt.want {
				want = append(want, inAnnots[p-1])
			}
			if !slices.Equal(got, want) {
				t.Errorf("annotations per page = %v, want %v", got, want)
			}
			if form != (inForm && tt.form) {
				t.Errorf("form = %v, want %v", form, inForm && tt.form)
			}
			if _, dangling := selDests(t, out.Path); dangling > 0 {
				t.Errorf("%d named destinations point outside the document", dangling)
			}
		})
	}
	// GeoTopo's links go through named destinations; those of the kept
	// pages must survive.
	out, err := runValidated(t, "extract-pages", map[string]string{"pages": "1-20"}, pdfCorpus(t)+"GeoTopo-komprimiert.pdf")
	if err != nil {
		t.Fatal(err)
	}
	if total, _ := selDests(t, out.Path); total == 0 {
		t.Error("no named destinations kept")
	}
}

func TestPageToolsBadParams(t *testing.T) {
	four := fourPagesPDF(t)
	big := manyPagesPDF(t, pdfops.MaxPages/2+1)
	tests := []struct {
		slug, field, sel string
		file             string
		contains         []string
	}{
		{"extract-pages", "pages", "2,5", four, []string{`"pages"`, "page 5", "4 page"}},
		{"remove-pages", "pages", "9-", four, []string{"page 9", "4 page"}},
		{"organize-pdf", "order", "1,3-6", four, []string{`"order"`, "page 6", "4 page"}},
		{"remove-pages", "pages", "1-4", four, []string{"would remove every page"}},
		{"remove-pages", "pages", "all", four, []string{"would remove every page"}},
		{"remove-pages", "pages", "3-,1-2", four, []string{"would remove every page"}},
		{"remove-pages", "pages", "1", onePagePDF(t), []string{"would remove every page"}},
		{"organize-pdf", "order", "1-,1-", big, []string{"lists 10002 pages", "10000"}},
		{"extract-pages", "pages", "", four, []string{"required"}},
		{"organize-pdf", "order", "", four, []string{"required"}},
		{"remove-pages", "pages", "3-1", four, []string{"backwards"}},
		{"organize-pdf", "order", "0", four, []string{"page number"}},
		{"extract-pages", "pages", "a-b", four, []string{"page number"}},
	}
	for _, tt := range tests {
		t.Run(tt.slug+" "+tt.sel, func(t *testing.T) {
			t.Parallel()
			out, err := runValidated(t, tt.slug, map[string]string{tt.field: tt.sel}, tt.file)
			e := wantRefused(t, out, err, docmill.CodeInvalidParameter, tt.contains...)
			if len(e.Fields) != 1 || e.Fields[0].Field != tt.field {
				t.Errorf("fields = %v, want %s", e.Fields, tt.field)
			}
		})
	}
}

// TestPageToolsRequireSelection checks that a request with no selection
// is refused by the declaration rather than taking every page: the tools
// read the selection without checking that it is there (Run is reached
// only with params that passed ParseParams).
func TestPageToolsRequireSelection(t *testing.T) {
	for _, slug := range []string{"extract-pages", "remove-pages", "organize-pdf"} {
		_, err := tool(t, slug).ParseParams(map[string]string{})
		wantCode(t, err, docmill.CodeInvalidParameter, "required")
	}
}

// TestPageToolsBadInput runs every split and page tool on damaged,
// non-PDF and password-protected inputs: each must fail with
// invalid_document. (A file restricted by its owner but open to all is
// processed: TestEncryptionKept.)
func TestPageToolsBadInput(t *testing.T) {
	selPoppler(t)
	bad := selBadInputs(t)
	tools := []struct {
		slug   string
		params map[string]string
	}{
		{"split-pdf", nil},
		{"split-pdf", map[string]string{"ranges": "1,2"}},
		{"extract-pages", map[string]string{"pages": "1"}},
		{"remove-pages", map[string]string{"pages": "1"}},
		{"organize-pdf", map[string]string{"order": "1,1"}},
	}
	inputs := []struct {
		name     string
		contains []string
	}{
		{"text", []string{"The file", "not a PDF"}},
		{"empty", []string{"The file"}},
		{"truncated", []string{"damaged"}},
		{"header-only", nil},
		{"png", []string{"not a PDF"}},
		{"encrypted", []string{"The file is password-protected", "unlock-pdf"}},
	}
	for _, tl := range tools {
		for _, in := range inputs {
			t.Run(fmt.Sprint(tl.slug, tl.params, " ", in.name), func(t *testing.T) {
				t.Parallel()
				out, err := runValidated(t, tl.slug, tl.params, bad[in.name])
				wantRefused(t, out, err, docmill.CodeInvalidDocument, in.contains...)
			})
		}
	}
	for _, tl := range tools {
		_, err := runValidated(t, tl.slug, tl.params, sparseFile(t, pdfops.MaxInputBytes+1))
		wantCode(t, err, docmill.CodeFileTooLarge, "512 MB")
	}
}

func TestPageToolsCanceled(t *testing.T) {
	params := map[string]map[string]string{
		"split-pdf":     nil,
		"extract-pages": {"pages": "1"},
		"remove-pages":  {"pages": "1"},
		"organize-pdf":  {"order": "2,1"},
	}
	for slug, raw := range params {
		_, err := invoke(canceledContext(), t, slug, raw, "application/pdf", fourPagesPDF(t))
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: err = %v, want the context's error", slug, err)
		}
	}
}

// FuzzPageTools checks that no input makes organize-pdf or split-pdf panic
// or fail with anything but success, invalid_document or (for a document
// with fewer pages than the selection names) invalid_parameter. Run
// `go test -fuzz FuzzPageTools` to explore beyond the seeds.
func FuzzPageTools(f *testing.F) {
	for _, b := range corpusPDFs(f, "minimal-document.pdf", "habibi-rotated.pdf", "annotated_pdf.pdf", "pdflatex-forms.pdf") {
		f.Add(b, false)
		f.Add(b[:len(b)*3/4], true)
	}
	f.Fuzz(func(t *testing.T, b []byte, split bool) {
		p := toolstest.WriteTemp(t, "in.pdf", b)
		var err error
		if split {
			_, err = runValidated(t, "split-pdf", nil, p)
		} else {
			_, err = runValidated(t, "organize-pdf", map[string]string{"order": "2-,1,1"}, p)
		}
		switch code := docmill.ErrorCode(err); code {
		case "", docmill.CodeInvalidDocument, docmill.CodeInvalidParameter:
		default:
			t.Fatalf("error %v, want none, invalid_document or invalid_parameter", err)
		}
		var e *docmill.Error
		if errors.As(err, &e) && strings.Contains(e.Message, p) {
			t.Errorf("message %q leaks the path", e.Message)
		}
	})
}
