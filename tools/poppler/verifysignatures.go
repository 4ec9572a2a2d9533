package poppler

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
)

// maxSigOutput bounds what pdfsig may print of a document's signatures.
const maxSigOutput = 4 << 20

// unreadableReport is the refusal of a pdfsig report that cannot be read
// unambiguously: a certificate name or field name that holds line breaks
// shaped as pdfsig's own lines.
const unreadableReport = "The document's signatures could not be read unambiguously: a certificate or field name holds line breaks."

// verifySignaturesTool returns verify-pdf-signatures: a JSON report of
// every signature of a PDF, as poppler's pdfsig checks it offline
// against an empty NSS database that certutil makes.
func verifySignaturesTool(e Engines) *docmill.Tool {
	engines := []*sandbox.Engine{e.PDFSig, e.CertUtil}
	return engineTool(docmill.Tool{
		Slug:  "verify-pdf-signatures",
		Title: "Verify PDF signatures",
		Description: "Check the digital signatures of a PDF and report them as JSON: signer, signing time, whether the signature is valid, " +
			"whether it covers the whole document or the file was changed after signing, and the certificate's status. " +
			"Certificates are checked offline, with no trusted authorities: a self-signed certificate, or one whose root is not in the file, is reported as unknown_issuer.",
		Meta: []docmill.MetaField{
			{Name: "signatures", Type: docmill.MetaInteger, Description: "Signatures of the document."},
			{Name: "valid_signatures", Type: docmill.MetaInteger, Description: "Signatures whose digest and signature are valid."},
		},
		Outputs: []string{reportContentType},
		Run: func(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
			return runVerify(ctx, e, in)
		},
	}, engines...)
}

// SignatureReport is one signature as verify-pdf-signatures reports it,
// an entry of the report's "signatures".
type SignatureReport struct {
	FieldName string `json:"field_name"`
	Signer    struct {
		CommonName        string `json:"common_name"`
		DistinguishedName string `json:"distinguished_name"`
	} `json:"signer"`
	// SigningTime is the time the signature claims, RFC 3339 in UTC; ""
	// when it states none.
	SigningTime   string `json:"signing_time"`
	HashAlgorithm string `json:"hash_algorithm"`
	SignatureType string `json:"signature_type"`
	// SignedRanges are the byte ranges the signature covers, [first,
	// last) offsets as the /ByteRange pairs give them.
	SignedRanges         [][2]int64 `json:"signed_ranges"`
	CoversWholeDocument  bool       `json:"covers_whole_document"`
	ModifiedAfterSigning bool       `json:"modified_after_signing"`
	SignatureValid       bool       `json:"signature_valid"`
	// SignatureStatus is valid, invalid, digest_mismatch, decoding_error,
	// not_verified or unknown; not_signed for a signature field that holds
	// no signature yet (a form's empty field to sign).
	SignatureStatus string `json:"signature_status"`
	// CertificateStatus is trusted, untrusted_issuer, unknown_issuer,
	// revoked, expired, not_verified or unknown, as NSS judges it against
	// an empty database; not_checked when the signature itself is not
	// valid. With no trust anchors, a self-signed certificate, or a chain
	// to a root the signature does not carry, is unknown_issuer.
	CertificateStatus string `json:"certificate_status"`
}

// runVerify asks pdfsig for the signatures and for their count.
func runVerify(ctx context.Context, e Engines, in *docmill.RunInput) (*docmill.RunOutput, error) {
	f := in.Files[0]
	src, err := filepath.Abs(f.Path)
	if err != nil {
		return nil, fmt.Errorf("poppler: input path: %w", err)
	}
	count, err := signatureCount(ctx, e.PDFSig, src, in.WorkDir)
	if err != nil {
		return nil, err
	}
	sigs := []SignatureReport{}
	if count > 0 {
		db, err := newKeyDB(ctx, e.CertUtil, in.WorkDir)
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(db.dir)
		res, err := e.PDFSig.Run(ctx, sandbox.Cmd{Args: []string{"-nssdir", db.spec(), "-no-ocsp", src}, Dir: in.WorkDir,
			MaxOutput: maxSigOutput, Env: []string{"TZ=UTC"}})
		if err != nil {
			return nil, engineError(err, "reading its signatures")
		}
		if sigs, err = parseSignatures(res.Stdout, f.Size); err != nil {
			return nil, err
		}
		if len(sigs) != count {
			return nil, docmill.InvalidDocument(fmt.Errorf("pdfsig: %d signatures listed, %d dumped", len(sigs), count), unreadableReport)
		}
	}
	valid := 0
	for _, s := range sigs {
		if s.SignatureValid {
			valid++
		}
	}
	return writeReport(in, "signatures", map[string]any{"signatures": sigs},
		map[string]any{"signatures": len(sigs), "valid_signatures": valid})
}

