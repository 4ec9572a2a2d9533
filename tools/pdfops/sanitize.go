package pdfops

import (
	"context"
	"strings"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	docmill "github.com/docmill/docmill"
)

// The kinds of content sanitize-pdf removes: each is a boolean param of
// the tool and a count in its meta.
const (
	kindJavaScript    = "javascript"
	kindOpenAction    = "open_action"
	kindLaunchActions = "launch_actions"
	kindEmbeddedFiles = "embedded_files"
	kindFileLinks     = "file_links"
	kindMetadata      = "metadata"
)

// sanitizeKinds declares the switches of sanitize-pdf, in the order the
// catalogue shows them.
var sanitizeKinds = []struct{ name, what string }{
	{kindJavaScript, "JavaScript: the document's scripts, JavaScript actions of pages, links, form fields and bookmarks, javascript: links, and XFA forms (which carry scripts)."},
	{kindOpenAction, "Actions run when the document or a page is opened or closed, printed or saved. An open action that only shows a page is kept."},
	{kindLaunchActions, "Launch actions, which start a program or open a file on the reader's computer."},
	{kindEmbeddedFiles, "Embedded files: attachments, file attachment annotations, associated files and portfolios."},
	{kindFileLinks, "Links to other files: to other PDFs (GoToR), to embedded PDFs (GoToE), file: URLs and data imports."},
	{kindMetadata, "Document metadata: the XMP streams and the title, author and other entries of the Info dictionary. This drops a PDF/A claim."},
}

// maxDirectDepth bounds the nesting of direct objects walked within one
// object; deeper parts are not visited (a real PDF nests a few levels).
const maxDirectDepth = 64

func sanitizeTool() *docmill.Tool {
	params := make([]docmill.Param, 0, len(sanitizeKinds))
	meta := []docmill.MetaField{documentPages}
	for _, k := range sanitizeKinds {
		params = append(params, docmill.Param{Name: k.name, Type: docmill.TypeBoolean, Default: "true", Description: "Remove " + lowerFirst(k.what)})
		meta = append(meta, docmill.MetaField{Name: k.name, Type: docmill.MetaInteger, Description: "Items removed of this kind (actions, scripts, files, annotations, metadata entries); 0 when none or when switched off."})
	}
	return onePDFTool(docmill.Tool{
		Slug:  "sanitize-pdf",
		Meta:  meta,
		Title: "Sanitize PDF",
		Description: "Remove active and hidden content from a PDF: JavaScript, open actions, launch actions, embedded files, " +
			"links to other files and metadata, each by its own switch, all on by default. Pages, text, images, ordinary links and form fields stay.",
		Params: params,
	}, model.ADDPROPERTIES, runSanitize)
}

// lowerFirst lower-cases the first letter of an ASCII sentence.
func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

// sanitizer removes the kinds switched on from a document and counts what
// it removed.
type sanitizer struct {
	doc     *model.Context
	on      map[string]bool
	removed map[string]int
}

