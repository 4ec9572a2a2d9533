package pdfops

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"

	docmill "github.com/docmill/docmill"
)

// PKCS12ContentType is a PKCS#12 certificate and key file (.p12, .pfx) as
// the HTTP edge sniffs it: sign-pdf's second file.
const PKCS12ContentType = "application/x-pkcs12"

// Params of sign-pdf.
const (
	certPasswordParam = "certificate_password"
	reasonParam       = "reason"
	locationParam     = "location"
	contactParam      = "contact"
	visibleParam      = "visible"
	signPageParam     = "page"
	signPositionParam = "position"
	signTextParam     = "text"
	signFormatParam   = "format"
)

// signFormats maps the format param's values to what they write.
var signFormats = map[string]signFormat{"pades": formatPAdES, "pkcs7": formatPKCS7}

// maxSignTextLines bounds the lines of a visible signature's text.
const maxSignTextLines = 8

// SignTool returns sign-pdf: the PDF signed with the key and certificate
// of a PKCS#12 file (the second input), in an incremental update appended
// to the document's bytes, which stay as they were, so that signatures it
// already holds stay valid. It runs in the PDF helper: the PDF and the
// PKCS#12 file are parsed there only, and the key lives in the helper's
// memory for the run (overwritten once it signed); nothing but the result
// is written to disk.
//
// The signature is a detached CMS SignedData over the file but its
// /Contents, SHA-256, by default PAdES (ETSI.CAdES.detached: the
// signing-certificate-v2 attribute, the time in the dictionary's /M),
// or adbe.pkcs7.detached (with a signing-time attribute). It is invisible
// (a widget of zero size on page 1), or visible: a box at a position of a
// page showing the signer, the date, the reason and the location, or the
// client's text, drawn with the stamp font (Latin, Greek, Cyrillic).
//
// An encrypted PDF is refused: its new objects would have to be encrypted
// too. A PDF whose cross-reference data is damaged is reported unreadable
// (docmill.ErrUnreadable), so that the server repairs it -- a rewrite,
// which drops any signature it held -- and signs the repair.
func SignTool() *docmill.Tool {
	disableConfigDir()
	return pdfTool(docmill.Tool{
		Slug: "sign-pdf",
		// Its PDF passes the stream check; a damaged one is repaired
		// (rewritten) and the repair signed.
		CheckPDFs: true, Repairs: true,
		Title: "Sign PDF",
		Description: "Sign a PDF digitally with the certificate and private key of a PKCS#12 file (.p12, .pfx), sent as the second file: " +
			"a PAdES (ETSI.CAdES.detached) or PKCS#7 (adbe.pkcs7.detached) SHA-256 signature added as an incremental update, so the document itself, " +
			"and any signature it already has, is unchanged; invisible, or a visible box on a page. " +
			"The certificate file and its password are used for this job only and deleted with it.",
		Accepts:  []string{pdfContentType, PKCS12ContentType},
		Outputs:  []string{pdfContentType},
		MinFiles: 2,
		MaxFiles: 2,
		Params: []docmill.Param{
			{Name: certPasswordParam, Type: docmill.TypeString, Max: docmill.Bound(256), Secret: true, Example: "changeit", Check: checkOneLine(certPasswordParam),
				Description: "Password of the PKCS#12 file; leave empty for a file without one."},
			{Name: reasonParam, Type: docmill.TypeString, Max: docmill.Bound(200), Check: checkOneLine(reasonParam),
				Description: "Reason for signing, stored in the signature (\"I approve this document\")."},
			{Name: locationParam, Type: docmill.TypeString, Max: docmill.Bound(200), Check: checkOneLine(locationParam),
				Description: "Where it was signed, stored in the signature (\"Moscow\")."},
			{Name: contactParam, Type: docmill.TypeString, Max: docmill.Bound(200), Check: checkOneLine(contactParam),
				Description: "How to reach the signer, stored in the signature (an e-mail address or a phone number)."},
			{Name: signFormatParam, Type: docmill.TypeString, Enum: []string{"pades", "pkcs7"}, Default: "pades",
				Description: "pades: ETSI.CAdES.detached, the PAdES baseline format current readers and EU validators expect; pkcs7: adbe.pkcs7.detached, for older readers."},
			{Name: visibleParam, Type: docmill.TypeBoolean, Default: "false",
				Description: "Draw the signature as a box on a page; otherwise it is invisible."},
			{Name: signPageParam, Type: docmill.TypeInteger, Min: docmill.Bound(1), Max: docmill.Bound(MaxPages), Default: "1",
				Description: "Page of the visible signature."},
			{Name: signPositionParam, Type: docmill.TypeString, Enum: stampPositionNames(false), Default: "bottom-right",
				Description: "Where on the page the visible signature goes, about 1 cm from the edges it is near."},
			{Name: signTextParam, Type: docmill.TypeString, Max: docmill.Bound(400), Check: checkSignText,
				Description: "Text of the visible signature, up to 8 lines; by default who signed, when, and the reason and location."},
		},
		Meta: []docmill.MetaField{
			{Name: "pages", Type: docmill.MetaInteger, Description: "Pages of the signed document."},
			{Name: "signer", Type: docmill.MetaString, Description: "Common name of the certificate the document was signed with."},
			{Name: "format", Type: docmill.MetaString, Description: "The signature's format (SubFilter): ETSI.CAdES.detached or adbe.pkcs7.detached."},
			{Name: "visible", Type: docmill.MetaBoolean, Description: "Whether the signature is drawn on a page."},
		},
		Available: stampFontAvailable,
	}, runSign)
}

