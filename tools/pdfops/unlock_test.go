package pdfops_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/pdfops"
	"github.com/docmill/docmill/tools/toolstest"
)

// qpdfEncrypt encrypts the corpus file name with qpdf, independently of
// pdfcpu: args are qpdf's --encrypt arguments (user password, owner
// password, key length, restrictions).
func qpdfEncrypt(t *testing.T, name string, args ...string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "qpdf-"+name)
	cmd := append([]string{"--allow-weak-crypto", "--encrypt"}, args...)
	cmd = append(cmd, "--", pdfCorpus(t)+name, out)
	if o, code := program(t, "qpdf", cmd...); code != 0 {
		t.Fatalf("qpdf %v: exit %d: %s", cmd, code, o)
	}
	return out
}

// protect runs protect-pdf on the corpus file name and returns the output.
func protect(t *testing.T, name string, params map[string]string) string {
	t.Helper()
	out, err := runValidated(t, "protect-pdf", params, pdfCorpus(t)+name)
	if err != nil {
		t.Fatal(err)
	}
	return out.Path
}

func TestUnlock(t *testing.T) {
	tests := []struct {
		name       string
		file       func(t *testing.T) string
		password   string
		plain      string // the corpus file whose text the output must have
		encryption string
	}{
		{"corpus, user password", fixed(encryptedPDF(t)), "openpassword", "", "RC4-128"},
		{"corpus, owner password", fixed(encryptedPDF(t)), "permissionpassword", "", "RC4-128"},
		{"qpdf AES-256, owner only, no password", qpdfEncrypted("pdflatex-4-pages.pdf", "", "boss", "256", "--print=none", "--modify=none", "--extract=n"), "", "pdflatex-4-pages.pdf", "AES-256"},
		{"qpdf AES-256, owner only, owner password", qpdfEncrypted("pdflatex-4-pages.pdf", "", "boss", "256", "--print=none"), "boss", "pdflatex-4-pages.pdf", "AES-256"},
		{"qpdf AES-256, owner only, owner password with a space", qpdfEncrypted("pdflatex-4-pages.pdf", "", "the boss", "256", "--print=none"), "the boss", "pdflatex-4-pages.pdf", "AES-256"},
		{"qpdf AES-256, user password", qpdfEncrypted("pdflatex-outline.pdf", "user", "owner", "256"), "user", "pdflatex-outline.pdf", "AES-256"},
		{"qpdf AES-128, user password with a space", qpdfEncrypted("pdflatex-forms.pdf", "open sesame", "owner", "128", "--use-aes=y"), "open sesame", "pdflatex-forms.pdf", "AES-128"},
		{"qpdf RC4-40", qpdfEncrypted("minimal-document.pdf", "user", "owner", "40"), "owner", "minimal-document.pdf", "RC4-40"},
		{"round trip, user password", protected("pdflatex-4-pages.pdf", map[string]string{"password": "user", "owner_password": "owner", "permissions": "print"}), "user", "pdflatex-4-pages.pdf", "AES-256"},
		{"round trip, owner password", protected("with-attachment.pdf", map[string]string{"password": "user", "owner_password": "owner", "permissions": "none"}), "owner", "with-attachment.pdf", "AES-256"},
		{"round trip, generated owner password", protected("annotated_pdf.pdf", map[string]string{"password": "Пароль", "permissions": "copy"}), "Пароль", "annotated_pdf.pdf", "AES-256"},
		{"round trip, many pages", protected("GeoTopo-komprimiert.pdf", map[string]string{"password": "user"}), "user", "GeoTopo-komprimiert.pdf", "AES-256"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := tt.file(t)
			// The output must have the text of the plain original, or of
			// the encrypted input as poppler reads it with the password.
			var want string
			if tt.plain != "" {
				want = text(t, pdfCorpus(t)+tt.plain)
			} else {
				want = text(t, in, "-opw", tt.password, "-upw", tt.password)
			}
			out, err := runValidated(t, "unlock-pdf", map[string]string{"password": tt.password}, in)
			if err != nil {
				t.Fatal(err)
			}
			if o, code := program(t, "qpdf", "--is-encrypted", out.Path); code != 2 {
				t.Errorf("qpdf --is-encrypted: exit %d, want 2 (not encrypted): %s", code, o)
			}
			if o, code := program(t, "qpdf", "--check", out.Path); code != 0 {
				t.Errorf("qpdf --check: exit %d: %s", code, o)
			}
			if got := text(t, out.Path); got != want || strings.TrimSpace(got) == "" {
				t.Errorf("unlocked text differs from the input's:\n%.200s\nwant\n%.200s", got, want)
			}
			pages := readBack(t, out.Path).PageCount
			if out.Meta["encrypted"] != true || out.Meta["encryption"] != tt.encryption || out.Meta["pages"] != pages {
				t.Errorf("meta = %v, want encrypted %s, %d pages", out.Meta, tt.encryption, pages)
			}
			if !strings.HasSuffix(out.Filename, "-unlocked.pdf") || out.ContentType != "application/pdf" {
				t.Errorf("output = %q %q", out.Filename, out.ContentType)
			}
		})
	}
}

func fixed(path string) func(*testing.T) string {
	return func(*testing.T) string { return path }
}

// qpdfEncrypted returns the input of a TestUnlock case: the corpus file
// name encrypted by qpdfEncrypt with args.
func qpdfEncrypted(name string, args ...string) func(*testing.T) string {
	return func(t *testing.T) string { return qpdfEncrypt(t, name, args...) }
}

