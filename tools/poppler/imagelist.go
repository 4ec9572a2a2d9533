package poppler

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
)

// embeddedImage is one line of `pdfimages -list`: the image's number in
// the listing (and in the names pdfimages gives the files it writes), its
// page, its type (image, mask, smask, stencil) and its size.
type embeddedImage struct {
	num, page int
	kind      string
	w, h      int
	// comp and bpc are its colour components and bits per component.
	comp, bpc int
	// object is the image's object number and generation ("8 0"), the
	// same for each place it is drawn; "" for an inline image.
	object string
}

// rawBytes is the image's size decoded, which bounds what pdfimages
// writes for it (PNG and TIFF hold about that much at worst; JPEG and
// JPEG 2000 are copied from the file, which the upload cap bounds).
func (im embeddedImage) rawBytes() int64 {
	return int64(im.w) * int64(im.h) * int64(max(im.comp, 1)) * int64(max(im.bpc, 1)) / 8
}

// maxListOutput bounds what `pdfimages -list` may print: about 100 bytes
// an image, far more than the images of a result may be.
const maxListOutput = 16 << 20

// listEmbedded lists the images of pages first to last and refuses, as
// a processing limit, more than limits.ArchiveEntries of them, one larger
// than limits.ImagePixels, or more than limits.RenderOutputBytes decoded together:
// all checked before any is written.
func listEmbedded(ctx context.Context, pdfimages *sandbox.Engine, src, dir string, first, last int, limits docmill.Limits) ([]embeddedImage, error) {
	args := []string{"-list", "-f", strconv.Itoa(first), "-l", strconv.Itoa(last), src}
	res, err := pdfimages.Run(ctx, sandbox.Cmd{Args: args, Dir: dir, MaxOutput: maxListOutput})
	if err != nil {
		return nil, engineError(err, "extracting its images")
	}
	listed, err := parseImageList(res.Stdout)
	if err != nil {
		return nil, err
	}
	if len(listed) > limits.ArchiveEntries {
		return nil, docmill.LimitExceeded(fmt.Sprintf("The pages hold %d images; at most %d can be extracted at once", len(listed), limits.ArchiveEntries))
	}
	var total int64
	for _, im := range listed {
		if int64(im.w)*int64(im.h) > limits.ImagePixels {
			return nil, docmill.LimitExceeded(fmt.Sprintf("An image on page %d is %d x %d pixels, above %s", im.page, im.w, im.h, pixelCount(limits.ImagePixels)))
		}
		total += im.rawBytes()
	}
	if total > limits.RenderOutputBytes {
		return nil, tooLarge(fmt.Errorf("poppler: images of %d bytes decoded", total), limits.RenderOutputBytes)
	}
	return listed, nil
}

// parseImageList reads `pdfimages -list`: two header lines, then a line
// an image whose first eight fields are page, num, type, width, height,
// color, comp and bpc, and whose eleventh and twelfth are its object
// number and generation (or "[inline]"). pdfimages prints only numbers it computed and
// names of its own there, so a line that does not read is the engine
// misbehaving: an internal error.
func parseImageList(out []byte) ([]embeddedImage, error) {
	var listed []embeddedImage
	sc := bufio.NewScanner(bytes.NewReader(out))
	for line := 0; sc.Scan(); line++ {
		f := strings.Fields(sc.Text())
		if line < 2 || len(f) == 0 {
			continue
		}
		if len(f) < 8 {
			return nil, fmt.Errorf("poppler: pdfimages -list line %q", sc.Text())
		}
		var n [6]int
		for i, idx := range []int{0, 1, 3, 4, 6, 7} {
			v, err := strconv.Atoi(f[idx])
			if err != nil || v < 0 {
				return nil, fmt.Errorf("poppler: pdfimages -list line %q", sc.Text())
			}
			n[i] = v
		}
		im := embeddedImage{page: n[0], num: n[1], kind: f[2], w: n[2], h: n[3], comp: n[4], bpc: n[5]}
		if len(f) > 11 {
			obj, errObj := strconv.Atoi(f[10])
			gen, errGen := strconv.Atoi(f[11])
			if errObj == nil && errGen == nil && obj > 0 && gen >= 0 {
				im.object = f[10] + " " + f[11]
			}
		}
		listed = append(listed, im)
	}
	return listed, sc.Err()
}

// imageNumber reads the image's number from a name pdfimages -p gives a
// file it writes: "i-<page>-<num>.<ext>".
func imageNumber(name string) (int, bool) {
	base, _, ok := strings.Cut(name, ".")
	parts := strings.Split(base, "-")
	if !ok || len(parts) != 3 || parts[0] != "i" {
		return 0, false
	}
	n, err := strconv.Atoi(parts[2])
	return n, err == nil && n >= 0
}
