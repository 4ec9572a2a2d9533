package ocr

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
)

// maxTextLayerImages bounds the images one run of TextLayerStep reads, a
// guard on its input rather than a cost: its caller (redact-pdf) gives
// far fewer, held to Limits.RedactOCRPages.
const maxTextLayerImages = 1_000

// textLayerFormat is tesseract's PDF renderer with textonly_pdf set: a
// page per image, of the image's size at its dpi, holding only the
// recognized words as invisible text (render mode 3) in tesseract's
// glyphless font, each word placed and scaled over where it is in the
// image.
var textLayerFormat = textFormat{options: []string{"-c", "textonly_pdf=1"}, config: "pdf", ext: ".pdf", contentType: pdfContentType}

// TextLayerStep is redact-pdf's OCR step (see
// poppler.RedactSteps): its files are PNG images of pages, all drawn at
// the "dpi" param, and its output is a PDF made by tesseract with one
// page per image, in order, each holding only the invisible text layer
// recognized in that image ("lang": Languages joined by +, as ocr-pdf's
// param). It runs tesseract once over all images, through the sandbox,
// in the calling tool's process (it reads no file in Go). Like Tools, it
// checks tesseract's language packs once, in scratch.
func TextLayerStep(tesseract *sandbox.Engine, scratch string) *docmill.EngineStep {
	r := &textRunner{tesseract: tesseract, langsOK: hasLanguages(tesseract, Languages, scratch)}
	return &docmill.EngineStep{
		Name:     "ocr-text-layer",
		MinFiles: 1, MaxFiles: maxTextLayerImages,
		Available: func() bool { return r.tesseract.Available() && r.langsOK },
		Run:       r.textLayer,
	}
}

// The resolutions TextLayerStep accepts: redact-pdf draws pages at 150
// dpi, lower for a large page, never below 72 (poppler's minDPI).
const (
	minTextLayerDPI = 10
	maxTextLayerDPI = 1200
)

// textLayer runs tesseract over in's images and returns its text-only
// PDF.
func (r *textRunner) textLayer(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
	if !r.tesseract.Available() || !r.langsOK {
		return nil, unavailable(nil)
	}
	lang := in.Params.String(paramLang)
	if lang == "" {
		lang = defaultLang
	}
	dpi := in.Params.Int(paramDPI)
	if dpi < minTextLayerDPI || dpi > maxTextLayerDPI || len(in.Files) == 0 || len(in.Files) > maxTextLayerImages {
		return nil, docmill.Internal(fmt.Errorf("ocr-text-layer: %d images at %d dpi", len(in.Files), dpi))
	}
	workDir, err := filepath.Abs(in.WorkDir)
	if err != nil {
		return nil, docmill.Internal(fmt.Errorf("ocr-text-layer: work dir: %w", err))
	}
	images := make([]string, len(in.Files))
	for i, f := range in.Files {
		if images[i], err = filepath.Abs(f.Path); err != nil {
			return nil, docmill.Internal(fmt.Errorf("ocr-text-layer: image path: %w", err))
		}
	}
	out, err := r.recognize(ctx, images, dpi, lang, textLayerFormat, workDir)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(out); err != nil {
		return nil, docmill.Internal(fmt.Errorf("ocr-text-layer: tesseract wrote no PDF: %w", err))
	}
	return &docmill.RunOutput{Path: out, Filename: filepath.Base(out), ContentType: pdfContentType,
		Meta: map[string]any{"pages": len(images)}}, nil
}
