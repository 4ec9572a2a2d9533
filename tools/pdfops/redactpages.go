package pdfops

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	docmill "github.com/docmill/docmill"
)

// The params of RedactPagesStep, as redact-pdf gives them.
const (
	RedactPagesParamPages     = "pages"
	RedactPagesParamTexts     = "texts"
	RedactPagesParamTextLayer = "text_layer"
)

// maxRedactImages bounds the page images one run of RedactPagesStep
// takes: the render cap of the poppler tools (docmill.Limits.RenderPages
// defaults to 2,000) with room to spare.
const maxRedactImages = 10_000

// RedactPagesStep is redact-pdf's step (see
// poppler.Steps.RedactPages): it replaces pages of a PDF by images of them that
// redact-pdf drew with black boxes, and drops what the document holds
// beside its pages that could repeat a redacted text. Its files are the
// PDF, then one PNG per page to replace, in the order of its "pages"
// param (a selection listing each page once), each drawn from the page's
// crop box as shown (pdftoppm -cropbox).
//
// A replaced page keeps its place in the page tree (so bookmarks and
// links that point to it still do) but nothing else: its content,
// resources, annotations (links, comments, form widgets), thumbnail and
// metadata go, and the page becomes the image, upright, of the crop box
// as it was shown. Whether or not pages were replaced, the document's
// metadata (the Info dictionary's entries and the XMP stream) is dropped,
// and so is its structure tree (tags whose /ActualText and /Alt repeat
// the text), when pages were replaced. A bookmark whose title holds one
// of "texts" (a JSON list of the texts blacked out), in any case, gets
// the title redactedTitle. Unreferenced objects are not
// written: pdfcpu writes only what the document reaches.
//
// With "text_layer" true, one more file follows the PNGs: a PDF with one
// page per image, in order, holding only an invisible text layer
// recognized in that image (ocr.TextLayerStep's output); each replaced
// page draws its page over the image as a form XObject, stretched to the
// page, so that the page can be searched and copied from again. The text
// was read from the image with the boxes painted, so it holds nothing
// blacked out.
func RedactPagesStep() *docmill.EngineStep {
	return pdfStep("redact-pages", 1, 2+maxRedactImages, runRedactPages)
}

func runRedactPages(ctx context.Context, in *docmill.RunInput, b *budget) (out *docmill.RunOutput, err error) {
	f, images := in.Files[0], in.Files[1:]
	var layerFile *docmill.LocalFile
	if in.Params.Bool(textLayerParam) {
		if len(images) == 0 {
			return nil, fmt.Errorf("pdfops: redact-pages got no text layer")
		}
		layerFile, images = &images[len(images)-1], images[:len(images)-1]
	}
	sized := in.Files[:1]
	if layerFile != nil {
		sized = []docmill.LocalFile{f, *layerFile}
	}
	if err := checkSize(b, sized); err != nil {
		return nil, err
	}
	doc, err := readDocument(ctx, b, f, newConfig(model.ADDWATERMARKS), theFile)
	if err != nil {
		return nil, err
	}
	var pages []int
	if in.Params.Has(pagesName) {
		if pages, err = docmill.Pages(in.Params.PageRanges(pagesName), doc.PageCount); err != nil {
			return nil, docmill.ParamError(pagesName, "%s", err)
		}
	}
	sorted := slices.Clone(pages)
	slices.Sort(sorted)
	if len(pages) != len(images) || len(slices.Compact(sorted)) != len(pages) {
		return nil, fmt.Errorf("pdfops: redact-pages got %d images for pages %v", len(images), pages)
	}
	var layers *textLayers
	if layerFile != nil {
		if layers, err = readTextLayers(ctx, b, *layerFile, len(pages)); err != nil {
			return nil, err
		}
	}
	for i, p := range pages {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := replaceWithImage(doc, p, images[i].Path, layers, i+1); err != nil {
			return nil, err
		}
	}
	if err := dropDocumentText(doc, len(pages) > 0); err != nil {
		return nil, err
	}
	if err := scrubOutline(doc, in.Params.String(textsParam)); err != nil {
		return nil, err
	}
	return writeOutput(doc, in.WorkDir, "redacted.pdf", f.Filename, map[string]any{"pages": doc.PageCount})
}

