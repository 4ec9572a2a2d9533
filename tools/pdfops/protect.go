package pdfops

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strings"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"golang.org/x/text/secure/precis"
	"golang.org/x/text/unicode/norm"

	docmill "github.com/docmill/docmill"
)

// maxPasswordBytes is the longest password AES-256 encryption (security
// handler revision 6) uses: readers truncate longer ones to 127 bytes,
// while pdfcpu hashes the whole password when encrypting, so a longer one
// would be refused by every reader.
const maxPasswordBytes = 127

// passwordProfile is the normalization pdfcpu applies to a password when it
// checks it against an AES-256 file (its form of SASLprep). pdfcpu encrypts
// with the password's bytes as they are, so only a password this profile
// leaves unchanged opens the file everywhere, including in unlock-pdf.
// Profiles are safe for concurrent use.
var passwordProfile = precis.NewIdentifier(precis.BidiRule, precis.Norm(norm.NFKC))

// Permission bits of the standard security handler (ISO 32000-2, table
// 22). permissionsBase has every reserved bit as the standard requires
// (bits 7-8 and 13-32 set, 1-2 clear) and bit 10, extraction for
// accessibility, which PDF 2.0 deprecates and says writers always set, so
// screen readers keep working whatever else is restricted. pdfcpu takes
// the low 16 bits and sign-extends them.
const (
	permissionsBase = model.PermissionFlags(0xF0C0) | model.PermissionExtractRev3
	permissionsAll  = permissionsBase | model.PermissionPrintRev2 | model.PermissionPrintRev3 |
		model.PermissionExtract | model.PermissionModify | model.PermissionAssembleRev3 |
		model.PermissionModAnnFillForm | model.PermissionFillRev3
)

// permissionNames maps each permission a client can name to the bits that
// grant it, in the order the catalogue and the job's meta list them.
var permissionNames = []struct {
	name string
	bits model.PermissionFlags
}{
	// Bit 3 alone allows only a degraded print; bit 12 adds full quality.
	{"print", model.PermissionPrintRev2 | model.PermissionPrintRev3},
	{"copy", model.PermissionExtract},
	// Bit 11 (assemble: insert, delete, rotate pages) is an edit too.
	{"modify", model.PermissionModify | model.PermissionAssembleRev3},
	// Bit 6 lets readers fill forms as well as annotate, so annotate
	// brings fill-forms with it; the meta reports the effective set.
	{"annotate", model.PermissionModAnnFillForm | model.PermissionFillRev3},
	{"fill-forms", model.PermissionFillRev3},
}

func protectTool() *docmill.Tool {
	return onePDFTool(docmill.Tool{
		Slug:  "protect-pdf",
		Meta:  []docmill.MetaField{documentPages, {Name: "encryption", Type: docmill.MetaString, Description: "The encryption applied: AES-256."}, {Name: "permissions", Type: docmill.MetaStrings, Description: "What the document lets a reader do without the owner password."}, {Name: "owner_password", Type: docmill.MetaString, Description: "Where the owner password came from: provided, same_as_password or generated."}},
		Title: "Protect PDF",
		Description: "Encrypt a PDF with AES-256 so that it opens only with a password, and optionally " +
			"restrict printing, copying, editing, commenting and form filling. The output is a PDF 2.0 " +
			"file (AES-256, security handler revision 6). Restrictions are honoured by PDF readers; " +
			"the owner password lifts them. Without an owner password, restricted permissions get a " +
			"random owner password that is never returned.",
		Params: []docmill.Param{
			{
				Name: passwordParam,
				Type: docmill.TypeString,
				Description: "Password needed to open the document: letters, digits and ASCII symbols, " +
					"no spaces, at most 127 bytes in UTF-8.",
				Required: true,
				Min:      docmill.Bound(1),
				Max:      docmill.Bound(maxPasswordBytes),
				Secret:   true,
				Example:  "Open-Sesame-42",
				Check:    func(v string) error { return checkPassword("password", v) },
			},
			{
				Name: ownerPasswordParam,
				Type: docmill.TypeString,
				Description: "Password that lifts the restrictions, with the same rules as password. " +
					"If absent: the open password when every permission is allowed, otherwise a random one.",
				Min:    docmill.Bound(1),
				Max:    docmill.Bound(maxPasswordBytes),
				Secret: true,
				Check:  func(v string) error { return checkPassword("owner_password", v) },
			},
			{
				Name: permissionsParam,
				Type: docmill.TypeString,
				Description: `What a reader may do once the document is open: "all", "none", or a ` +
					`comma-separated list of print, copy, modify, annotate, fill-forms. annotate also ` +
					`allows filling forms; extraction for accessibility is always allowed.`,
				Max:     docmill.Bound(64),
				Default: "all",
				Check: func(v string) error {
					_, err := parsePermissions(v)
					return err
				},
			},
		},
		CheckParams: checkOwnerPassword,
	}, model.VALIDATE, runProtect)
}

// protection is what a protect-pdf run encrypts with. ownerSource says
// where the owner password came from, for the job's meta; the passwords
// themselves never leave this package.
type protection struct {
	user, owner string
	ownerSource string
	perms       model.PermissionFlags
}

