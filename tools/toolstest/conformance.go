package toolstest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	docmill "github.com/docmill/docmill"
)

// Suite configures Conformance, the suite every registered tool passes,
// as storetest's is for stores. Only Registry and Sample are required.
//
// For each available tool of Registry, Conformance checks, calling
// ParseParams and Run directly (no HTTP, no queue), each in a fresh work
// directory made alone in a directory of its own:
//   - Declaration: a slug, a title, 1 <= MinFiles <= MaxFiles (or no
//     file at all: MinFiles = MaxFiles = 0, for a tool whose params say
//     what to work on, such as url-to-pdf, which skips BadInput), accepted
//     types, a timeout, and a Default and Enum that ParseParams accepts;
//   - FileCount: a run with fewer files than MinFiles, or (for one-file
//     tools) with two, is a client error, never internal nor a panic;
//   - Output: for a sample of each accepted type the sampler makes, the
//     result is a non-empty regular file inside the work directory, named
//     after the client's file (it starts with ResultName's base, without a
//     path) with an extension that fits its non-empty content type; a PDF
//     starts with %PDF; the inputs are left unchanged, no new "input-"
//     name is written, and nothing is written beside the work directory;
//     a tool that makes a PDF reports meta "pages" > 0 (unless NoPages
//     lists it), and pages, input_pages, input_size and output_size, when
//     reported, are numbers > 0. A tool that takes several files (merge)
//     may name its result as it likes;
//   - Params: every declared param reaches the tool: a second valid value
//     derived from the declaration (another enum value, a bound, the
//     flipped boolean, another page) changes the output's Fingerprint or
//     the meta, or is refused by the tool as invalid_parameter naming it
//     (a combination it does not take, which it had to read to refuse);
//   - BadInput: the sample cut to its first bytes (its magic number and
//     little more, nothing a repair can recover), for binary types, gives
//     a client error (never internal, never a panic); an encrypted PDF
//     gives invalid_document (invalid_parameter too for a tool that takes
//     a password). An empty file is not tried: the HTTP edge refuses it
//     (invalid_document) before any tool, and a tool may rely on its
//     input's sniffed magic number. A file cut in half is not tried
//     either: the PDF tools repair such a file by design;
//   - Cancel: a run whose context is canceled 100 ms after its start
//     fails, within a generous deadline (cancelDeadline); the suite logs how
//     many tools were canceled mid-run, and a tool with a slow input
//     (Slow) that finishes first fails.
//
// A new tool gets all of this by being registered.
type Suite struct {
	Registry *docmill.Registry
	// Sample writes a small valid input of contentType for tool and
	// returns its path, named as a client would name it (the extension
	// matters to some tools); "" when it cannot make one of that type
	// (the type is then not tried). The first accepted type it makes is
	// the one the params, bad-input and cancel checks use.
	Sample func(t *testing.T, tool *docmill.Tool, contentType string) string
	// Companions, when set, returns the files that follow the sample in
	// every run of a tool whose inputs differ in kind (insert-pages' PDF
	// to insert, image-watermark's image), as the client would send them
	// after it; nil or none for other tools, whose runs send MinFiles
	// copies of the sample. The bad-input check damages the sample only.
	Companions func(t *testing.T, tool *docmill.Tool) []Companion
	// Dir is where the runs' directories are made (the node's scratch
	// directory, where the warm engines stage files); "" is a temporary
	// directory of the test.
	Dir string
	// Limits are given to every run (zero: DefaultLimits).
	Limits docmill.Limits
	// Params are raw base params by tool slug, merged over the derived
	// ones (a required param gets the first valid value Values offers).
	Params map[string]map[string]string
	// Values are more candidate values of params, by "slug/param", tried
	// after those Values derives from the declaration: for a param whose
	// declaration suggests no valid value (a JSON document).
	Values map[string][]string
	// NoEffect lists params ("slug/param") that legitimately change
	// nothing on the sample, with the reason; the params check skips
	// them, and fails a listed param that does change the output, so
	// that the list stays true.
	NoEffect map[string]string
	// Unavailable is called for a tool whose engine is missing on this
	// machine; nil skips its subtest.
	Unavailable func(t *testing.T, tool *docmill.Tool)
	// Known lists checks ("slug/Check", such as "html-to-pdf/Cancel")
	// that a tool is known to fail, with the reason. They still run: one
	// that fails is skipped with the reason and its failure shown; one
	// that passes fails the test, so that the entry is removed.
	Known map[string]string
	// Slow, when set, returns an input of the given tool's first type
	// (path and content type) slow enough that the tool is still running
	// when the cancel check cancels it; "" for a tool it has none for. A
	// tool it gives one for must be canceled mid-run: its cancel check
	// runs on that input and fails if the tool finishes first. Other
	// tools run the check on their sample, which may finish first: the
	// suite's log counts them (cancelTally).
	Slow func(t *testing.T, tool *docmill.Tool) (path, contentType string)
	// cancels is the cancel check's tally, made by Conformance.
	cancels *cancelTally
	// NoPages lists tools that make a PDF but do not report meta "pages",
	// with the reason.
	NoPages map[string]string
	// Serial names tools that must not run beside each other (an engine
	// pool smaller than the suite's parallelism); all other tools run in
	// parallel.
	Serial map[string]bool
}

