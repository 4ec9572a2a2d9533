package pdfops_test

import (
	"os/exec"
	"strings"
	"testing"

	docmill "github.com/docmill/docmill"
)

// pdfinfo returns poppler's pdfinfo output for path, skipping t without it.
func pdfinfo(t *testing.T, path string) string {
	t.Helper()
	if _, err := exec.LookPath("pdfinfo"); err != nil {
		t.Skip("pdfinfo not installed")
	}
	out, err := exec.Command("pdfinfo", "-enc", "UTF-8", path).CombinedOutput()
	if err != nil {
		t.Fatalf("pdfinfo: %v\n%s", err, out)
	}
	return string(out)
}

// infoField returns the value of a pdfinfo field ("Title").
func infoField(info, field string) string {
	for line := range strings.Lines(info) {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func TestEditMetadata(t *testing.T) {
	params := map[string]string{
		"title":    "Отчёт о продажах — 2026",
		"author":   "Иван Петров",
		"subject":  "Sales",
		"keywords": "отчёт, sales",
		"creator":  "docmill test",
		"language": "ru-RU",
	}
	out, err := run(t, "edit-metadata", params, pdfCorpus(t)+"pdflatex-4-pages.pdf")
	if err != nil {
		t.Fatal(err)
	}
	info := pdfinfo(t, out.Path)
	for field, want := range map[string]string{"Title": params["title"], "Author": params["author"], "Subject": params["subject"], "Keywords": params["keywords"], "Creator": params["creator"]} {
		if got := infoField(info, field); got != want {
			t.Errorf("%s = %q, want %q", field, got, want)
		}
	}
	if out.Meta["pages"] != 4 || out.Filename != "pdflatex-4-pages-metadata.pdf" {
		t.Errorf("meta = %v, filename %q", out.Meta, out.Filename)
	}
	doc := readBack(t, out.Path)
	root, err := doc.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	if s, _ := doc.DereferenceText(root["Lang"]); s != "ru-RU" {
		t.Errorf("/Lang = %q, want ru-RU", s)
	}
}

// TestEditMetadataKeepsOthers checks that fields not given are kept.
func TestEditMetadataKeepsOthers(t *testing.T) {
	in := pdfCorpus(t) + "pdflatex-4-pages.pdf"
	before := pdfinfo(t, in)
	out, err := run(t, "edit-metadata", map[string]string{"title": "New"}, in)
	if err != nil {
		t.Fatal(err)
	}
	after := pdfinfo(t, out.Path)
	if got := infoField(after, "Title"); got != "New" {
		t.Errorf("Title = %q", got)
	}
	if got, want := infoField(after, "Creator"), infoField(before, "Creator"); got != want {
		t.Errorf("Creator = %q, want %q kept", got, want)
	}
}

func TestEditMetadataClear(t *testing.T) {
	out, err := run(t, "edit-metadata", map[string]string{"clear": "true", "author": "Only me"}, pdfCorpus(t)+"pdflatex-4-pages.pdf")
	if err != nil {
		t.Fatal(err)
	}
	info := pdfinfo(t, out.Path)
	for _, f := range []string{"Title", "Subject", "Keywords", "Creator"} {
		if v := infoField(info, f); v != "" {
			t.Errorf("%s = %q after clear", f, v)
		}
	}
	if got := infoField(info, "Author"); got != "Only me" {
		t.Errorf("Author = %q", got)
	}
}

// TestEditMetadataXMP checks that an input's XMP is dropped when the Info
// dictionary changes, so that the two never disagree.
func TestEditMetadataXMP(t *testing.T) {
	in := pdfCorpus(t) + "crazyones-pdfa.pdf"
	root, err := readBack(t, in).Catalog()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := root["Metadata"]; !ok {
		t.Skip("input has no XMP")
	}
	out, err := run(t, "edit-metadata", map[string]string{"title": "Crazy"}, in)
	if err != nil {
		t.Fatal(err)
	}
	if out.Meta["xmp_removed"] != true {
		t.Errorf("meta = %v, want xmp_removed", out.Meta)
	}
	root, err = readBack(t, out.Path).Catalog()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := root["Metadata"]; ok {
		t.Error("output still has XMP metadata")
	}
	if got := infoField(pdfinfo(t, out.Path), "Title"); got != "Crazy" {
		t.Errorf("Title = %q", got)
	}
}

func TestEditMetadataBadInput(t *testing.T) {
	for name, path := range badInputs(t) {
		t.Run(name, func(t *testing.T) {
			out, err := run(t, "edit-metadata", map[string]string{"title": "x"}, path)
			wantRefused(t, out, err, docmill.CodeInvalidDocument)
		})
	}
	_, err := runValidated(t, "edit-metadata", map[string]string{"title": strings.Repeat("x", 2001)}, pdfCorpus(t)+"pdflatex-4-pages.pdf")
	wantCode(t, err, docmill.CodeInvalidParameter)
}
