package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
)

// docsToolsCommand is the command that writes docs/tools.md, named in the
// file itself and in the test that holds the file to it.
const docsToolsCommand = "go run ./cmd/docmill docs tools > docs/tools.md"

// docsCmd is the hidden `docmill docs tools|js-types|go-params`, a developer's
// command: it writes the tool reference (docs/tools.md), or the
// JavaScript SDK's param types (sdk/js/src/tools.ts), to standard output,
// from the registry a node with the default flags builds.
func docsCmd(_ context.Context, env *environment, args []string) error {
	write := map[string]func(io.Writer, *docmill.Registry) error{"tools": writeToolsDoc, "js-types": writeJSTypes, "go-params": writeGoParams}
	if len(args) != 1 || write[args[0]] == nil {
		return errors.New("usage: docmill docs tools|js-types|go-params (writes docs/tools.md, sdk/js/src/tools.ts or client/tools_gen.go to standard output)")
	}
	reg, closeTools, err := referenceRegistry()
	if err != nil {
		return err
	}
	defer closeTools()
	return write[args[0]](env.stdout, reg)
}

// referenceRegistry builds the registry of a node started with the
// default flags, with every engine unavailable: a jail that cannot be set
// up (bubblewrap is named where none is) makes the declarations what they
// are on a machine with no engines, so that the reference does not
// depend on what is installed where it is generated (convert-image lists
// every format it would write).
func referenceRegistry() (*docmill.Registry, func(), error) {
	f := &serveFlags{}
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	f.register(fs)
	if err := fs.Parse(nil); err != nil {
		return nil, nil, err
	}
	scratch, err := os.MkdirTemp("", "docmill-docs-")
	if err != nil {
		return nil, nil, err
	}
	f.engines.scratch = scratch
	f.engines.officeWorkers = 1
	jail := sandbox.NewJail(sandbox.JailOptions{Bwrap: filepath.Join(scratch, "no-bubblewrap"), Dir: scratch})
	reg, closeTools, err := f.registry(jail, nil)
	if err != nil {
		os.RemoveAll(scratch)
		return nil, nil, err
	}
	return reg, func() { closeTools(); os.RemoveAll(scratch) }, nil
}

