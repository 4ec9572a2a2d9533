package httpapi

import (
	"fmt"
	"strings"

	"github.com/docmill/docmill"
)

// processForm is a process request's form, validated: the job's params,
// the operations the job is charged when done (Job.Operations), and
// whether it is long (answered 202 at once unless the client waits).
type processForm struct {
	params     docmill.Params
	operations int
	long       bool
}

// parseForm validates the fields of up against tool, once its files are
// in: a tool's params (ParseParams), or for the pipeline its steps too
// (pipelineForm). A new request and an Idempotency-Key replay both go
// through it, so that both hash the same params.
func (s *Server) parseForm(tool *docmill.Tool, up *upload) (*processForm, error) {
	params, err := tool.ParseParams(up.fields)
	if err != nil {
		return nil, err
	}
	f := &processForm{params: params, operations: 1, long: tool.Long}
	if tool.Slug != docmill.PipelineSlug {
		return f, nil
	}
	return s.pipelineForm(f, up.files)
}

// pipelineForm checks a pipeline's steps against its files, now that
// their types are known (the pipeline's ParseParams checked the steps
// without them): each step takes every type the step before may make,
// the first step takes the files (count and types), and every step's
// engine works on this node (503 engine_unavailable naming the step).
// The job keeps the steps in canonical form, is charged one operation a
// step, and is long if any step is.
func (s *Server) pipelineForm(f *processForm, files []docmill.InputFile) (*processForm, error) {
	types := make([]string, len(files))
	for i, file := range files {
		types[i] = file.ContentType
	}
	steps, err := docmill.ParseSteps(s.cfg.Registry, f.params.String(docmill.StepsParam), types)
	if err != nil {
		return nil, err
	}
	if err := steps.CheckInputs(files); err != nil {
		return nil, err
	}
	for i, st := range steps {
		if !st.Tool.IsAvailable() {
			e := docmill.Errorf(docmill.CodeEngineUnavailable, "The engine of step %d (%s) is not available on this server.", i+1, st.Tool.Slug)
			e.Fields = []docmill.FieldError{{Field: fmt.Sprintf("steps[%d].tool", i), Message: "its engine is not available on this server"}}
			return nil, e
		}
	}
	f.params = docmill.Params{docmill.StepsParam: steps.String()}
	f.operations = steps.Operations()
	f.long = steps.Long()
	return f, nil
}

// checkFieldEarly refuses a pipeline's steps field as soon as it is read
// if no files could make it valid (ParseSteps without the files' types):
// a request whose steps come before its files, as the Go client and the
// web interface send them, is then refused before any of its files is
// stored. Every field is checked again once the body is in (parseForm),
// a steps field after the files only then.
func (s *Server) checkFieldEarly(tool *docmill.Tool, name, value string) error {
	if tool.Slug != docmill.PipelineSlug || name != docmill.StepsParam || strings.TrimSpace(value) == "" {
		return nil
	}
	_, err := docmill.ParseSteps(s.cfg.Registry, strings.TrimSpace(value), nil)
	return err
}
