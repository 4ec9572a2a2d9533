package ghostscript_test

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/toolstest"
)

func TestFillForm(t *testing.T) {
	in := toolstest.WriteTemp(t, "form.pdf", toolstest.FormPDF(""))
	values := `{"Name": "Jane Roe", "Agree": true, "Color": "Green", "Size": "M", "Toppings": ["Olives", "Cheese"]}`
	out, err := runForm(t, "fill-pdf-form", map[string]string{"values": values}, in)
	if err != nil {
		t.Fatal(err)
	}
	if out.Filename != "form-filled.pdf" || out.Meta["flattened"] != false {
		t.Errorf("output %q, meta %v", out.Filename, out.Meta)
	}
	got := toolstest.QPDFValues(t, out.Path)
	want := map[string]any{"Name": "Jane Roe", "Agree": "/Yes", "Color": "/Green", "Size": "M", "Toppings": "Olives,Cheese"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %#v, want %#v", k, got[k], v)
		}
	}
	// qpdf drew the text and choice fields from their values, so a
	// renderer that draws appearances only shows them.
	if text := text(t, out.Path); !strings.Contains(text, "Jane Roe") || !strings.Contains(text, "M") {
		t.Errorf("pdftotext reads %q", text)
	}
	qpdfCheck(t, out.Path)
}

func TestFillFormFlatten(t *testing.T) {
	in := toolstest.WriteTemp(t, "form.pdf", toolstest.FormPDF(""))
	out, err := runForm(t, "fill-pdf-form", map[string]string{"values": `{"Name": "Jane Roe", "Agree": "Yes"}`, "flatten": "true"}, in)
	if err != nil {
		t.Fatal(err)
	}
	if got := toolstest.QPDFValues(t, out.Path); len(got) != 0 {
		t.Errorf("fields left after flattening: %v", got)
	}
	if a := readForm(t, out.Path).annotations; len(a) != 0 {
		t.Errorf("annotations left after flattening: %v", a)
	}
	if text := text(t, out.Path); !strings.Contains(text, "Jane Roe") {
		t.Errorf("pdftotext reads %q", text)
	}
	if out.Meta["flattened"] != true || out.Meta["pages"] != 1 {
		t.Errorf("meta %v", out.Meta)
	}
}

func TestFillFormRefused(t *testing.T) {
	form := toolstest.WriteTemp(t, "form.pdf", toolstest.FormPDF(""))
	for _, tt := range []struct{ name, values, path, want string }{
		{"unknown names", `{"Nmae": "x", "Colour": "Red", "Name": "ok"}`, form, `"Colour", "Nmae"`},
		{"not an option", `{"Size": "XL"}`, form, `field "Size": "XL" is not one of its options ("S", "M", "L")`},
		{"radio option", `{"Color": "Blue"}`, form, `field "Color"`},
		{"check box state", `{"Agree": "maybe"}`, form, `field "Agree"`},
		{"several in a combo", `{"Size": ["S", "M"]}`, form, `field "Size"`},
		{"no form", `{"Name": "x"}`, corpusPDF(t, "pdflatex-4-pages.pdf"), "no form fields"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := runForm(t, "fill-pdf-form", map[string]string{"values": tt.values}, tt.path)
			wantCode(t, err, docmill.CodeInvalidParameter)
			if msg := docmill.AsError(err).Message; !strings.Contains(msg, tt.want) {
				t.Errorf("message %q does not say %q", msg, tt.want)
			}
		})
	}
	// A value that is not the JSON wanted is refused before any run.
	for _, v := range []string{`Name=Jane`, `["Name"]`, `{}`, `{"Name": null}`, `{"Name": "a", "Name": "b"}`, `{"Name": "a"} x`} {
		if _, err := runForm(t, "fill-pdf-form", map[string]string{"values": v}, form); docmill.ErrorCode(err) != docmill.CodeInvalidParameter {
			t.Errorf("values %s: %v, want invalid_parameter", v, err)
		}
	}
}

func TestFillFormBadInput(t *testing.T) {
	form := toolstest.FormPDF("")
	for name, path := range map[string]string{
		"truncated": toolstest.WriteTemp(t, "cut.pdf", form[:len(form)/2]),
		"encrypted": toolstest.WriteTemp(t, "enc.pdf", toolstest.Encrypt(t, toolstest.WriteTemp(t, "form.pdf", form))),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := runForm(t, "fill-pdf-form", map[string]string{"values": `{"Name": "x"}`}, path)
			wantCode(t, err, docmill.CodeInvalidDocument)
		})
	}
}

// TestFillFormCyrillic checks that a value beyond Latin-1, which qpdf
// would draw as question marks, is filled and drawn with docmill's own
// font (no /NeedAppearances left for qpdf or viewers to redraw it), and
// that flattening draws it into the page.
func TestFillFormCyrillic(t *testing.T) {
	in := corpusPDF(t, "pdflatex-forms.pdf")
	values := `{"Name": "Иван Петров", "Check": true}`
	out, err := runForm(t, "fill-pdf-form", map[string]string{"values": values}, in)
	if err != nil {
		t.Fatal(err)
	}
	if got := toolstest.QPDFValues(t, out.Path); got["Name"] != "Иван Петров" || got["Check"] != "/Yes" {
		t.Errorf("qpdf reads %v", got)
	}
	if out.Meta["appearances_generated"] != true {
		t.Errorf("meta %v", out.Meta)
	}
	b, err := exec.Command("qpdf", "--json", "--json-key=acroform", out.Path).Output()
	if err != nil || !strings.Contains(string(b), `"needappearances": false`) {
		t.Errorf("qpdf --json: %v, /NeedAppearances left on:\n%s", err, b)
	}
	flat, err := runForm(t, "fill-pdf-form", map[string]string{"values": values, "flatten": "true"}, in)
	if err != nil {
		t.Fatal(err)
	}
	if flat.Meta["flattened"] != true || flat.Meta["appearances_generated"] != true {
		t.Errorf("meta %v", flat.Meta)
	}
	if got := toolstest.QPDFValues(t, flat.Path); len(got) != 0 {
		t.Errorf("fields left after flattening: %v", got)
	}
	if text := text(t, flat.Path); !strings.Contains(text, "Иван Петров") || strings.Contains(text, "?") {
		t.Errorf("flattened text %q: want the Cyrillic name, and no question marks", text)
	}
}

