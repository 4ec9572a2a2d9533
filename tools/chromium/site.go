package chromium

import (
	"archive/zip"
	"context"
	"errors"
	"fmt"
	"github.com/docmill/docmill/tools/filecopy"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	docmill "github.com/docmill/docmill"
)

// Limits of a zipped site, checked while it is extracted (zip bombs).
const (
	maxZipEntries = 2000
	maxZipBytes   = 200 << 20 // all entries expanded
	// An entry may expand at most maxZipRatio times its compressed size,
	// once it is past zipRatioFloor bytes (small files compress well).
	maxZipRatio   = 200
	zipRatioFloor = 1 << 20
)

// runHTML prints an HTML file or a zipped site.
func (b *Browser) runHTML(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
	file, s, err := oneFile(in)
	if err != nil {
		return nil, err
	}
	root := filepath.Join(in.WorkDir, "site")
	if err := os.Mkdir(root, 0o700); err != nil {
		return nil, fmt.Errorf("chromium: site dir: %w", err)
	}
	if file.ContentType == "application/zip" {
		if root, err = extractSite(file.Path, root); err != nil {
			return nil, err
		}
	} else if err := filecopy.Copy(file.Path, filepath.Join(root, "index.html")); err != nil {
		return nil, fmt.Errorf("chromium: copy input: %w", err)
	}
	return b.printSite(ctx, in, file, root, s)
}

// printSite prints root/index.html to the job's result.
func (b *Browser) printSite(ctx context.Context, in *docmill.RunInput, file docmill.LocalFile, root string, s printSettings) (*docmill.RunOutput, error) {
	dst := filepath.Join(in.WorkDir, "result.pdf")
	blocked, err := b.render(ctx, root, dst, s)
	if err != nil {
		return nil, err
	}
	return &docmill.RunOutput{
		Path:        dst,
		Filename:    outputName(file.Filename),
		ContentType: "application/pdf",
		Meta:        map[string]any{"blocked_requests": blocked},
	}, nil
}

// oneFile returns the single input of a run and its print settings.
func oneFile(in *docmill.RunInput) (docmill.LocalFile, printSettings, error) {
	if len(in.Files) != 1 {
		return docmill.LocalFile{}, printSettings{}, docmill.Errorf(docmill.CodeMissingFile, "This tool takes exactly one file.")
	}
	s, err := settingsFrom(in.Params)
	return in.Files[0], s, err
}

// badZip returns an invalid_document error about a zipped site.
func badZip(format string, args ...any) *docmill.Error {
	return docmill.Errorf(docmill.CodeInvalidDocument, format, args...)
}

// extractSite unpacks the zip at src into dir and returns the directory
// holding index.html: dir itself, or the zip's single top folder. Entries
// are refused (invalid_document) when their name is absolute or climbs out
// with "..", when there are too many, or when they expand too much in
// total or against their compressed size; sizes are counted on the bytes
// actually written, not on the headers. Symbolic links and macOS metadata
// (__MACOSX/) are skipped: a link could point outside the site.
func extractSite(src, dir string) (string, error) {
	zr, err := zip.OpenReader(src)
	if err != nil {
		e := badZip("The file is not a readable zip archive.")
		e.Err = err
		return "", e
	}
	defer zr.Close()
	if len(zr.File) > maxZipEntries {
		return "", badZip("The zip has %d entries; at most %d are allowed.", len(zr.File), maxZipEntries)
	}
	var total int64
	var names []string
	for _, f := range zr.File {
		name, skip, err := entryName(f)
		if err != nil {
			return "", err
		}
		if skip {
			continue
		}
		target := filepath.Join(dir, filepath.FromSlash(name))
		if f.FileInfo().IsDir() {
			if err := os.MkdirAll(target, 0o700); err != nil {
				return "", fmt.Errorf("chromium: extract: %w", err)
			}
			continue
		}
		n, err := extractEntry(f, target, maxZipBytes-total)
		if err != nil {
			return "", err
		}
		total += n
		names = append(names, name)
	}
	top, err := siteRoot(names)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, filepath.FromSlash(top)), nil
}

// entryName checks and cleans an entry's name. skip is true for entries
// that are not extracted (links, macOS metadata).
func entryName(f *zip.File) (name string, skip bool, err error) {
	raw := strings.ReplaceAll(f.Name, `\`, "/") // zips made on Windows
	if strings.HasPrefix(raw, "/") || strings.ContainsRune(raw, 0) || (len(raw) > 1 && raw[1] == ':') {
		return "", false, badZip("The zip contains an entry with an absolute path (%q).", f.Name)
	}
	for _, part := range strings.Split(raw, "/") {
		if part == ".." {
			return "", false, badZip("The zip contains an entry that climbs out of the archive (%q).", f.Name)
		}
	}
	name = path.Clean(raw)
	if f.Mode()&os.ModeSymlink != 0 || name == "." || name == "__MACOSX" || strings.HasPrefix(name, "__MACOSX/") {
		return "", true, nil
	}
	if !filepath.IsLocal(filepath.FromSlash(name)) {
		return "", false, badZip("The zip contains an entry with an unsafe name (%q).", f.Name)
	}
	return name, false, nil
}

// extractEntry writes one file entry to target, refusing more than left
// bytes in all and a compression ratio past maxZipRatio.
func extractEntry(f *zip.File, target string, left int64) (int64, error) {
	if f.UncompressedSize64 > zipRatioFloor && f.UncompressedSize64 > maxZipRatio*max(f.CompressedSize64, 1) {
		return 0, badZip("The zip entry %q expands %d times its compressed size; it looks like a zip bomb.", f.Name, f.UncompressedSize64/max(f.CompressedSize64, 1))
	}
	if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
		return 0, fmt.Errorf("chromium: extract: %w", err)
	}
	rc, err := f.Open()
	if err != nil {
		e := badZip("The zip entry %q cannot be read.", f.Name)
		e.Err = err
		return 0, e
	}
	defer rc.Close()
	out, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		return 0, badZip("The zip contains %q twice.", f.Name)
	}
	if err != nil {
		return 0, fmt.Errorf("chromium: extract: %w", err)
	}
	defer out.Close()
	n, err := io.Copy(out, io.LimitReader(rc, left+1))
	if n > left {
		return 0, badZip("The zip expands to more than %d MB.", maxZipBytes>>20)
	}
	if err != nil {
		e := badZip("The zip entry %q is damaged.", f.Name)
		e.Err = err
		return 0, e
	}
	return n, out.Close()
}

// siteRoot finds index.html among the extracted file names: at the root,
// or else in the one folder every file is in. It returns that folder ("."
// for the root).
func siteRoot(names []string) (string, error) {
	top := ""
	for _, n := range names {
		if n == "index.html" {
			return ".", nil
		}
		dir, _, found := strings.Cut(n, "/")
		switch {
		case !found:
			top = "\x00" // a file at the root: no single top folder
		case top == "":
			top = dir
		case top != dir:
			top = "\x00"
		}
	}
	if top != "" && top != "\x00" {
		for _, n := range names {
			if n == top+"/index.html" {
				return top, nil
			}
		}
	}
	return "", badZip("The zip has no index.html at its root (or in its single top folder).")
}
