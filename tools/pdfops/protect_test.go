package pdfops_test

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/pdfops"
	"github.com/docmill/docmill/tools/toolstest"
)

// program runs an installed program that checks the tools' output
// independently, and returns its output and exit code. The test is
// skipped when the program is not installed.
func program(t *testing.T, name string, args ...string) (string, int) {
	t.Helper()
	toolstest.Need(t, name)
	out, err := exec.Command(name, args...).CombinedOutput()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return string(out), exit.ExitCode()
	case err != nil:
		t.Fatalf("%s: %v", name, err)
	}
	return string(out), 0
}

// text extracts the text of path with pdftotext, with extra options such
// as "-upw", "secret"; it fails the test if pdftotext does.
func text(t *testing.T, path string, opts ...string) string {
	t.Helper()
	out, code := program(t, "pdftotext", append(opts, path, "-")...)
	if code != 0 {
		t.Fatalf("pdftotext %v: exit %d: %s", opts, code, out)
	}
	return out
}

// opens reports whether qpdf decrypts path with password.
func opens(t *testing.T, path, password string) bool {
	t.Helper()
	_, code := program(t, "qpdf", "--decrypt", "--password="+password, path, filepath.Join(t.TempDir(), "decrypted.pdf"))
	return code == 0
}

// qpdfPermissions maps each permission line of `qpdf --show-encryption`
// to the protect-pdf permission that allows it ("" = always allowed).
var qpdfPermissions = map[string]string{
	"print low resolution":      "print",
	"print high resolution":     "print",
	"extract for any purpose":   "copy",
	"extract for accessibility": "",
	"modify document assembly":  "modify",
	"modify other":              "modify",
	"modify annotations":        "annotate",
	"modify forms":              "fill-forms",
}

// checkEncryption checks with qpdf that path is AES-256 (R6) encrypted,
// needs a password to open, opens with password as the given kind
// ("user" or "owner"), and allows exactly perms.
func checkEncryption(t *testing.T, path, password, kind string, perms []string) {
	t.Helper()
	if out, code := program(t, "qpdf", "--requires-password", path); code != 0 {
		t.Errorf("qpdf --requires-password: exit %d, want 0 (password needed): %s", code, out)
	}
	out, code := program(t, "qpdf", "--show-encryption", "--password="+password, path)
	if code != 0 {
		t.Fatalf("qpdf --show-encryption: exit %d: %s", code, out)
	}
	for _, want := range []string{"R = 6", "stream encryption method: AESv3", "string encryption method: AESv3",
		"Supplied password is " + kind + " password"} {
		if !strings.Contains(out, want) {
			t.Errorf("qpdf output lacks %q:\n%s", want, out)
		}
	}
	for line, perm := range qpdfPermissions {
		want := "not allowed"
		if perm == "" || slices.Contains(perms, perm) {
			want = "allowed"
		}
		if !strings.Contains(out, line+": "+want+"\n") {
			t.Errorf("qpdf output lacks %q:\n%s", line+": "+want, out)
		}
	}
}