// checkOneLine refuses line breaks and other control characters in a
// value stored in the signature dictionary as one line.
func checkOneLine(name string) func(string) error {
	return func(v string) error {
		if strings.IndexFunc(v, unicode.IsControl) >= 0 {
			return docmill.ParamError(name, "must not contain line breaks or other control characters")
		}
		return nil
	}
}

// checkSignText accepts a visible signature's text the stamp font draws,
// of up to maxSignTextLines lines, with no control characters but line
// breaks: the font maps some (NUL) to a glyph, and they would be drawn,
// or cut the line.
func checkSignText(v string) error {
	return checkStampParam(signTextParam, v, func(s string) error {
		if strings.IndexFunc(s, func(r rune) bool { return r != '\n' && unicode.IsControl(r) }) >= 0 {
			return docmill.ParamError(signTextParam, "must not contain control characters other than line breaks")
		}
		if strings.Count(s, "\n") >= maxSignTextLines {
			return docmill.ParamError(signTextParam, "has more than %d lines", maxSignTextLines)
		}
		return nil
	})
}

// signRequest is one run's settings, from its params and certificate.
type signRequest struct {
	signer                    *signer
	format                    signFormat
	reason, location, contact string
	visible                   bool
	page                      int
	position                  string
	text                      string
	when                      time.Time
}

// signerName is the certificate's common name, or its whole subject.
func (r *signRequest) signerName() string {
	if cn := r.signer.cert.Subject.CommonName; cn != "" {
		return cn
	}
	return r.signer.cert.Subject.String()
}

