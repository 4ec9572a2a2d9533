package office_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/docmill/docmill/sandbox"
	"github.com/docmill/docmill/tools/office"
)

func TestZZExp(t *testing.T) {
	unsafe := sandbox.NewJail(sandbox.JailOptions{Bwrap: "/nonexistent/bwrap", Unsafe: true})
	for _, jail := range []*sandbox.Jail{unsafe, sandbox.Default()} {
		o := sandbox.Options{Jail: jail, View: sandbox.View{ReadOnly: office.DataPaths}}
		p, err := office.New(sandbox.Find("soffice", []string{"--version"}, o), sandbox.Find("python3", nil, o), office.Options{Workers: 1, SelectPages: selectPages()})
		if err != nil || !p.Available() {
			t.Fatal(err)
		}
		defer p.Close()
		word := toolOf(t, p, "word-to-pdf")
		docs := t.TempDir()
		for name, parts := range map[string][][2]string{
			"odt-img.odt": odtParts(`<text:p>visible text</text:p><text:p><draw:frame draw:name="i1" text:anchor-type="as-char" svg:width="2cm" svg:height="2cm"><draw:image xlink:href="file:///usr/share/pixmaps/debian-logo.png" xlink:type="simple" xlink:show="embed" xlink:actuate="onLoad"/></draw:frame></text:p>`),
			"odt-sec.odt": odtParts(`<text:p>visible text</text:p><text:section text:name="s1"><text:section-source xlink:href="file:///etc/hostname" text:filter-name="Text" xlink:type="simple"/><text:p>cached</text:p></text:section>`),
			"odt-sec2.odt": odtParts(`<text:p>visible text</text:p><text:section text:name="s1"><text:section-source xlink:href="file:///etc/hostname" xlink:type="simple"/><text:p>cached</text:p></text:section>`),
			"docx-link.docx": docxParts(docxLinkedImage(`r:link="rIdImg"`), `<Relationship Id="rIdImg" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="file:///usr/share/pixmaps/debian-logo.png" TargetMode="External"/>`),
			"docx-text.docx": docxParts(`<w:p><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText xml:space="preserve"> INCLUDETEXT "/etc/hostname" </w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>cached</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r></w:p>`, ""),
			"docx-pic.docx": docxParts(`<w:p><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText xml:space="preserve"> INCLUDEPICTURE "/usr/share/pixmaps/debian-logo.png" </w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>cached</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r></w:p>`, ""),
		} {
			src := filepath.Join(docs, name)
			writeZip(t, src, parts)
			out, err := run(t, word, src, nil)
			if err != nil {
				t.Logf("%v %s: %v", jail.Confined(), name, err)
				continue
			}
			il, _ := exec.Command("pdfimages", "-list", out.Path).Output()
			t.Logf("%v %s: text %q images\n%s", jail.Confined(), name, pdftotext(t, out.Path), il)
		}
		for name, rtf := range map[string]string{
			"pic-d.rtf":      `{\rtf1\ansi visible text\par {\field{\*\fldinst INCLUDEPICTURE "/usr/share/pixmaps/debian-logo.png" \\d}{\fldrslt }}\par}`,
			"pic.rtf":        `{\rtf1\ansi visible text\par {\field{\*\fldinst INCLUDEPICTURE "/usr/share/pixmaps/debian-logo.png"}{\fldrslt }}\par}`,
			"pic-url.rtf":    `{\rtf1\ansi visible text\par {\field{\*\fldinst INCLUDEPICTURE "file:///usr/share/pixmaps/debian-logo.png"}{\fldrslt }}\par}`,
			"text.rtf":       `{\rtf1\ansi visible text\par {\field{\*\fldinst INCLUDETEXT "/etc/hostname"}{\fldrslt cached}}\par}`,
			"text-url.rtf":   `{\rtf1\ansi visible text\par {\field{\*\fldinst INCLUDETEXT "file:///etc/hostname"}{\fldrslt cached}}\par}`,
			"text-lo.rtf":    `{\rtf1\ansi visible text\par {\field{\*\fldinst INCLUDETEXT "/usr/lib/libreoffice/share/gallery/personas/personas_list.txt"}{\fldrslt cached}}\par}`,
			"pic-lo.rtf":     `{\rtf1\ansi visible text\par {\field{\*\fldinst INCLUDEPICTURE "/usr/lib/libreoffice/share/toolbarmode/default.png"}{\fldrslt }}\par}`,
		} {
			src := filepath.Join(docs, name)
			os.WriteFile(src, []byte(rtf), 0o600)
			out, err := run(t, word, src, nil)
			if err != nil {
				t.Logf("%v %s: %v", jail.Confined(), name, err)
				continue
			}
			il, _ := exec.Command("pdfimages", "-list", out.Path).Output()
			t.Logf("%v %s: text %q images\n%s", jail.Confined(), name, pdftotext(t, out.Path), il)
		}
	}
}
