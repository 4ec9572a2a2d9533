package office

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/docmill/docmill/sandbox"
	"github.com/docmill/docmill/tools/filecopy"
)

// profileTemplate is a clean LibreOffice user profile, made once per pool
// by a jailed soffice that only initialises it (--terminate_after_init)
// and converts nothing. Each worker start gets a private copy of it: a
// soffice given an empty profile builds it, exits and is started again by
// its launcher (a second process start, the larger part of a cold
// start), which a copied, already built profile skips. No worker ever
// writes to the template, and no two workers share a profile.
type profileTemplate struct {
	once sync.Once
	dir  string // the template's profile; "" when it could not be made
}

// newProfile makes dir a fresh profile for a worker start: a copy of the
// pool's template, or, when the template could not be made or copied,
// an empty profile holding only docmill's settings (profile.xcu), which
// soffice then builds itself.
func (p *Pool) newProfile(dir string) error {
	os.RemoveAll(dir)
	if src := p.template(); src != "" {
		if err := copyTree(src, dir); err == nil {
			return nil
		}
		os.RemoveAll(dir)
	}
	return emptyProfile(dir)
}

// template returns the pool's template profile, making it on first use
// (a worker's first start: a lazy pool that never converts never makes
// it), or "" when it cannot be made.
func (p *Pool) template() string {
	p.tmpl.once.Do(func() {
		dir := filepath.Join(p.base, "template")
		if err := p.makeTemplate(dir); err != nil {
			os.RemoveAll(dir)
			return
		}
		p.tmpl.dir = filepath.Join(dir, "profile")
	})
	return p.tmpl.dir
}

// makeTemplate builds a profile in dir/profile with a soffice jailed as
// the workers are (the same view: its own directory and /tmp), so that
// every path the profile records is the one a worker's soffice sees.
func (p *Pool) makeTemplate(dir string) error {
	os.RemoveAll(dir)
	profile := filepath.Join(dir, "profile")
	if err := emptyProfile(profile); err != nil {
		return err
	}
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := p.initProfile(dir, profile, tmp); err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(profile, "user", "extensions")); err != nil {
		return fmt.Errorf("office: soffice did not build the template profile: %w", err)
	}
	return nil
}

// initProfile runs a jailed soffice on profile that initialises and
// exits (--terminate_after_init), within startTimeout.
func (p *Pool) initProfile(dir, profile, tmp string) error {
	so, err := p.soffice.StartIn(sandbox.Cmd{
		Dir:    dir,
		Stdin:  emptyReader{},
		Stdout: io.Discard,
		Args: []string{"--headless", "--invisible", "--nologo", "--norestore", "--nodefault",
			"--nolockcheck", "--nofirststartwizard", "-env:UserInstallation=file://" + profile,
			"--terminate_after_init"},
	}, sandbox.View{Tmp: tmp})
	if err != nil {
		return err
	}
	select {
	case <-so.Done():
	case <-time.After(startTimeout):
		so.Kill()
		return fmt.Errorf("office: the template profile was not made within %s", startTimeout)
	}
	if x := so.Exit(); x != nil {
		return fmt.Errorf("office: template profile: %w", x)
	}
	return nil
}

// emptyProfile makes dir a profile holding only docmill's settings:
// macros disabled, links never updated (profile.xcu).
func emptyProfile(dir string) error {
	if err := os.MkdirAll(filepath.Join(dir, "user"), 0o700); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "user", "registrymodifications.xcu"), profileXCU, 0o600)
}

// copyTree copies the directory src to dst (which must not exist) with
// the modes of a profile made here (0700 directories, 0600 files):
// regular files and directories only, so nothing in dst is shared with
// src; anything else is an error.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.Mkdir(to, 0o700)
		case d.Type().IsRegular():
			return filecopy.Copy(p, to)
		}
		return fmt.Errorf("office: template profile: %s is neither a file nor a directory", rel)
	})
}
