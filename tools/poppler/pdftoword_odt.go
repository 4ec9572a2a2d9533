package poppler

import "fmt"

// The parts of an OpenDocument text (ODF 1.2): mimetype first and
// stored, the manifest, the content and the heading styles.
const (
	odtMimetype = "application/vnd.oasis.opendocument.text"
	odtStyles   = `<?xml version="1.0" encoding="UTF-8"?>
<office:document-styles xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" office:version="1.2"><office:styles>` +
		`<style:style style:name="Standard" style:family="paragraph"><style:paragraph-properties fo:margin-bottom="0.28cm"/><style:text-properties fo:font-size="11pt"/></style:style>` +
		`<style:style style:name="Heading" style:family="paragraph" style:parent-style-name="Standard" style:next-style-name="Standard"><style:paragraph-properties fo:margin-top="0.42cm" fo:margin-bottom="0.21cm" fo:keep-with-next="always"/><style:text-properties fo:font-weight="bold"/></style:style>` +
		`<style:style style:name="Heading_20_1" style:display-name="Heading 1" style:family="paragraph" style:parent-style-name="Heading" style:default-outline-level="1"><style:text-properties fo:font-size="18pt"/></style:style>` +
		`<style:style style:name="Heading_20_2" style:display-name="Heading 2" style:family="paragraph" style:parent-style-name="Heading" style:default-outline-level="2"><style:text-properties fo:font-size="15pt"/></style:style>` +
		`<style:style style:name="Heading_20_3" style:display-name="Heading 3" style:family="paragraph" style:parent-style-name="Heading" style:default-outline-level="3"><style:text-properties fo:font-size="13pt"/></style:style>` +
		`</office:styles></office:document-styles>`
	odtContentOpen = `<?xml version="1.0" encoding="UTF-8"?>
<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" xmlns:xlink="http://www.w3.org/1999/xlink" office:version="1.2"><office:body><office:text>`
	odtContentClose = `</office:text></office:body></office:document-content>`
)

// writeODT writes b as an .odt at dst: a text:p a paragraph, headings as
// text:h in the Heading 1-3 styles, each picture in a paragraph of its
// own, anchored as a character, its image a part shared by all its
// placements.
func writeODT(dst string, b docBody) error {
	var doc, manifest buffer
	doc.WriteString(odtContentOpen)
	manifest.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" +
		`<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2"><manifest:file-entry manifest:full-path="/" manifest:version="1.2" manifest:media-type="` + odtMimetype + `"/>` +
		`<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/><manifest:file-entry manifest:full-path="styles.xml" manifest:media-type="text/xml"/>`)
	b.each(func(p paragraph) {
		if p.level > 0 {
			doc.printf(`<text:h text:style-name="Heading_20_%d" text:outline-level="%d">%s</text:h>`, p.level, p.level, escaped(p.text))
			return
		}
		doc.printf(`<text:p text:style-name="Standard">%s</text:p>`, escaped(p.text))
	}, func(i int, pic picture) {
		w, h := pic.displaySize()
		doc.printf(`<text:p text:style-name="Standard"><draw:frame draw:name="Picture %d" text:anchor-type="as-char" svg:width="%.2fpt" svg:height="%.2fpt">`, i+1, w, h)
		doc.printf(`<draw:image xlink:href="%s" xlink:type="simple" xlink:show="embed" xlink:actuate="onLoad"/></draw:frame></text:p>`, odtPicture(pic.media, b.media[pic.media]))
	})
	for m, file := range b.media {
		mediaType := map[string]string{"png": "image/png", "jpg": "image/jpeg"}[mediaExt(file)]
		manifest.printf(`<manifest:file-entry manifest:full-path="%s" manifest:media-type="%s"/>`, odtPicture(m, file), mediaType)
	}
	doc.WriteString(odtContentClose)
	manifest.WriteString(`</manifest:manifest>`)
	return writeArchive(dst, func(z *zipWriter) {
		z.part("mimetype", []byte(odtMimetype), true)
		z.part("META-INF/manifest.xml", manifest.Bytes(), false)
		z.part("content.xml", doc.Bytes(), false)
		z.part("styles.xml", []byte(odtStyles), false)
		for m, file := range b.media {
			z.file(odtPicture(m, file), file)
		}
	})
}

// odtPicture is the part name of stored image m, whose file is file.
func odtPicture(m int, file string) string {
	return fmt.Sprintf("Pictures/image%d.%s", m+1, mediaExt(file))
}
