package poppler

import (
	"errors"
	"testing"

	docmill "github.com/docmill/docmill"
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
