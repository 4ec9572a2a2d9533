package docmill

import (
	"context"
	"fmt"
	"os"
	"sort"
	"time"
)

// Tool is one processing tool as the registry declares it. The declaration is
// the single source for routing, parameter validation, the catalogue, the
// OpenAPI document and the web interface.
type Tool struct {
	Slug        string
	Title       string
	Description string
	// Accepts lists the content types the tool takes, as sniffed from the
	// bytes ("application/pdf", "image/jpeg", ...); AnyType takes every
	// type (add-attachments' files); none for a tool that takes no file.
	Accepts []string
	// MinFiles and MaxFiles bound the files of a run. A tool with
	// MaxFiles 0 takes no file: its params say what to work on
	// (url-to-pdf's url); it is sent form fields only, and cannot be a
	// pipeline's step.
	MinFiles int
	MaxFiles int
	Params   []Param
	// Meta declares the figures the tool's runs put in a job's meta
	// (RunOutput.Meta), beyond those of every job (input_size,
	// duration_ms, ...), for the OpenAPI document.
	Meta []MetaField
	// CheckParams, when set, validates rules that tie params together
	// ("every" excludes "ranges"), on values that passed each Param's own
	// checks, canonical and defaulted. Like Param.Check it returns a
	// ParamError, so a bad combination is refused before a job is made.
	CheckParams func(Params) error
	// Outputs lists the content types the tool's result may have when it
	// is one file, for the catalogue and for a pipeline to check that the
	// next step takes them (OutputTypes).
	Outputs []string
	// KeepsType says the result has its input's type, one of Outputs
	// (compress-image, resize-image).
	KeepsType bool
	// Recodes, with KeepsType, maps a type the tool reads but does not
	// write to the type its result has instead (resize-image writes a
	// HEIF photo as a JPEG): one of Outputs.
	Recodes map[string]string
	// OutputsFor, when set, narrows Outputs for given params
	// (convert-image's format); it returns a subset of Outputs.
	OutputsFor func(Params) []string
	// MayZip says the result may be a zip archive of several files
	// (split-pdf, pdf-to-jpg of several pages): a pipeline takes such a
	// tool as its last step only.
	MayZip bool
	// Redact, when set, returns params without the secrets nested in them
	// (a pipeline's steps' passwords), for WithoutSecrets; params declared
	// Secret are dropped anyway.
	Redact func(Params) Params
	// Long tools answer 202 at once unless the client asks to wait.
	Long bool
	// Engine names what does the work ("pdfcpu", "ghostscript", ...).
	Engine string
	// Lane is the class of work the tool's jobs queue in (lane.go): every
	// tool served declares one.
	Lane Lane
	// LaneFor, when set, is the lane of a job with given params (the
	// pipeline: its heaviest step's), else Lane (LaneOf).
	LaneFor func(Params) Lane
	// Timeout bounds one run of the tool.
	Timeout time.Duration
	// Rates size a run's time to its input (WorkBudget), within Timeout;
	// zero rates are DefaultWorkRates.
	Rates WorkRates
	// CheckPDFs, Repairs and ConvertsImages declare what the registry
	// builder (cmd/docmill's toolset, the one place that builds the
	// registry) wraps around Run; the engine package that declares the
	// tool sets them.
	//
	// CheckPDFs makes every PDF input pass the PDF stream check (a step of
	// the PDF helper) before Run, so that a flate bomb is refused at once
	// instead of costing an external engine minutes.
	CheckPDFs bool
	// Repairs makes a run that failed because its parser could not read
	// an input (ErrUnreadable) run again on the inputs repaired; the
	// job's meta then says "repaired".
	Repairs bool
	// ConvertsImages, when set ("jpg" or "png"), makes the tool also take
	// HEIF/HEIC and AVIF images, which its engine cannot read: each is
	// converted to that format first, by the tool that provides
	// CapConvertImage, within the tool's time.
	ConvertsImages string
	// Provides names the work the tool also does for other tools' runs,
	// by which the registry builder finds it.
	Provides Capability
	// Available reports whether the engine works on this node; nil means
	// always available.
	Available func() bool
	// Engines lists the external programs the tool runs (nil for
	// in-process tools), for /readyz and the catalogue.
	Engines func() []EngineStatus
	// Run does the work.
	Run RunFunc
}

