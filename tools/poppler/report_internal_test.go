package poppler

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestSizeGroups(t *testing.T) {
	a4, letter := pageSize{w: 595.276, h: 841.89}, pageSize{w: 612, h: 792}
	sizes := map[int]pageSize{1: a4, 2: a4, 3: a4, 4: letter, 5: a4, 7: a4, 6: {w: 595.276, h: 841.89, rot: 90}}
	got, omitted := sizeGroups(sizes)
	want := []reportSize{{210, 297, 0, "1-3,5,7"}, {215.9, 279.4, 0, "4"}, {210, 297, 90, "6"}}
	if omitted != 0 || len(got) != len(want) {
		t.Fatalf("groups %+v, omitted %d", got, omitted)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("group %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	many := map[int]pageSize{}
	for p := 1; p <= maxSizeGroups+20; p++ {
		many[p] = pageSize{w: float64(100 + p), h: 100}
	}
	if got, omitted := sizeGroups(many); len(got) != maxSizeGroups || omitted != 20 {
		t.Errorf("%d groups, %d omitted", len(got), omitted)
	}
}

func TestReportTables(t *testing.T) {
	r := newReport()
	r.addFonts([]byte(`name                                 type              encoding         emb sub uni object ID
------------------------------------ ----------------- ---------------- --- --- --- ---------
YUGTWE+CMR10                         Type 1            Builtin          yes yes yes     22  0
Times New Roman                      TrueType          WinAnsi          no  no  no      12  0
`))
	if len(r.Fonts) != 2 || r.Fonts[1] != (reportFont{Name: "Times New Roman", Type: "TrueType", Encoding: "WinAnsi"}) || !r.Fonts[0].Subset {
		t.Errorf("fonts %+v", r.Fonts)
	}
	r.addImages([]byte(`page   num  type   width height color comp bpc  enc interp  object ID x-ppi y-ppi size ratio
--------------------------------------------------------------------------------------------
   1     0 image    1024   768  rgb     3   8  jpeg   no        10  0   150   149  100K  10%
   1     1 smask    1024   768  gray    1   8  image  no        11  0   150   149  10K  1%
   2     2 image      16    16  icc     1   8  image  no         8  0   300   300   31B  12%
`))
	if r.Images.Count != 2 || r.Images.MinPPI != 149 || r.Images.MaxPPI != 300 || r.Images.List[0].Encoding != "jpeg" {
		t.Errorf("images %+v", r.Images)
	}
	var rows strings.Builder
	rows.WriteString("name type encoding emb sub uni object ID\n---- ---- ---- --- --- --- ---\n")
	for range maxReportFonts + 5 {
		rows.WriteString("F    T    E    yes yes yes 1 0\n")
	}
	r = newReport()
	r.addFonts([]byte(rows.String()))
	if len(r.Fonts) != maxReportFonts || r.FontsOmitted != 5 {
		t.Errorf("%d fonts, %d omitted", len(r.Fonts), r.FontsOmitted)
	}
}

func TestReportProblemsAndStructure(t *testing.T) {
	r := newReport()
	r.problem("qpdf", "WARNING: /tmp/job-1/in.pdf (offset 9999): xref not found\n")
	r.problem("qpdf", strings.Repeat("x", 1000))
	if r.Problems.QPDF[0] != "WARNING: the file (offset 9999): xref not found" || len([]rune(r.Problems.QPDF[1])) != maxProblemLength+1 {
		t.Errorf("problems %q", r.Problems.QPDF)
	}
	var meta map[string]any
	d := json.NewDecoder(strings.NewReader(`{"read":true,"pages":3,"form_fields":2,"signatures":1,"pdfa":"2B","problems":["bad"]}`))
	d.UseNumber()
	if err := d.Decode(&meta); err != nil {
		t.Fatal(err)
	}
	r.addStructure(meta)
	if !r.readByPDFCPU || r.Pages.Count != 3 || r.FormFields != 2 || r.Signatures != 1 || r.PDFA != "2B" || r.Problems.PDFCPU[0] != "bad" {
		t.Errorf("report %+v", r)
	}
}