// noSignatures ends what pdfsig prints, exiting with 2, of a document
// without signature fields.
const noSignatures = "does not contain any signatures"

// pdfsig -dump stops at the first signature field that holds no
// signature, printing cannotDump and exiting with exitCannotDump; its
// count line was printed before.
const (
	cannotDump     = "Cannot dump signature #"
	exitCannotDump = 3
)

// notSigned is the line pdfsig's report gives a signature field that
// holds no signature, after its name and instead of any other line.
const notSigned = "  The signature form field is not signed."

// signatureCount returns how many signatures pdfsig -dump finds. Its first
// line, "Dumping Signatures: N", comes before anything the document
// controls, so it counts the blocks of the report that a hostile name
// could otherwise add to. N counts signature fields, signed or not: a
// field without a signature stops the dump, not the count.
func signatureCount(ctx context.Context, pdfsig *sandbox.Engine, src, dir string) (int, error) {
	res, err := pdfsig.Run(ctx, sandbox.Cmd{Args: []string{"-nocert", "-dump", src}, Dir: dir, MaxOutput: maxSigOutput})
	var x *sandbox.ExitError
	switch {
	case errors.As(err, &x) && x.Code == 2 && res != nil && bytes.Contains(res.Stdout, []byte(noSignatures)):
		return 0, nil
	case errors.As(err, &x) && x.Code == exitCannotDump && res != nil && bytes.Contains(res.Stdout, []byte("\n"+cannotDump)):
		// A field without a signature; the count line is read below.
	case err != nil:
		return 0, engineError(err, "reading its signatures")
	}
	first, _, _ := bytes.Cut(res.Stdout, []byte("\n"))
	n, err := strconv.Atoi(strings.TrimPrefix(string(first), "Dumping Signatures: "))
	if err != nil || n < 0 {
		return 0, fmt.Errorf("pdfsig -dump printed %q first", first)
	}
	return n, nil
}

// parseSignatures reads pdfsig's report: a "Signature #N:" line a
// signature, numbered from 1, then "  - Key: value" lines, or, for a
// field that holds no signature, its name's line and the notSigned line.
// Names come from the document and its certificates and may hold line
// breaks, so a report where a signature states a key twice, numbers are
// out of sequence, or a field said to be unsigned states anything but its
// name, is refused rather than guessed at. size is the file's size, which
// the last signed byte reaches unless the file was changed after signing.
func parseSignatures(out []byte, size int64) ([]SignatureReport, error) {
	var sigs []SignatureReport
	var seen map[string]bool
	unsigned, rank := false, 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, maxSigOutput)
	for sc.Scan() {
		line := sc.Text()
		if n, ok := strings.CutPrefix(line, "Signature #"); ok && strings.HasSuffix(n, ":") {
			if strings.TrimSuffix(n, ":") != strconv.Itoa(len(sigs)+1) {
				return nil, docmill.InvalidDocument(fmt.Errorf("pdfsig: %q after %d signatures", line, len(sigs)), unreadableReport)
			}
			sigs = append(sigs, SignatureReport{SignatureStatus: "unknown", CertificateStatus: "not_checked", SignedRanges: [][2]int64{}})
			seen, unsigned, rank = map[string]bool{}, false, 0
			continue
		}
		if line == notSigned && len(sigs) > 0 {
			// pdfsig states nothing of such a field but its name, so any
			// other line before this one came from a name.
			others := len(seen)
			if seen["Signature Field Name"] {
				others--
			}
			if unsigned || others > 0 {
				return nil, docmill.InvalidDocument(fmt.Errorf("pdfsig: an unsigned field with other lines"), unreadableReport)
			}
			unsigned = true
			sigs[len(sigs)-1].SignatureStatus = "not_signed"
			continue
		}
		entry, ok := strings.CutPrefix(line, "  - ")
		if !ok || len(sigs) == 0 {
			continue
		}
		if unsigned {
			return nil, docmill.InvalidDocument(fmt.Errorf("pdfsig: %q after an unsigned field's last line", entry), unreadableReport)
		}
		key, value, _ := strings.Cut(entry, ": ")
		if key == "Not total document signed" {
			key = "Total document signed"
		}
		if seen[key] {
			return nil, docmill.InvalidDocument(fmt.Errorf("pdfsig: %q twice in a signature", key), unreadableReport)
		}
		if r, ok := reportOrder[key]; ok {
			if r <= rank {
				return nil, docmill.InvalidDocument(fmt.Errorf("pdfsig: %q out of order in a signature", key), unreadableReport)
			}
			rank = r
		}
		seen[key] = true
		setField(&sigs[len(sigs)-1], key, value, entry)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("pdfsig report: %w", err)
	}
	for i := range sigs {
		r := sigs[i].SignedRanges
		sigs[i].ModifiedAfterSigning = len(r) > 0 && r[len(r)-1][1] < size
		if !sigs[i].SignatureValid {
			sigs[i].CertificateStatus = "not_checked"
		}
	}
	return sigs, nil
}

