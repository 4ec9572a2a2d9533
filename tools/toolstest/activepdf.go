package toolstest

import (
	"bytes"
	"fmt"
)

// ActiveXMP is the XMP packet of ActivePDF, whose dc:title is "Active".
const ActiveXMP = `<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?>` +
	`<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">` +
	`<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/">` +
	`<dc:title><rdf:Alt><rdf:li xml:lang="x-default">Active</rdf:li></rdf:Alt></dc:title>` +
	`</rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>`

// ActivePDF returns a valid two-page PDF holding every kind of active or
// hidden content the inspection tools handle, for tests of
// remove-annotations and sanitize-pdf:
//   - page 1 ("Active content page one"): a text note, a link to
//     https://example.com/, a text form field "name" (a widget with a
//     JavaScript keystroke action) and a highlight; the page has an open
//     action (/AA /O) running JavaScript;
//   - page 2 ("Active content page two"): links that launch "calc.exe",
//     go to "other.pdf" (GoToR), embedded "inner.pdf" (GoToE) and open
//     file:///etc/passwd, and a file attachment annotation of
//     "secret.txt";
//   - the catalog: an open action visiting https://example.com/opened, a
//     will-close action running JavaScript, a JavaScript name tree of one script, an EmbeddedFiles
//     name tree holding "secret.txt" ("secret\n"), XMP metadata
//     (ActiveXMP), and an Info dictionary with Title "Active" and Author
//     "Tester".
//
// Annotations: 4 on page 1 (1 link, 1 widget), 5 on page 2 (4 links).
func ActivePDF() []byte {
	page1 := "BT /F1 24 Tf 72 720 Td (Active content page one) Tj ET"
	page2 := "BT /F1 24 Tf 72 720 Td (Active content page two) Tj ET"
	objects := []string{
		/* 1 */ "<< /Type /Catalog /Pages 2 0 R /Names << /JavaScript 10 0 R /EmbeddedFiles 12 0 R >> /OpenAction << /S /URI /URI (https://example.com/opened) >> " +
			"/AA << /WC 9 0 R >> /AcroForm << /Fields [7 0 R] /DA (/Helv 0 Tf 0 g) >> /Metadata 15 0 R >>",
		/* 2 */ "<< /Type /Pages /Kids [4 0 R 5 0 R] /Count 2 >>",
		/* 3 */ "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
		/* 4 */ "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >> >> /Contents 16 0 R " +
			"/Annots [6 0 R << /Type /Annot /Subtype /Link /Rect [72 600 300 620] /A << /S /URI /URI (https://example.com/) >> >> 7 0 R 8 0 R] " +
			"/AA << /O 9 0 R >> >>",
		/* 5 */ "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >> >> /Contents 17 0 R /Annots [" +
			"<< /Type /Annot /Subtype /Link /Rect [72 600 300 620] /A << /S /Launch /F (calc.exe) >> >> " +
			"<< /Type /Annot /Subtype /Link /Rect [72 560 300 580] /A << /S /GoToR /F (other.pdf) /D [0 /Fit] >> >> " +
			"<< /Type /Annot /Subtype /Link /Rect [72 520 300 540] /A << /S /GoToE /T << /R /C /N (inner.pdf) >> /D [0 /Fit] >> >> " +
			"<< /Type /Annot /Subtype /Link /Rect [72 480 300 500] /A << /S /URI /URI (file:///etc/passwd) >> >> 13 0 R] >>",
		/* 6 */ "<< /Type /Annot /Subtype /Text /Rect [72 760 92 780] /Contents (A note) >>",
		/* 7 */ "<< /Type /Annot /Subtype /Widget /FT /Tx /T (name) /V (Ann) /Rect [72 500 272 520] /P 4 0 R /F 4 " +
			"/AA << /K << /S /JavaScript /JS (app.alert\\(1\\)) >> >> >>",
		/* 8 */ "<< /Type /Annot /Subtype /Highlight /Rect [72 715 300 745] /QuadPoints [72 745 300 745 72 715 300 715] /Contents (Highlighted) >>",
		/* 9 */ "<< /Type /Action /S /JavaScript /JS (app.alert\\('open'\\)) >>",
		/* 10 */ "<< /Names [(hello) 11 0 R] >>",
		/* 11 */ "<< /S /JavaScript /JS (app.alert\\('named'\\)) >>",
		/* 12 */ "<< /Names [(secret.txt) 14 0 R] >>",
		/* 13 */ "<< /Type /Annot /Subtype /FileAttachment /Rect [72 400 92 420] /FS 14 0 R /Contents (Attached) >>",
		/* 14 */ "<< /Type /Filespec /F (secret.txt) /UF (secret.txt) /EF << /F 18 0 R >> >>",
		/* 15 */ fmt.Sprintf("<< /Type /Metadata /Subtype /XML /Length %d >>\nstream\n%s\nendstream", len(ActiveXMP), ActiveXMP),
		/* 16 */ fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(page1), page1),
		/* 17 */ fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(page2), page2),
		/* 18 */ "<< /Type /EmbeddedFile /Length 7 >>\nstream\nsecret\n\nendstream",
		/* 19 */ "<< /Title (Active) /Author (Tester) >>",
	}
	// The trailer PDF writes names the catalog only: add the Info
	// dictionary (after the offsets, so the cross-reference table holds).
	return bytes.Replace(PDF(objects...), []byte("/Root 1 0 R >>"), []byte("/Root 1 0 R /Info 19 0 R >>"), 1)
}
