package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/tools/toolstest"
)

// infoReport is the part of pdf-info's report the test reads.
type infoReport struct {
	PDFVersion string `json:"pdf_version"`
	Pages      struct {
		Count int `json:"count"`
		Sizes []struct {
			WidthMM  float64 `json:"width_mm"`
			HeightMM float64 `json:"height_mm"`
			Pages    string  `json:"pages"`
		} `json:"sizes"`
	} `json:"pages"`
	Metadata   map[string]string `json:"metadata"`
	Encryption struct {
		Encrypted        bool            `json:"encrypted"`
		PasswordRequired bool            `json:"password_required"`
		Method           string          `json:"method"`
		Permissions      map[string]bool `json:"permissions"`
	} `json:"encryption"`
	Fonts []struct {
		Name     string `json:"name"`
		Embedded bool   `json:"embedded"`
	} `json:"fonts"`
	Images struct {
		Count  int `json:"count"`
		MinPPI int `json:"min_ppi"`
	} `json:"images"`
	FormFields int    `json:"form_fields"`
	PDFA       string `json:"pdfa"`
	Tagged     bool   `json:"tagged"`
	JavaScript bool   `json:"javascript"`
	Problems   struct {
		QPDF   []string `json:"qpdf"`
		PDFCPU []string `json:"pdfcpu"`
	} `json:"problems"`
}

// pdfInfo runs pdf-info on f and decodes its report.
func pdfInfo(t *testing.T, c *client.Client, f client.File) (*client.Job, infoReport, string) {
	t.Helper()
	j, data := runTool(t, c, "pdf-info", []client.File{f}, nil)
	if !strings.HasPrefix(j.Result.ContentType, "application/json") || !strings.HasSuffix(j.Result.Filename, "-info.json") {
		t.Fatalf("result %+v", j.Result)
	}
	var r infoReport
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	return j, r, string(data)
}

// popplerTable returns the rows of a poppler table (pdffonts, pdfimages
// -list) of path, split at spaces, after the dashes under its header.
func popplerTable(t *testing.T, path string, args ...string) [][]string {
	t.Helper()
	out, err := exec.Command(args[0], append(args[1:], path)...).Output()
	if err != nil {
		t.Fatalf("%s: %v", args[0], err)
	}
	_, body, _ := strings.Cut(string(out), "---\n")
	var rows [][]string
	for line := range strings.Lines(body) {
		rows = append(rows, strings.Fields(line))
	}
	return rows
}

