package pdfops

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/asn1"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"time"

	docmill "github.com/docmill/docmill"
)

// This file writes the CMS SignedData (RFC 5652) of a PDF signature:
// detached (the PDF's byte ranges are the content, not carried), SHA-256,
// with signed attributes, and the signer's certificate chain.

// Object identifiers of the CMS structures and algorithms used here.
var (
	oidData                 = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 7, 1}
	oidSignedData           = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 7, 2}
	oidContentTypeAttr      = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 3}
	oidMessageDigestAttr    = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 4}
	oidSigningTimeAttr      = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 5}
	oidSigningCertificateV2 = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 16, 2, 47}
	oidSHA256               = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 2, 1}
	oidRSAEncryption        = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 1, 1}
	oidECDSAWithSHA256      = asn1.ObjectIdentifier{1, 2, 840, 10045, 4, 3, 2}
)

// signFormat is the kind of PDF signature written: its /SubFilter.
type signFormat string

// The two signature formats sign-pdf writes. PAdES (ETSI.CAdES.detached)
// carries the ESS signing-certificate-v2 attribute and no signing time
// (the time is the signature dictionary's /M); PKCS#7
// (adbe.pkcs7.detached) carries a signing time.
const (
	formatPAdES signFormat = "ETSI.CAdES.detached"
	formatPKCS7 signFormat = "adbe.pkcs7.detached"
)

// signer is what signs: the private key and its certificate, with the
// rest of the chain the PKCS#12 file held (issuers, leaf excluded).
type signer struct {
	key   crypto.Signer
	cert  *x509.Certificate
	chain []*x509.Certificate
}

// algorithmIdentifier is X.509's AlgorithmIdentifier; Parameters is
// absent when its FullBytes are empty.
type algorithmIdentifier struct {
	Algorithm  asn1.ObjectIdentifier
	Parameters asn1.RawValue `asn1:"optional"`
}

// cmsAttribute is a CMS Attribute: a type and a SET of values.
type cmsAttribute struct {
	Type   asn1.ObjectIdentifier
	Values asn1.RawValue `asn1:"set"`
}

// issuerAndSerial identifies a certificate by its issuer and serial.
type issuerAndSerial struct {
	Issuer asn1.RawValue
	Serial *big.Int
}

// signerInfo is CMS's SignerInfo, version 1 (issuer and serial).
type signerInfo struct {
	Version            int
	SID                issuerAndSerial
	DigestAlgorithm    algorithmIdentifier
	SignedAttrs        asn1.RawValue
	SignatureAlgorithm algorithmIdentifier
	Signature          []byte
}

// encapContent is the EncapsulatedContentInfo of a detached signature:
// its type, and no content.
type encapContent struct {
	ContentType asn1.ObjectIdentifier
}

// signedData is CMS's SignedData with certificates and no CRLs.
type signedData struct {
	Version          int
	DigestAlgorithms []algorithmIdentifier `asn1:"set"`
	EncapContent     encapContent
	Certificates     asn1.RawValue
	SignerInfos      []signerInfo `asn1:"set"`
}

// contentInfo is the outer CMS ContentInfo.
type contentInfo struct {
	ContentType asn1.ObjectIdentifier
	Content     asn1.RawValue // [0] EXPLICIT, written by hand
}

// essCertIDv2 identifies the signing certificate by its SHA-256 hash
// (the default algorithm, so not written) and its issuer and serial.
type essCertIDv2 struct {
	CertHash     []byte
	IssuerSerial issuerSerial
}

// issuerSerial is ESS's IssuerSerial: the issuer as GeneralNames.
type issuerSerial struct {
	Issuer []asn1.RawValue
	Serial *big.Int
}

// signingCertificateV2 is the ESS signing-certificate-v2 attribute's
// value (RFC 5035), without policies.
type signingCertificateV2 struct {
	Certs []essCertIDv2
}

// sha256Algorithm is SHA-256 as an AlgorithmIdentifier, parameters absent.
var sha256Algorithm = algorithmIdentifier{Algorithm: oidSHA256}

