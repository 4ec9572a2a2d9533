package pdfops

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	docmill "github.com/docmill/docmill"
)

// maxProblemChars bounds each problem InspectStep reports: pdfcpu's
// messages may quote the file's own bytes.
const maxProblemChars = 300

// InspectStep is pdf-info's pdfcpu step: it reads
// a PDF with pdfcpu, in the PDF helper like every pdfcpu tool, and
// reports in its meta what pdfcpu sees of the document's structure. It
// never fails on the input: what pdfcpu cannot read or validate is
// reported in meta "problems", and what it could not learn is left at
// its zero value. The output is the input itself.
//
// Meta: "read" (pdfcpu parsed the file and found pages), "password_required" (it is
// encrypted and opens with no empty user password), "pages", "tagged"
// (/MarkInfo /Marked true), "structure_tree" (a /StructTreeRoot),
// "javascript" (a JavaScript name tree, action or /JS entry anywhere),
// "form_fields" and "signatures" (terminal AcroForm fields, and those of
// type /Sig), "pdfa" ("2B", from the XMP's pdfaid), "pdfua" ("1", from
// pdfuaid), "problems" (pdfcpu's message of each stage that failed:
// reading, validating, the catalog, the form; each on one line, without
// the input's path, cut to maxProblemChars).
func InspectStep() *docmill.EngineStep {
	return pdfStep("inspect-pdf-structure", 1, 1, runInspect)
}

func runInspect(ctx context.Context, in *docmill.RunInput, b *budget) (*docmill.RunOutput, error) {
	f := in.Files[0]
	meta := map[string]any{"read": false, "password_required": false, "pages": 0, "tagged": false, "structure_tree": false,
		"javascript": false, "form_fields": 0, "signatures": 0, "pdfa": "", "pdfua": "", "problems": []string{}}
	if err := inspect(ctx, b, f, meta); err != nil {
		return nil, err
	}
	return &docmill.RunOutput{Path: f.Path, Filename: f.Filename, ContentType: pdfContentType, Meta: meta}, nil
}

// inspect fills meta; it returns only the errors that are not the
// input's: cancellation, and a file it cannot open.
func inspect(ctx context.Context, b *budget, f docmill.LocalFile, meta map[string]any) (err error) {
	problem := func(stage string, err error) {
		meta["problems"] = append(meta["problems"].([]string), problemText(stage, err, f.Path))
	}
	defer func() {
		if r := recover(); r != nil {
			problem("pdfcpu failed while reading the structure", fmt.Errorf("%v", r))
		}
	}()
	if err := checkSize(b, []docmill.LocalFile{f}); err != nil {
		problem("pdfcpu did not read the file", err)
		return nil
	}
	file, err := os.Open(f.Path)
	if err != nil {
		return fmt.Errorf("pdfops: open input: %w", err)
	}
	defer file.Close()
	conf := newConfig(model.VALIDATE)
	conf.Limits.MaxDecodeBytes = b.l.StreamDecodedBytes
	doc, err := pdfcpu.ReadWithContext(ctx, file, conf)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		if errors.Is(err, pdfcpu.ErrWrongPassword) || errors.Is(err, pdfcpu.ErrEncrypted) {
			meta["password_required"] = true
			return nil
		}
		problem("pdfcpu could not read the file", err)
		return nil
	}
	if err := doc.EnsurePageCount(); err == nil && doc.PageCount > b.l.PDFPages {
		problem("pdfcpu did not validate the file", tooManyPages("The file", doc.PageCount, b.l.PDFPages))
	} else if err := api.ValidateContext(doc); err != nil {
		problem("pdfcpu found the file invalid", err)
	}
	meta["pages"] = doc.PageCount
	meta["read"] = doc.PageCount > 0
	inspectStructure(doc, meta, problem)
	return ctx.Err()
}

// inspectStructure reads the catalog's tagging, form, XMP claims and
// scripts into meta.
func inspectStructure(doc *model.Context, meta map[string]any, problem func(string, error)) {
	root, err := doc.Catalog()
	if err != nil || root == nil {
		problem("pdfcpu could not read the catalog", err)
		return
	}
	if mi, err := doc.DereferenceDict(root["MarkInfo"]); err == nil && mi != nil {
		if b := mi.BooleanEntry("Marked"); b != nil && *b {
			meta["tagged"] = true
		}
	}
	meta["structure_tree"] = root["StructTreeRoot"] != nil
	fields, err := walkFormFields(doc)
	if err != nil {
		problem("pdfcpu could not read the form", err)
	}
	sigs := 0
	for _, fl := range fields {
		if fl.ft == "Sig" {
			sigs++
		}
	}
	meta["form_fields"], meta["signatures"] = len(fields), sigs
	kept := readKeptXMP(doc, root)
	meta["pdfa"] = kept[nsPDFAID+" part"] + strings.ToUpper(kept[nsPDFAID+" conformance"])
	meta["pdfua"] = kept[nsPDFUAID+" part"]
	meta["javascript"] = hasJavaScript(doc, root)
}

// hasJavaScript reports whether the document holds a JavaScript name
// tree, or any object a JavaScript action or a /JS entry, looking at each
// object of the cross-reference table once (direct values within objects
// to maxDirectDepth).
func hasJavaScript(doc *model.Context, root types.Dict) bool {
	if names, err := doc.DereferenceDict(root["Names"]); err == nil && names != nil && names["JavaScript"] != nil {
		return true
	}
	var found func(o types.Object, depth int) bool
	found = func(o types.Object, depth int) bool {
		if depth > maxDirectDepth {
			return false
		}
		var d types.Dict
		switch o := o.(type) {
		case types.Dict:
			d = o
		case types.StreamDict:
			d = o.Dict
		case types.Array:
			for _, v := range o {
				if found(v, depth+1) {
					return true
				}
			}
			return false
		default:
			return false
		}
		if s := d.NameEntry("S"); d["JS"] != nil || (s != nil && *s == "JavaScript") {
			return true
		}
		for _, v := range d {
			if found(v, depth+1) {
				return true
			}
		}
		return false
	}
	for _, e := range doc.Table {
		if e != nil && !e.Free && found(e.Object, 0) {
			return true
		}
	}
	return false
}

// problemText is a problem as reported: stage, then err's message
// without the input's path, on one line, cut to maxProblemChars.
func problemText(stage string, err error, path string) string {
	msg := stage
	if err != nil {
		var e *docmill.Error
		if errors.As(err, &e) {
			msg += ": " + e.Message
		} else {
			msg += ": " + err.Error()
		}
	}
	msg = strings.ReplaceAll(msg, path, "the file")
	msg = strings.Join(strings.Fields(msg), " ")
	if r := []rune(msg); len(r) > maxProblemChars {
		msg = string(r[:maxProblemChars]) + "…"
	}
	return msg
}
