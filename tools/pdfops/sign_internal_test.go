package pdfops

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/docmill/docmill/tools/toolstest"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// cmsTestSigner returns a signer with a fresh self-signed certificate.
func cmsTestSigner(t *testing.T, ecKey bool) *signer {
	t.Helper()
	key := toolstest.NewKey(t, ecKey)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(42), Subject: pkix.Name{CommonName: "CMS Test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	cert := toolstest.Certificate(t, tmpl, key.Public(), key)
	return &signer{key: key, cert: cert}
}

// TestSignCMS parses back, with encoding/asn1, the SignedData signCMS
// writes for RSA and ECDSA keys in both formats: detached id-data
// content, SHA-256, the signer's certificate, the signed attributes in
// DER order (message digest; signing time for PKCS#7 only; the signing
// certificate's hash for PAdES only), a signature the certificate's key
// verifies over them, and a size within cmsSize.
func TestSignCMS(t *testing.T) {
	digest := sha256.Sum256([]byte("the signed byte ranges"))
	when := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	for _, ecKey := range []bool{false, true} {
		s := cmsTestSigner(t, ecKey)
		for _, format := range []signFormat{formatPAdES, formatPKCS7} {
			der, err := signCMS(s, digest[:], format, when)
			if err != nil {
				t.Fatal(err)
			}
			if len(der) > cmsSize(s) {
				t.Errorf("%s ec=%v: %d bytes, room for %d", format, ecKey, len(der), cmsSize(s))
			}
			var ci contentInfo
			if rest, err := asn1.Unmarshal(der, &ci); err != nil || len(rest) != 0 || !ci.ContentType.Equal(oidSignedData) ||
				ci.Content.Class != asn1.ClassContextSpecific || ci.Content.Tag != 0 {
				t.Fatalf("content info: %v %+v", err, ci.ContentType)
			}
			var sd signedData
			if _, err := asn1.Unmarshal(ci.Content.Bytes, &sd); err != nil {
				t.Fatalf("signed data: %v", err)
			}
			if sd.Version != 1 || len(sd.DigestAlgorithms) != 1 || !sd.DigestAlgorithms[0].Algorithm.Equal(oidSHA256) ||
				!sd.EncapContent.ContentType.Equal(oidData) || !bytes.Equal(sd.Certificates.Bytes, s.cert.Raw) || len(sd.SignerInfos) != 1 {
				t.Fatalf("signed data %+v", sd)
			}
			si := sd.SignerInfos[0]
			if si.Serial().Cmp(s.cert.SerialNumber) != 0 || !bytes.Equal(si.SID.Issuer.FullBytes, s.cert.RawIssuer) {
				t.Errorf("signer id %+v", si.SID)
			}
			attrs := map[string]asn1.RawValue{}
			var prev []byte
			for rest := si.SignedAttrs.Bytes; len(rest) > 0; {
				var a cmsAttribute
				start := rest
				if rest, err = asn1.Unmarshal(rest, &a); err != nil {
					t.Fatal(err)
				}
				enc := start[:len(start)-len(rest)]
				if prev != nil && bytes.Compare(prev, enc) > 0 {
					t.Errorf("attributes not in DER order")
				}
				prev = enc
				attrs[a.Type.String()] = a.Values
			}
			var md []byte
			if _, err := asn1.Unmarshal(attrs[oidMessageDigestAttr.String()].Bytes, &md); err != nil || !bytes.Equal(md, digest[:]) {
				t.Errorf("message digest %x, %v", md, err)
			}
			_, hasTime := attrs[oidSigningTimeAttr.String()]
			cert, hasCert := attrs[oidSigningCertificateV2.String()]
			if hasTime != (format == formatPKCS7) || hasCert != (format == formatPAdES) {
				t.Errorf("%s: signing time %v, signing certificate %v", format, hasTime, hasCert)
			}
			if hasCert {
				var sc signingCertificateV2
				h := sha256.Sum256(s.cert.Raw)
				if _, err := asn1.Unmarshal(cert.Bytes, &sc); err != nil || len(sc.Certs) != 1 || !bytes.Equal(sc.Certs[0].CertHash, h[:]) {
					t.Errorf("signing certificate %+v %v", sc, err)
				}
			}
			set, _ := asn1.Marshal(asn1.RawValue{Class: asn1.ClassUniversal, Tag: asn1.TagSet, IsCompound: true, Bytes: si.SignedAttrs.Bytes})
			h := sha256.Sum256(set)
			switch pub := s.cert.PublicKey.(type) {
			case *rsa.PublicKey:
				err = rsa.VerifyPKCS1v15(pub, crypto.SHA256, h[:], si.Signature)
			case *ecdsa.PublicKey:
				if !ecdsa.VerifyASN1(pub, h[:], si.Signature) {
					err = errInvalidSignature
				}
			}
			if err != nil {
				t.Errorf("%s ec=%v: signature: %v", format, ecKey, err)
			}
		}
	}
}

// errInvalidSignature is an ECDSA signature that does not verify.
var errInvalidSignature = asn1.SyntaxError{Msg: "invalid signature"}

// Serial is the signer info's certificate serial (a test accessor).
func (si signerInfo) Serial() *big.Int { return si.SID.Serial }

// TestIncrementalUpdateXRef writes an update's cross-reference section
// as a table and as a stream: runs of consecutive numbers, offsets from
// the document's start, /Prev, and a startxref pointing at the section.
func TestIncrementalUpdateXRef(t *testing.T) {
	for _, stream := range []bool{false, true} {
		u := newIncrementalUpdate(1000, 10, "\n")
		a, b := u.reserve(), u.reserve()
		u.writeObject(a, 0, "<< /A 1 >>")
		u.writeObject(3, 2, "[1 2 3]")
		u.writeObject(b, 0, "(b)")
		ref := *types.NewIndirectRef(1, 0)
		out := string(u.finish(trailerEntries{root: &ref, prev: 900}, stream))
		if !strings.HasSuffix(out, "%%EOF\n") || !strings.Contains(out, "/Prev 900") || !strings.Contains(out, "/Root 1 0 R") {
			t.Errorf("stream=%v: %s", stream, out)
		}
		if !stream {
			if !strings.Contains(out, "xref\n3 1\n"+pad10(1000+int64(strings.Index(out, "3 2 obj")))+" 00002 n \n10 2\n") || !strings.Contains(out, "/Size 12") {
				t.Errorf("table: %s", out)
			}
			continue
		}
		if !strings.Contains(out, "/Type/XRef") && !strings.Contains(out, "/Type /XRef") || !strings.Contains(out, "/Size 13") ||
			!strings.Contains(out, "/Index[3 1 10 3]") {
			t.Errorf("stream: %s", out)
		}
	}
}

func pad10(n int64) string {
	s := big.NewInt(n).String()
	return strings.Repeat("0", 10-len(s)) + s
}
