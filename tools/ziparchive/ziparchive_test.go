package ziparchive_test

import (
	"archive/zip"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docmill/docmill/tools/toolstest"
	"github.com/docmill/docmill/tools/ziparchive"
)

func TestWriteAndRead(t *testing.T) {
	src := toolstest.WriteTemp(t, "a.txt", []byte("from a file"))
	path := filepath.Join(t.TempDir(), "out.zip")
	w, err := ziparchive.Create(path, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.AddFile("a.txt", src, false); err != nil {
		t.Fatal(err)
	}
	e, err := w.Add("b.txt", true)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(e, strings.Repeat("streamed ", 100))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	if len(zr.File) != 2 || zr.File[0].Name != "a.txt" || zr.File[0].Method != zip.Store || zr.File[1].Method != zip.Deflate {
		t.Fatalf("entries %+v", zr.File)
	}
}

func TestCap(t *testing.T) {
	w, err := ziparchive.Create(filepath.Join(t.TempDir(), "big.zip"), 100)
	if err != nil {
		t.Fatal(err)
	}
	e, err := w.Add("x", false)
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Write(make([]byte, 1000))
	if err == nil {
		err = w.Close()
	} else {
		w.Close()
	}
	if !errors.Is(err, ziparchive.ErrTooLarge) {
		t.Fatalf("err %v", err)
	}
}

// TestDeflatedEntriesRoundTrip: deflated entries of several archives, their
// compressors reused from one entry and archive to the next, read back
// whole, and text among them shrinks.
func TestDeflatedEntriesRoundTrip(t *testing.T) {
	for a := range 2 {
		path := filepath.Join(t.TempDir(), "out.zip")
		w, err := ziparchive.Create(path, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{}
		for i := range 3 {
			name := fmt.Sprintf("part-%d.txt", i)
			want[name] = strings.Repeat(fmt.Sprintf("archive %d entry %d ", a, i), 500)
			e, err := w.Add(name, true)
			if err != nil {
				t.Fatal(err)
			}
			io.WriteString(e, want[name])
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		zr, err := zip.OpenReader(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range zr.File {
			r, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(r)
			if err != nil || string(got) != want[f.Name] {
				t.Errorf("archive %d, %s: %d bytes read, want %d: %v", a, f.Name, len(got), len(want[f.Name]), err)
			}
			if f.CompressedSize64*4 > f.UncompressedSize64 {
				t.Errorf("archive %d, %s: text deflated to %d of %d bytes", a, f.Name, f.CompressedSize64, f.UncompressedSize64)
			}
		}
		zr.Close()
	}
}