// runProtect encrypts the input with AES-256. An input already encrypted
// that opens without a password gets the new protection in place of its
// own, as unlocking and protecting it would; one that needs a password is
// refused as password-protected.
func runProtect(ctx context.Context, in *docmill.RunInput, b *budget, doc *model.Context) (out *docmill.RunOutput, err error) {
	p, err := protectOptions(in.Params)
	if err != nil {
		return nil, err
	}
	// Read as a check, an encrypted input that opens without a password
	// is decrypted (one that needs a password is refused); its old
	// encryption gives way to the new one (encryptAES256).
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	doc.Encrypt, doc.EncKey, doc.E = nil, nil, nil
	declarePDF20(doc)
	if err := encryptAES256(doc, p); err != nil {
		return nil, err
	}

	return writeOutput(doc, in.WorkDir, "protected.pdf", docmill.ResultName(in.Files[0].Filename, ".pdf", "-protected.pdf"), map[string]any{
		"pages":          doc.PageCount,
		"encryption":     "AES-256",
		"permissions":    permissionList(p.perms),
		"owner_password": p.ownerSource,
	})
}

// declarePDF20 makes doc a PDF 2.0 document. pdfcpu writes AES-256 with
// security handler revision 6 only for PDF 2.0; for older versions it
// writes revision 5, which ISO 32000-2 deprecates because its password
// check is a single SHA-256, cheap to attack by guessing. Revision 6 is
// part of PDF 2.0, and every reader that can open it reads PDF 2.0.
func declarePDF20(doc *model.Context) {
	v := model.V20
	doc.HeaderVersion = &v
	doc.RootVersion = nil
	doc.RootDict.Delete("Version")
}

// checkOwnerPassword is protect-pdf's rule across params: an owner
// password equal to the open password would lift the restrictions for
// everyone who opens the document.
func checkOwnerPassword(p docmill.Params) error {
	perms, _ := parsePermissions(p.String(permissionsParam)) // its Check passed
	if p.Has(ownerPasswordParam) && p.String(ownerPasswordParam) == p.String(passwordParam) && perms != permissionsAll {
		return docmill.ParamError(ownerPasswordParam,
			"must differ from password when permissions are restricted, or opening the document would lift the restrictions")
	}
	return nil
}

// protectOptions reads the validated params of protect-pdf (their Checks
// and checkOwnerPassword ran) and settles the owner password: the given
// one; the open password when nothing is restricted; or, when something
// is, a random one.
func protectOptions(params docmill.Params) (protection, error) {
	p := protection{user: params.String("password"), owner: params.String("owner_password")}
	p.perms, _ = parsePermissions(params.String("permissions")) // its Check passed
	switch {
	case p.owner != "":
		p.ownerSource = "provided"
	case p.perms == permissionsAll:
		p.owner, p.ownerSource = p.user, "same_as_password"
	default:
		b := make([]byte, 32)
		if _, err := rand.Read(b); err != nil {
			return p, err
		}
		p.owner, p.ownerSource = hex.EncodeToString(b), "generated"
	}
	return p, nil
}

// checkPassword refuses a password that would not open the output in every
// reader: empty, longer than maxPasswordBytes, or changed by the
// normalization readers apply (see passwordProfile). The message never
// quotes the password.
func checkPassword(field, pw string) error {
	if pw == "" {
		return docmill.ParamError(field, "is required")
	}
	if len(pw) > maxPasswordBytes {
		return docmill.ParamError(field, "is too long: at most %d bytes in UTF-8", maxPasswordBytes)
	}
	if !checkablePassword(pw) {
		return docmill.ParamError(field,
			"may contain only letters, digits and ASCII symbols, without spaces or control characters, in Unicode normalization form NFKC")
	}
	return nil
}

// checkablePassword reports whether pdfcpu checks pw against an AES-256
// file as the bytes it was typed as.
func checkablePassword(pw string) bool {
	s, err := passwordProfile.String(pw)
	return err == nil && s == pw
}

// parsePermissions parses the permissions param: "all" (or empty), "none",
// or a comma-separated list of permission names, case-insensitive. It
// returns the P value to encrypt with.
func parsePermissions(s string) (model.PermissionFlags, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	switch s {
	case "", "all":
		return permissionsAll, nil
	case "none":
		return permissionsBase, nil
	}
	perms := permissionsBase
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		bits, ok := permissionBits(item)
		switch {
		case item == "":
			return 0, docmill.ParamError(permissionsParam, "has an empty item")
		case item == "all" || item == "none":
			return 0, docmill.ParamError(permissionsParam, "cannot combine %q with other permissions", item)
		case !ok:
			return 0, docmill.ParamError(permissionsParam,
				"has an unknown permission %q; use all, none, or a comma-separated list of print, copy, modify, annotate, fill-forms", item)
		}
		perms |= bits
	}
	return perms, nil
}

func permissionBits(name string) (model.PermissionFlags, bool) {
	for _, p := range permissionNames {
		if p.name == name {
			return p.bits, true
		}
	}
	return 0, false
}

// permissionList names the permissions perms grants in full.
func permissionList(perms model.PermissionFlags) []string {
	out := []string{}
	for _, p := range permissionNames {
		if perms&p.bits == p.bits {
			out = append(out, p.name)
		}
	}
	return out
}
