package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/tools/toolstest"
)

// damages make a damaged copy of a PDF, as real-world files are damaged:
// by truncation, by tools that edit bytes and forget offsets, by hand.
var damages = map[string]func(t *testing.T, b []byte) []byte{
	"truncated": func(t *testing.T, b []byte) []byte { return b[:len(b)*9/10] },
	"xref shifted": func(t *testing.T, b []byte) []byte {
		return regexp.MustCompile(`(?m)^(\d{10}) (\d{5}) n`).ReplaceAllFunc(b, func(m []byte) []byte {
			n, _ := strconv.Atoi(string(m[:10]))
			return []byte(fmt.Sprintf("%010d%s", n+7, m[10:]))
		})
	},
	"no trailer": func(t *testing.T, b []byte) []byte {
		i := bytes.LastIndex(b, []byte("trailer"))
		if i < 0 {
			i = bytes.LastIndex(b, []byte("startxref"))
		}
		return b[:i]
	},
	"startxref wrong": func(t *testing.T, b []byte) []byte {
		return regexp.MustCompile(`startxref\s+\d+`).ReplaceAll(b, []byte("startxref\n12"))
	},
	"length wrong": func(t *testing.T, b []byte) []byte {
		done := false
		return regexp.MustCompile(`/Length (\d+)`).ReplaceAllFunc(b, func(m []byte) []byte {
			if done {
				return m
			}
			done = true
			n, _ := strconv.Atoi(string(m[len("/Length "):]))
			return []byte(fmt.Sprintf("/Length %d", n+100))
		})
	},
	"flate broken": func(t *testing.T, b []byte) []byte {
		out := append([]byte(nil), b...)
		if i := bytes.Index(out, []byte("stream\n")); i > 0 && i+60 < len(out) {
			for k := i + 20; k < i+60; k++ {
				out[k] ^= 0x5a
			}
		}
		return out
	},
	"middle cut": func(t *testing.T, b []byte) []byte {
		return append(append([]byte(nil), b[:len(b)/3]...), b[len(b)/2:]...)
	},
	"encrypted, empty user password": func(t *testing.T, b []byte) []byte {
		dir := t.TempDir()
		in, out := filepath.Join(dir, "in.pdf"), filepath.Join(dir, "out.pdf")
		if err := os.WriteFile(in, b, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := exec.Command("qpdf", "--encrypt", "", "owner-pw", "256", "--", in, out).Run(); err != nil {
			return nil
		}
		enc, _ := os.ReadFile(out)
		return enc
	},
}

// pageTreeLoop is a PDF whose page tree holds itself.
func pageTreeLoop() []byte {
	return toolstest.PDF(
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R 2 0 R] /Count 2 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>",
	)
}

// TestDamagedPDFs measures the pdfcpu tools against qpdf on a corpus of
// damaged files made here: for each tool, the files it processes must be
// at least as many as those `qpdf --rotate=+90` accepts, and no file may
// get a 5xx. It prints the counts.
func TestDamagedPDFs(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("many jobs")
	}
	toolstest.Need(t, "qpdf")
	dir := t.TempDir()
	files := map[string][]byte{"page tree loop": pageTreeLoop()}
	for _, base := range []string{"minimal-document.pdf", "pdflatex-4-pages.pdf", "google-doc-document.pdf"} {
		b := toolstest.ReadCorpus(t, "pdf", base)
		for name, damage := range damages {
			if d := damage(t, b); len(d) > 0 {
				files[base+", "+name] = d
			}
		}
	}
	qpdfOK, qpdfEncrypted := 0, 0
	for name, b := range files {
		in, out := filepath.Join(dir, "in.pdf"), filepath.Join(dir, "out.pdf")
		if err := os.WriteFile(in, b, 0o600); err != nil {
			t.Fatal(err)
		}
		err := exec.Command("qpdf", "--rotate=+90", in, out).Run()
		var x *exec.ExitError
		if err == nil || errors.As(err, &x) && x.ExitCode() == 3 {
			qpdfOK++
			if strings.Contains(name, "encrypted") {
				qpdfEncrypted++
			}
		} else {
			t.Logf("qpdf refuses %s", name)
		}
	}

	s := startServer(t, "")
	key := newKey(t, s.DataDir, "custom", "--rpm", "100000", "--in-flight", "100", "--ops", "1000000")
	c := s.client(key)
	tools := []struct {
		slug   string
		params map[string]string
	}{
		{"rotate-pdf", map[string]string{"angle": "90"}},
		{"merge-pdf", nil},
		{"split-pdf", map[string]string{"every": "1"}},
		{"watermark-pdf", map[string]string{"text": "draft"}},
		{"page-numbers", nil},
		{"extract-pages", map[string]string{"pages": "1"}},
		{"protect-pdf", map[string]string{"password": "s3cret-pass"}},
	}
	minimal := toolstest.ReadCorpus(t, "pdf", "minimal-document.pdf")
	var report strings.Builder
	fmt.Fprintf(&report, "damaged files: %d; qpdf --rotate=+90 accepts %d (%d of them encrypted with an empty user password)\n", len(files), qpdfOK, qpdfEncrypted)
	for _, tl := range tools {
		// The files go a few at a time, so that the server's workers (one
		// per core) are never idle between one answer and the next call.
		var ok atomic.Int32
		var wg sync.WaitGroup
		slots := make(chan struct{}, 4)
		for name, b := range files {
			slots <- struct{}{}
			wg.Go(func() {
				defer func() { <-slots }()
				in := []client.File{{Name: "damaged.pdf", Body: bytes.NewReader(b)}}
				if tl.slug == "merge-pdf" {
					in = append(in, client.File{Name: "minimal.pdf", Body: bytes.NewReader(minimal)})
				}
				j, _, err := c.Process(context.Background(), tl.slug, in, client.ProcessOptions{Params: tl.params, Prefer: "wait=60"})
				if err == nil && !j.Finished() {
					j, err = c.Wait(context.Background(), j.JobID, 0)
				}
				var e *client.Problem
				switch {
				case errors.As(err, &e) && e.StatusCode >= 500:
					t.Errorf("%s on %s: %d %s %s", tl.slug, name, e.StatusCode, e.Code, e.Detail)
				case err != nil:
				case j.Status == "done":
					ok.Add(1)
				case j.Error != nil && j.Error.Code == "internal":
					t.Errorf("%s on %s: failed internal: %s", tl.slug, name, j.Error.Message)
				}
			})
		}
		wg.Wait()
		fmt.Fprintf(&report, "%-14s %2d / %d (qpdf: %d)\n", tl.slug, ok.Load(), len(files), qpdfOK)
		if int(ok.Load()) < qpdfOK {
			t.Errorf("%s processed %d files, want at least %d", tl.slug, ok.Load(), qpdfOK)
		}
	}
	t.Log("\n" + report.String())
}