// runSanitize visits every object of the document once, in the
// cross-reference table rather than along references: the walk costs one
// step per object and per direct value, whatever cycles or sharing the
// graph holds. What is unlinked is not written, since pdfcpu writes only
// what the catalog reaches.
func runSanitize(ctx context.Context, in *docmill.RunInput, b *budget, doc *model.Context) (out *docmill.RunOutput, err error) {
	s := &sanitizer{doc: doc, on: map[string]bool{}, removed: map[string]int{}}
	for _, k := range sanitizeKinds {
		s.on[k.name] = in.Params.Bool(k.name)
		s.removed[k.name] = 0
	}
	root, err := doc.Catalog()
	if err != nil {
		return nil, docmill.InvalidDocument(err, "The file's catalog could not be read: it is damaged.")
	}
	s.catalog(root)
	n := 0
	for _, e := range doc.Table {
		if n++; n%10_000 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if e != nil && !e.Free {
			s.visit(e.Object, 0)
		}
	}
	if s.on[kindMetadata] {
		s.info()
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	meta := map[string]any{"pages": doc.PageCount}
	for k, v := range s.removed {
		meta[k] = v
	}
	return writeOutput(doc, in.WorkDir, "sanitized.pdf", docmill.ResultName(in.Files[0].Filename, ".pdf", "-sanitized.pdf"), meta)
}

// catalog removes the document-level entries: the name trees of scripts
// and embedded files, the open action, portfolios and XFA.
func (s *sanitizer) catalog(root types.Dict) {
	if s.on[kindJavaScript] {
		s.nameTree(root, "JavaScript", kindJavaScript)
		if af, err := s.doc.DereferenceDict(root["AcroForm"]); err == nil && af != nil && af["XFA"] != nil {
			delete(af, "XFA")
			s.removed[kindJavaScript]++
		}
	}
	if s.on[kindEmbeddedFiles] {
		s.nameTree(root, "EmbeddedFiles", kindEmbeddedFiles)
		if root["Collection"] != nil {
			delete(root, "Collection")
			s.removed[kindEmbeddedFiles]++
		}
	}
	if o := root["OpenAction"]; o != nil {
		if d, err := s.doc.DereferenceDict(o); err == nil && d != nil {
			s.action(root, "OpenAction", true)
		}
	}
	if s.on[kindMetadata] {
		s.doc.CatalogXMPMeta = nil
	}
}

// nameTree removes the catalog's name tree name, counting it as kind,
// from the catalog and from pdfcpu's cache of name trees (which it would
// otherwise write back).
func (s *sanitizer) nameTree(root types.Dict, name, kind string) {
	names, err := s.doc.DereferenceDict(root["Names"])
	if err == nil && names != nil && names[name] != nil {
		delete(names, name)
		s.removed[kind]++
	}
	delete(s.doc.Names, name)
}

// visit sanitizes o and the direct objects within it, to depth
// maxDirectDepth; indirect objects are visited from the table.
func (s *sanitizer) visit(o types.Object, depth int) {
	if depth > maxDirectDepth {
		return
	}
	switch o := o.(type) {
	case types.Dict:
		s.dict(o)
		for _, v := range o {
			s.visit(v, depth+1)
		}
	case types.StreamDict:
		s.dict(o.Dict)
		for _, v := range o.Dict {
			s.visit(v, depth+1)
		}
	case types.Array:
		for _, v := range o {
			s.visit(v, depth+1)
		}
	}
}

// dict sanitizes one dictionary's own entries.
func (s *sanitizer) dict(d types.Dict) {
	if s.on[kindJavaScript] {
		// A script however it is reached. Not counted: the references to
		// its action are, wherever they are found.
		delete(d, "JS")
	}
	if s.on[kindEmbeddedFiles] {
		for _, k := range []string{"EF", "RF", "AF"} {
			if d[k] != nil {
				delete(d, k)
				s.removed[kindEmbeddedFiles]++
			}
		}
	}
	if s.on[kindMetadata] && d["Metadata"] != nil {
		delete(d, "Metadata")
		s.removed[kindMetadata]++
	}
	isPage := d.Type() != nil && *d.Type() == "Page"
	if d["A"] != nil {
		s.action(d, "A", false)
	}
	if d["Next"] != nil {
		s.next(d)
	}
	if d["AA"] != nil {
		s.additionalActions(d, isPage || d["Pages"] != nil)
	}
	if isPage && s.on[kindEmbeddedFiles] {
		s.fileAttachments(d)
	}
}

// actionKind returns the kind of an action dictionary, "" for one that
// sanitize-pdf never removes by its type (GoTo, Named, ...).
func (s *sanitizer) actionKind(a types.Dict) string {
	name := ""
	if n := a.NameEntry("S"); n != nil {
		name = *n
	}
	switch name {
	case "JavaScript":
		return kindJavaScript
	case "Launch":
		return kindLaunchActions
	case "GoToR", "GoToE", "ImportData":
		return kindFileLinks
	case "URI":
		uri, _ := s.doc.DereferenceText(a["URI"]) // a URI is ASCII by the spec; a bad one is kept
		switch scheme, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(uri)), ":"); scheme {
		case "javascript":
			return kindJavaScript
		case "file":
			return kindFileLinks
		}
	}
	if a["JS"] != nil {
		return kindJavaScript
	}
	return ""
}

// action removes d[key], an action, when its kind is switched on; when
// trigger is set the action runs by itself (on opening, closing, ...),
// and open_action removes it whatever its kind.
func (s *sanitizer) action(d types.Dict, key string, trigger bool) bool {
	a, err := s.doc.DereferenceDict(d[key])
	if err != nil || a == nil {
		return false
	}
	kind := s.actionKind(a)
	switch {
	case kind != "" && s.on[kind]:
	case trigger && s.on[kindOpenAction]:
		kind = kindOpenAction
	default:
		return false
	}
	delete(d, key)
	s.removed[kind]++
	return true
}

// next filters an action's /Next, an action or an array of actions.
func (s *sanitizer) next(d types.Dict) {
	arr, ok := d["Next"].(types.Array)
	if !ok {
		if r, isRef := d["Next"].(types.IndirectRef); isRef {
			if o, err := s.doc.Dereference(r); err == nil {
				arr, ok = o.(types.Array)
			}
		}
	}
	if !ok {
		s.action(d, "Next", false)
		return
	}
	var left types.Array
	for _, a := range arr {
		one := types.Dict{"Next": a}
		if !s.action(one, "Next", false) {
			left = append(left, a)
		}
	}
	d["Next"] = left
}

// additionalActions filters d's /AA. Those of the catalog and of pages
// run by themselves (on opening, closing, saving, printing); those of
// annotations and fields need the reader's own action (a click, a
// keystroke), so open_action leaves them.
func (s *sanitizer) additionalActions(d types.Dict, triggers bool) {
	aa, err := s.doc.DereferenceDict(d["AA"])
	if err != nil || aa == nil {
		return
	}
	for k := range aa {
		s.action(aa, k, triggers)
	}
	if len(aa) == 0 {
		delete(d, "AA")
	}
}

// fileAttachments removes the file attachment annotations of a page.
func (s *sanitizer) fileAttachments(page types.Dict) {
	annots, err := s.doc.DereferenceArray(page["Annots"])
	if err != nil || annots == nil {
		return
	}
	var left types.Array
	for _, a := range annots {
		if d, err := s.doc.DereferenceDict(a); err == nil && d != nil {
			if sub := d.NameEntry("Subtype"); sub != nil && *sub == "FileAttachment" {
				s.removed[kindEmbeddedFiles]++
				continue
			}
		}
		left = append(left, a)
	}
	if len(left) == 0 {
		delete(page, "Annots")
	} else {
		page["Annots"] = left
	}
}

// info empties the Info dictionary: pdfcpu writes a fresh one holding
// only its Producer and the dates.
func (s *sanitizer) info() {
	if s.doc.Info == nil {
		return
	}
	if d, err := s.doc.DereferenceDict(*s.doc.Info); err == nil {
		for k := range d {
			if k != "Producer" && k != "CreationDate" && k != "ModDate" {
				s.removed[kindMetadata]++
			}
		}
	}
	s.doc.Info = nil
}