// MetaField declares one figure of a job's meta: its name, its type and
// what it means.
type MetaField struct {
	Name        string
	Type        MetaType
	Description string
}

// CommonMeta are the meta figures of every job, whatever its tool: the
// job runner's, the HTTP edge's and the repairing wrapper's. A tool may
// set input_size itself; the job's own figure replaces it.
var CommonMeta = []MetaField{
	{Name: "input_size", Type: MetaInteger, Description: "Bytes of the inputs, all together."},
	{Name: "duration_ms", Type: MetaInteger, Description: "Processing time; set once the job finished."},
	{Name: "queued_ms", Type: MetaInteger, Description: "Time from creation to the start of processing."},
	{Name: "repaired", Type: MetaBoolean, Description: "true when the input was damaged and was repaired before the tool ran again."},
	{Name: "preview_size", Type: MetaInteger, Description: "Bytes of the result's preview (result.preview_url), when one was made."},
	{Name: "engine_peak_rss_kb", Type: MetaInteger, Description: "Peak resident memory, in KiB, of the engine processes that worked on the job: the largest of its engine runs, each the peaks of its processes added up (a warm engine's while the job ran, a program's sampled while it ran); absent when no engine process ran."},
	{Name: "budget_ms", Type: MetaInteger, Description: "The processing time this job was allowed for its input (its work budget: see Work budgets in docs/api.md); past it the job fails with processing_timeout."},
}

// MetaType is the JSON type of a meta figure.
type MetaType string

// Meta figure types.
const (
	MetaInteger MetaType = "integer"
	MetaNumber  MetaType = "number"
	MetaString  MetaType = "string"
	MetaBoolean MetaType = "boolean"
	// MetaStrings is a list of strings.
	MetaStrings MetaType = "strings"
	// MetaIntegers is a list of integers (page numbers).
	MetaIntegers MetaType = "integers"
)

// RunFunc processes in and returns the output it wrote under in.WorkDir. An
// *Error with a client code (invalid_document, invalid_parameter) marks a
// failure caused by the input; any other error is internal and may be
// retried.
type RunFunc func(ctx context.Context, in *RunInput) (*RunOutput, error)

// RunInput is what a tool gets: local copies of the inputs (which it must
// not modify: they may be links to the stored upload), validated params and
// a scratch directory, removed after the run, that also holds the inputs
// (named "input-N.ext"; tools must not write names starting "input-").
//
// What a tool may rely on, because the HTTP edge and the job runner check
// it before Run is called:
//   - len(Files) is within the tool's MinFiles and MaxFiles (Invoke is
//     the only caller of Run), so a one-file tool reads Files[0];
//   - each file's ContentType was sniffed from its bytes and is one of the
//     tool's Accepts; its Size is the stored size, within the account's
//     plan and the node's upload cap;
//   - Params went through the tool's ParseParams: every key is a declared
//     param, required ones are present, absent ones with a Default hold
//     it, every value has its declared type, bounds and enum and passed
//     its Check, in canonical form (integers in decimal, booleans "true"
//     or "false", page selections as ParsePageRanges reads them);
//   - Limits are filled in (WithDefaults).
//
// What it may not: that a file's bytes are well formed beyond its magic
// number (every document is hostile), or that a page selection fits the
// document (the page count is known only once the file is read).
type RunInput struct {
	Files   []LocalFile
	Params  Params
	WorkDir string
	// Limits are the node's processing limits (zero: DefaultLimits).
	Limits Limits
	// FreshEngines asks for engine processes started for this run: the
	// job runner sets it on the second run of the crash rule (jobs), after
	// an engine crashed on the same input, and a tool that keeps engines
	// warm (office) runs a cold one instead. Tools that run steps pass it
	// on to them.
	FreshEngines bool
}

