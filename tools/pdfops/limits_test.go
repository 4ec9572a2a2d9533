package pdfops_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/formvalues"
	"github.com/docmill/docmill/tools/pdfops"
)

// stepParams are the params each pdfcpu step that reads a document
// is given by the tools that take it; the step must refuse the document
// before it looks at them.
var stepParams = map[string]docmill.Params{
	"select-pages":          {},
	"write-bookmarks":       {"bookmarks": `[]`},
	"fill-pdf-form-values":  {formvalues.Param: `{"Name": "Jane Roe"}`},
	"flatten-restore-links": {},
	"set-crop-box":          {"margins": "10,10,10,10"},
	"redact-pages":          {},
	"compare-report":        {},
	"mark-pdfua":            {"lang": "en"},
}

// requiredParams are values for the params some tools require, where
// the declaration gives no example.
var requiredParams = map[string]string{
	"bookmarks":      `[]`,
	formvalues.Param: `{"Name": "Jane Roe"}`,
	"password":       "secret",
	"text":           "DRAFT",
}

// runAnyLimited runs tl on files (each sent as the content type its
// position takes) with its required params and limits l.
func runAnyLimited(t *testing.T, tl *docmill.Tool, l docmill.Limits, files ...string) (*docmill.RunOutput, error) {
	t.Helper()
	params := map[string]string{}
	for _, p := range tl.Params {
		if !p.Required {
			continue
		}
		if v, ok := requiredParams[p.Name]; ok {
			params[p.Name] = v
		} else {
			params[p.Name] = p.Example
		}
	}
	contentType := func(i int) string {
		for _, other := range []string{"application/json", pdfops.PKCS12ContentType, "image/png"} {
			if i > 0 && slices.Contains(tl.Accepts, other) {
				return other
			}
		}
		return tl.Accepts[0]
	}
	return runWithin(t, tl, params, l, contentType, files...)
}

// runWithin validates params as the API does, failing t if they are
// refused, and runs tl on paths, the i-th sent as contentType(i), with
// limits.
func runWithin(t testing.TB, tl *docmill.Tool, params map[string]string, limits docmill.Limits, contentType func(int) string, paths ...string) (*docmill.RunOutput, error) {
	t.Helper()
	p, err := tl.ParseParams(params)
	if err != nil {
		t.Fatalf("ParseParams(%v): %v", params, err)
	}
	in := &docmill.RunInput{Params: p, WorkDir: t.TempDir(), Limits: limits}
	for i, path := range paths {
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		in.Files = append(in.Files, docmill.LocalFile{Path: path, Filename: filepath.Base(path), ContentType: contentType(i), Size: st.Size()})
	}
	return tl.Invoke(context.Background(), in)
}

// TestEveryToolAndStepTakesItsRunsLimits runs every pdfcpu tool and step
// with a PDF size limit of 10 bytes: each refuses its input as too large,
// the steps too (fill-pdf-form's and flatten-pdf's once read it within
// the default limits whatever the run's were).
func TestEveryToolAndStepTakesItsRunsLimits(t *testing.T) {
	pdf := onePagePDF(t)
	plan := filepath.Join(t.TempDir(), "plan.json")
	if err := os.WriteFile(plan, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tl := range append(pdfops.Tools(), pdfops.SignTool()) {
		t.Run(tl.Slug, func(t *testing.T) {
			files := []string{pdf, pdf} // insert-pages inserts a PDF
			if tl.MaxFiles < 2 {
				files = files[:1]
			}
			out, err := runAnyLimited(t, tl, docmill.Limits{PDFBytes: 10}, files...)
			wantRefused(t, out, err, docmill.CodeFileTooLarge, "up to 1 MB")
		})
	}
	ran := 0
	for _, st := range pdfops.Steps() {
		params, ok := stepParams[st.Name]
		if !ok {
			continue // the stream check and inspect read no document whole
		}
		ran++
		t.Run(st.Name, func(t *testing.T) {
			files := []docmill.LocalFile{{Path: pdf, Filename: "in.pdf", ContentType: "application/pdf"}}
			for len(files) < st.MinFiles {
				files = append(files, docmill.LocalFile{Path: pdf, Filename: "in.pdf", ContentType: "application/pdf"})
			}
			if st.Name == "compare-report" {
				files[2] = docmill.LocalFile{Path: plan, Filename: "plan.json", ContentType: "application/json"}
			}
			for i := range files {
				st, err := os.Stat(files[i].Path)
				if err != nil {
					t.Fatal(err)
				}
				files[i].Size = st.Size()
			}
			in := &docmill.RunInput{Files: files, Params: params, WorkDir: t.TempDir(), Limits: docmill.Limits{PDFBytes: 10}}
			out, err := st.Invoke(context.Background(), in)
			wantRefused(t, out, err, docmill.CodeFileTooLarge, "up to 1 MB")
		})
	}
	if ran != len(stepParams) {
		t.Errorf("ran %d steps, want the %d of stepParams", ran, len(stepParams))
	}
}

// TestMergeCapsPagesByLimits checks that merge-pdf holds its result to
// Limits.PDFPages, not to the default.
func TestMergeCapsPagesByLimits(t *testing.T) {
	four := fourPagesPDF(t)
	out, err := runLimited(t, "merge-pdf", nil, docmill.Limits{PDFPages: 6}, four, four)
	wantRefused(t, out, err, docmill.CodeInvalidDocument, "would have 8 pages", "up to 6 pages")
	if _, err := runLimited(t, "merge-pdf", nil, docmill.Limits{PDFPages: 8}, four, four); err != nil {
		t.Fatalf("a merge of 8 pages within a limit of 8: %v", err)
	}
}

// TestOrganizeCapsPagesByLimits checks that organize-pdf holds a result
// longer than its input (pages repeated) to Limits.PDFPages.
func TestOrganizeCapsPagesByLimits(t *testing.T) {
	out, err := runLimited(t, "organize-pdf", map[string]string{"order": "1-4,1-4"}, docmill.Limits{PDFPages: 6}, fourPagesPDF(t))
	wantRefused(t, out, err, docmill.CodeInvalidParameter, "lists 8 pages", "up to 6 pages")
}