func TestProtect(t *testing.T) {
	tests := []struct {
		name   string
		file   string
		params map[string]string
		perms  []string
		owner  string // source in meta
	}{
		{"defaults", "minimal-document.pdf", map[string]string{"password": "secret"},
			[]string{"print", "copy", "modify", "annotate", "fill-forms"}, "same_as_password"},
		{"owner and print only", "pdflatex-4-pages.pdf",
			map[string]string{"password": "user-pw", "owner_password": "owner-pw", "permissions": "print"},
			[]string{"print"}, "provided"},
		{"none, generated owner", "pdflatex-4-pages.pdf", map[string]string{"password": "p@$$w0rd!#%&*", "permissions": "none"},
			[]string{}, "generated"},
		{"annotate brings fill-forms", "pdflatex-forms.pdf", map[string]string{"password": "x", "permissions": " Annotate , COPY "},
			[]string{"copy", "annotate", "fill-forms"}, "generated"},
		{"modify and forms", "pdflatex-forms.pdf", map[string]string{"password": "x", "owner_password": "y", "permissions": "modify,fill-forms"},
			[]string{"modify", "fill-forms"}, "provided"},
		{"all explicit, owner given", "annotated_pdf.pdf", map[string]string{"password": "a", "owner_password": "a", "permissions": "ALL"},
			[]string{"print", "copy", "modify", "annotate", "fill-forms"}, "provided"},
		{"longest password", "with-attachment.pdf", map[string]string{"password": strings.Repeat("k", 127), "permissions": "copy,print"},
			[]string{"print", "copy"}, "generated"},
		{"pdf/a", "crazyones-pdfa.pdf", map[string]string{"password": "secret"}, nil, "same_as_password"},
		{"misplaced info", "cmyk-image.pdf", map[string]string{"password": "secret"}, nil, "same_as_password"},
		{"many pages", "GeoTopo-komprimiert.pdf", map[string]string{"password": "secret", "owner_password": "boss", "permissions": "print"},
			[]string{"print"}, "provided"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.perms == nil {
				tt.perms = []string{"print", "copy", "modify", "annotate", "fill-forms"}
			}
			password := tt.params["password"]
			out, err := runValidated(t, "protect-pdf", tt.params, pdfCorpus(t)+tt.file)
			if err != nil {
				t.Fatal(err)
			}
			if want := strings.TrimSuffix(tt.file, ".pdf") + "-protected.pdf"; out.Filename != want || out.ContentType != "application/pdf" {
				t.Errorf("output = %q %q, want %q", out.Filename, out.ContentType, want)
			}
			pages := readBack(t, pdfCorpus(t)+tt.file).PageCount
			if out.Meta["encryption"] != "AES-256" || out.Meta["pages"] != pages || out.Meta["owner_password"] != tt.owner ||
				!slices.Equal(out.Meta["permissions"].([]string), tt.perms) {
				t.Errorf("meta = %v, want AES-256, %d pages, owner %s, permissions %v", out.Meta, pages, tt.owner, tt.perms)
			}
			checkEncryption(t, out.Path, password, "user", tt.perms)
			if owner := tt.params["owner_password"]; owner != "" && owner != password {
				checkEncryption(t, out.Path, owner, "owner", tt.perms)
				if got, want := text(t, out.Path, "-opw", owner), text(t, pdfCorpus(t)+tt.file); got != want {
					t.Errorf("text with the owner password differs from the input's")
				}
			}
			if !opens(t, out.Path, password) || opens(t, out.Path, "x"+password) || opens(t, out.Path, "") {
				t.Error("qpdf does not open the output with the password only")
			}
			if _, code := program(t, "pdftotext", out.Path, "-"); code == 0 {
				t.Error("pdftotext read the output without a password")
			}
			// poppler's programs cut passwords at 32 bytes.
			if len(password) <= 32 {
				if got, want := text(t, out.Path, "-upw", password), text(t, pdfCorpus(t)+tt.file); got != want {
					t.Errorf("text with the password differs from the input's")
				}
				if _, code := program(t, "pdftotext", "-upw", password+"x", out.Path, "-"); code == 0 {
					t.Error("pdftotext read the output with a wrong password")
				}
			}
		})
	}
}

// TestProtectUnicodePassword checks that a non-ASCII password in the
// normalized form readers use opens the output in qpdf.
func TestProtectUnicodePassword(t *testing.T) {
	const password = "Пароль2024ü"
	out, err := runValidated(t, "protect-pdf", map[string]string{"password": password}, onePagePDF(t))
	if err != nil {
		t.Fatal(err)
	}
	checkEncryption(t, out.Path, password, "user", []string{"print", "copy", "modify", "annotate", "fill-forms"})
	if opens(t, out.Path, "Пароль2024u") {
		t.Error("qpdf opened the output with a wrong password")
	}
	if !strings.Contains(text(t, out.Path, "-upw", password), "A generated page") {
		t.Error("pdftotext does not read the output with the password")
	}
}