// CheckFileCount holds n inputs to the tool's MinFiles and MaxFiles: a
// missing_file or too_many_files error naming the bounds, or nil. It is the
// one owner of the file-count rule: the HTTP edge applies it while the
// upload streams in, Invoke before every run.
func (t *Tool) CheckFileCount(n int) error {
	switch {
	case n < t.MinFiles:
		return Errorf(CodeMissingFile, "%s needs at least %d files; got %d.", t.Slug, t.MinFiles, n)
	case n > t.MaxFiles && t.MaxFiles == 0:
		return Errorf(CodeTooManyFiles, "%s takes no file: its params say what to work on.", t.Slug)
	case n > t.MaxFiles:
		return Errorf(CodeTooManyFiles, "%s takes at most %d file(s).", t.Slug, t.MaxFiles)
	}
	return nil
}

// Invoke runs the tool on in after CheckFileCount, so that no path (the
// job runner, the PDF helper, pipelines, tests) reaches Run with a file
// count the declaration does not allow, and tools never check it
// themselves. It then holds the output to being a regular file: an engine
// subverted by a hostile document could leave a symbolic link to a host
// file (the database, a key) where its output belongs, which this
// process, reading outside the jail, would otherwise follow and hand back
// as the result.
func (t *Tool) Invoke(ctx context.Context, in *RunInput) (*RunOutput, error) {
	if err := t.CheckFileCount(len(in.Files)); err != nil {
		return nil, err
	}
	out, err := t.Run(ctx, in)
	return regularOutput("tool "+t.Slug, out, err)
}

// regularOutput is out and err of a run of what, unless out names a path
// that is not a regular file (see Invoke).
func regularOutput(what string, out *RunOutput, err error) (*RunOutput, error) {
	if err != nil || out == nil || out.Path == "" {
		return out, err
	}
	if st, err := os.Lstat(out.Path); err != nil || !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: its output is not a regular file (%v)", what, err)
	}
	return out, nil
}

// LocalFile is an input file copied to local disk.
type LocalFile struct {
	Path        string
	Filename    string
	ContentType string
	Size        int64
}

// RunOutput is a tool's result: one file at Path (a zip when a tool makes
// several), the name the client sees, and figures for the job's meta.
type RunOutput struct {
	Path        string
	Filename    string
	ContentType string
	Meta        map[string]any
}

// IsAvailable reports whether t's engine works on this node.
func (t *Tool) IsAvailable() bool { return t.Available == nil || t.Available() }

// AnyType in a tool's Accepts takes files of every content type: a tool
// that embeds files as they are, without reading them.
const AnyType = "*/*"

// AcceptsType reports whether t takes files of content type ct.
func (t *Tool) AcceptsType(ct string) bool {
	for _, a := range t.Accepts {
		if a == ct || a == AnyType {
			return true
		}
	}
	return false
}

// Param returns the declaration of the named parameter.
func (t *Tool) Param(name string) (Param, bool) {
	for _, p := range t.Params {
		if p.Name == name {
			return p, true
		}
	}
	return Param{}, false
}

// EngineStatus describes an external program a tool runs, as found when
// the node started.
type EngineStatus struct {
	Name      string `json:"name"`
	Path      string `json:"path,omitempty"`
	Version   string `json:"version,omitempty"`
	Available bool   `json:"available"`
}

// Registry holds the tools a node serves, by slug.
type Registry struct {
	tools map[string]*Tool
}

// NewRegistry returns a registry of tools; a duplicate slug panics, since it
// is a programming error.
func NewRegistry(tools ...*Tool) *Registry {
	r := &Registry{tools: make(map[string]*Tool, len(tools))}
	for _, t := range tools {
		if _, dup := r.tools[t.Slug]; dup {
			panic("docmill: duplicate tool " + t.Slug)
		}
		r.tools[t.Slug] = t
	}
	return r
}

// Lookup returns the tool with slug.
func (r *Registry) Lookup(slug string) (*Tool, bool) {
	t, ok := r.tools[slug]
	return t, ok
}

// All returns every tool, sorted by slug.
func (r *Registry) All() []*Tool {
	out := make([]*Tool, 0, len(r.tools))
	for _, t := range r.tools {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Slug < out[j].Slug })
	return out
}