// TestPDFInfoE2E checks pdf-info's reports on corpus files against what
// pdfinfo, pdffonts, pdfimages and qpdf say of them.
func TestPDFInfoE2E(t *testing.T) {
	t.Parallel()
	s := startServer(t, "")
	c := s.client(s.DevKey)
	t.Run("pages and metadata", func(t *testing.T) {
		for _, name := range []string{fourPages, "crazyones-pdfa.pdf", "with-attachment.pdf"} {
			_, r, _ := pdfInfo(t, c, file(t, "pdf", name))
			info := popplerInfo(t, toolstest.ReadCorpus(t, "pdf", name))
			if strconv.Itoa(r.Pages.Count) != info["Pages"] || r.PDFVersion != info["PDF version"] || r.Metadata["producer"] != info["Producer"] {
				t.Errorf("%s: pages %d, version %q, producer %q; pdfinfo reads %v", name, r.Pages.Count, r.PDFVersion, r.Metadata["producer"], info)
			}
			w, h, _ := strings.Cut(strings.Fields(info["Page size"])[0]+" "+strings.Fields(info["Page size"])[2], " ")
			wPt, _ := strconv.ParseFloat(w, 64)
			hPt, _ := strconv.ParseFloat(h, 64)
			if len(r.Pages.Sizes) != 1 || math.Abs(r.Pages.Sizes[0].WidthMM-wPt*25.4/72) > 0.1 || math.Abs(r.Pages.Sizes[0].HeightMM-hPt*25.4/72) > 0.1 {
				t.Errorf("%s: sizes %+v, pdfinfo reads %s", name, r.Pages.Sizes, info["Page size"])
			}
			if want := "1"; r.Pages.Count > 1 {
				want = "1-" + strconv.Itoa(r.Pages.Count)
				if r.Pages.Sizes[0].Pages != want {
					t.Errorf("%s: sizes %+v, want pages %s", name, r.Pages.Sizes, want)
				}
			}
		}
	})
	t.Run("pdfa", func(t *testing.T) {
		_, r, _ := pdfInfo(t, c, file(t, "pdf", "crazyones-pdfa.pdf"))
		xmp := qpdfXMP(t, toolstest.ReadCorpus(t, "pdf", "crazyones-pdfa.pdf"))
		if r.PDFA != "1B" || !strings.Contains(xmp, "pdfaid:part='1'") || !strings.Contains(xmp, "pdfaid:conformance='B'") {
			t.Errorf("pdfa %q; the XMP reads\n%s", r.PDFA, xmp)
		}
	})
	t.Run("forms and fonts", func(t *testing.T) {
		_, r, _ := pdfInfo(t, c, file(t, "pdf", formsPDF))
		if want := len(qpdfFields(t, corpus(t, "pdf", formsPDF))); r.FormFields != want || want == 0 {
			t.Errorf("form fields %d, qpdf reads %d", r.FormFields, want)
		}
		var got, want []string
		for _, f := range r.Fonts {
			got = append(got, f.Name+" "+strconv.FormatBool(f.Embedded))
		}
		for _, row := range popplerTable(t, corpus(t, "pdf", formsPDF), "pdffonts") {
			want = append(want, row[0]+" "+strconv.FormatBool(row[len(row)-5] == "yes"))
		}
		if len(want) == 0 || !slices.Equal(got, want) {
			t.Errorf("fonts %v, pdffonts reads %v", got, want)
		}
	})
	t.Run("images", func(t *testing.T) {
		_, r, _ := pdfInfo(t, c, file(t, "pdf", "imagemagick-images.pdf"))
		n, minPPI := 0, math.MaxInt
		for _, row := range popplerTable(t, corpus(t, "pdf", "imagemagick-images.pdf"), "pdfimages", "-list") {
			if row[2] == "image" {
				x, _ := strconv.Atoi(row[12])
				y, _ := strconv.Atoi(row[13])
				n, minPPI = n+1, min(minPPI, x, y)
			}
		}
		if r.Images.Count != n || n == 0 || r.Images.MinPPI != minPPI {
			t.Errorf("images %+v, pdfimages lists %d at %d ppi", r.Images, n, minPPI)
		}
	})
	t.Run("encrypted", func(t *testing.T) {
		// No user password: refused, naming the cause.
		_, _, err := c.Process(context.Background(), "pdf-info", []client.File{file(t, "pdf", "libreoffice-writer-password.pdf")}, client.ProcessOptions{})
		apiErrorDetail(t, err, 400, "invalid_document", "password")
		// An owner password only: read, with its permissions as qpdf sees them.
		owner := exec.Command("qpdf", "--encrypt", "", "owner", "256", "--print=none", "--modify=none", "--", corpus(t, "pdf", fourPages), "-")
		enc, err := owner.Output()
		if err != nil {
			t.Fatal(err)
		}
		_, r, _ := pdfInfo(t, c, client.File{Name: "owner.pdf", Body: bytes.NewReader(enc)})
		if !r.Encryption.Encrypted || r.Encryption.PasswordRequired || r.Encryption.Method != "AES-256" || r.Pages.Count != 4 ||
			r.Encryption.Permissions["print"] || r.Encryption.Permissions["modify"] || !r.Encryption.Permissions["copy"] {
			t.Errorf("encryption %+v, pages %d", r.Encryption, r.Pages.Count)
		}
	})
	t.Run("active and tagged", func(t *testing.T) {
		active := toolstest.ActivePDF()
		_, r, _ := pdfInfo(t, c, client.File{Name: "active.pdf", Body: bytes.NewReader(active)})
		info := popplerInfo(t, active)
		if !r.JavaScript || info["JavaScript"] != "yes" || r.FormFields != 1 || r.Pages.Count != 2 || r.Metadata["title"] != "Active" || r.Tagged {
			t.Errorf("report %+v; pdfinfo reads %v", r, info)
		}
		tagged := toolstest.PDF(
			"<< /Type /Catalog /Pages 2 0 R /MarkInfo << /Marked true >> /StructTreeRoot 4 0 R >>",
			"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
			"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>",
			"<< /Type /StructTreeRoot >>")
		_, r, raw := pdfInfo(t, c, client.File{Name: "tagged.pdf", Body: bytes.NewReader(tagged)})
		if info := popplerInfo(t, tagged); !r.Tagged || info["Tagged"] != "yes" || r.JavaScript || info["JavaScript"] != "no" {
			t.Errorf("report %s; pdfinfo reads %v", raw, info)
		}
	})
	t.Run("damaged", func(t *testing.T) {
		// A wrong startxref: qpdf and poppler rebuild the cross-reference
		// table, and the report says so without a path.
		active := toolstest.ActivePDF()
		broken := append(active[:bytes.LastIndex(active, []byte("startxref"))], "startxref\n9999\n%%EOF\n"...)
		j, r, raw := pdfInfo(t, c, client.File{Name: "broken.pdf", Body: bytes.NewReader(broken)})
		if len(r.Problems.QPDF) == 0 || j.Meta["problems"] == float64(0) || r.Pages.Count != 2 {
			t.Errorf("report: %s", raw)
		}
		if strings.Contains(raw, "/tmp") || strings.Contains(raw, "broken.pdf") || strings.Contains(raw, "/work") {
			t.Errorf("the report shows a path:\n%s", raw)
		}
		// Beyond any engine's reading: refused.
		whole := toolstest.ReadCorpus(t, "pdf", "google-doc-document.pdf")
		_, _, err := c.Process(context.Background(), "pdf-info", []client.File{{Name: "cut.pdf", Body: bytes.NewReader(whole[:len(whole)*7/10])}}, client.ProcessOptions{})
		apiError(t, err, 400, "invalid_document")
	})
}