// clientCodes are the codes that mean the request was at fault (a 4xx).
var clientCodes = map[docmill.Code]bool{
	docmill.CodeInvalidDocument: true, docmill.CodeUnsupportedFileType: true,
	docmill.CodeInvalidParameter: true, docmill.CodeMissingFile: true,
	docmill.CodeFileTooLarge: true, docmill.CodeTooManyFiles: true,
	docmill.CodeNoText: true, docmill.CodeNoTables: true,
}

// Conformance runs the suite over every tool of s.Registry, one subtest
// per tool and one sub-subtest per check.
func Conformance(t *testing.T, s Suite) {
	if s.Dir == "" {
		s.Dir = t.TempDir()
	}
	s.Limits = s.Limits.WithDefaults()
	s.cancels = &cancelTally{}
	t.Cleanup(func() { t.Log(s.cancels.report()) })
	// At most as many tools are checked at once as there are cores,
	// whatever go test's -parallel: the cancel check's deadline needs
	// the CPU to stop an engine.
	cores := make(chan struct{}, runtime.GOMAXPROCS(0))
	for _, tool := range s.Registry.All() {
		t.Run(tool.Slug, func(t *testing.T) {
			if !s.Serial[tool.Slug] {
				t.Parallel()
			}
			cores <- struct{}{}
			defer func() { <-cores }()
			if !tool.IsAvailable() {
				if s.Unavailable != nil {
					s.Unavailable(t, tool)
				}
				t.Skipf("%s: engine %s unavailable here", tool.Slug, tool.Engine)
			}
			s.runTool(t, tool)
		})
	}
}

// runTool runs the checks of one tool, in order: a failed declaration
// stops the rest, which all rely on it.
func (s *Suite) runTool(t *testing.T, tool *docmill.Tool) {
	if !t.Run("Declaration", func(t *testing.T) { s.checkDeclaration(t, tool) }) {
		return
	}
	samples := s.samples(t, tool)
	if tool.MaxFiles == 0 {
		// A tool that takes no file (url-to-pdf) runs on its params
		// alone: its base params (Suite.Params) say what to work on.
		samples = []sample{{}}
	}
	if len(samples) == 0 {
		t.Fatalf("the sampler makes none of the accepted types %v", tool.Accepts)
	}
	// first is the Output check's run of the first sample on the base
	// params, when it succeeded: the Params check's first base run.
	var first *result
	checks := []struct {
		name string
		fn   func(t testing.TB, tool *docmill.Tool, smp sample)
	}{
		{"FileCount", s.checkFileCount},
		{"Output", func(t testing.TB, tool *docmill.Tool, _ sample) {
			for i, smp := range samples {
				if r := s.checkOutput(t, tool, smp); i == 0 {
					first = r
				}
			}
		}},
		{"Params", func(t testing.TB, tool *docmill.Tool, smp sample) { s.checkParams(t, tool, smp, first) }},
		{"BadInput", s.checkBadInput},
		{"Cancel", s.checkCancel},
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			if c.name == "BadInput" && tool.MaxFiles == 0 {
				t.Skip("the tool takes no file to damage")
			}
			if why, ok := s.Known[tool.Slug+"/"+c.name]; ok {
				runKnown(t, why, func(t testing.TB) { c.fn(t, tool, samples[0]) })
				return
			}
			c.fn(t, tool, samples[0])
		})
	}
}

