package client

import (
	"context"
	"maps"
)

// Params are one tool's params, typed: the structs of tools_gen.go, one
// per tool of the server's registry (written by `go run ./cmd/docmill
// docs go-params > client/tools_gen.go`), such as
// RotatePDF{Angle: Ptr(180)}. A param of the wrong name or type is then
// a compile error rather than an invalid_parameter answer.
type Params interface {
	// Tool is the tool's slug.
	Tool() string
	// FormValues are the form fields the params are sent as; a param left
	// unset (a nil pointer) is left out, so the server's default applies.
	FormValues() map[string]string
}

// Ptr returns a pointer to v, for the optional fields of Params.
func Ptr[T any](v T) *T {
	return &v
}

// ProcessTool is Process with typed params: p names the tool, and its
// values are sent over any field of opts.Params of the same name.
func (c *Client) ProcessTool(ctx context.Context, p Params, files []File, opts ProcessOptions) (*Job, *Response, error) {
	fields := make(map[string]string, len(opts.Params))
	maps.Copy(fields, opts.Params)
	maps.Copy(fields, p.FormValues())
	opts.Params = fields
	return c.Process(ctx, p.Tool(), files, opts)
}
