package pdfops_test

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	"github.com/docmill/docmill/tools/toolstest"
)

// Helpers of the split and page tools' tests (split-pdf, extract-pages,
// remove-pages, organize-pdf). Outputs are checked with poppler's pdfinfo
// and pdftotext, programs independent of pdfcpu: page count, the text of
// each page (which tells the input's pages apart, so it checks their
// order) and each page's rotation and crop box.

// selPoppler skips t when poppler's tools are missing.
func selPoppler(t testing.TB) {
	t.Helper()
	for _, name := range []string{"pdfinfo", "pdftotext"} {
		toolstest.Need(t, name)
	}
}

func selExec(t testing.TB, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).Output()
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	return string(out)
}

var selPagesRE = regexp.MustCompile(`(?m)^Pages:\s+(\d+)$`)

// selPageCount returns the page count pdfinfo reads from path.
func selPageCount(t testing.TB, path string) int {
	t.Helper()
	m := selPagesRE.FindStringSubmatch(selExec(t, "pdfinfo", path))
	if m == nil {
		t.Fatalf("pdfinfo %s: no page count", path)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// selPageLook is what pdfinfo and pdftotext see of one page.
type selPageLook struct {
	text   string
	rotate string // "90"
	crop   string // "10.00 10.00 190.00 290.00"
}

var selBoxRE = regexp.MustCompile(`(?m)^Page\s+(\d+)\s+(rot|CropBox):\s+(.*)$`)

// selLooks returns every page of path as pdfinfo and pdftotext see it.
// pdftotext separates pages with form feeds, so one run gives the text
// of each page, as `pdftotext -f N -l N` would.
func selLooks(t testing.TB, path string) []selPageLook {
	t.Helper()
	n := selPageCount(t, path)
	texts := strings.Split(selExec(t, "pdftotext", "-layout", path, "-"), "\f")
	if len(texts) < n {
		t.Fatalf("pdftotext %s: %d pages of text, pdfinfo says %d", path, len(texts), n)
	}
	looks := make([]selPageLook, n)
	for i := range looks {
		looks[i].text = strings.TrimSpace(texts[i])
	}
	info := selExec(t, "pdfinfo", "-box", "-f", "1", "-l", strconv.Itoa(n), path)
	for _, m := range selBoxRE.FindAllStringSubmatch(info, -1) {
		i, _ := strconv.Atoi(m[1])
		if m[2] == "rot" {
			looks[i-1].rotate = strings.TrimSpace(m[3])
		} else {
			looks[i-1].crop = strings.Join(strings.Fields(m[3]), " ")
		}
	}
	return looks
}

var selInputLooks sync.Map // path -> []selPageLook

// selWantPages checks that out holds exactly the pages want of in, in that
// order (1-based, repeats allowed), each with its text, rotation and crop
// box unchanged.
func selWantPages(t testing.TB, out, in string, want []int) {
	t.Helper()
	cached, ok := selInputLooks.Load(in)
	if !ok {
		cached, _ = selInputLooks.LoadOrStore(in, selLooks(t, in))
	}
	inLooks := cached.([]selPageLook)
	got := selLooks(t, out)
	if len(got) != len(want) {
		t.Fatalf("%s has %d pages, want %d (%v)", filepath.Base(out), len(got), len(want), want)
	}
	for i, p := range want {
		if got[i] != inLooks[p-1] {
			t.Errorf("%s page %d is not input page %d:\n got %.80q rot %s crop %s\nwant %.80q rot %s crop %s",
				filepath.Base(out), i+1, p, got[i].text, got[i].rotate, got[i].crop,
				inLooks[p-1].text, inLooks[p-1].rotate, inLooks[p-1].crop)
		}
	}
}

// selDistinctPages fails t unless the pages of path look different, so
// that selWantPages can tell them apart.
func selDistinctPages(t testing.TB, path string) {
	t.Helper()
	looks := selLooks(t, path)
	for i := range looks {
		if i > 0 && slices.Contains(looks[:i], looks[i]) {
			t.Fatalf("%s: page %d looks like an earlier page; the test cannot check order", path, i+1)
		}
	}
}

// selSeq returns from..to.
func selSeq(from, to int) []int {
	var out []int
	for p := from; p <= to; p++ {
		out = append(out, p)
	}
	return out
}

// selAnnots returns the number of annotations on each page of path, and
// whether it has an interactive form, as pdfcpu reads them back.
func selAnnots(t testing.TB, path string) ([]int, bool) {
	t.Helper()
	doc, err := api.ReadContextFile(path)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	out := make([]int, doc.PageCount)
	for i := range out {
		d, _, _, err := doc.PageDict(i+1, false)
		if err != nil {
			t.Fatal(err)
		}
		if o, found := d.Find("Annots"); found {
			a, err := doc.DereferenceArray(o)
			if err != nil {
				t.Fatal(err)
			}
			out[i] = len(a)
		}
	}
	return out, doc.Form != nil
}

// selDests returns how many named destinations path has, and how many of
// them point at something other than one of its pages.
func selDests(t testing.TB, path string) (total, dangling int) {
	t.Helper()
	doc, err := api.ReadContextFile(path)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	pages := map[int]bool{}
	for i := 1; i <= doc.PageCount; i++ {
		_, ref, _, err := doc.PageDict(i, false)
		if err != nil {
			t.Fatal(err)
		}
		pages[ref.ObjectNumber.Value()] = true
	}
	if err := doc.LocateNameTree("Dests", false); err != nil || doc.Names["Dests"] == nil {
		return 0, 0
	}
	err = doc.Names["Dests"].Process(doc.XRefTable, func(xt *model.XRefTable, _ string, v *types.Object) error {
		total++
		o, _ := xt.Dereference(*v)
		if d, ok := o.(types.Dict); ok {
			o, _ = xt.Dereference(d["D"])
		}
		if a, ok := o.(types.Array); ok && len(a) > 0 {
			if ref, ok := a[0].(types.IndirectRef); ok && pages[ref.ObjectNumber.Value()] {
				return nil
			}
		}
		dangling++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return total, dangling
}

// selBadInputs returns badInputs with a PNG image named .pdf.
func selBadInputs(t *testing.T) map[string]string {
	t.Helper()
	bad := badInputs(t)
	dir := t.TempDir()

	var img bytes.Buffer
	if err := png.Encode(&img, image.NewGray(image.Rect(0, 0, 8, 8))); err != nil {
		t.Fatal(err)
	}
	bad["png"] = filepath.Join(dir, "image.pdf")
	if err := os.WriteFile(bad["png"], img.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return bad
}

// selPDF writes name, a PDF of pages whose text is "Page N", with a flat
// page tree. pagesAttrs goes into the tree's root, pageAttrs[i] into page
// i+1, so a test can give pages inherited or own rotations and crop boxes.
func selPDF(t testing.TB, name, pagesAttrs string, pageAttrs ...string) string {
	t.Helper()
	n := len(pageAttrs)
	objects := []string{"<< /Type /Catalog /Pages 2 0 R >>"}
	var kids strings.Builder
	for i := range n {
		fmt.Fprintf(&kids, "%d 0 R ", i+4)
	}
	objects = append(objects, fmt.Sprintf("<< /Type /Pages /Count %d /Kids [%s] /Resources << /Font << /F1 3 0 R >> >> %s >>", n, kids.String(), pagesAttrs))
	objects = append(objects, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
	for i, attrs := range pageAttrs {
		objects = append(objects, fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 300] /Contents %d 0 R %s >>", 4+n+i, attrs))
	}
	for i := range n {
		s := fmt.Sprintf("BT /F1 12 Tf 30 150 Td (Page %d) Tj ET", i+1)
		objects = append(objects, fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(s), s))
	}
	return toolstest.WriteTemp(t, name, toolstest.PDF(objects...))
}

// selFlatPDF writes flat.pdf: 200 pages in one flat page tree, which the
// page tools rebuild, with an inherited rotation and crop box that every
// seventh page overrides.
func selFlatPDF(t testing.TB) string {
	t.Helper()
	attrs := make([]string, 200)
	for i := 0; i < len(attrs); i += 7 {
		attrs[i] = "/Rotate 180 /CropBox [0 0 150 150]"
	}
	return selPDF(t, "flat.pdf", "/Rotate 90 /CropBox [10 10 190 290]", attrs...)
}