func TestProtectBadParams(t *testing.T) {
	file := onePagePDF(t)
	tests := []struct {
		name     string
		params   map[string]string
		field    string
		contains []string
	}{
		{"unknown permission", map[string]string{"password": "pw", "permissions": "print,scan"}, "permissions", []string{`"scan"`, "fill-forms"}},
		{"all in a list", map[string]string{"password": "pw", "permissions": "print,all"}, "permissions", []string{`"all"`}},
		{"none in a list", map[string]string{"password": "pw", "permissions": "none,copy"}, "permissions", []string{`"none"`}},
		{"empty item", map[string]string{"password": "pw", "permissions": "print,,copy"}, "permissions", []string{"empty item"}},
		{"underscore", map[string]string{"password": "pw", "permissions": "fill_forms"}, "permissions", []string{`"fill_forms"`}},
		{"space in password", map[string]string{"password": "open sesame"}, "password", []string{"without spaces"}},
		{"tab in password", map[string]string{"password": "open\tsesame"}, "password", []string{"control characters"}},
		{"symbol in password", map[string]string{"password": "cost€"}, "password", []string{"ASCII symbols"}},
		{"unnormalized password", map[string]string{"password": "cafe\u0301"}, "password", []string{"NFKC"}},
		{"password over 127 bytes", map[string]string{"password": strings.Repeat("я", 64)}, "password", []string{"127 bytes"}},
		{"space in owner password", map[string]string{"password": "pw", "owner_password": "the boss"}, "owner_password", []string{"without spaces"}},
		{"owner equals password with restrictions", map[string]string{"password": "pw", "owner_password": "pw", "permissions": "print"},
			"owner_password", []string{"must differ"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out, err := runValidated(t, "protect-pdf", tt.params, file)
			e := wantRefused(t, out, err, docmill.CodeInvalidParameter, tt.contains...)
			if len(e.Fields) != 1 || e.Fields[0].Field != tt.field {
				t.Errorf("fields = %v, want %s", e.Fields, tt.field)
			}
			for _, name := range []string{"password", "owner_password"} {
				if pw := tt.params[name]; pw != "" && strings.Contains(err.Error(), pw) {
					t.Errorf("error %q reveals the %s", err, name)
				}
			}
		})
	}
}

func TestProtectParamDeclarations(t *testing.T) {
	tl := tool(t, "protect-pdf")
	for _, tt := range []struct {
		params map[string]string
		field  string
	}{
		{map[string]string{}, "password"},
		{map[string]string{"password": strings.Repeat("k", 128)}, "password"},
		{map[string]string{"password": "pw", "owner_password": strings.Repeat("k", 128)}, "owner_password"},
		{map[string]string{"password": "pw", "permissions": strings.Repeat("print,", 11)}, "permissions"},
	} {
		_, err := tl.ParseParams(tt.params)
		var e *docmill.Error
		if !errors.As(err, &e) || e.Code != docmill.CodeInvalidParameter || len(e.Fields) != 1 || e.Fields[0].Field != tt.field {
			t.Errorf("ParseParams(%.40v) = %v, want invalid_parameter naming %s", tt.params, err, tt.field)
		}
	}
	p, err := tl.ParseParams(map[string]string{"password": "pw"})
	if err != nil || p.String("permissions") != "all" || p.Has("owner_password") {
		t.Errorf("ParseParams = %v, %v; want permissions all, no owner password", p, err)
	}
	// Passwords are taken as typed: unlock-pdf's may have spaces at the ends.
	p, err = tool(t, "unlock-pdf").ParseParams(map[string]string{"password": " pw "})
	if err != nil || p.String("password") != " pw " {
		t.Errorf("unlock ParseParams = %v, %v; want the password untrimmed", p, err)
	}
}

