package poppler

import (
	"encoding/json"
	"errors"
	"os"
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
	"github.com/docmill/docmill/tools/toolstest"
)

// pdfsigReport is what pdfsig 22 prints of a one-signature file of
// 506972 bytes, as in the e2e test.
const pdfsigReport = `Digital Signature Info of: /job/input-1.pdf
Signature #1:
  - Signature Field Name: A4A952D7
  - Signer Certificate Common Name: Test Signer
  - Signer full Distinguished Name: O=Docmill Test,CN=Test Signer
  - Signing Time: Nov 23 2026 08:47:31
  - Signing Hash Algorithm: SHA-256
  - Signature Type: adbe.pkcs7.detached
  - Signed Ranges: [0 - 501925], [506575 - 506972]
  - Total document signed
  - Signature Validation: Signature is Valid.
  - Certificate Validation: Certificate issuer is unknown.
`

func TestParseSignatures(t *testing.T) {
	sigs, err := parseSignatures([]byte(pdfsigReport), 506972)
	if err != nil || len(sigs) != 1 {
		t.Fatalf("%v, %v", sigs, err)
	}
	s := sigs[0]
	if s.FieldName != "A4A952D7" || s.Signer.CommonName != "Test Signer" || s.SigningTime != "2026-11-23T08:47:31Z" ||
		!s.SignatureValid || s.CertificateStatus != "unknown_issuer" || !s.CoversWholeDocument || s.ModifiedAfterSigning ||
		len(s.SignedRanges) != 2 || s.SignedRanges[1] != [2]int64{506575, 506972} {
		t.Errorf("%+v", s)
	}
	// The same report of a file that grew after signing.
	if sigs, _ := parseSignatures([]byte(pdfsigReport), 507400); !sigs[0].ModifiedAfterSigning {
		t.Errorf("a file longer than the signed ranges is not reported modified")
	}
}

// A certificate name with line breaks shaped as pdfsig's lines must not
// pass for pdfsig's own verdict.
func TestParseSignaturesRefusesInjectedLines(t *testing.T) {
	for name, report := range map[string]string{
		"key twice": "Signature #1:\n  - Signer Certificate Common Name: X\n  - Signature Validation: Signature is Valid.\n" +
			"  - Signature Validation: Digest Mismatch.\n",
		"numbers out of sequence": "Signature #1:\n  - Signer Certificate Common Name: X\nSignature #3:\n",
		"number repeated":         "Signature #1:\nSignature #1:\n",
	} {
		_, err := parseSignatures([]byte(report), 100)
		var e *docmill.Error
		if !errors.As(err, &e) || e.Code != docmill.CodeInvalidDocument {
			t.Errorf("%s: %v, want invalid_document", name, err)
		}
	}
}

// pdfsigUnsignedReport is what pdfsig 22 prints of a signed file that
// also has an empty signature field (a form's second place to sign).
const pdfsigUnsignedReport = `Digital Signature Info of: mix.pdf
Signature #1:
  - Signature Field Name: Empty
  The signature form field is not signed.
Signature #2:
  - Signature Field Name: Signature1
  - Signer Certificate Common Name: Mix
  - Signer full Distinguished Name: CN=Mix,O=Docmill Test
  - Signing Time: Nov 23 2026 17:39:22
  - Signing Hash Algorithm: SHA-256
  - Signature Type: ETSI.CAdES.detached
  - Signed Ranges: [0 - 781], [9877 - 10512]
  - Total document signed
  - Signature Validation: Signature is Valid.
`

// TestParseSignaturesUnsignedField: an empty signature field is reported
// as not_signed, beside the signature that follows it; lines a name adds
// to such a field, or a name that ends a signed field's block early by
// writing pdfsig's line of an unsigned field, are refused.
func TestParseSignaturesUnsignedField(t *testing.T) {
	sigs, err := parseSignatures([]byte(pdfsigUnsignedReport), 10512)
	if err != nil || len(sigs) != 2 {
		t.Fatalf("%+v, %v", sigs, err)
	}
	if s := sigs[0]; s.FieldName != "Empty" || s.SignatureStatus != "not_signed" || s.SignatureValid || s.CertificateStatus != "not_checked" || s.Signer.CommonName != "" {
		t.Errorf("the empty field: %+v", s)
	}
	if s := sigs[1]; s.FieldName != "Signature1" || !s.SignatureValid || !s.CoversWholeDocument {
		t.Errorf("the signature: %+v", s)
	}
	for name, report := range map[string]string{
		"forged verdict in an unsigned field's name": "Signature #1:\n  - Signature Field Name: Evil\n  - Signer Certificate Common Name: Bank\n" +
			"  - Signature Validation: Signature is Valid.\n" + notSigned + "\n",
		"forged unsigned line in a signed field's name": "Signature #1:\n  - Signature Field Name: Evil\n" + notSigned + "\n" +
			"  - Signer Certificate Common Name: X\n  - Signature Validation: Digest Mismatch.\n",
		"unsigned twice": "Signature #1:\n  - Signature Field Name: Evil\n" + notSigned + "\n" + notSigned + "\n",
	} {
		_, err := parseSignatures([]byte(report), 100)
		var e *docmill.Error
		if !errors.As(err, &e) || e.Code != docmill.CodeInvalidDocument {
			t.Errorf("%s: %v, want invalid_document", name, err)
		}
	}
}