// sample is an input the sampler made.
type sample struct {
	path, contentType string
}

func (s *Suite) samples(t *testing.T, tool *docmill.Tool) []sample {
	var out []sample
	for _, ct := range tool.Accepts {
		if p := s.Sample(t, tool, ct); p != "" {
			out = append(out, sample{p, ct})
		}
	}
	return out
}

func (s *Suite) checkDeclaration(t testing.TB, tool *docmill.Tool) {
	if tool.Slug == "" || tool.Title == "" || tool.Engine == "" || tool.Run == nil {
		t.Errorf("slug %q, title %q, engine %q, run set %v: all are required", tool.Slug, tool.Title, tool.Engine, tool.Run != nil)
	}
	takesFiles := tool.MaxFiles > 0
	if (takesFiles && (tool.MinFiles < 1 || len(tool.Accepts) == 0)) || tool.MaxFiles < tool.MinFiles || tool.MinFiles < 0 || tool.Timeout <= 0 {
		t.Errorf("files %d-%d, accepts %v, timeout %v", tool.MinFiles, tool.MaxFiles, tool.Accepts, tool.Timeout)
	}
	// A pipeline checks each step against what the step before makes.
	if len(tool.Outputs) == 0 {
		t.Errorf("declares no Outputs: a pipeline cannot tell which tools may follow it")
	}
	// Each value goes with the base params, which satisfy the tool's
	// rules across params (CheckParams).
	with := func(name, v string) map[string]string {
		raw := maps.Clone(s.baseParams(t, tool))
		raw[name] = v
		return raw
	}
	for _, p := range tool.Params {
		if p.Default != "" {
			if _, err := tool.ParseParams(with(p.Name, p.Default)); err != nil && !onlyRequired(err, tool) {
				t.Errorf("param %s: its default %q is refused: %v", p.Name, p.Default, err)
			}
		}
		for _, e := range p.Enum {
			if _, err := tool.ParseParams(with(p.Name, e)); err != nil && !onlyRequired(err, tool) {
				t.Errorf("param %s: its enum value %q is refused: %v", p.Name, e, err)
			}
		}
	}
}

// onlyRequired reports whether err only says that required params are
// missing (which a check of one param on its own may cause).
func onlyRequired(err error, tool *docmill.Tool) bool {
	var e *docmill.Error
	if !errors.As(err, &e) || len(e.Fields) == 0 {
		return false
	}
	for _, f := range e.Fields {
		p, ok := tool.Param(f.Field)
		if !ok || !p.Required || f.Message != "is required" {
			return false
		}
	}
	return true
}

func (s *Suite) checkFileCount(t testing.TB, tool *docmill.Tool, smp sample) {
	if tool.MaxFiles == 0 { // a file given to a tool that takes none
		one := sample{WriteTemp(t, "conform-extra.txt", []byte("a file no one asked for\n")), "text/plain"}
		if r := s.run(t, context.Background(), tool, s.baseParams(t, tool), []sample{one}); !isClientError(r.err) {
			t.Errorf("1 file (declared none): %v, want a client error", r.err)
		}
		return
	}
	counts := []int{0}
	if tool.MinFiles > 1 {
		counts = append(counts, tool.MinFiles-1)
	}
	if tool.MaxFiles == 1 {
		counts = append(counts, 2)
	}
	for _, n := range counts {
		r := s.run(t, context.Background(), tool, s.baseParams(t, tool), repeat(smp, n))
		if r.err == nil {
			t.Errorf("%d files (declared %d-%d): it succeeded", n, tool.MinFiles, tool.MaxFiles)
		} else if !isClientError(r.err) {
			t.Errorf("%d files (declared %d-%d): %v, want a client error", n, tool.MinFiles, tool.MaxFiles, r.err)
		}
	}
}