func TestProtectBadInput(t *testing.T) {
	bad := badInputs(t)
	tests := []struct {
		name     string
		file     string
		contains []string
	}{
		{"text", bad["text"], []string{"The file", "not a PDF"}},
		{"empty", bad["empty"], []string{"The file"}},
		{"truncated", bad["truncated"], []string{"damaged"}},
		{"header only", bad["header-only"], nil},
		{"already encrypted", bad["encrypted"], []string{"The file is password-protected", "unlock-pdf"}},
		{"too many pages", manyPagesPDF(t, pdfops.MaxPages+1), []string{"10001 pages"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out, err := runValidated(t, "protect-pdf", map[string]string{"password": "secret"}, tt.file)
			wantRefused(t, out, err, docmill.CodeInvalidDocument, tt.contains...)
			if strings.Contains(err.Error(), "secret") {
				t.Errorf("error %q reveals the password", err)
			}
		})
	}
	_, err := runValidated(t, "protect-pdf", map[string]string{"password": "secret"}, sparseFile(t, pdfops.MaxInputBytes+1))
	wantCode(t, err, docmill.CodeFileTooLarge)
}

// TestProtectedRefusedByOtherTools checks that the other tools, which read
// their input without a password, refuse protect-pdf's output as
// password-protected, and that protect-pdf refuses it too.
func TestProtectedRefusedByOtherTools(t *testing.T) {
	out, err := runValidated(t, "protect-pdf", map[string]string{"password": "secret"}, fourPagesPDF(t))
	if err != nil {
		t.Fatal(err)
	}
	_, err = run(t, "rotate-pdf", nil, out.Path)
	wantCode(t, err, docmill.CodeInvalidDocument, "The file is password-protected", "unlock-pdf")
	_, err = run(t, "merge-pdf", nil, onePagePDF(t), out.Path)
	wantCode(t, err, docmill.CodeInvalidDocument, "File 2", "password-protected")
	_, err = runValidated(t, "protect-pdf", map[string]string{"password": "secret"}, out.Path)
	wantCode(t, err, docmill.CodeInvalidDocument, "password-protected")
}

func TestProtectCanceled(t *testing.T) {
	_, err := invoke(canceledContext(), t, "protect-pdf", map[string]string{"password": "secret"}, "application/pdf", fourPagesPDF(t))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want the context's error", err)
	}
}

func TestProtectUnlockDeclarations(t *testing.T) {
	tests := []struct {
		tl       *docmill.Tool
		slug     string
		params   []string
		required []string
		secret   []string
	}{
		{tool(t, "protect-pdf"), "protect-pdf", []string{"password", "owner_password", "permissions"}, []string{"password"}, []string{"password", "owner_password"}},
		{tool(t, "unlock-pdf"), "unlock-pdf", []string{"password"}, nil, []string{"password"}},
	}
	for _, tt := range tests {
		t.Run(tt.slug, func(t *testing.T) {
			tl := tt.tl
			if tl.Slug != tt.slug {
				t.Errorf("slug %s, want %s", tl.Slug, tt.slug)
			}
			wantPDFTool(t, tl, 1, 1)
			var names, required, secret []string
			for _, p := range tl.Params {
				names = append(names, p.Name)
				if p.Required {
					required = append(required, p.Name)
				}
				if p.Secret {
					secret = append(secret, p.Name)
				}
				if p.Description == "" || p.Type != docmill.TypeString || p.Max == nil {
					t.Errorf("param %s: incomplete declaration %+v", p.Name, p)
				}
			}
			if !slices.Equal(names, tt.params) || !slices.Equal(required, tt.required) || !slices.Equal(secret, tt.secret) {
				t.Errorf("params %v required %v secret %v, want %v %v %v", names, required, secret, tt.params, tt.required, tt.secret)
			}
		})
	}
}

// FuzzProtect checks that no input makes protect-pdf panic or fail with
// anything but success or invalid_document.
func FuzzProtect(f *testing.F) {
	for _, b := range corpusPDFs(f, "minimal-document.pdf", "pdflatex-forms.pdf", "libreoffice-writer-password.pdf") {
		f.Add(b)
		f.Add(b[:len(b)*3/4])
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p := toolstest.WriteTemp(t, "in.pdf", b)
		_, err := runValidated(t, "protect-pdf", map[string]string{"password": "secret", "permissions": "print"}, p)
		if code := docmill.ErrorCode(err); code != "" && code != docmill.CodeInvalidDocument {
			t.Fatalf("error %v, want none or invalid_document", err)
		}
	})
}
