package main

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/jobs"
	"github.com/docmill/docmill/sandbox"
	"github.com/docmill/docmill/tools/toolstest"
)

// engineFamilies are the engines docmill runs, as the tools' Engine
// fields name them: every one must be exercised on generated inputs.
var engineFamilies = []string{
	"ghostscript", "qpdf", "poppler", "libreoffice", "chromium",
	"tesseract", // OCRmyPDF's OCR engine, and image-to-text's
	"libvips",
	"pdfcpu", // the PDF helper's tools
}

// TestEveryToolHasGeneratedSample checks that the tests own their files:
// with the corpus out of reach (toolstest.CorpusEnv unset), the sampler of
// TestToolConformance makes an input, without skipping, for every tool
// of the registry serve builds (its params' page for a tool that takes no
// file), and the companions that follow it, so that the conformance suite
// runs every tool, and through them every engine, on inputs the tests
// make themselves. The pipeline, which the suite does not run (it runs
// the other tools), is run here on a generated PDF. The corpus stays an
// extra layer.
func TestEveryToolHasGeneratedSample(t *testing.T) {
	// Serial: it unsets the corpus variable of this process (t.Setenv).
	if testing.Short() {
		t.Skip("makes the samples with LibreOffice and vips")
	}
	t.Setenv(toolstest.CorpusEnv, "")
	scratch := t.TempDir()
	limits := docmill.DefaultLimits()
	jail := sandbox.NewJail(sandbox.JailOptions{Memory: limits.EngineMemory, Dir: scratch})
	tools, closeTools, err := toolset(findEngines(jail, nil), toolOptions{officeWorkers: 1, limits: limits, scratch: scratch, allowPrivateURLs: true})
	if err != nil {
		t.Fatal(err)
	}
	defer closeTools()
	urlParams, _ := urlConformInputs(t)
	var covered []string
	// As serve's registry: the tools, and the pipeline over them.
	served := append(tools, jobs.PipelineTool(docmill.NewRegistry(tools...), 0))
	for _, tool := range docmill.NewRegistry(served...).All() {
		if tool.Slug == docmill.PipelineSlug {
			runGeneratedPipeline(t, tool)
			covered = append(covered, tool.Engine)
			continue
		}
		if tool.MaxFiles == 0 {
			if urlParams[tool.Slug]["url"] == "" {
				t.Errorf("%s takes no file and its conformance params name no page of the test's", tool.Slug)
				continue
			}
			covered = append(covered, tool.Engine)
			continue
		}
		var made []string
		for _, ct := range tool.Accepts {
			if p, ok := generatedSample(t, tool, ct); !ok {
				t.Errorf("%s: its %s sample skipped or failed without the corpus", tool.Slug, ct)
			} else if p != "" {
				made = append(made, ct)
			}
		}
		companions, ok := generatedCompanions(t, tool)
		switch {
		case len(made) == 0:
			t.Errorf("%s: no generated sample of any of %v", tool.Slug, tool.Accepts)
		case !ok:
			t.Errorf("%s: its companions skipped or failed without the corpus", tool.Slug)
		default:
			t.Logf("%s (%s): generated %v, %d companions", tool.Slug, tool.Engine, made, companions)
			covered = append(covered, tool.Engine)
		}
	}
	t.Logf("%d tools run on generated inputs", len(covered))
	all := strings.Join(covered, ", ")
	for _, e := range engineFamilies {
		if !slices.ContainsFunc(covered, func(s string) bool { return strings.Contains(s, e) }) {
			t.Errorf("engine %s: no tool runs it on a generated input (engines covered: %s)", e, all)
		}
	}
}

// runGeneratedPipeline runs the pipeline tool, in this process, on a
// generated two-page PDF: rotate-pdf, then page-numbers.
func runGeneratedPipeline(t *testing.T, pipeline *docmill.Tool) {
	in := toolstest.WriteTemp(t, "two-pages.pdf", toolstest.TextPDF("Pipeline page one", "Pipeline page two"))
	out := toolstest.MustRun(t, pipeline, in, "application/pdf",
		map[string]string{"steps": `[{"tool": "rotate-pdf", "params": {"angle": 90}}, {"tool": "page-numbers"}]`})
	b, err := os.ReadFile(out.Path)
	if err != nil || out.ContentType != "application/pdf" || !strings.HasPrefix(string(b), "%PDF-") {
		t.Errorf("pipeline: %s %s, %d bytes, %v", out.Filename, out.ContentType, len(b), err)
	}
	t.Logf("%s: rotate-pdf and page-numbers on a generated PDF gave %s", pipeline.Slug, out.Filename)
}

// generatedSample runs conformSample in a subtest of its own and reports
// the path it made ("" for a type it does not make) and whether it ran
// to the end: false when it skipped (read the corpus, or lacked a
// program).
func generatedSample(t *testing.T, tool *docmill.Tool, ct string) (path string, ok bool) {
	t.Run(tool.Slug+"/"+strings.ReplaceAll(ct, "/", "-"), func(t *testing.T) {
		path = conformSample(t, tool, ct)
		ok = true
	})
	return path, ok
}

// generatedCompanions is generatedSample for conformCompanions.
func generatedCompanions(t *testing.T, tool *docmill.Tool) (n int, ok bool) {
	t.Run(tool.Slug+"/companions", func(t *testing.T) {
		n = len(conformCompanions(t, tool))
		ok = true
	})
	return n, ok
}