// signCMS returns the DER of a detached CMS SignedData by s over content
// whose SHA-256 digest is digest, in format, signed at when.
func signCMS(s *signer, digest []byte, format signFormat, when time.Time) ([]byte, error) {
	attrs, err := signedAttributes(s, digest, format, when)
	if err != nil {
		return nil, err
	}
	// The signature is over the attributes as a DER SET OF (tag 0x31);
	// in the SignerInfo the same bytes are [0] IMPLICIT.
	set, err := asn1.Marshal(asn1.RawValue{Class: asn1.ClassUniversal, Tag: asn1.TagSet, IsCompound: true, Bytes: attrs})
	if err != nil {
		return nil, err
	}
	h := sha256.Sum256(set)
	sig, err := s.key.Sign(rand.Reader, h[:], crypto.SHA256)
	if err != nil {
		// The key came from the client's file: Go checks an RSA key's
		// numbers as it parses it, but that its factors are primes only
		// when it signs (it verifies each signature it makes), so a key of
		// other factors parses and cannot sign.
		return nil, docmill.InvalidDocument(fmt.Errorf("pdfops: sign: %w", err),
			"The certificate file's private key could not sign: it is damaged (an RSA key whose factors are not primes, or whose numbers do not agree).")
	}
	sigAlg, err := signatureAlgorithm(s.key)
	if err != nil {
		return nil, err
	}
	var certs []byte
	for _, c := range append([]*x509.Certificate{s.cert}, s.chain...) {
		certs = append(certs, c.Raw...)
	}
	info := signerInfo{
		Version:            1,
		SID:                issuerAndSerial{Issuer: asn1.RawValue{FullBytes: s.cert.RawIssuer}, Serial: s.cert.SerialNumber},
		DigestAlgorithm:    sha256Algorithm,
		SignedAttrs:        asn1.RawValue{Class: asn1.ClassContextSpecific, Tag: 0, IsCompound: true, Bytes: attrs},
		SignatureAlgorithm: sigAlg,
		Signature:          sig,
	}
	sd := signedData{
		Version:          1,
		DigestAlgorithms: []algorithmIdentifier{sha256Algorithm},
		EncapContent:     encapContent{ContentType: oidData},
		Certificates:     asn1.RawValue{Class: asn1.ClassContextSpecific, Tag: 0, IsCompound: true, Bytes: certs},
		SignerInfos:      []signerInfo{info},
	}
	inner, err := asn1.Marshal(sd)
	if err != nil {
		return nil, fmt.Errorf("pdfops: signed data: %w", err)
	}
	return asn1.Marshal(contentInfo{ContentType: oidSignedData, Content: asn1.RawValue{Class: asn1.ClassContextSpecific, Tag: 0, IsCompound: true, Bytes: inner}})
}

// signedAttributes returns the DER of the signed attributes, each
// attribute's encoding in ascending order as DER's SET OF requires:
// content-type and message-digest always, the signing time for PKCS#7,
// the signing certificate for PAdES.
func signedAttributes(s *signer, digest []byte, format signFormat, when time.Time) ([]byte, error) {
	type value struct {
		oid asn1.ObjectIdentifier
		v   any
	}
	values := []value{{oidContentTypeAttr, oidData}, {oidMessageDigestAttr, digest}}
	switch format {
	case formatPKCS7:
		values = append(values, value{oidSigningTimeAttr, when.UTC()})
	case formatPAdES:
		certHash := sha256.Sum256(s.cert.Raw)
		// GeneralName directoryName is [4] EXPLICIT Name.
		issuer := asn1.RawValue{Class: asn1.ClassContextSpecific, Tag: 4, IsCompound: true, Bytes: s.cert.RawIssuer}
		values = append(values, value{oidSigningCertificateV2, signingCertificateV2{Certs: []essCertIDv2{{
			CertHash: certHash[:], IssuerSerial: issuerSerial{Issuer: []asn1.RawValue{issuer}, Serial: s.cert.SerialNumber},
		}}}})
	default:
		return nil, fmt.Errorf("pdfops: signature format %q", format)
	}
	var encoded [][]byte
	for _, v := range values {
		inner, err := asn1.Marshal(v.v)
		if err != nil {
			return nil, fmt.Errorf("pdfops: attribute %v: %w", v.oid, err)
		}
		b, err := asn1.Marshal(cmsAttribute{Type: v.oid, Values: asn1.RawValue{Class: asn1.ClassUniversal, Tag: asn1.TagSet, IsCompound: true, Bytes: inner}})
		if err != nil {
			return nil, fmt.Errorf("pdfops: attribute %v: %w", v.oid, err)
		}
		encoded = append(encoded, b)
	}
	slices.SortFunc(encoded, bytes.Compare)
	return bytes.Join(encoded, nil), nil
}

// signatureAlgorithm names the algorithm of key's signatures: RSA
// PKCS#1 v1.5 (rsaEncryption, NULL parameters, as CMS writes it) or
// ECDSA with SHA-256.
func signatureAlgorithm(key crypto.Signer) (algorithmIdentifier, error) {
	switch key.(type) {
	case *rsa.PrivateKey:
		return algorithmIdentifier{Algorithm: oidRSAEncryption, Parameters: asn1.NullRawValue}, nil
	case *ecdsa.PrivateKey:
		return algorithmIdentifier{Algorithm: oidECDSAWithSHA256}, nil
	}
	return algorithmIdentifier{}, errors.New("pdfops: unsupported key type")
}

// maxCMSOverhead is room in the /Contents placeholder beyond the
// certificates and the signer's issuer and serial: the signed attributes'
// fixed part, the signature (512 bytes for RSA 4096, more for larger
// keys) and the DER framing.
const maxCMSOverhead = 4096

// cmsSize returns the most bytes the CMS of s may take. Beside the
// certificates, the CMS repeats the signer certificate's issuer name and
// serial number twice (the SignerInfo's sid, and the PAdES
// signing-certificate-v2 attribute): both come from the certificate
// file and have no length bound of their own (a 60 KB issuer name is a
// valid certificate), so they are counted, not left to the overhead.
func cmsSize(s *signer) int {
	n := len(s.cert.Raw)
	for _, c := range s.chain {
		n += len(c.Raw)
	}
	n += 2 * (len(s.cert.RawIssuer) + len(s.cert.SerialNumber.Bytes()))
	if k, ok := s.key.(*rsa.PrivateKey); ok {
		n += k.Size()
	}
	return n + maxCMSOverhead
}
