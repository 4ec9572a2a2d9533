package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"image"
	"os/exec"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/tools/toolstest"
)

// redactQDF returns data as qpdf rewrites it with every stream
// uncompressed and no object streams, so that a byte search sees all the
// text the file holds.
func redactQDF(t *testing.T, data []byte) []byte {
	t.Helper()
	out, err := exec.Command("qpdf", "--qdf", "--object-streams=disable", "--stream-data=uncompress", toolstest.WriteTemp(t, "r.pdf", data), "-").Output()
	if err != nil {
		t.Fatalf("qpdf --qdf: %v", err)
	}
	return out
}

// redactForms are the ways a PDF may hold s in its bytes: as it is, as
// UTF-16BE (text strings with a BOM), and in hex (<...> strings), upper
// and lower case.
func redactForms(s string) [][]byte {
	var u16 []byte
	for _, r := range utf16.Encode([]rune(s)) {
		u16 = append(u16, byte(r>>8), byte(r))
	}
	h := hex.EncodeToString([]byte(s))
	return [][]byte{[]byte(s), u16, []byte(h), []byte(strings.ToUpper(h)), []byte(hex.EncodeToString(u16))}
}

// redactWordBoxes returns the boxes, in points from the top left corner,
// of the words of page n of data that contain one of words, as poppler's
// pdftotext -bbox reads them; none fails t.
func redactWordBoxes(t *testing.T, data []byte, n int, words ...string) [][4]float64 {
	t.Helper()
	page := strconv.Itoa(n)
	out, err := exec.Command("pdftotext", "-bbox", "-f", page, "-l", page, toolstest.WriteTemp(t, "w.pdf", data), "-").Output()
	if err != nil {
		t.Fatalf("pdftotext -bbox: %v", err)
	}
	re := regexp.MustCompile(`<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)</word>`)
	var boxes [][4]float64
	for _, m := range re.FindAllStringSubmatch(string(out), -1) {
		for _, w := range words {
			if strings.Contains(m[5], w) {
				var box [4]float64
				for i := range box {
					box[i], _ = strconv.ParseFloat(m[i+1], 64)
				}
				boxes = append(boxes, box)
				break
			}
		}
	}
	if len(boxes) == 0 {
		t.Fatalf("page %d has no word with %q", n, words)
	}
	return boxes
}

// redactGray is the grey level, 0 to 255, of img at (x, y).
func redactGray(img image.Image, x, y int) int {
	r, g, b, _ := img.At(x, y).RGBA()
	return int((r + g + b) / 3 >> 8)
}

// redactCompare renders page n of before and after at 72 dpi (a pixel a
// point) and checks that after is black all over each box and, away from
// the boxes, the same picture as before. The redacted page was redrawn
// from a 150 dpi image, so its small text is antialiased differently
// pixel by pixel: the pictures are compared in blocks of 4 x 4 pixels,
// of which at most 2% may differ by more than a fifth of the grey scale.
func redactCompare(t *testing.T, before, after []byte, n int, boxes ...[4]float64) {
	t.Helper()
	a := toolstest.RenderPage(t, toolstest.WriteTemp(t, "before.pdf", before), n, 72, "-gray")
	b := toolstest.RenderPage(t, toolstest.WriteTemp(t, "after.pdf", after), n, 72, "-gray")
	if a.Bounds() != b.Bounds() {
		t.Fatalf("page %d: %v before, %v after", n, a.Bounds(), b.Bounds())
	}
	for _, bx := range boxes {
		for y := int(bx[1]) + 1; y < int(bx[3]); y++ {
			for x := int(bx[0]) + 1; x < int(bx[2]); x++ {
				if g := redactGray(b, x, y); g > 16 {
					t.Fatalf("page %d: (%d, %d) in the box %v is grey %d, want black", n, x, y, bx, g)
				}
			}
		}
	}
	const side, margin = 4, 4 // the black boxes are padded beyond the words'
	nearBox := func(x, y int) bool {
		for _, bx := range boxes {
			if float64(x+side) >= bx[0]-margin && float64(x) <= bx[2]+margin && float64(y+side) >= bx[1]-margin && float64(y) <= bx[3]+margin {
				return true
			}
		}
		return false
	}
	mean := func(img image.Image, x0, y0 int) int {
		sum := 0
		for y := y0; y < y0+side; y++ {
			for x := x0; x < x0+side; x++ {
				sum += redactGray(img, x, y)
			}
		}
		return sum / (side * side)
	}
	differ, blocks := 0, 0
	r := a.Bounds()
	for y := r.Min.Y; y+side <= r.Max.Y; y += side {
		for x := r.Min.X; x+side <= r.Max.X; x += side {
			if nearBox(x, y) {
				continue
			}
			blocks++
			if d := mean(a, x, y) - mean(b, x, y); d > 51 || d < -51 {
				differ++
			}
		}
	}
	if differ*50 > blocks {
		t.Fatalf("page %d: %d of %d blocks away from the boxes differ", n, differ, blocks)
	}
	t.Logf("page %d: %d of %d blocks away from the boxes differ", n, differ, blocks)
}