// reportOrder ranks the keys of a signature's lines in the order pdfsig
// prints them. It leaves out lines it cannot state: "Certificate
// Validation" of a signature that is not valid, "Signed Ranges" and
// "Total document signed" of one without a /ByteRange. A name with line
// breaks could state those (nothing repeats them after it), but every
// name is followed by a line of a lower rank: the field name by the
// signer's, the signer's names by the signing time. So a report whose
// keys do not rise is refused with the ones stated twice.
var reportOrder = map[string]int{
	"Signature Field Name":           1,
	"Signer Certificate Common Name": 2,
	"Signer full Distinguished Name": 3,
	"Signing Time":                   4,
	"Signing Hash Algorithm":         5,
	"Signature Type":                 6,
	"Signed Ranges":                  7,
	"Total document signed":          8,
	"Signature Validation":           9,
	"Certificate Validation":         10,
}

// setField sets what one line of pdfsig's report says.
func setField(s *SignatureReport, key, value, entry string) {
	switch key {
	case "Signature Field Name":
		s.FieldName = value
	case "Signer Certificate Common Name":
		s.Signer.CommonName = value
	case "Signer full Distinguished Name":
		s.Signer.DistinguishedName = value
	case "Signing Time":
		if t, err := time.Parse("Jan 02 2006 15:04:05", value); err == nil {
			s.SigningTime = t.UTC().Format(time.RFC3339)
		}
	case "Signing Hash Algorithm":
		s.HashAlgorithm = value
	case "Signature Type":
		s.SignatureType = value
	case "Signed Ranges":
		s.SignedRanges = parseRanges(value)
	case "Total document signed":
		s.CoversWholeDocument = entry == "Total document signed"
	case "Signature Validation":
		s.SignatureStatus = statusName(value, signatureStates)
		s.SignatureValid = s.SignatureStatus == "valid"
	case "Certificate Validation":
		s.CertificateStatus = statusName(value, certificateStates)
	}
}

// parseRanges reads "[0 - 501925], [506575 - 506972]".
func parseRanges(v string) [][2]int64 {
	out := [][2]int64{}
	for _, part := range strings.Split(v, ",") {
		var a, b int64
		if _, err := fmt.Sscanf(strings.TrimSpace(part), "[%d - %d]", &a, &b); err == nil {
			out = append(out, [2]int64{a, b})
		}
	}
	return out
}

// pdfsig's readable states (poppler 22), by the names the report uses.
var (
	signatureStates = map[string]string{
		"Signature is Valid.":                      "valid",
		"Signature is Invalid.":                    "invalid",
		"Digest Mismatch.":                         "digest_mismatch",
		"Document isn't signed or corrupted data.": "decoding_error",
		"Signature has not yet been verified.":     "not_verified",
	}
	certificateStates = map[string]string{
		"Certificate is Trusted.":                "trusted",
		"Certificate issuer isn't Trusted.":      "untrusted_issuer",
		"Certificate issuer is unknown.":         "unknown_issuer",
		"Certificate has been Revoked.":          "revoked",
		"Certificate has Expired":                "expired",
		"Certificate has not yet been verified.": "not_verified",
	}
)

// statusName names a readable state; "unknown" for any other.
func statusName(v string, states map[string]string) string {
	if s, ok := states[strings.TrimSpace(v)]; ok {
		return s
	}
	return "unknown"
}