// replaceWithImage makes page p of doc show only the PNG at path, a
// drawing of the page as shown: the image fills the page's crop box
// (within its media box), turned by its rotation, which becomes the new
// media box, upright. The page keeps its dictionary (and so its place and
// every reference to it), but its every entry that draws, annotates or
// describes the old content is replaced or removed. With layers, page
// layer of layers is drawn over the image.
func replaceWithImage(doc *model.Context, p int, path string, layers *textLayers, layer int) error {
	page, _, inh, err := doc.PageDict(p, false)
	if err != nil || page == nil || inh == nil || inh.MediaBox == nil {
		return docmill.InvalidDocument(err, "Page %d of the PDF could not be read: it is damaged.", p)
	}
	shown := normalized(inh.MediaBox)
	if inh.CropBox != nil {
		if c := normalized(inh.CropBox).intersect(shown); c.width() > 0 && c.height() > 0 {
			shown = c
		}
	}
	w, h := round2(shown.width()), round2(shown.height())
	if rot := ((inh.Rotate % 360) + 360) % 360; rot == 90 || rot == 270 {
		w, h = h, w
	}
	if !(w > 0) || !(h > 0) {
		return docmill.InvalidDocument(nil, "Page %d of the PDF has no usable size; the document is damaged.", p)
	}
	img, err := embedRaster(doc.XRefTable, path, "png", fmt.Sprintf("The image of page %d", p))
	if err != nil {
		return err
	}
	draw := string(imageContent(imagePlacement{pageW: w, pageH: h, w: w, h: h}, 1))
	xobjects := types.Dict{"Im0": *img.ref}
	if layers != nil {
		text, form, err := layers.addTo(doc, layer, w, h)
		if err != nil {
			return err
		}
		draw += text
		xobjects[textLayerName] = form
	}
	content, err := newContentStream(doc, draw)
	if err != nil {
		return err
	}
	for _, k := range []string{"CropBox", "BleedBox", "TrimBox", "ArtBox", "BoxColorInfo", "Annots", "Thumb",
		"PieceInfo", "Metadata", "StructParents", "Group", "B", "AA", "UserUnit", "VP", "SeparationInfo", "PresSteps", "Trans"} {
		delete(page, k)
	}
	page["MediaBox"] = types.NewNumberArray(0, 0, w, h)
	page["Rotate"] = types.Integer(0) // the image is already upright; a /Rotate inherited from the tree must not turn it
	page["Resources"] = types.Dict{"XObject": xobjects}
	page["Contents"] = *content
	return nil
}

// dropDocumentText removes the document's metadata, and when pages were
// replaced (replaced) its structure tree and marked-content claim, whose
// entries may repeat the text of those pages.
func dropDocumentText(doc *model.Context, replaced bool) error {
	doc.Info = nil // pdfcpu writes a fresh one: its Producer and the dates
	root, err := doc.Catalog()
	if err != nil {
		return docmill.InvalidDocument(err, "The PDF's catalog could not be read: it is damaged.")
	}
	delete(root, "Metadata")
	if replaced {
		delete(root, "StructTreeRoot")
		delete(root, "MarkInfo")
	}
	return nil
}

// redactedTitle replaces a bookmark title that held a redacted text.
const redactedTitle = "[redacted]"

// scrubOutline gives every outline item of doc whose title holds one of
// texts (a JSON list of strings), in any case, the title redactedTitle.
// The walk stops at an item already seen (a loop) and is bounded as
// pdf-bookmarks' is.
func scrubOutline(doc *model.Context, texts string) error {
	var list []string
	if texts == "" {
		return nil
	}
	if err := json.Unmarshal([]byte(texts), &list); err != nil {
		return fmt.Errorf("pdfops: redact-pages texts: %w", err)
	}
	for i, t := range list {
		list[i] = strings.ToLower(t)
	}
	root, err := doc.Catalog()
	if err != nil {
		return docmill.InvalidDocument(err, "The PDF's catalog could not be read: it is damaged.")
	}
	outlines, err := doc.DereferenceDict(root["Outlines"])
	if err != nil || outlines == nil || len(list) == 0 {
		return nil // no outline, or one that cannot be read: no title is shown either
	}
	seen := map[int]bool{}
	stack := []types.Object{outlines["First"]}
	for len(stack) > 0 && len(seen) <= maxOutlineItems {
		ref, ok := stack[len(stack)-1].(types.IndirectRef)
		stack = stack[:len(stack)-1]
		if !ok || seen[ref.ObjectNumber.Value()] {
			continue
		}
		seen[ref.ObjectNumber.Value()] = true
		item, err := doc.DereferenceDict(ref)
		if err != nil || item == nil {
			continue
		}
		title, _ := doc.DereferenceText(item["Title"])
		title = strings.ToLower(title)
		if slices.ContainsFunc(list, func(t string) bool { return strings.Contains(title, t) }) {
			item["Title"] = types.StringLiteral(redactedTitle)
		}
		stack = append(stack, item["Next"], item["First"])
	}
	return nil
}
