package main

import (
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/toolstest"
)

// sdkJSInputs is what the SDK's tests read from DOCMILL_SDK_INPUTS: a
// run of every tool, a PDF, and a key per test file, so that each
// file's account usage is its own while node runs them in parallel.
type sdkJSInputs struct {
	Tools []sdkJSToolRun `json:"tools"`
	// Unavailable are the tools whose engine the server lacks.
	Unavailable []string          `json:"unavailable"`
	PDF         string            `json:"pdf"`
	Keys        map[string]string `json:"keys"`
	path        string
}

// sdkJSToolRun is one tool's call: its files (paths) and params.
type sdkJSToolRun struct {
	Slug   string            `json:"slug"`
	Files  []string          `json:"files"`
	Params map[string]string `json:"params"`
	// Steps, for the pipeline, are its steps (client.pipeline).
	Steps []map[string]any `json:"steps,omitempty"`
}

// sdkInputs writes the SDK tests' inputs: for every tool of the
// registry but those unavailable on the server, the conformance suite's input (conformSample: its first
// accepted type the sampler makes, and conformCompanions after it, or
// min_files copies), and params (the first of toolstest.Values that
// each required param takes, then conformParams; the URL tools' page is
// the suite's own loopback server, which --allow-private-urls lets the
// server reach). The pipeline is not a tool of files and params alone:
// it gets two steps of its own.
func sdkInputs(t *testing.T, dataDir string, unavailable map[string]bool) sdkJSInputs {
	reg, closeTools, err := referenceRegistry()
	if err != nil {
		t.Fatal(err)
	}
	defer closeTools()
	urlParams, urlValues := urlConformInputs(t)
	in := sdkJSInputs{Keys: map[string]string{}, Unavailable: []string{}, path: filepath.Join(t.TempDir(), "inputs.json")}
	for _, name := range []string{"tools", "upload", "retry", "webhook", "urls"} {
		in.Keys[name] = newKey(t, dataDir, "custom", "--max-file-mb", "1024", "--rpm", "100000", "--in-flight", "100")
	}
	in.PDF = toolstest.WriteTemp(t, "sdk.pdf", toolstest.TextPDF("SDK page one", "SDK page two"))
	for _, tool := range reg.All() {
		if unavailable[tool.Slug] {
			in.Unavailable = append(in.Unavailable, tool.Slug)
			continue
		}
		run := sdkJSToolRun{Slug: tool.Slug, Params: requiredParams(tool, urlValues)}
		maps.Copy(run.Params, urlParams[tool.Slug])
		switch {
		case tool.Slug == docmill.PipelineSlug:
			run.Files = []string{in.PDF}
			run.Steps = []map[string]any{{"tool": "rotate-pdf", "params": map[string]any{"angle": 90}}, {"tool": "page-numbers"}}
			delete(run.Params, "steps")
		case tool.MaxFiles > 0:
			run.Files = jsSDKFiles(t, tool)
		}
		in.Tools = append(in.Tools, run)
	}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(in.path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return in
}

// jsSDKFiles are a tool's files: its first sample, then its companions,
// or MinFiles copies of the sample.
func jsSDKFiles(t *testing.T, tool *docmill.Tool) []string {
	var sample string
	for _, ct := range tool.Accepts {
		if sample = conformSample(t, tool, ct); sample != "" {
			break
		}
	}
	if sample == "" {
		t.Fatalf("%s: no generated sample of any of %v", tool.Slug, tool.Accepts)
	}
	files := []string{sample}
	for _, c := range conformCompanions(t, tool) {
		files = append(files, c.Path)
	}
	for len(files) < tool.MinFiles {
		files = append(files, sample)
	}
	return files
}

// requiredParams gives each required param of tool the first candidate
// (toolstest.Values, then values' own) that ParseParams refuses for no
// reason of its own, as the conformance suite's base params do.
func requiredParams(tool *docmill.Tool, values map[string][]string) map[string]string {
	raw := map[string]string{}
	for _, p := range tool.Params {
		if !p.Required {
			continue
		}
		for _, v := range append(toolstest.Values(p), values[tool.Slug+"/"+p.Name]...) {
			_, err := tool.ParseParams(map[string]string{p.Name: v})
			var e *docmill.Error
			if err == nil || errors.As(err, &e) && !slices.ContainsFunc(e.Fields, func(f docmill.FieldError) bool { return f.Field == p.Name }) {
				raw[p.Name] = v
				break
			}
		}
	}
	return raw
}