// protected returns the input of a TestUnlock case: the corpus file name
// protected by protect-pdf with params.
func protected(name string, params map[string]string) func(*testing.T) string {
	return func(t *testing.T) string { return protect(t, name, params) }
}

// TestUnlockNotEncrypted checks that an input that is not encrypted comes
// back unchanged, whether or not a password is given.
func TestUnlockNotEncrypted(t *testing.T) {
	for _, params := range []map[string]string{nil, {"password": "anything at all"}} {
		out, err := runValidated(t, "unlock-pdf", params, fourPagesPDF(t))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(out.Path)
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(fourPagesPDF(t))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Error("output differs from the unencrypted input")
		}
		if out.Meta["encrypted"] != false || out.Meta["pages"] != 4 || out.Meta["encryption"] != nil {
			t.Errorf("meta = %v, want encrypted false, 4 pages", out.Meta)
		}
		if out.Filename != "four-pages-unlocked.pdf" {
			t.Errorf("filename = %q", out.Filename)
		}
	}
}

func TestUnlockBadPassword(t *testing.T) {
	protected := protect(t, "minimal-document.pdf", map[string]string{"password": "user", "owner_password": "owner", "permissions": "print"})
	tests := []struct {
		name     string
		file     string
		password string
		contains []string
	}{
		{"corpus, none", encryptedPDF(t), "", []string{"is required", "password-protected"}},
		{"corpus, wrong", encryptedPDF(t), "openpassword2", []string{"is wrong"}},
		{"corpus, case differs", encryptedPDF(t), "OpenPassword", []string{"is wrong"}},
		{"protected, none", protected, "", []string{"is required"}},
		{"protected, wrong", protected, "usr", []string{"is wrong"}},
		{"protected, wrong with a space", protected, "us er", []string{"spaces"}},
		{"qpdf AES-256, password with a space", qpdfEncrypt(t, "minimal-document.pdf", "open sesame", "owner", "256"), "open sesame", []string{"spaces", "AES-256"}},
		{"qpdf AES-256, owner only, wrong", qpdfEncrypt(t, "minimal-document.pdf", "", "boss", "256", "--print=none"), "bos", []string{"is wrong"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out, err := runValidated(t, "unlock-pdf", map[string]string{"password": tt.password}, tt.file)
			e := wantRefused(t, out, err, docmill.CodeInvalidParameter, tt.contains...)
			if len(e.Fields) != 1 || e.Fields[0].Field != "password" {
				t.Errorf("fields = %v, want password", e.Fields)
			}
			if tt.password != "" && strings.Contains(err.Error(), tt.password) {
				t.Errorf("error %q reveals the password", err)
			}
		})
	}
}

func TestUnlockBadInput(t *testing.T) {
	bad := badInputs(t)
	tests := []struct {
		name     string
		file     string
		password string
		contains []string
	}{
		{"text", bad["text"], "", []string{"The file", "not a PDF"}},
		{"empty", bad["empty"], "secret", []string{"The file"}},
		{"truncated", bad["truncated"], "", []string{"damaged"}},
		{"truncated, password with a space", bad["truncated"], "open sesame", []string{"damaged"}},
		{"header only", bad["header-only"], "", nil},
		{"too many pages", manyPagesPDF(t, pdfops.MaxPages+1), "", []string{"10001 pages"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out, err := runValidated(t, "unlock-pdf", map[string]string{"password": tt.password}, tt.file)
			wantRefused(t, out, err, docmill.CodeInvalidDocument, tt.contains...)
		})
	}
	// A truncated encrypted file: the password is right, the file is not.
	b, err := os.ReadFile(encryptedPDF(t))
	if err != nil {
		t.Fatal(err)
	}
	truncated := filepath.Join(t.TempDir(), "truncated-encrypted.pdf")
	if err := os.WriteFile(truncated, b[:len(b)/2], 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = runValidated(t, "unlock-pdf", map[string]string{"password": "openpassword"}, truncated)
	wantCode(t, err, docmill.CodeInvalidDocument, "damaged")
	_, err = runValidated(t, "unlock-pdf", nil, sparseFile(t, pdfops.MaxInputBytes+1))
	wantCode(t, err, docmill.CodeFileTooLarge)
}

func TestUnlockCanceled(t *testing.T) {
	_, err := invoke(canceledContext(), t, "unlock-pdf", map[string]string{"password": "openpassword"}, "application/pdf", encryptedPDF(t))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want the context's error", err)
	}
}

// FuzzUnlock checks that no input makes unlock-pdf panic or fail with
// anything but success, invalid_document or, for encrypted inputs,
// invalid_parameter (a wrong password).
func FuzzUnlock(f *testing.F) {
	for _, b := range corpusPDFs(f, "minimal-document.pdf", "libreoffice-writer-password.pdf") {
		f.Add(b, "openpassword")
		f.Add(b[:len(b)*3/4], "")
	}
	f.Fuzz(func(t *testing.T, b []byte, password string) {
		if len(password) > 1024 {
			return
		}
		p := toolstest.WriteTemp(t, "in.pdf", b)
		_, err := runValidated(t, "unlock-pdf", map[string]string{"password": password}, p)
		switch docmill.ErrorCode(err) {
		case "", docmill.CodeInvalidDocument, docmill.CodeInvalidParameter:
		default:
			t.Fatalf("error %v", err)
		}
	})
}
