package docmill

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// PipelineSlug is the slug of the pipeline: the tool that runs several
// tools in a row on one job (POST /v1/pipeline/process), each step's
// output the next step's input, on the worker.
const PipelineSlug = "pipeline"

// MaxSteps bounds the steps of one pipeline, a bound on the request
// rather than a cost: each step is a run of its own tool, held to that
// tool's limits and budget.
const MaxSteps = 10

// TypeSteps is the type of the pipeline's steps param: a JSON array of
// steps, each {"tool": slug, "params": {name: value}}, values given as
// JSON strings, numbers or booleans.
const TypeSteps ParamType = "steps"

// StepsParam is the name of the pipeline's one param.
const StepsParam = "steps"

// Step is one validated step of a pipeline: a tool of the registry and
// its params, through the tool's ParseParams.
type Step struct {
	Tool   *Tool
	Params Params
}

// Steps is a validated pipeline, ParseSteps' result.
type Steps []Step

// rawStep is one step as a client writes it.
type rawStep struct {
	Tool   *string                    `json:"tool"`
	Params map[string]json.RawMessage `json:"params"`
}

// ParseSteps reads a pipeline's steps field and validates every step
// against reg before anything runs: the JSON's shape, 1 to MaxSteps
// steps, each tool one of reg's (not the pipeline itself), each step's
// params through its tool's ParseParams, a tool that may make a zip
// (MayZip) only as the last step, and each step taking what the step
// before it makes (OutputTypes).
//
// inputTypes are the content types of the job's files, when known: each
// step must then take every type the step before may make. Before the
// files are known (nil), the first step is assumed to get any type it
// accepts, and each step must take at least one type the step before may
// make.
//
// Every problem is reported at once, as one invalid_parameter error whose
// fields name the step and what is wrong in it: "steps" (the field as a
// whole), "steps[1]", "steps[1].tool", "steps[2].params.quality". An
// error of another code is an internal failure of a param's check.
func ParseSteps(reg *Registry, raw string, inputTypes []string) (Steps, error) {
	var items []json.RawMessage
	if err := json.Unmarshal([]byte(raw), &items); err != nil || items == nil {
		return nil, stepsError([]FieldError{{Field: StepsParam,
			Message: `must be a JSON array of steps, such as [{"tool": "compress-pdf", "params": {"preset": "extreme"}}]`}})
	}
	switch {
	case len(items) == 0:
		return nil, stepsError([]FieldError{{Field: StepsParam, Message: "needs at least one step"}})
	case len(items) > MaxSteps:
		return nil, stepsError([]FieldError{{Field: StepsParam,
			Message: fmt.Sprintf("has %d steps; a pipeline takes at most %d", len(items), MaxSteps)}})
	}
	steps := make(Steps, len(items))
	var fields []FieldError
	for i, item := range items {
		st, errs, err := parseStep(reg, i, item)
		if err != nil {
			return nil, err
		}
		steps[i], fields = st, append(fields, errs...)
	}
	fields = append(fields, checkChain(steps, inputTypes)...)
	if len(fields) > 0 {
		return nil, stepsError(fields)
	}
	return steps, nil
}