func repeat(smp sample, n int) []sample {
	out := make([]sample, n)
	for i := range out {
		out[i] = smp
	}
	return out
}

// files is the input of tool's runs on smp: smp and the tool's
// companions (Suite.Companions) when it has some, else MinFiles copies of
// smp.
func (s *Suite) files(t testing.TB, tool *docmill.Tool, smp sample) []sample {
	if s.Companions == nil {
		return repeat(smp, tool.MinFiles)
	}
	more := s.Companions(testOf(t), tool)
	if len(more) == 0 {
		return repeat(smp, tool.MinFiles)
	}
	out := []sample{smp}
	for _, c := range more {
		out = append(out, sample{c.Path, c.ContentType})
	}
	return out
}

// Companion is a file that follows the sample in a tool's runs.
type Companion struct {
	Path, ContentType string
}

// checkOutput runs tool on smp with the base params and checks the
// result; it returns the run, nil when it failed.
func (s *Suite) checkOutput(t testing.TB, tool *docmill.Tool, smp sample) *result {
	r := s.run(t, context.Background(), tool, s.baseParams(t, tool), s.files(t, tool, smp))
	if r.err != nil {
		t.Errorf("%s sample %s: %v", smp.contentType, filepath.Base(smp.path), r.err)
		return nil
	}
	out := r.out
	base := docmill.ResultName(filepath.Base(smp.path), "", "")
	if tool.MinFiles > 1 || tool.MaxFiles == 0 { // named for no one file of several ("merged.pdf"), or for no file
		base = ""
	}
	if !strings.HasPrefix(out.Filename, base) || strings.ContainsAny(out.Filename, `/\`) || out.Filename == "" {
		t.Errorf("%s: result named %q, want a name starting %q (ResultName's base of the client's file)", smp.contentType, out.Filename, base)
	}
	if !extensionFits(out.Filename, out.ContentType) {
		t.Errorf("%s: result %q has content type %q", smp.contentType, out.Filename, out.ContentType)
	}
	if _, ok := s.NoPages[tool.Slug]; producesPDF(out) && !ok && !positive(out.Meta["pages"]) {
		t.Errorf("%s: meta %v has no pages > 0, though the tool makes a PDF", smp.contentType, out.Meta)
	}
	checkMetaDeclared(t, tool, out.Meta)
	for _, k := range []string{"pages", "input_pages", "input_size", "output_size"} {
		if v, ok := out.Meta[k]; ok && !positive(v) {
			t.Errorf("%s: meta %s = %v (%T), want a number > 0", smp.contentType, k, v, v)
		}
	}
	if producesPDF(out) && !bytes.HasPrefix(r.data, []byte("%PDF-")) {
		t.Errorf("%s: a %s result that does not start with %%PDF-: %.20q", smp.contentType, out.ContentType, r.data)
	}
	return r
}

// checkMetaDeclared holds a run's meta to the tool's declaration (Meta,
// and the figures of every job, CommonMeta), which the OpenAPI document
// publishes: each figure must be declared, with a value of its type.
func checkMetaDeclared(t testing.TB, tool *docmill.Tool, meta map[string]any) {
	t.Helper()
	declared := map[string]docmill.MetaType{}
	for _, f := range append(slices.Clone(docmill.CommonMeta), tool.Meta...) {
		declared[f.Name] = f.Type
	}
	for k, v := range meta {
		typ, ok := declared[k]
		if !ok {
			t.Errorf("meta %s = %v is not declared in the tool's Meta", k, v)
			continue
		}
		if !metaFits(v, typ) {
			t.Errorf("meta %s = %v (%T), declared %s", k, v, v, typ)
		}
	}
}

// metaFits reports whether v, a meta value as a tool run in process or
// in the PDF helper (decoded from JSON) gives it, has type typ.
func metaFits(v any, typ docmill.MetaType) bool {
	switch v := v.(type) {
	case int, int32, int64:
		return typ == docmill.MetaInteger || typ == docmill.MetaNumber
	case float32, float64:
		return typ == docmill.MetaNumber
	case json.Number:
		_, err := v.Int64()
		return typ == docmill.MetaNumber || (typ == docmill.MetaInteger && err == nil)
	case string:
		return typ == docmill.MetaString
	case bool:
		return typ == docmill.MetaBoolean
	case []string:
		return typ == docmill.MetaStrings
	case []int:
		return typ == docmill.MetaIntegers
	case []any:
		// Decoded from JSON: every element a string, or every one an
		// integer (an empty list is either).
		of := docmill.MetaString
		if typ == docmill.MetaIntegers {
			of = docmill.MetaInteger
		}
		for _, e := range v {
			if !metaFits(e, of) {
				return false
			}
		}
		return typ == docmill.MetaStrings || typ == docmill.MetaIntegers
	}
	return false
}

func producesPDF(out *docmill.RunOutput) bool { return out.ContentType == "application/pdf" }

// positive reports whether a meta value is a number above zero (an int
// from a tool run in-process, a json.Number from one run in a helper).
func positive(v any) bool {
	switch v.(type) {
	case int, int64, float64, json.Number:
		f, err := strconv.ParseFloat(fmt.Sprint(v), 64)
		return err == nil && f > 0
	}
	return false
}

// extensions are the result extensions that fit each content type.
var extensions = map[string][]string{
	"application/pdf": {".pdf"}, "application/zip": {".zip"}, "text/plain": {".txt"}, "application/json": {".json"},
	"image/jpeg": {".jpg", ".jpeg"}, "image/png": {".png"}, "image/webp": {".webp"},
	"image/avif": {".avif"}, "image/tiff": {".tif", ".tiff"}, "image/gif": {".gif"}, "image/heif": {".heic", ".heif"},
	"image/svg+xml": {".svg"}, "application/xhtml+xml": {".xhtml", ".hocr"}, "application/xml": {".xml"},
	// Office documents (convert-document, pdf-to-word, pdf-to-odt).
	"application/vnd.openxmlformats-officedocument.wordprocessingml.document":   {".docx"},
	"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet":         {".xlsx"},
	"application/vnd.openxmlformats-officedocument.presentationml.presentation": {".pptx"},
	"application/vnd.oasis.opendocument.text":                                   {".odt"},
	"application/vnd.oasis.opendocument.spreadsheet":                            {".ods"},
	"application/vnd.oasis.opendocument.presentation":                           {".odp"},
	"application/rtf": {".rtf"}, "application/epub+zip": {".epub"}, "text/csv": {".csv"},
	"text/markdown": {".md"}, // pdf-to-markdown
}

func extensionFits(name, contentType string) bool {
	ct, _, _ := strings.Cut(contentType, ";")
	for _, e := range extensions[strings.TrimSpace(ct)] {
		if strings.EqualFold(filepath.Ext(name), e) {
			return true
		}
	}
	return false
}

func isClientError(err error) bool {
	var e *docmill.Error
	return errors.As(err, &e) && clientCodes[e.Code]
}

// sameResult reports whether two runs gave the same fingerprint and meta,
// leaving out the meta that follows the result's size (which the
// fingerprint compares without the volatile bytes).
func sameResult(a, b *result) bool {
	return bytes.Equal(a.print, b.print) && reflect.DeepEqual(stableMeta(a.out.Meta), stableMeta(b.out.Meta))
}

// sizeMeta are the meta keys that follow the result's size.
var sizeMeta = []string{"output_size", "saved_bytes", "ratio"}

func stableMeta(m map[string]any) map[string]any {
	out := maps.Clone(m)
	for _, k := range sizeMeta {
		delete(out, k)
	}
	return out
}

// fileState is a file's content, for the check that inputs stay as they
// were.
func fileState(t testing.TB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "input-") {
			b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
			out[e.Name()] = string(b)
		}
	}
	return out
}