func TestRedactPDFE2E(t *testing.T) {
	// Its server is its own, and no time is bounded.
	t.Parallel()
	s := startServer(t, "")
	c := s.client(s.DevKey)
	// An e-mail address, a phone number and an INN, each on a page of
	// its own, and a page without any; the title repeats the address.
	made := toolstest.TextPDF("Write to anna.petrova@example.com today", "Call +7 916 123-45-67 please", "INN 7707083893 of the firm", "Keep this page")
	_, src := runTool(t, c, "edit-metadata", []client.File{pdfFile("personal.pdf", made)}, map[string]string{"title": "Letter to anna.petrova@example.com"})
	secrets := []string{"anna.petrova", "example.com", "123-45-67", "7707083893"}

	t.Run("presets", func(t *testing.T) {
		j, data := runTool(t, c, "redact-pdf", []client.File{pdfFile("personal.pdf", src)}, map[string]string{"presets": "emails,phones,inn"})
		want := map[string]any{"pages": 4.0, "redactions": 3.0, "redacted_pages": []any{1.0, 2.0, 3.0}, "redactions_per_page": []any{1.0, 1.0, 1.0}}
		for k, v := range want {
			if !reflect.DeepEqual(j.Meta[k], v) {
				t.Errorf("meta %s = %v, want %v", k, j.Meta[k], v)
			}
		}
		if j.Result.Filename != "personal-redacted.pdf" {
			t.Errorf("filename %q", j.Result.Filename)
		}
		// pdftotext reads only the page that had nothing to redact.
		if text := strings.Join(strings.Fields(pageText(t, data, 1)+pageText(t, data, 2)+pageText(t, data, 3)+pageText(t, data, 4)), " "); text != "Keep this page" {
			t.Errorf("text of the result: %q", text)
		}
		// No byte of the file, streams uncompressed, holds a secret in
		// any encoding, nor the title that repeated one.
		qdf := bytes.ToLower(redactQDF(t, data))
		for _, secret := range secrets {
			for _, form := range redactForms(secret) {
				if bytes.Contains(qdf, bytes.ToLower(form)) {
					t.Errorf("the file holds %q as %q", secret, form)
				}
			}
		}
		if title := popplerInfo(t, data)["Title"]; title != "" {
			t.Errorf("title %q survived", title)
		}
		// The address is black where it was; the rest of its page is as
		// before.
		redactCompare(t, src, data, 1, redactWordBoxes(t, src, 1, "anna.petrova")...)
		redactCompare(t, src, data, 3, redactWordBoxes(t, src, 3, "7707083893")...)
	})

	t.Run("boxes", func(t *testing.T) {
		box := redactWordBoxes(t, src, 4, "Keep")[0]
		param := `[{"page": 4, "x": ` + strconv.FormatFloat(box[0], 'f', 2, 64) + `, "y": ` + strconv.FormatFloat(box[1], 'f', 2, 64) +
			`, "width": ` + strconv.FormatFloat(box[2]-box[0], 'f', 2, 64) + `, "height": ` + strconv.FormatFloat(box[3]-box[1], 'f', 2, 64) + `}]`
		j, data := runTool(t, c, "redact-pdf", []client.File{pdfFile("personal.pdf", src)}, map[string]string{"boxes": param})
		if !reflect.DeepEqual(j.Meta["redacted_pages"], []any{4.0}) || j.Meta["redactions"] != 1.0 {
			t.Fatalf("meta %v", j.Meta)
		}
		if text := strings.TrimSpace(pageText(t, data, 4)); text != "" {
			t.Errorf("page 4 still has text %q", text)
		}
		if !strings.Contains(pageText(t, data, 1), "anna.petrova@example.com") {
			t.Error("page 1, without a box, lost its text")
		}
		redactCompare(t, src, data, 4, box)
	})

	t.Run("nothing found", func(t *testing.T) {
		j, data := runTool(t, c, "redact-pdf", []client.File{pdfFile("personal.pdf", src)}, map[string]string{"terms": "absent words", "regex": `\d{20}`})
		if j.Meta["redactions"] != 0.0 || !reflect.DeepEqual(j.Meta["redacted_pages"], []any{}) {
			t.Fatalf("meta %v", j.Meta)
		}
		for n := 1; n <= 4; n++ {
			if got, want := pageText(t, data, n), pageText(t, src, n); got != want {
				t.Errorf("page %d: %q, want %q", n, got, want)
			}
		}
	})

	t.Run("refused", func(t *testing.T) { redactRefusals(t, c, src) })
}