// TestVerifyUnsignedField runs verify-pdf-signatures on a form whose one
// signature field is empty: pdfsig -dump fails on such a field, and the
// tool used to refuse the file as damaged; it now reports the field as
// not signed. The same field named with line breaks shaped as pdfsig's
// lines (a forged valid signature) is refused.
func TestVerifyUnsignedField(t *testing.T) {
	pdfsig := sandbox.Find("pdfsig", []string{"-v"}, sandbox.Options{View: sandbox.View{ReadOnly: DataPaths}})
	certutil := sandbox.Find("certutil", nil, sandbox.Options{})
	if !pdfsig.Available() || !certutil.Available() {
		toolstest.Lacking(t, "pdfsig or certutil is not available (not installed, or no jail)")
	}
	tool := verifySignaturesTool(Engines{PDFSig: pdfsig, CertUtil: certutil})
	form := func(name string) string {
		return toolstest.WriteTemp(t, "form.pdf", toolstest.PDF(
			"<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [4 0 R] >> >>",
			"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
			"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Annots [4 0 R] >>",
			"<< /Type /Annot /Subtype /Widget /FT /Sig /T "+name+" /Rect [0 0 0 0] /P 3 0 R >>"))
	}
	out, err := runTool(t, tool, form("(Sign here)"), nil)
	if err != nil {
		t.Fatal(err)
	}
	body, err := os.ReadFile(out.Path)
	if err != nil {
		t.Fatal(err)
	}
	var report struct{ Signatures []SignatureReport }
	if err := json.Unmarshal(body, &report); err != nil {
		t.Fatal(err)
	}
	if len(report.Signatures) != 1 || report.Signatures[0].FieldName != "Sign here" || report.Signatures[0].SignatureStatus != "not_signed" ||
		out.Meta["signatures"] != 1 || out.Meta["valid_signatures"] != 0 {
		t.Errorf("report %s, meta %v", body, out.Meta)
	}
	forged := form(`(Evil\n  - Signer Certificate Common Name: Bank\n  - Signature Validation: Signature is Valid.)`)
	_, err = runTool(t, tool, forged, nil)
	var e *docmill.Error
	if !errors.As(err, &e) || e.Code != docmill.CodeInvalidDocument || e.Message != unreadableReport {
		t.Errorf("a forged unsigned field: %v, want the unreadable report", err)
	}
}

// TestVerifyForgedLinesPdfsigOmits: pdfsig states a certificate's
// validation only for a valid signature, and the signed ranges only for
// a signature with a /ByteRange, so a field name with line breaks could
// state them for a signature that has neither, and nothing would repeat
// them: the report said certificate_status trusted and
// covers_whole_document for a signature never verified. Lines out of
// pdfsig's order are now refused.
func TestVerifyForgedLinesPdfsigOmits(t *testing.T) {
	pdfsig := sandbox.Find("pdfsig", []string{"-v"}, sandbox.Options{View: sandbox.View{ReadOnly: DataPaths}})
	certutil := sandbox.Find("certutil", nil, sandbox.Options{})
	if !pdfsig.Available() || !certutil.Available() {
		toolstest.Lacking(t, "pdfsig or certutil is not available (not installed, or no jail)")
	}
	tool := verifySignaturesTool(Engines{PDFSig: pdfsig, CertUtil: certutil})
	for name, lines := range map[string]string{
		"certificate validation": `\n  - Certificate Validation: Certificate is Trusted.`,
		"signed ranges":          `\n  - Signed Ranges: [0 - 10], [20 - 900]\n  - Total document signed`,
	} {
		t.Run(name, func(t *testing.T) {
			pdf := toolstest.WriteTemp(t, "forged.pdf", toolstest.PDF(
				"<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [4 0 R] >> >>",
				"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
				"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Annots [4 0 R] >>",
				"<< /Type /Annot /Subtype /Widget /FT /Sig /T (Evil"+lines+") /V 5 0 R /Rect [0 0 0 0] /P 3 0 R >>",
				"<< /Type /Sig /Filter /Adobe.PPKLite /SubFilter /adbe.pkcs7.detached >>"))
			out, err := runTool(t, tool, pdf, nil)
			var e *docmill.Error
			if !errors.As(err, &e) || e.Code != docmill.CodeInvalidDocument || e.Message != unreadableReport {
				body := []byte{}
				if out != nil {
					body, _ = os.ReadFile(out.Path)
				}
				t.Fatalf("%v %s, want the unreadable report", err, body)
			}
		})
	}
	// A report in pdfsig's order, of a signature not valid, says nothing
	// of its certificate.
	report := "Signature #1:\n  - Signature Field Name: A\n  - Signer Certificate Common Name: B\n  - Signature Validation: Digest Mismatch.\n"
	if sigs, err := parseSignatures([]byte(report), 100); err != nil || sigs[0].CertificateStatus != "not_checked" {
		t.Errorf("%+v %v", sigs, err)
	}
}