// TestFillFormCyrillicKinds: beyond Latin-1, a password field is drawn
// as asterisks, a multi-line field line by line, a combo box's choice as
// text, and a widget with an empty rectangle is left to viewers
// (appearances_generated false); flattening draws the others.
func TestFillFormCyrillicKinds(t *testing.T) {
	const widget = "/Type /Annot /Subtype /Widget /F 4 /P 3 0 R /DA (/Helv 0 Tf 0 g)"
	in := toolstest.WriteTemp(t, "kinds.pdf", toolstest.PDF(
		"<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [4 0 R 5 0 R 6 0 R 7 0 R] /DA (/Helv 0 Tf 0 g) >> >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Annots [4 0 R 5 0 R 6 0 R 7 0 R] >>",
		"<< "+widget+" /FT /Tx /Ff 8192 /T (Secret) /Rect [72 760 272 780] >>",
		"<< "+widget+" /FT /Tx /Ff 4096 /T (Notes) /Rect [72 600 372 700] /Q 1 >>",
		"<< "+widget+" /FT /Ch /Ff 393216 /T (City) /Opt [(Moscow)] /Rect [72 560 272 580] >>",
		"<< "+widget+" /FT /Tx /T (Hidden) /Rect [0 0 0 0] >>"))
	values := `{"Secret": "пароль", "Notes": "Первая строка\nВторая строка", "City": "Казань", "Hidden": "скрыто"}`
	out, err := runForm(t, "fill-pdf-form", map[string]string{"values": values}, in)
	if err != nil {
		t.Fatal(err)
	}
	if out.Meta["appearances_generated"] != false {
		t.Errorf("meta %v: the empty widget cannot be drawn", out.Meta)
	}
	flat, err := runForm(t, "fill-pdf-form", map[string]string{"values": values, "flatten": "true"}, in)
	if err != nil {
		t.Fatal(err)
	}
	text := text(t, flat.Path)
	for _, want := range []string{"******", "Первая строка", "Вторая строка", "Казань"} {
		if !strings.Contains(text, want) {
			t.Errorf("flattened text %q lacks %q", text, want)
		}
	}
	for _, not := range []string{"пароль", "скрыто", "?"} {
		if strings.Contains(text, not) {
			t.Errorf("flattened text %q has %q", text, not)
		}
	}
}

// TestFillFormManyWidgets: a Cyrillic value for a field of 20,000
// widgets of as many sizes is drawn once, each widget placing that
// drawing; 1,000 fields (as many as values may name) are drawn in one
// pass. Neither takes the fill long (logged).
func TestFillFormManyWidgets(t *testing.T) {
	widget := func(parent string, i int) string {
		return fmt.Sprintf("<< /Type /Annot /Subtype /Widget %s /P 3 0 R /Rect [72 700 %.2f 720] >>", parent, 272+float64(i)*0.01)
	}
	form := func(fields string, more []string) string {
		objects := []string{
			"<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [" + fields + "] /DA (/Helv 0 Tf 0 g) >> >>",
			"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
			"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>",
		}
		return toolstest.WriteTemp(t, "widgets.pdf", toolstest.PDF(append(objects, more...)...))
	}
	t.Run("one field, 20,000 widgets", func(t *testing.T) {
		var kids strings.Builder
		objects := []string{""}
		for i := range 20000 {
			fmt.Fprintf(&kids, "%d 0 R ", i+5)
			objects = append(objects, widget("/Parent 4 0 R", i))
		}
		objects[0] = "<< /FT /Tx /T (Name) /Kids [" + kids.String() + "] >>"
		in := form("4 0 R", objects)
		start := time.Now()
		out, err := runForm(t, "fill-pdf-form", map[string]string{"values": `{"Name": "Иван"}`}, in)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("20,000 widgets filled in %v", time.Since(start).Round(time.Millisecond))
		if out.Meta["appearances_generated"] != true {
			t.Errorf("meta %v", out.Meta)
		}
	})
	t.Run("1,000 fields", func(t *testing.T) {
		var fields []string
		var objects []string
		values := map[string]string{}
		for i := range 1000 {
			fields = append(fields, fmt.Sprintf("%d 0 R", i+4))
			objects = append(objects, strings.Replace(widget("", i), "/Type /Annot", fmt.Sprintf("/FT /Tx /T (f%d) /Type /Annot", i), 1))
			values[fmt.Sprintf("f%d", i)] = fmt.Sprintf("Поле %d", i)
		}
		in := form(strings.Join(fields, " "), objects)
		js, err := json.Marshal(values)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		out, err := runForm(t, "fill-pdf-form", map[string]string{"values": string(js)}, in)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("1,000 fields filled in %v", time.Since(start).Round(time.Millisecond))
		if out.Meta["appearances_generated"] != true {
			t.Errorf("meta %v", out.Meta)
		}
	})
}
