package pdfops

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/toolstest"
)

// rawPDF writes a PDF whose objects 1, 2, ... are objects, object 1
// being the catalog.
func rawPDF(t *testing.T, objects ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "raw.pdf")
	if err := os.WriteFile(p, toolstest.PDF(objects...), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// flatTreePDF writes a PDF of n pages in one flat page tree whose root
// sets the media box and a rotation of 90. Page i carries /Marker i, and
// page 5 sets its own rotation of 0.
func flatTreePDF(t *testing.T, n int) string {
	t.Helper()
	var kids strings.Builder
	for i := range n {
		fmt.Fprintf(&kids, "%d 0 R ", i+3)
	}
	objects := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		fmt.Sprintf("<< /Type /Pages /Count %d /Kids [%s] /MediaBox [0 0 100 200] /Rotate 90 >>", n, kids.String()),
	}
	for i := range n {
		own := ""
		if i+1 == 5 {
			own = "/Rotate 0"
		}
		objects = append(objects, fmt.Sprintf("<< /Type /Page /Parent 2 0 R /Marker %d %s >>", i+1, own))
	}
	return rawPDF(t, objects...)
}

func TestPreparePageTree(t *testing.T) {
	for _, n := range []int{3, flatPageTree + 1, 1000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			doc, err := readDocument(context.Background(), newBudget(docmill.DefaultLimits()), docmill.LocalFile{Path: flatTreePDF(t, n)}, newConfig(model.COLLECT), "The file")
			if err != nil {
				t.Fatal(err)
			}
			preparePageTree(doc)
			root, err := doc.Pages()
			if err != nil {
				t.Fatal(err)
			}
			rootDict, err := doc.DereferenceDict(*root)
			if err != nil {
				t.Fatal(err)
			}
			kids := rootDict.ArrayEntry("Kids")
			rebuilt := n > flatPageTree
			if rebuilt && len(kids) > pageTreeFanout {
				t.Errorf("root has %d kids after rebuilding", len(kids))
			}
			if !rebuilt && len(kids) != n {
				t.Errorf("a small tree was rebuilt: root has %d kids", len(kids))
			}
			if c := rootDict.IntEntry("Count"); c == nil || *c != n {
				t.Errorf("root /Count = %v, want %d", c, n)
			}
			for p := 1; p <= n; p++ {
				d, _, inh, err := doc.PageDict(p, false)
				if err != nil {
					t.Fatalf("page %d: %v", p, err)
				}
				if m := d.IntEntry("Marker"); m == nil || *m != p {
					t.Fatalf("page %d is marked %v", p, m)
				}
				wantRotate := 90
				if p == 5 {
					wantRotate = 0
				}
				if inh.Rotate != wantRotate || d["Rotate"] == nil {
					t.Errorf("page %d: rotation %d (own %v), want %d", p, inh.Rotate, d["Rotate"], wantRotate)
				}
				if _, ok := d["MediaBox"].(types.Array); !ok {
					t.Errorf("page %d: media box not pushed into the page", p)
				}
			}
		})
	}
}
