package chromium

import (
	"archive/zip"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/filecopy"
	"github.com/docmill/docmill/tools/ziplimit"
)

// runHTML prints an HTML file or a zipped site.
func (b *Browser) runHTML(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
	file, s := in.Files[0], settingsFrom(in.Params, in.Limits, b.opts.selectorWait)
	root, err := unpackSite(file, in.WorkDir, b.opts.Limits)
	if err != nil {
		return nil, err
	}
	return b.printSite(ctx, in, file, root, s)
}

// unpackSite lays the uploaded page out in the work directory's "site",
// for html-to-pdf and html-to-image alike: a zipped site extracted
// within l (extractSite), an HTML file copied as its index.html. It
// returns the site's root.
func unpackSite(file docmill.LocalFile, workDir string, l docmill.Limits) (string, error) {
	root := filepath.Join(workDir, "site")
	if err := os.Mkdir(root, 0o700); err != nil {
		return "", fmt.Errorf("chromium: site dir: %w", err)
	}
	if file.ContentType == "application/zip" {
		return extractSite(file.Path, root, l)
	}
	if err := filecopy.Copy(file.Path, filepath.Join(root, "index.html")); err != nil {
		return "", fmt.Errorf("chromium: copy input: %w", err)
	}
	return root, nil
}

// printSite prints root/index.html to the job's result.
func (b *Browser) printSite(ctx context.Context, in *docmill.RunInput, file docmill.LocalFile, root string, s printSettings) (*docmill.RunOutput, error) {
	dst := filepath.Join(in.WorkDir, "result.pdf")
	name := docmill.ResultName(file.Filename, "", ".pdf")
	s.title = strings.TrimSuffix(name, ".pdf")
	if _, _, err := b.outputStep(s); err != nil {
		return nil, err
	}
	blocked, err := b.render(ctx, root, dst, s)
	if err != nil {
		return nil, err
	}
	if dst, err = b.finishPDF(ctx, in, dst, s); err != nil {
		return nil, err
	}
	return &docmill.RunOutput{Path: dst, Filename: name, ContentType: "application/pdf", Meta: pdfMeta(blocked, s)}, nil
}

// stageSite gives the browser inst the job's files under root: hard
// links to them (copies across file systems) in a directory of its
// profile, which its jail sees, named at random so that no page can
// guess another job's. The staged files are readable by the jail's uid
// but not writable (owned by this process, mode 0644, folders 0755 in a
// folder of mode 0711 that cannot be listed). It returns the directory on
// this host, which the caller removes after the job, and as the jailed
// browser sees it. Only the job's regular files and folders are staged.
func (inst *instance) stageSite(root string) (staged, served string, err error) {
	sites := filepath.Join(inst.dir, "sites")
	if err := os.MkdirAll(sites, 0o711); err != nil {
		return "", "", fmt.Errorf("chromium: stage site: %w", err)
	}
	if err := os.Chmod(sites, 0o711); err != nil {
		return "", "", fmt.Errorf("chromium: stage site: %w", err)
	}
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	staged = filepath.Join(sites, hex.EncodeToString(b[:]))
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		target := filepath.Join(staged, rel)
		switch {
		case d.IsDir():
			if err := os.Mkdir(target, 0o755); err != nil {
				return err
			}
			return os.Chmod(target, 0o755)
		case d.Type().IsRegular():
			if err := filecopy.Link(p, target); err != nil {
				return err
			}
			return os.Chmod(target, 0o644)
		}
		return nil
	})
	if err != nil {
		os.RemoveAll(staged)
		return "", "", fmt.Errorf("chromium: stage site: %w", err)
	}
	return staged, inst.paths.InJail(staged), nil
}

// badZip returns an invalid_document error about a zipped site.
func badZip(format string, args ...any) *docmill.Error {
	return docmill.Errorf(docmill.CodeInvalidDocument, format, args...)
}

// extractSite unpacks the zip at src into dir and returns the directory
// holding index.html: dir itself, or the zip's single top folder. Entries
// are refused (invalid_document) when their name is absolute or climbs out
// with "..". The archive is refused before anything is written when its
// central directory breaks l's archive limits (ziplimit.Check), and while
// it is written when the bytes actually inflated pass l.ArchiveBytes
// (headers can lie). Symbolic links and macOS metadata (__MACOSX/) are
// skipped: a link could point outside the site.
func extractSite(src, dir string, l docmill.Limits) (string, error) {
	zr, err := ziplimit.Open(src, l)
	if err != nil {
		return "", err
	}
	defer zr.Close()
	if err := ziplimit.Check(&zr.Reader, l); err != nil {
		return "", err
	}
	budget := ziplimit.NewBudget(l)
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
		if err := extractEntry(f, target, budget); err != nil {
			return "", err
		}
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

// extractEntry writes one file entry to target, reading it through
// budget, which refuses the site's entries past their limit together.
func extractEntry(f *zip.File, target string, budget *ziplimit.Budget) error {
	if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
		return fmt.Errorf("chromium: extract: %w", err)
	}
	rc, err := budget.Open(f)
	if err != nil {
		return err
	}
	defer rc.Close()
	out, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		return badZip("The zip contains %q twice.", f.Name)
	}
	if err != nil {
		return fmt.Errorf("chromium: extract: %w", err)
	}
	defer out.Close()
	if _, err := io.Copy(out, rc); err != nil {
		var de *docmill.Error
		if errors.As(err, &de) {
			return de // over the budget
		}
		e := badZip("The zip entry %q is damaged.", f.Name)
		e.Err = err
		return e
	}
	return out.Close()
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
