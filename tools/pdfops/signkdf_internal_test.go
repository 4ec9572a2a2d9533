package pdfops

import (
	"bytes"
	"encoding/asn1"
	"errors"
	"math/big"
	"strings"
	"testing"

	"software.sslmate.com/src/go-pkcs12"

	docmill "github.com/docmill/docmill"
)

// der marshals v, failing t on error.
func der(t *testing.T, v any) []byte {
	t.Helper()
	b, err := asn1.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// derSeq is a SEQUENCE of the given DER values.
func derSeq(t *testing.T, parts ...[]byte) []byte {
	t.Helper()
	return der(t, asn1.RawValue{Class: asn1.ClassUniversal, Tag: asn1.TagSequence, IsCompound: true, Bytes: bytes.Join(parts, nil)})
}

// pbeParams is the DER of a salt and an iteration count, as the MAC,
// the PKCS#12 PBE and PBKDF2 write them.
func pbeParams(t *testing.T, count *big.Int) []byte {
	return derSeq(t, der(t, []byte("saltsalt")), der(t, count))
}

func TestCheckKDFWork(t *testing.T) {
	s := cmsTestSigner(t, true)
	encode := func(enc *pkcs12.Encoder) []byte {
		b, err := enc.Encode(s.key, s.cert, nil, "pw")
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	n := big.NewInt
	huge := new(big.Int).Lsh(n(1), 200)
	wrapped := func(inner []byte) []byte { return der(t, inner) } // an OCTET STRING holding DER
	deep := pbeParams(t, n(10))
	for range 40 {
		deep = derSeq(t, deep)
	}
	for _, c := range []struct {
		name    string
		data    []byte
		refused bool
		says    string
	}{
		{"modern (2,048 rounds)", encode(pkcs12.Modern), false, ""},
		{"legacy", encode(pkcs12.Legacy), false, ""},
		{"modern, 200,000 rounds", encode(pkcs12.Modern.WithIterations(200_000)), false, ""},
		{"one count at the bound", pbeParams(t, n(maxKDFIterations)), false, ""},
		{"one count past the bound", pbeParams(t, n(maxKDFIterations+1)), true, "1000001"},
		{"a count of 200 bits", pbeParams(t, huge), true, "more than"},
		{"five parts past the total", derSeq(t, pbeParams(t, n(900_000)), pbeParams(t, n(900_000)), pbeParams(t, n(900_000)), pbeParams(t, n(900_000)), pbeParams(t, n(900_000))), true, "4500000"},
		{"wrapped in an OCTET STRING", derSeq(t, wrapped(derSeq(t, derSeq(t, pbeParams(t, n(1<<31)))))), true, "2147483648"},
		{"after a value encoding/asn1 skips", derSeq(t, wrapped(derSeq(t, pbeParams(t, n(1<<31)), []byte{0xff, 0xff}))), true, "2147483648"},
		{"an integer not after a salt", derSeq(t, der(t, n(1<<40)), der(t, []byte("x"))), false, ""},
		{"nested past the walk", deep, true, "could not be read"},
		{"not DER", []byte("garbage, the decoder refuses it"), false, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := checkPKCS12Work(c.data)
			if !c.refused {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var e *docmill.Error
			if !errors.As(err, &e) || e.Code != docmill.CodeInvalidDocument || !strings.Contains(e.Message, c.says) {
				t.Fatalf("got %v, want invalid_document saying %q", err, c.says)
			}
		})
	}
}

// TestCheckKDFWorkBoundedWalk: a megabyte of nested OCTET STRINGs and
// SEQUENCEs is walked within the value bound, not re-read per level.
func TestCheckKDFWorkBoundedWalk(t *testing.T) {
	var parts [][]byte
	for range 60_000 {
		parts = append(parts, der(t, []byte{1}))
	}
	flat := derSeq(t, parts...)
	if err := checkPKCS12Work(flat); err != nil {
		t.Fatalf("60,000 values refused: %v", err)
	}
	wide := derSeq(t, flat, flat)
	if err := checkPKCS12Work(wide); err == nil {
		t.Fatal("120,000 values walked")
	}
}
