package httpapi

import (
	"context"
	"strconv"
	"strings"

	"github.com/docmill/docmill"
)

// takeExport removes the export fields of a process request from fields
// and returns the job's export, or nil without export_url:
//
//   - export_url: a presigned PUT URL the result is sent to once the job
//     is done, checked now (https unless private URLs are allowed, no
//     internal address: invalid_parameter, field export_url) and again
//     when the result is sent;
//   - keep_result: true (default) or false; false deletes docmill's copy
//     of the result once it is exported. It needs export_url.
func (s *Server) takeExport(ctx context.Context, fields map[string]string) (*docmill.Export, error) {
	raw, hasURL := fields["export_url"]
	keep, hasKeep := fields["keep_result"]
	delete(fields, "export_url")
	delete(fields, "keep_result")
	raw = strings.TrimSpace(raw)
	e := &docmill.Export{URL: raw, KeepResult: true, Status: docmill.ExportPending}
	if hasKeep {
		b, err := strconv.ParseBool(strings.TrimSpace(keep))
		if err != nil {
			return nil, docmill.ParamError("keep_result", "must be true or false")
		}
		e.KeepResult = b
	}
	if !hasURL || raw == "" {
		if hasKeep {
			return nil, docmill.ParamError("keep_result", "needs export_url")
		}
		return nil, nil
	}
	if s.cfg.URLs == nil {
		return nil, docmill.ParamError("export_url", "is not supported by this server")
	}
	if len(raw) > maxURLBytes {
		return nil, docmill.ParamError("export_url", "must be at most %d characters long", maxURLBytes)
	}
	if err := s.cfg.URLs.CheckURL(ctx, "export_url", raw); err != nil {
		return nil, err
	}
	return e, nil
}

// withExport adds a job's export to the items of its request hash: a
// request to export elsewhere, or to keep the result or not, is another
// request. Without an export the items are as they always were.
func withExport(items []string, e *docmill.Export) []string {
	if e == nil {
		return items
	}
	return append(items[:len(items):len(items)], "export:"+strconv.FormatBool(e.KeepResult)+":"+e.URL)
}