// writeToolsDoc writes the tool reference of reg as Markdown: an index,
// the meta of every job, then one section per tool.
func writeToolsDoc(w io.Writer, reg *docmill.Registry) error {
	var b strings.Builder
	b.WriteString("<!-- Generated from the tool registry by `" + docsToolsCommand + "`; do not edit. -->\n\n")
	b.WriteString("# Tools\n\n")
	b.WriteString("Every tool this version of docmill serves, as its registry declares it: the same\n" +
		"declarations answer `GET /v1/tools` (which adds each engine's availability, path and\n" +
		"version on the node) and make `GET /v1/openapi.json`. A tool is called with\n" +
		"`POST /v1/{tool}/process` ([api.md](api.md)); its params are form fields, its files\n" +
		"`file` parts (or `file_url` fields).\n\n" +
		"- **lane**: the queue its jobs wait in ([architecture.md](architecture.md#lanes-and-fair-share)).\n" +
		"- **answer**: `sync` tools answer 200 with the finished job when it ends within the sync\n" +
		"  budget (`--sync-budget`, 10 s), else 202; `long` tools answer 202 at once unless the\n" +
		"  request says `Prefer: wait=N`.\n" +
		"- **timeout**: one run's limit (`--tool-timeout slug=duration` changes it, within\n" +
		"  `--job-timeout`); **work budget**: the run's deadline sized to its input, within the\n" +
		"  timeout ([api.md](api.md#work-budgets)).\n" +
		"- **allowed**: an enum's values, or the bounds of a number (of a string's length).\n" +
		"  Page selections (`pages` type) read like `1-3,5,8-`; colours are `#rrggbb`.\n\n")
	b.WriteString("| tool | title | lane | engine | answer |\n|---|---|---|---|---|\n")
	for _, t := range reg.All() {
		fmt.Fprintf(&b, "| [`%s`](#%s) | %s | %s | %s | %s |\n", t.Slug, t.Slug, cell(t.Title), laneOf(t), cell(t.Engine), answerKind(t))
	}
	b.WriteString("\n## Meta of every job\n\nEvery job's `meta` may hold these, whatever its tool; each tool's section lists its own.\n\n")
	writeMeta(&b, docmill.CommonMeta)
	for _, t := range reg.All() {
		writeTool(&b, t)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeTool writes one tool's section.
func writeTool(b *strings.Builder, t *docmill.Tool) {
	fmt.Fprintf(b, "\n## %s\n\n**%s.** %s\n\n", t.Slug, prose(t.Title), prose(t.Description))
	b.WriteString("| | |\n|---|---|\n")
	fmt.Fprintf(b, "| engine | %s |\n", cell(t.Engine))
	fmt.Fprintf(b, "| lane | %s |\n", laneOf(t))
	fmt.Fprintf(b, "| files | %s |\n", docFileCount(t))
	if t.MaxFiles > 0 {
		fmt.Fprintf(b, "| accepts | %s |\n", codeList(t.Accepts))
	}
	fmt.Fprintf(b, "| result | %s |\n", resultKind(t))
	fmt.Fprintf(b, "| answer | %s |\n", answerKind(t))
	fmt.Fprintf(b, "| timeout | %s |\n", duration(t.Timeout))
	fmt.Fprintf(b, "| work budget | %s |\n", budget(t.Rates))
	if len(t.Params) == 0 {
		b.WriteString("\nParams: none.\n")
	} else {
		b.WriteString("\n| param | type | required | default | allowed | what |\n|---|---|---|---|---|---|\n")
		for _, p := range t.Params {
			req := ""
			if p.Required {
				req = "yes"
			}
			def := ""
			if p.Default != "" {
				def = codeCell(p.Default)
			}
			fmt.Fprintf(b, "| `%s` | %s | %s | %s | %s | %s |\n", p.Name, p.Type, req, def, allowed(p), cell(p.Description))
		}
	}
	if len(t.Meta) == 0 {
		b.WriteString("\nMeta: only every job's.\n")
		return
	}
	b.WriteString("\nMeta, beside every job's:\n\n")
	writeMeta(b, t.Meta)
}

// writeMeta writes a table of meta figures.
func writeMeta(b *strings.Builder, fields []docmill.MetaField) {
	b.WriteString("| field | type | what |\n|---|---|---|\n")
	for _, m := range fields {
		fmt.Fprintf(b, "| `%s` | %s | %s |\n", m.Name, m.Type, cell(m.Description))
	}
}

// laneOf says a tool's lane, or that its params choose it (the
// pipeline's is its heaviest step's).
func laneOf(t *docmill.Tool) string {
	if t.LaneFor != nil {
		return "its heaviest step's"
	}
	return "`" + string(t.Lane) + "`"
}

func docFileCount(t *docmill.Tool) string {
	switch {
	case t.MaxFiles == 0:
		return "none: the params say what to work on"
	case t.MinFiles == t.MaxFiles:
		return strconv.Itoa(t.MinFiles)
	default:
		return fmt.Sprintf("%d to %d", t.MinFiles, t.MaxFiles)
	}
}

func resultKind(t *docmill.Tool) string {
	s := codeList(t.Outputs)
	if s == "" {
		s = "what its steps make"
	}
	if t.KeepsType {
		s += "; the input's type"
		for _, from := range slices.Sorted(maps.Keys(t.Recodes)) {
			s += fmt.Sprintf(", but `%s` becomes `%s`", from, t.Recodes[from])
		}
	}
	if t.OutputsFor != nil {
		s += "; the one its params choose"
	}
	if t.MayZip {
		s += "; a zip (`application/zip`) when it makes several files"
	}
	return s
}

func answerKind(t *docmill.Tool) string {
	if t.Slug == docmill.PipelineSlug {
		return "long if any step is, else sync"
	}
	if t.Long {
		return "long"
	}
	return "sync"
}

func allowed(p docmill.Param) string {
	if len(p.Enum) > 0 {
		return codeList(p.Enum)
	}
	num := func(v *float64) string { return strconv.FormatFloat(*v, 'f', -1, 64) }
	switch {
	case p.Min != nil && p.Max != nil:
		return num(p.Min) + " to " + num(p.Max)
	case p.Min != nil:
		return "at least " + num(p.Min)
	case p.Max != nil:
		return "at most " + num(p.Max)
	}
	return ""
}

// budget says a tool's work rates in words.
func budget(r docmill.WorkRates) string {
	if r == docmill.Unsized {
		return "its timeout (its input's size does not tell its work)"
	}
	if r == (docmill.WorkRates{}) {
		r = docmill.DefaultWorkRates
	}
	s := duration(r.Base)
	for _, part := range []struct {
		d    time.Duration
		unit string
	}{{r.PerMB, "MB"}, {r.PerPage, "page"}, {r.PerMegapixel, "megapixel"}} {
		if part.d > 0 {
			s += " + " + duration(part.d) + " a " + part.unit
		}
	}
	return s + ", within the timeout"
}

func duration(d time.Duration) string {
	switch {
	case d <= 0:
		return "none of its own (`--job-timeout`)"
	case d%time.Minute == 0:
		return strconv.FormatInt(int64(d/time.Minute), 10) + " min"
	case d%time.Second == 0:
		return strconv.FormatInt(int64(d/time.Second), 10) + " s"
	}
	return d.String()
}

func codeList(items []string) string {
	out := make([]string, len(items))
	for i, s := range items {
		out[i] = codeCell(s)
	}
	return strings.Join(out, ", ")
}

// cell makes s fit a Markdown table cell: prose, pipes escaped.
func cell(s string) string { return strings.ReplaceAll(prose(s), "|", `\|`) }

// codeCell is s as code in a table cell: one line, pipes escaped (GFM
// reads a table's pipes before its code spans).
func codeCell(s string) string {
	return "`" + strings.ReplaceAll(strings.Join(strings.Fields(s), " "), "|", `\|`) + "`"
}

// prose makes declared text Markdown: one line, and a '<' escaped, so
// that "<name>-<range>.pdf" is shown rather than taken for an HTML tag.
func prose(s string) string {
	return strings.ReplaceAll(strings.Join(strings.Fields(s), " "), "<", `\<`)
}