// parseStep reads step i: its tool and its params. A step whose tool is
// unknown has a nil Tool; one whose params are refused has nil Params.
func parseStep(reg *Registry, i int, item json.RawMessage) (Step, []FieldError, error) {
	at := func(suffix string) string { return fmt.Sprintf("steps[%d]%s", i, suffix) }
	var rs rawStep
	dec := json.NewDecoder(bytes.NewReader(item))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rs); err != nil || bytes.Equal(bytes.TrimSpace(item), []byte("null")) {
		return Step{}, []FieldError{{Field: at(""), Message: `must be an object {"tool": "...", "params": {...}} with no other keys`}}, nil
	}
	if rs.Tool == nil || strings.TrimSpace(*rs.Tool) == "" {
		return Step{}, []FieldError{{Field: at(".tool"), Message: "is required"}}, nil
	}
	tool, ok := reg.Lookup(strings.TrimSpace(*rs.Tool))
	switch {
	case !ok:
		return Step{}, []FieldError{{Field: at(".tool"), Message: fmt.Sprintf("%q is not a tool; GET /v1/tools lists them", *rs.Tool)}}, nil
	case tool.Slug == PipelineSlug:
		return Step{}, []FieldError{{Field: at(".tool"), Message: "a pipeline cannot be a step of a pipeline"}}, nil
	case tool.MaxFiles == 0:
		// A step works on the files of the job or of the step before;
		// a tool that takes none (url-to-pdf) has nothing to do there,
		// and its address is checked at the edge only as a tool's own
		// param.
		return Step{}, []FieldError{{Field: at(".tool"), Message: fmt.Sprintf("%s takes no file, so it cannot be a step of a pipeline", tool.Slug)}}, nil
	}
	values := map[string]string{}
	var fields []FieldError
	for name, v := range rs.Params {
		s, ok := jsonScalar(v)
		switch {
		case !ok:
			fields = append(fields, FieldError{Field: at(".params." + name), Message: "must be a string, number or boolean"})
		case s != nil:
			values[name] = *s
		}
	}
	if len(fields) > 0 {
		return Step{Tool: tool}, fields, nil
	}
	params, err := tool.ParseParams(values)
	if err == nil {
		return Step{Tool: tool, Params: params}, nil, nil
	}
	e := AsError(err)
	if e.Code != CodeInvalidParameter {
		return Step{}, nil, err
	}
	if len(e.Fields) == 0 {
		return Step{Tool: tool}, []FieldError{{Field: at(".params"), Message: e.Message}}, nil
	}
	for _, f := range e.Fields {
		fields = append(fields, FieldError{Field: at(".params." + f.Field), Message: f.Message})
	}
	return Step{Tool: tool}, fields, nil
}

// jsonScalar returns a JSON string, number or boolean as a form value
// would carry it; nil for null (the param is left out); ok is false for
// an array or an object.
func jsonScalar(v json.RawMessage) (_ *string, ok bool) {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return nil, false
	}
	switch v[0] {
	case '"':
		var s string
		if json.Unmarshal(v, &s) != nil {
			return nil, false
		}
		return &s, true
	case 'n':
		return nil, true
	case '[', '{':
		return nil, false
	}
	s := string(v) // a number, true or false, as written
	return &s, true
}

// checkChain checks that each step takes what the step before makes, and
// that a tool that may make a zip is last; see ParseSteps for inputTypes.
// Steps whose tool or params were refused end the check: what they make
// is unknown.
func checkChain(steps Steps, inputTypes []string) []FieldError {
	if len(steps) == 0 || steps[0].Tool == nil || steps[0].Params == nil {
		return nil
	}
	strict := inputTypes != nil
	cur := steps[0].Tool.Accepts
	if strict {
		cur = intersect(inputTypes, steps[0].Tool.Accepts)
	}
	var fields []FieldError
	for i, st := range steps {
		if i > 0 {
			takes := intersect(cur, st.Tool.Accepts)
			if (strict && len(takes) < len(cur)) || len(takes) == 0 {
				prev := steps[i-1].Tool.Slug
				fields = append(fields, FieldError{Field: fmt.Sprintf("steps[%d].tool", i),
					Message: fmt.Sprintf("%s takes %s, and step %d (%s) may make %s", st.Tool.Slug,
						strings.Join(st.Tool.Accepts, ", "), i, prev, strings.Join(missing(cur, takes), ", "))})
				return fields
			}
			cur = takes
		}
		if st.Tool.MayZip && i < len(steps)-1 {
			fields = append(fields, FieldError{Field: fmt.Sprintf("steps[%d].tool", i),
				Message: fmt.Sprintf("%s may make several files (a zip archive), so it can only be the last step", st.Tool.Slug)})
			return fields
		}
		if i+1 < len(steps) && (steps[i+1].Tool == nil || steps[i+1].Params == nil) {
			return fields
		}
		cur = st.Tool.OutputTypes(st.Params, cur)
	}
	return fields
}