func runSign(ctx context.Context, in *docmill.RunInput, b *budget) (out *docmill.RunOutput, err error) {
	pdf, p12 := in.Files[0], in.Files[1]
	if pdf.ContentType != pdfContentType || p12.ContentType != PKCS12ContentType {
		return nil, docmill.Errorf(docmill.CodeUnsupportedFileType,
			"sign-pdf takes the PDF first, then the PKCS#12 certificate file (.p12, .pfx); got %s, then %s.", pdf.ContentType, p12.ContentType)
	}
	if err := checkSize(b, in.Files[:1]); err != nil {
		return nil, err
	}
	s, err := readSigner(p12.Path, in.Params.String(certPasswordParam), certPasswordParam)
	if err != nil {
		return nil, err
	}
	defer s.scrub()
	p := in.Params
	req := &signRequest{
		signer: s, format: signFormats[p.String(signFormatParam)],
		reason: p.String(reasonParam), location: p.String(locationParam), contact: p.String(contactParam),
		visible: p.Bool(visibleParam), page: max(1, p.Int(signPageParam)), position: p.String(signPositionParam),
		text: stampLineBreaks(p.String(signTextParam)), when: time.Now().UTC().Truncate(time.Second),
	}
	if !req.visible {
		// The page param places a visible signature; an invisible one's
		// widget is on page 1.
		req.page = 1
	}
	if req.position == "" {
		req.position = "bottom-right"
	}
	if req.format == "" {
		req.format = formatPAdES
	}
	doc, err := readDocument(ctx, b, pdf, newConfig(model.ADDWATERMARKS), theFile)
	if err != nil {
		return nil, err
	}
	if doc.Encrypt != nil {
		return nil, docmill.InvalidDocument(nil, "The PDF is encrypted; remove its protection (unlock-pdf), then sign the result.")
	}
	if doc.Read.RepairOffset != 0 {
		return nil, damagedXRef(fmt.Errorf("pdfops: the file's offsets are off by %d bytes", doc.Read.RepairOffset))
	}
	if req.visible && req.page > doc.PageCount {
		return nil, docmill.ParamError(signPageParam, "is %d, but the document has %d pages", req.page, doc.PageCount)
	}
	path := filepath.Join(in.WorkDir, "signed.pdf")
	if err := writeSigned(ctx, doc, pdf.Path, path, req); err != nil {
		return nil, err
	}
	return &docmill.RunOutput{
		Path:        path,
		Filename:    docmill.ResultName(pdf.Filename, ".pdf", "-signed.pdf"),
		ContentType: pdfContentType,
		Meta:        map[string]any{"pages": doc.PageCount, "signer": req.signerName(), "format": string(req.format), "visible": req.visible},
	}, nil
}

// writeSigned writes to dst the PDF at src, read as doc, with req's
// signature appended.
func writeSigned(ctx context.Context, doc *model.Context, src, dst string, req *signRequest) error {
	f, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("pdfops: open input: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("pdfops: stat input: %w", err)
	}
	last, err := findLastXRef(f, st.Size())
	if err == nil && last.stream {
		err = checkXRefStream(doc, last.nr)
	}
	if err != nil {
		return damagedXRef(err)
	}
	lead := ""
	if end := make([]byte, 1); st.Size() > 0 {
		if _, err := f.ReadAt(end, st.Size()-1); err != nil {
			return fmt.Errorf("pdfops: read input: %w", err)
		}
		if end[0] != '\n' && end[0] != '\r' {
			lead = "\n"
		}
	}
	u := newIncrementalUpdate(st.Size(), objectCount(doc), lead)
	ph, err := addSignatureObjects(ctx, doc, u, req)
	if err != nil {
		return err
	}
	update := u.finish(trailerEntries{root: doc.Root, info: doc.Info, id: doc.ID, prev: last.offset}, last.stream)
	ph.patchByteRange(update, st.Size())
	h := sha256.New()
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("pdfops: read input: %w", err)
	}
	if _, err := io.Copy(h, f); err != nil {
		return fmt.Errorf("pdfops: read input: %w", err)
	}
	h.Write(update[:ph.contents])
	h.Write(update[ph.contents+ph.contentsLen:])
	cms, err := signCMS(req.signer, h.Sum(nil), req.format, req.when)
	if err != nil {
		return err
	}
	if 2*len(cms)+2 > ph.contentsLen {
		return fmt.Errorf("pdfops: signature of %d bytes exceeds its room of %d", len(cms), (ph.contentsLen-2)/2)
	}
	hex.Encode(update[ph.contents+1:], cms)
	return writeFile(dst, src, update)
}

// objectCount returns the object numbers a document uses: its trailer's
// /Size, or more if its cross-reference data holds higher numbers.
func objectCount(doc *model.Context) int {
	n := 0
	if doc.Size != nil {
		n = *doc.Size
	}
	for nr := range doc.Table {
		n = max(n, nr+1)
	}
	return n
}

// writeFile writes to dst the file at src followed by tail.
func writeFile(dst, src string, tail []byte) error {
	out, err := os.Create(dst)
	if err != nil {
		return fmt.Errorf("pdfops: create output: %w", err)
	}
	if err := copyFileTo(out, src); err != nil {
		out.Close()
		return err
	}
	if _, err := out.Write(tail); err != nil {
		out.Close()
		return fmt.Errorf("pdfops: write output: %w", err)
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("pdfops: close output: %w", err)
	}
	return nil
}
