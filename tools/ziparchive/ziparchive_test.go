package ziparchive_test

import (
	"archive/zip"
	"errors"
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
