package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
	"github.com/docmill/docmill/tools/toolstest"
)

// shoutSlug is the tool TestAddingATool adds.
const shoutSlug = "shout-text"

// paramExclaim is shout-text's one param.
const paramExclaim = "exclaim"

// shoutTool declares shout-text, a tool of the test alone: it upper-cases
// a text file, and with exclaim ends each line with "!".
func shoutTool() *docmill.Tool {
	return &docmill.Tool{
		Slug:        shoutSlug,
		Lane:        docmill.LanePDF,
		Title:       "Shout text",
		Description: "Upper-case a text file.",
		Accepts:     []string{"text/plain"},
		Outputs:     []string{"text/plain"},
		MinFiles:    1, MaxFiles: 1,
		Params:  []docmill.Param{{Name: paramExclaim, Type: docmill.TypeBoolean, Default: "false", Description: "End each line with !."}},
		Engine:  "test",
		Timeout: time.Minute,
		Run: func(_ context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
			b, err := os.ReadFile(in.Files[0].Path)
			if err != nil {
				return nil, docmill.Internal(err)
			}
			b = bytes.ToUpper(b)
			if in.Params.Bool(paramExclaim) {
				b = bytes.ReplaceAll(b, []byte("\n"), []byte("!\n"))
			}
			name := docmill.ResultName(in.Files[0].Filename, ".txt", "-shouted.txt")
			out := filepath.Join(in.WorkDir, name)
			if err := os.WriteFile(out, b, 0o600); err != nil {
				return nil, docmill.Internal(err)
			}
			return &docmill.RunOutput{Path: out, Filename: name, ContentType: "text/plain"}, nil
		},
	}
}

// TestAddingATool keeps the README's "Adding a tool" honest: a tool added
// in this test alone, as one more line of engineTools (the list toolset
// builds the registry from), is in the catalogue, the OpenAPI document
// and the web page's tool list of a server, and passes the conformance
// suite as toolset built it. Not parallel: it adds to engineTools while
// it runs.
func TestAddingATool(t *testing.T) {
	engineTools = append(engineTools, func(*toolKit) []*docmill.Tool { return []*docmill.Tool{shoutTool()} })
	t.Cleanup(func() { engineTools = engineTools[:len(engineTools)-1] })

	s := startServer(t, "")
	if got := getJSON(t, s.URL+"/v1/tools/"+shoutSlug, 200)["title"]; got != "Shout text" {
		t.Errorf("catalogue: %s's title %v", shoutSlug, got)
	}
	paths, _ := getJSON(t, s.URL+"/v1/openapi.json", 200)["paths"].(map[string]any)
	if _, ok := paths["/v1/"+shoutSlug+"/process"]; !ok {
		t.Errorf("OpenAPI: no path for %s", shoutSlug)
	}

	tools, scratch := testToolset(t)
	built, ok := docmill.NewRegistry(tools...).Lookup(shoutSlug)
	if !ok {
		t.Fatalf("toolset built no %s", shoutSlug)
	}
	t.Run("Conformance", func(t *testing.T) {
		toolstest.Conformance(t, toolstest.Suite{Registry: docmill.NewRegistry(built), Sample: conformSample, Dir: scratch})
	})

	t.Run("Web", func(t *testing.T) {
		b := newBrowser(t)
		b.run(chromedp.Navigate(s.URL + "/"))
		b.wait(`document.body.dataset.ready === "1" && document.querySelector('.card[data-slug="`+shoutSlug+`"]') !== null`, 20*time.Second)
	})
}

// testToolset builds the tools as serve does, with the default limits,
// one LibreOffice worker and a scratch directory of the test's, which it
// returns; the pools stop when the test ends.
func testToolset(t testing.TB) ([]*docmill.Tool, string) {
	t.Helper()
	scratch := t.TempDir()
	limits := docmill.DefaultLimits()
	jail := sandbox.NewJail(sandbox.JailOptions{Memory: limits.EngineMemory, Dir: scratch})
	tools, closeTools, err := toolset(findEngines(jail, nil), toolOptions{officeWorkers: 1, limits: limits, scratch: scratch})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(closeTools)
	return tools, scratch
}

// TestProvidersDeclareTheirParams: the tool that provides each capability
// is built, and declares the params the tools composing it call it with.
func TestProvidersDeclareTheirParams(t *testing.T) {
	t.Parallel()
	tools, _ := testToolset(t)
	for c, params := range map[docmill.Capability][]string{
		docmill.CapConvertImage: {docmill.CapParamFormat, docmill.CapParamQuality},
		docmill.CapResizeImage:  {docmill.CapParamWidth, docmill.CapParamEnlarge},
		docmill.CapPDFToPNG:     {docmill.CapParamDPI, docmill.CapParamPages},
	} {
		p := docmill.Provider(tools, c)
		if p == nil {
			t.Errorf("no tool provides %s", c)
			continue
		}
		for _, name := range params {
			if _, ok := p.Param(name); !ok {
				t.Errorf("%s provides %s but declares no param %q", p.Slug, c, name)
			}
		}
	}
}