// redactRefusals checks that bad terms, regex and boxes are a 400
// invalid_parameter naming the param, answered before a job is made.
func redactRefusals(t *testing.T, c *client.Client, src []byte) {
	for param, raw := range map[string]map[string]string{
		"regex": {"regex": "(unclosed"},
		"terms": {"terms": `["unclosed`},
		"boxes": {"boxes": `[{"page": 1, "x": 0, "y": 0, "width": -5, "height": 5}]`},
	} {
		_, _, err := c.Process(context.Background(), "redact-pdf", []client.File{pdfFile("personal.pdf", src)}, client.ProcessOptions{Params: raw, Prefer: "wait=60"})
		p, ok := err.(*client.Problem)
		if !ok || p.StatusCode != 400 || p.Code != "invalid_parameter" || !strings.Contains(p.Detail, param) {
			t.Errorf("%v: %v, want a 400 invalid_parameter naming %s", raw, err, param)
		}
	}
}

// TestRedactCorpusE2E: a phrase of a real document (pdflatex's), in
// another case, is blacked out on the one page searched; the other pages
// keep their text, phrase included.
func TestRedactCorpusE2E(t *testing.T) {
	t.Parallel()
	s := startServer(t, "")
	c := s.client(s.DevKey)
	src := corpusBytes(t, "pdf", fourPages)
	j, data := runTool(t, c, "redact-pdf", []client.File{file(t, "pdf", fourPages)}, map[string]string{"terms": "huardest GEFBURN\nkjift", "pages": "2"})
	if !reflect.DeepEqual(j.Meta["redacted_pages"], []any{2.0}) || j.Meta["redactions"] != 14.0 { // 7 lines of page 2 hold the phrase and "Kjift" (pdftotext)
		t.Fatalf("meta %v", j.Meta)
	}
	if text := strings.TrimSpace(pageText(t, data, 2)); text != "" {
		t.Errorf("page 2 still has text %q", text[:min(len(text), 80)])
	}
	for _, n := range []int{1, 3, 4} {
		if got, want := pageText(t, data, n), pageText(t, src, n); got != want {
			t.Errorf("page %d changed", n)
		}
	}
	redactCompare(t, src, data, 2, redactWordBoxes(t, src, 2, "Huardest", "gefburn", "Kjift")...)
}
