package main

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/tools/toolstest"
)

// popplerInfo returns pdfinfo's fields of a PDF, read with poppler rather
// than pdfcpu, which wrote it.
func popplerInfo(t *testing.T, data []byte) map[string]string {
	t.Helper()
	out, err := exec.Command("pdfinfo", "-enc", "UTF-8", toolstest.WriteTemp(t, "info.pdf", data)).CombinedOutput()
	if err != nil {
		t.Fatalf("pdfinfo: %v\n%s", err, out)
	}
	fields := map[string]string{}
	for line := range strings.Lines(string(out)) {
		if k, v, ok := strings.Cut(line, ":"); ok {
			fields[k] = strings.TrimSpace(v)
		}
	}
	return fields
}

func TestEditMetadataE2E(t *testing.T) {
	s := startServer(t, "")
	c := s.client(s.DevKey)
	params := map[string]string{"title": "Годовой отчёт", "author": "Анна Иванова", "keywords": "отчёт, 2026", "language": "ru"}
	j, data := runTool(t, c, "edit-metadata", []client.File{file(t, "pdf", fourPages)}, params)
	if j.Result.ContentType != "application/pdf" || j.Result.Filename != "pdflatex-4-pages-metadata.pdf" {
		t.Fatalf("result %+v", j.Result)
	}
	info := popplerInfo(t, data)
	if info["Title"] != params["title"] || info["Author"] != params["author"] || info["Keywords"] != params["keywords"] {
		t.Fatalf("pdfinfo reads %q", info)
	}
	if info["Pages"] != "4" {
		t.Fatalf("pages %q", info["Pages"])
	}

	_, data = runTool(t, c, "edit-metadata", []client.File{file(t, "pdf", fourPages)}, map[string]string{"clear": "true"})
	info = popplerInfo(t, data)
	if info["Title"] != "" || info["Author"] != "" || info["Creator"] != "" {
		t.Fatalf("after clear pdfinfo reads %q", info)
	}
}
