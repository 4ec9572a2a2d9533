package docmill

import (
	"context"
	"fmt"
)

// EngineStep is an operation an engine performs on a document for tools, and
// not a tool of its own (nor a pipeline's Step): it has no catalogue entry, no declared params
// (the tool that takes it builds them), no lane, timeout or budget of its
// own (it runs within the tool's). The engine package that provides it
// declares it; the PDF helper process serves steps by Name beside its
// tools (sandbox.ServeHelper). A step's input carries the node's Limits
// explicitly, passed on by the tool that takes it.
type EngineStep struct {
	// Name identifies the step to the helper process that serves it.
	Name string
	// MinFiles and MaxFiles bound the files of a run (Invoke); a zero
	// MaxFiles bounds nothing.
	MinFiles, MaxFiles int
	// Available reports whether the step's engine works on this node; nil
	// means always available.
	Available func() bool
	// Run does the work.
	Run RunFunc
}

// Invoke runs the step on in, its files within MinFiles and MaxFiles, and
// holds its output to being a regular file, as Tool.Invoke does for a
// tool's. A file count out of bounds is the calling tool's fault: an
// internal error.
func (s *EngineStep) Invoke(ctx context.Context, in *RunInput) (*RunOutput, error) {
	if n := len(in.Files); s.MaxFiles > 0 && (n < s.MinFiles || n > s.MaxFiles) {
		return nil, fmt.Errorf("step %s: given %d files, takes %d to %d", s.Name, n, s.MinFiles, s.MaxFiles)
	}
	out, err := s.Run(ctx, in)
	return regularOutput("step "+s.Name, out, err)
}

// Capability names work a public tool also does for other tools' runs
// (Tool.Provides): the registry builder hands such a tool to the tools
// that need it by what it provides, never by its slug.
type Capability string

// Capabilities tools provide, and the params by which the tools that
// compose them call them.
const (
	// CapConvertImage saves an image in another format (params
	// CapParamFormat and CapParamQuality).
	CapConvertImage Capability = "convert-image"
	// CapResizeImage scales an image (params CapParamWidth and
	// CapParamEnlarge).
	CapResizeImage Capability = "resize-image"
	// CapPDFToPNG draws pages of a PDF as PNG (params CapParamDPI and
	// CapParamPages).
	CapPDFToPNG Capability = "pdf-to-png"

	CapParamFormat  = "format"
	CapParamQuality = "quality"
	CapParamWidth   = "width"
	CapParamEnlarge = "enlarge"
	CapParamDPI     = "dpi"
	CapParamPages   = "pages"
)

// IsAvailable reports whether s's engine works on this node.
func (s *EngineStep) IsAvailable() bool { return s.Available == nil || s.Available() }

// Provider is the tool of tools that provides c, or nil.
func Provider(tools []*Tool, c Capability) *Tool {
	for _, t := range tools {
		if t.Provides == c {
			return t
		}
	}
	return nil
}