// missing returns the types of all that are not in some, or all when
// none is.
func missing(all, some []string) []string {
	var out []string
	for _, t := range all {
		if !slices.Contains(some, t) {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return all
	}
	return out
}

// intersect returns the items of a that are also in b, in a's order.
func intersect(a, b []string) []string {
	out := []string{}
	for _, t := range a {
		if slices.Contains(b, t) && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// stepsError is the invalid_parameter error of a refused pipeline.
func stepsError(fields []FieldError) *Error {
	parts := make([]string, len(fields))
	for i, f := range fields {
		parts[i] = fmt.Sprintf("%q %s", f.Field, f.Message)
	}
	return &Error{Code: CodeInvalidParameter, Message: "Invalid pipeline: " + strings.Join(parts, "; ") + ".", Fields: fields}
}

// OutputTypes returns the content types t's result may have when run with
// params p on files of the types in: in's types it keeps (KeepsType; a
// type it recodes becomes the type it is written as), those its params
// pick (OutputsFor), or else every type of Outputs.
func (t *Tool) OutputTypes(p Params, in []string) []string {
	switch {
	case t.KeepsType:
		kept := make([]string, len(in))
		for i, ct := range in {
			kept[i] = ct
			if to, ok := t.Recodes[ct]; ok {
				kept[i] = to
			}
		}
		return intersect(kept, t.Outputs)
	case t.OutputsFor != nil:
		return t.OutputsFor(p)
	}
	return t.Outputs
}

// stepJSON is a step as a job keeps it.
type stepJSON struct {
	Tool   string `json:"tool"`
	Params Params `json:"params,omitempty"`
}

// String returns the steps as canonical JSON (tool slugs, params in
// canonical form and sorted, defaults filled in): the steps param a job
// keeps, which ParseSteps reads back to the same steps.
func (s Steps) String() string { return s.encode(false) }

// Public returns the steps as String does, without the params their tools
// declare secret (passwords), for a finished job's record.
func (s Steps) Public() string { return s.encode(true) }

func (s Steps) encode(public bool) string {
	out := make([]stepJSON, len(s))
	for i, st := range s {
		p := st.Params
		if public {
			p = st.Tool.WithoutSecrets(p)
		}
		out[i] = stepJSON{Tool: st.Tool.Slug, Params: p}
	}
	b, err := json.Marshal(out)
	if err != nil {
		panic("docmill: encode steps: " + err.Error()) // strings and maps of strings always encode
	}
	return string(b)
}

// Long reports whether any step is a long tool: a pipeline is as long as
// its longest step, so it answers 202 at once unless the client waits.
func (s Steps) Long() bool {
	return slices.ContainsFunc(s, func(st Step) bool { return st.Tool.Long })
}

// Timeout returns the limit of one run of the pipeline: the sum of its
// steps' timeouts, each within limit (a tool without one gets limit), and
// the sum within limit too.
func (s Steps) Timeout(limit time.Duration) time.Duration {
	var sum time.Duration
	for _, st := range s {
		sum += StepTimeout(st.Tool, limit)
	}
	return min(sum, limit)
}

// StepTimeout is the limit of one step of t in a pipeline: t's own
// timeout within limit, or limit when t sets none.
func StepTimeout(t *Tool, limit time.Duration) time.Duration {
	if t.Timeout > 0 {
		return min(t.Timeout, limit)
	}
	return limit
}

// CheckInputs holds a pipeline's uploaded files to its first step: their
// count (missing_file, too_many_files) and their types
// (unsupported_file_type), as the HTTP edge holds a tool's own files.
func (s Steps) CheckInputs(files []InputFile) error {
	first := s[0].Tool
	if err := first.CheckFileCount(len(files)); err != nil {
		return err
	}
	for _, f := range files {
		if !first.AcceptsType(f.ContentType) {
			return Errorf(CodeUnsupportedFileType, "The file %q is %s; the first step, %s, accepts %s.",
				f.Filename, f.ContentType, first.Slug, strings.Join(first.Accepts, ", "))
		}
	}
	return nil
}

// Operations is how many operations the pipeline is charged when it ends
// done: one a step.
func (s Steps) Operations() int { return len(s) }

// WithoutSecrets returns p without the params t declares secret, and
// through t's Redact when it has one (a pipeline's steps' passwords):
// what a finished job's record may keep.
func (t *Tool) WithoutSecrets(p Params) Params {
	out := Params{}
	for k, v := range p {
		if d, ok := t.Param(k); ok && d.Secret {
			continue
		}
		out[k] = v
	}
	if t.Redact != nil {
		out = t.Redact(out)
	}
	return out
}

// NewPipeline declares the pipeline tool over the tools of reg: it takes
// the files any of them takes (the first step's rule is applied once the
// steps are known, CheckInputs), its one param is the steps, checked
// without the files' types by CheckParams, and run, the job runner's,
// does the work within limit, the longest a job may run. It is available
// while any of reg's tools is; each step's own engine is checked when the
// steps are known.
func NewPipeline(reg *Registry, limit time.Duration, run RunFunc) *Tool {
	var accepts, outputs []string
	maxFiles := 1
	for _, t := range reg.All() {
		accepts = append(accepts, t.Accepts...)
		outputs = append(outputs, t.Outputs...)
		maxFiles = max(maxFiles, t.MaxFiles)
	}
	accepts, outputs = intersect(accepts, accepts), intersect(outputs, outputs)
	slices.Sort(accepts)
	slices.Sort(outputs)
	return &Tool{
		Slug:  PipelineSlug,
		Title: "Pipeline",
		Description: "Runs several tools in a row on one job, each step's output the next step's input, on the server: " +
			"up to " + strconv.Itoa(MaxSteps) + " steps, each charged as one operation when the pipeline ends done. " +
			"The files go to the first step; the result is the last step's. A tool that may make several files " +
			"(a zip) can only be the last step.",
		Accepts:  accepts,
		MinFiles: 1,
		MaxFiles: maxFiles,
		Params: []Param{{
			Name: StepsParam, Type: TypeSteps, Required: true,
			Example: `[{"tool": "rotate-pdf", "params": {"angle": "90"}}, {"tool": "compress-pdf"}]`,
			Description: `JSON array of up to ` + strconv.Itoa(MaxSteps) + ` steps, each {"tool": slug, "params": {...}}, ` +
				`such as [{"tool": "merge-pdf"}, {"tool": "compress-pdf", "params": {"preset": "extreme"}}]; ` +
				`the params are the tool's own, as GET /v1/tools lists them.`,
		}},
		CheckParams: func(p Params) error {
			_, err := ParseSteps(reg, p.String(StepsParam), nil)
			return err
		},
		Redact: func(p Params) Params { return redactSteps(reg, p) },
		// Available while any of its tools is: a node whose engines are
		// all missing (no jail) serves no pipeline either.
		Available: func() bool {
			return slices.ContainsFunc(reg.All(), (*Tool).IsAvailable)
		},
		Outputs: outputs,
		MayZip:  true,
		Engine:  PipelineSlug,
		// A pipeline queues in the lane of its heaviest step; Lane is the
		// heaviest any pipeline may take, for the catalogue.
		Lane: pipelineLane(reg),
		LaneFor: func(p Params) Lane {
			steps, err := ParseSteps(reg, p.String(StepsParam), nil)
			if err != nil {
				return ""
			}
			return steps.Lane()
		},
		Timeout: limit,
		// Unsized as a whole: each step has the budget of its own tool
		// for its own input (jobs.runStep).
		Rates: Unsized,
		Run:   run,
	}
}

// pipelineLane is the heaviest lane of reg's tools that may be a step.
func pipelineLane(reg *Registry) Lane {
	lane := LanePDF
	for _, t := range reg.All() {
		if t.MaxFiles > 0 {
			lane = lane.Heavier(t.Lane)
		}
	}
	return lane
}

// redactSteps drops from a pipeline's params the secret params of its
// steps' tools; steps it cannot read (not as Steps.String writes them)
// are dropped whole rather than kept with a password in them.
func redactSteps(reg *Registry, p Params) Params {
	raw, ok := p[StepsParam]
	if !ok {
		return p
	}
	var steps []stepJSON
	if err := json.Unmarshal([]byte(raw), &steps); err != nil {
		delete(p, StepsParam)
		return p
	}
	for i, st := range steps {
		if t, ok := reg.Lookup(st.Tool); ok {
			steps[i].Params = t.WithoutSecrets(st.Params)
		}
	}
	b, err := json.Marshal(steps)
	if err != nil {
		delete(p, StepsParam)
		return p
	}
	p[StepsParam] = string(b)
	return p
}
