package pdfops

import (
	"bytes"
	"context"
	"strconv"
	"testing"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"

	"github.com/docmill/docmill/tools/toolstest"
)

// TestReadOutlineLoops reads looping outlines without pdfcpu's
// validation, which repairs some loops first: readOutline itself must
// end, listing each item once.
func TestReadOutlineLoops(t *testing.T) {
	for name, items := range map[string][]string{
		"next-cycle": {
			"<< /Title (A) /Parent 4 0 R /Next 6 0 R /Dest [3 0 R /Fit] >>",
			"<< /Title (B) /Parent 4 0 R /Next 5 0 R /Dest [3 0 R /Fit] >>",
		},
		"first-up": {
			"<< /Title (A) /Parent 4 0 R /First 5 0 R /Next 6 0 R /Dest [3 0 R /Fit] >>",
			"<< /Title (B) /Parent 5 0 R /First 4 0 R /Dest [3 0 R /Fit] >>",
		},
	} {
		t.Run(name, func(t *testing.T) {
			objs := append([]string{"<< /Type /Catalog /Pages 2 0 R /Outlines 4 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
				"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>", "<< /Type /Outlines /First 5 0 R /Last 6 0 R >>"}, items...)
			doc, err := pdfcpu.ReadWithContext(context.Background(), bytes.NewReader(toolstest.PDF(objs...)), newConfig(model.LISTBOOKMARKS))
			if err != nil {
				t.Fatal(err)
			}
			if err := doc.EnsurePageCount(); err != nil {
				t.Fatal(err)
			}
			entries, err := readOutline(doc)
			if err != nil {
				t.Fatal(err)
			}
			if n := countEntries(entries); n != 2 {
				t.Fatalf("%d entries: %+v", n, entries)
			}
			if p := entries[0].Page; p == nil || *p != 1 {
				t.Fatalf("first entry's page %v", p)
			}
		})
	}
}

// TestReadOutlineTooDeep refuses an outline nested past maxOutlineDepth.
func TestReadOutlineTooDeep(t *testing.T) {
	objs := []string{"<< /Type /Catalog /Pages 2 0 R /Outlines 4 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>", "<< /Type /Outlines /First 5 0 R /Last 5 0 R >>"}
	for i := range maxOutlineDepth + 1 {
		objs = append(objs, "<< /Title (x) /First "+strconv.Itoa(i+6)+" 0 R >>")
	}
	objs = append(objs, "<< /Title (leaf) >>")
	doc, err := pdfcpu.ReadWithContext(context.Background(), bytes.NewReader(toolstest.PDF(objs...)), newConfig(model.LISTBOOKMARKS))
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.EnsurePageCount(); err != nil {
		t.Fatal(err)
	}
	if _, err := readOutline(doc); err == nil {
		t.Fatal("an outline 34 levels deep was read")
	}
}
