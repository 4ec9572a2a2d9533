package pdfops

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"

	"github.com/docmill/docmill/tools/toolstest"
)

// TestHashR6MatchesQPDF: the U and O entries qpdf writes for AES-256
// (revision 6) each start with the hash of their password and validation
// salt (and, for O, U), which hashR6 computes alike: the key derivation
// agrees with another implementation, byte for byte.
func TestHashR6MatchesQPDF(t *testing.T) {
	toolstest.Need(t, "qpdf")
	dir := t.TempDir()
	in := toolstest.WriteTemp(t, "plain.pdf", toolstest.TextPDF("A page"))
	for _, pw := range []struct{ user, owner string }{{"s3cret", "b0ss"}, {"x", "a-much-longer-owner-password-of-48-bytes-0123456"}} {
		out := filepath.Join(dir, "qpdf.pdf")
		if b, err := exec.Command("qpdf", "--encrypt", pw.user, pw.owner, "256", "--", in, out).CombinedOutput(); err != nil {
			t.Fatalf("qpdf: %v: %s", err, b)
		}
		conf := newConfig(model.VALIDATE)
		conf.UserPW = pw.user
		f, err := os.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := api.ReadContext(f, conf)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		u, o := doc.E.U, doc.E.O
		if len(u) != 48 || len(o) != 48 {
			t.Fatalf("U %d bytes, O %d bytes", len(u), len(o))
		}
		if got := hashR6([]byte(pw.user), u[32:40], nil); !bytes.Equal(got, u[:32]) {
			t.Errorf("user %q: hash %x, qpdf's U starts %x", pw.user, got, u[:32])
		}
		if got := hashR6([]byte(pw.owner), o[32:40], u); !bytes.Equal(got, o[:32]) {
			t.Errorf("owner %q: hash %x, qpdf's O starts %x", pw.owner, got, o[:32])
		}
	}
}
