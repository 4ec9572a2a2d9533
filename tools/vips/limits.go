package vips

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"golang.org/x/image/webp"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
)

// configDecoders read an image's header only, by content type.
var configDecoders = map[string]func(io.Reader) (image.Config, error){
	"image/jpeg": jpeg.DecodeConfig,
	"image/png":  png.DecodeConfig,
	"image/gif":  gif.DecodeConfig,
	"image/webp": webp.DecodeConfig,
}

// imageSize returns the stored width and height of f (before any EXIF
// rotation) and refuses, with invalid_document, an empty file, one whose
// header cannot be read, and one over maxPixels (docmill.Limits'
// ImagePixels: the default, 100 MP, over ten times a phone photo, is about
// 400 MB as 8-bit RGBA, which a worker can hold; a bigger image is almost
// certainly a decompression bomb, a few kilobytes that declare
// gigapixels, refused before decoding). Nothing is decoded: Go's
// decoders read the header in-process, which costs microseconds; only when
// they cannot (a header variant they do not know) is vipsheader asked,
// which also reads the header only.
func imageSize(ctx context.Context, vipsheader *sandbox.Engine, dir string, f docmill.LocalFile, maxPixels int64) (w, h int, err error) {
	st, err := os.Stat(f.Path)
	if err != nil {
		return 0, 0, docmill.Internal(err)
	}
	if st.Size() == 0 {
		return 0, 0, docmill.Errorf(docmill.CodeInvalidDocument, "The file is empty.")
	}
	w, h, err = goSize(f)
	if err != nil {
		if w, h, err = headerSize(ctx, vipsheader, dir, f.Path); err != nil {
			return 0, 0, err
		}
	}
	return w, h, checkPixels(w, h, maxPixels)
}

// goSize reads f's dimensions with Go's decoders (tiffConfig for TIFF),
// which read its header only, in bounded memory.
func goSize(f docmill.LocalFile) (int, int, error) {
	dec, ok := configDecoders[f.ContentType]
	if !ok && f.ContentType != "image/tiff" {
		return 0, 0, errors.New("vips: no Go decoder")
	}
	r, err := os.Open(f.Path)
	if err != nil {
		return 0, 0, err
	}
	defer r.Close()
	if !ok {
		cfg, err := tiffConfig(r)
		return cfg.Width, cfg.Height, err
	}
	cfg, err := dec(bufio.NewReader(r))
	if err != nil {
		return 0, 0, err
	}
	return cfg.Width, cfg.Height, nil
}

// headerSize reads path's dimensions with vipsheader.
func headerSize(ctx context.Context, vipsheader *sandbox.Engine, dir, path string) (int, int, error) {
	var dims [2]int
	for i, field := range []string{"width", "height"} {
		res, err := runVips(ctx, vipsheader, dir, "-f", field, path)
		if err != nil {
			return 0, 0, engineError(err)
		}
		n, err := strconv.Atoi(strings.TrimSpace(string(res.Stdout)))
		if err != nil {
			return 0, 0, docmill.Internal(fmt.Errorf("vipsheader %s: %q", field, res.Stdout))
		}
		dims[i] = n
	}
	return dims[0], dims[1], nil
}

// checkPixels refuses dimensions that are not positive or exceed
// maxPixels.
func checkPixels(w, h int, maxPixels int64) error {
	if w <= 0 || h <= 0 {
		return docmill.Errorf(docmill.CodeInvalidDocument, "The image declares no pixels.")
	}
	if n := int64(w) * int64(h); n > maxPixels {
		return docmill.Errorf(docmill.CodeInvalidDocument,
			"The image is %d×%d pixels (%s MP); the limit is %s MP.", w, h, megapixels(float64(n)), megapixels(float64(maxPixels)))
	}
	return nil
}

// megapixels formats a pixel count in megapixels for a message, to one
// decimal at most ("100", "2.5").
func megapixels(n float64) string {
	return strconv.FormatFloat(math.Round(n/1e5)/10, 'f', -1, 64)
}

// outputSize returns the dimensions of an output the tools wrote, in
// format fm, for the job's meta and the filename.
func outputSize(ctx context.Context, vipsheader *sandbox.Engine, dir, path string, fm format) (int, int, error) {
	if w, h, err := goSize(docmill.LocalFile{Path: path, ContentType: fm.contentType}); err == nil {
		return w, h, nil
	}
	w, h, err := headerSize(ctx, vipsheader, dir, path)
	if err != nil {
		var e *docmill.Error
		if errors.As(err, &e) && e.Code == docmill.CodeInvalidDocument {
			// vips wrote it; failing to read it back is not the input's fault.
			return 0, 0, docmill.Internal(err)
		}
	}
	return w, h, err
}
