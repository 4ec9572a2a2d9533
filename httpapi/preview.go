package httpapi

import (
	"strconv"
	"strings"

	"github.com/docmill/docmill"
)

// takePreview removes the preview field of a process request from fields
// and reports whether it asks for a preview of the result: a PDF
// result's first page as a small PNG (result.preview_url), made by the job
// and never charged. It is opt-in because it costs an engine run (a few
// hundred ms on a small server) that API clients mostly do not need; the
// web page asks for it.
func takePreview(fields map[string]string) (bool, error) {
	raw, ok := fields["preview"]
	delete(fields, "preview")
	if !ok {
		return false, nil
	}
	b, err := strconv.ParseBool(strings.TrimSpace(raw))
	if err != nil {
		return false, docmill.ParamError("preview", "must be true or false")
	}
	return b, nil
}

// withPreview adds a request for a preview to the items of its request
// hash: with or without one, it is another request. Without it the items
// are as they always were.
func withPreview(items []string, preview bool) []string {
	if !preview {
		return items
	}
	return append(items[:len(items):len(items)], "preview")
}

// previewProperty is the preview field of every tool's form, in the
// OpenAPI document.
func previewProperty() map[string]any {
	return map[string]any{"type": "boolean", "default": false,
		"description": "true: when the result is a PDF, the job also makes a PNG of its first page at 72 dpi, " +
			"linked as result.preview_url (not charged; absent when it could not be made)."}
}
