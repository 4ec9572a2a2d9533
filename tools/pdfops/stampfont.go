package pdfops

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/pdfcpu/pdfcpu/pkg/font"
	"golang.org/x/image/font/gofont/goregular"

	docmill "github.com/docmill/docmill"
)

// stampFontName is the name pdfcpu knows the stamp font by: the PostScript
// name of Go Regular, which pdfcpu uses as the installed font's name.
const stampFontName = "GoRegular"

// stampFont is the installed stamp font. Its lock is held for reading
// while a run uses the font, and for writing while the font is installed.
var stampFont struct {
	mu  sync.RWMutex
	dir string // private font directory; "" until installed
}

// acquireStampFont makes Go Regular available to pdfcpu as a user font
// and keeps it so until the caller calls release, once its stamps are on.
//
// Why Go Regular: watermarks and page numbers must be real, extractable
// text in any script users commonly type, and pdfcpu's 14 core fonts only
// cover Latin-1. Go Regular (golang.org/x/image/font/gofont) covers WGL4 --
// Latin, Greek and Cyrillic -- is BSD-licensed, and is compiled into the
// binary, so no font file is committed, installed by hand or fetched.
// pdfcpu embeds the subset of glyphs a document uses.
//
// Why a private temporary directory: pdfcpu reads user fonts only from
// files in font.UserFontDir (it re-reads the font file when embedding),
// and its usual directory lives in its configuration directory under
// $HOME, which this package disables. The font is installed instead into a
// fresh directory made with os.MkdirTemp (mode 0700, unguessable name), so
// no other user can plant a font there and processes on one host do not
// share it. It is installed once per process and kept, since every run
// reads it. In the server the tools run in PDF helpers, whose TMPDIR is
// their own scratch directory, removed when the helper ends; other
// processes (tests) remove it with RemoveFonts. Should it vanish (a /tmp
// cleaner removing files unread for days), or the first install fail, the
// next run installs it again.
//
// Concurrency: font.UserFontDir is a package variable that pdfcpu reads
// without a lock. It is written only under stampFont's write lock, and
// pdfcpu reads it only while stamping text, which runs hold the read lock
// for; pdfcpu's other commands used by docmill (read, validate, merge,
// rotate, page copies) never read it. pdfcpu guards its loaded font
// metrics with its own lock.
func acquireStampFont() (release func(), err error) {
	for range 3 {
		stampFont.mu.RLock()
		if stampFontInstalled() {
			return stampFont.mu.RUnlock, nil
		}
		stampFont.mu.RUnlock()
		stampFont.mu.Lock()
		if !stampFontInstalled() {
			err = installStampFont()
		}
		stampFont.mu.Unlock()
		if err != nil {
			return nil, err
		}
	}
	return nil, errors.New("pdfops: stamp font keeps disappearing")
}

// RemoveFonts deletes the private font directory, if one was made; a
// process that stamps outside a helper calls it as it exits. A stamping run that starts after it
// installs the font again.
func RemoveFonts() {
	stampFont.mu.Lock()
	defer stampFont.mu.Unlock()
	if stampFont.dir != "" {
		os.RemoveAll(stampFont.dir)
		stampFont.dir = ""
	}
}

// stampFontInstalled reports whether the font file is in place; the
// caller holds stampFont's lock.
func stampFontInstalled() bool {
	if stampFont.dir == "" {
		return false
	}
	_, err := os.Stat(filepath.Join(stampFont.dir, stampFontName+".gob"))
	return err == nil
}

// installStampFont installs the font into a new private directory; the
// caller holds stampFont's write lock.
func installStampFont() error {
	dir, err := os.MkdirTemp("", "docmill-pdfcpu-fonts-")
	if err != nil {
		return fmt.Errorf("pdfops: stamp font directory: %w", err)
	}
	if err := font.InstallFontFromBytesQuiet(dir, "goregular.ttf", goregular.TTF); err != nil {
		os.RemoveAll(dir)
		return fmt.Errorf("pdfops: install stamp font: %w", err)
	}
	if stampFont.dir != "" {
		os.RemoveAll(stampFont.dir) // what is left of a vanished install
	}
	stampFont.dir, font.UserFontDir = dir, dir
	// pdfcpu loads user fonts once; something may already have triggered
	// that with no directory set, so load again now that there is one.
	if err := font.ReloadUserFonts(); err != nil {
		return fmt.Errorf("pdfops: load stamp font: %w", err)
	}
	if _, ok, err := font.UserFont(stampFontName); err != nil || !ok {
		return errors.Join(errors.New("pdfops: stamp font not found after install"), err)
	}
	return nil
}

// stampFontAvailable reports whether the stamp font can be installed; the
// stamping tools declare it as their availability check.
func stampFontAvailable() bool {
	release, err := acquireStampFont()
	if err != nil {
		return false
	}
	release()
	return true
}

// undrawableRunes returns, in order of first appearance, the characters
// of s that the stamp font has no glyph for (line feeds excepted). pdfcpu
// silently drops such characters, so the tools refuse them instead.
func undrawableRunes(s string) ([]rune, error) {
	ttf, ok, err := font.UserFont(stampFontName)
	if err != nil || !ok {
		return nil, errors.Join(errors.New("pdfops: stamp font metrics missing"), err)
	}
	var out []rune
	seen := map[rune]bool{}
	for _, r := range s {
		if r == '\n' || seen[r] {
			continue
		}
		if _, ok := ttf.Chars[uint32(r)]; !ok {
			seen[r] = true
			out = append(out, r)
		}
	}
	return out, nil
}

// checkStampParam is checkStampText as a Param.Check, which runs when a
// request arrives, before any stamping run may have installed the font;
// more, if set, checks the text further.
func checkStampParam(field, s string, more func(string) error) error {
	release, err := acquireStampFont()
	if err != nil {
		return err
	}
	defer release()
	text, err := checkStampText(field, s)
	if err == nil && more != nil {
		err = more(text)
	}
	return err
}

// stampLineBreaks writes every line break of s as "\n".
func stampLineBreaks(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

// checkStampText validates user text that will be drawn with the stamp
// font and returns it with line breaks normalised to "\n". It fails with
// an invalid_parameter error naming field when the text has characters the
// font cannot draw (listing up to five of them) or is not UTF-8, and with
// an internal
// error when the font is not installed.
func checkStampText(field, s string) (string, error) {
	if !utf8.ValidString(s) {
		return "", docmill.ParamError(field, "is not valid UTF-8 text")
	}
	s = stampLineBreaks(s)
	bad, err := undrawableRunes(s)
	if err != nil {
		return "", err
	}
	if len(bad) == 0 {
		return s, nil
	}
	quoted := make([]string, 0, 5)
	for i, r := range bad {
		if i == 5 {
			quoted = append(quoted, "...")
			break
		}
		quoted = append(quoted, fmt.Sprintf("%q", r))
	}
	return "", docmill.ParamError(field, "has characters the font cannot draw (%s); Latin, Greek and Cyrillic text is supported",
		strings.Join(quoted, ", "))
}

// escapeStampText protects literal text from pdfcpu's placeholder syntax.
// pdfcpu expands %p, %P, %t and %v in stamp text and drops a '%' followed
// by anything else. Each '%' becomes "%%t": "%%" yields a '%', and the
// 't' that follows ends the escape by expanding to the current time in
// the run's timestamp format, which newStampConfig sets to "" so that it
// expands to nothing. The result renders exactly as s.
//
// The two characters `\n` and a line feed both start a new line; that is
// pdfcpu's rule, and the tools document it.
func escapeStampText(s string) string {
	return strings.ReplaceAll(s, "%", "%%t")
}
