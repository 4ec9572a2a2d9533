package httpapi

import (
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/docmill/docmill"
)

// The OpenAPI document's shared parts: the schemas of the bodies, the
// response headers, and the error answers.

// exampleJobID is a well-formed job id, for examples.
const exampleJobID = "job_4kqzv2mac5x7tjr5y3w6zeaqb4"

// sharedSchemas are the schemas of every body but the tools' own (the
// meta of each tool, openapi_tools.go) and the webhooks' (openapi_webhooks.go).
func sharedSchemas() obj {
	return obj{
		"Job":          jobSchema("JobMeta"),
		"JobMeta":      jobMetaSchema(nil),
		"JobResult":    jobResultSchema(),
		"JobError":     jobErrorSchema(),
		"Problem":      problemSchema(),
		"FieldError":   fieldErrorSchema(),
		"Limits":       limitsSchema(),
		"Account":      accountSchema(),
		"PlanLimits":   planLimitsSchema(),
		"Usage":        usageSchema(),
		"ToolList":     obj{"type": "object", "required": []string{"tools"}, "properties": obj{"tools": obj{"type": "array", "items": ref("Tool")}}},
		"Tool":         toolSchema(),
		"ToolParam":    toolParamSchema(),
		"EngineStatus": engineStatusSchema(),
		"Health": obj{"type": "object", "required": []string{"status"}, "properties": obj{
			"status":     obj{"type": "string", "const": "ok"},
			"version":    obj{"type": "string", "description": "The build's version (git describe), or devel.", "example": "v1.4.0"},
			"revision":   obj{"type": "string", "description": "The VCS revision it was built from, or unknown.", "example": "3f2a9c1e0b7d4a5c6e8f9a0b1c2d3e4f5a6b7c8d"},
			"build_time": obj{"type": "string", "description": "When it was built (RFC 3339), or unknown.", "example": "2026-11-27T22:00:00Z"},
		}},
		"Readiness": readinessSchema(),
		"DiskSpace": diskSpaceSchema(),
	}
}

// jobSchema is the job record (jobview.Record), its meta
// described by the schema named meta: JobMeta, or a tool's own.
func jobSchema(meta string) obj {
	return obj{"type": "object", "required": []string{"job_id", "status", "tool", "created_at", "meta", "error"}, "properties": obj{
		"job_id":      obj{"type": "string", "pattern": "^job_[a-z2-7]{26}$"},
		"status":      obj{"type": "string", "enum": joinStatusList()},
		"tool":        obj{"type": "string", "description": "The tool's slug."},
		"created_at":  obj{"type": "string", "format": "date-time"},
		"finished_at": obj{"type": "string", "format": "date-time", "description": "Set once the job finished."},
		"result":      ref("JobResult"),
		"meta":        ref(meta),
		"error":       obj{"oneOf": []obj{ref("JobError"), {"type": "null"}}},
	}}
}

func jobResultSchema() obj {
	return obj{"type": "object", "required": []string{"size", "filename", "content_type", "expires_at"},
		"description": "Present only when the job is done. Several output files come as one zip archive.",
		"properties": obj{
			"url":          obj{"type": "string", "format": "uri", "description": "The signed download link; absent once the result expired."},
			"preview_url":  obj{"type": "string", "format": "uri", "description": "A PDF result's first page as a small PNG, by a signed link like url's; absent when none could be made. Not charged."},
			"size":         obj{"type": "integer", "description": "bytes"},
			"filename":     obj{"type": "string"},
			"content_type": obj{"type": "string"},
			"expires_at":   obj{"type": "string", "format": "date-time"},
			"expired":      obj{"type": "boolean", "description": "true once the result expired or was deleted."},
			// export_url (export.go)
			"exported_to":   obj{"type": "string", "format": "uri", "description": "the export_url without its query"},
			"export_status": obj{"type": "string", "enum": []string{"pending", "done", "failed"}},
			"export_error":  obj{"type": "string", "description": "why the export failed"},
		}}
}

func jobErrorSchema() obj {
	return obj{"type": "object", "required": []string{"code", "message"}, "description": "Why a failed job failed.", "properties": obj{
		"code":    obj{"type": "string", "enum": errorCodes()},
		"message": obj{"type": "string"},
		"errors":  obj{"type": "array", "items": ref("FieldError"), "description": "The parameters at fault, for invalid_parameter."},
	}}
}

// jobMetaSchema is the schema of a job's meta: the figures of every job
// and those of fields (a tool's Meta). The generic one (fields nil)
// admits any further figure, as a job of any tool may have them.
func jobMetaSchema(fields []docmill.MetaField) obj {
	props := obj{}
	for _, f := range slices.Concat(docmill.CommonMeta, fields) {
		sc := obj{"type": string(f.Type)}
		switch f.Type {
		case docmill.MetaStrings:
			sc = obj{"type": "array", "items": obj{"type": "string"}}
		case docmill.MetaIntegers:
			sc = obj{"type": "array", "items": obj{"type": "integer"}}
		}
		if f.Description != "" {
			sc["description"] = f.Description
		}
		props[f.Name] = sc
	}
	sc := obj{"type": "object", "required": []string{"input_size"}, "properties": props}
	if fields == nil {
		sc["description"] = "Figures about the job: these of every job, and each tool's own (see the tool's meta schema)."
	}
	return sc
}

func problemSchema() obj {
	return obj{"type": "object", "required": []string{"type", "title", "status", "detail", "code", "request_id"},
		"description": "An RFC 9457 problem.",
		"properties": obj{
			"type":       obj{"type": "string", "format": "uri", "description": "https://docmill.dev/errors/{code}"},
			"title":      obj{"type": "string"},
			"status":     obj{"type": "integer"},
			"detail":     obj{"type": "string"},
			"code":       obj{"type": "string", "enum": errorCodes()},
			"request_id": obj{"type": "string", "pattern": "^[A-Za-z0-9._-]{1,128}$", "description": "The request's X-Request-Id."},
			"job_id":     obj{"type": "string", "description": "The job, when the error is a job's failure."},
			"errors":     obj{"type": "array", "items": ref("FieldError")},
		}}
}

func fieldErrorSchema() obj {
	return obj{"type": "object", "required": []string{"field", "message"}, "properties": obj{
		"field": obj{"type": "string"}, "message": obj{"type": "string"},
	}}
}

// errorCodes lists every error code, from the one table of statuses, so
// that the document names each code a client may meet.
func errorCodes() []string {
	codes := make([]string, 0, len(statusOf))
	for c := range statusOf {
		codes = append(codes, string(c))
	}
	slices.Sort(codes)
	return codes
}

// codesOf lists the error codes answered with status.
func codesOf(status int) []string {
	var codes []string
	for c, st := range statusOf {
		if st == status {
			codes = append(codes, string(c))
		}
	}
	slices.Sort(codes)
	return codes
}

func accountSchema() obj {
	return obj{"type": "object", "required": []string{"account_id", "name", "email", "plan", "key_prefix", "limits", "usage"}, "properties": obj{
		"account_id": obj{"type": "string", "pattern": "^acct_"},
		"name":       obj{"type": "string"},
		"email":      obj{"type": "string", "description": "Empty for accounts made without one."},
		"plan":       obj{"type": "string", "description": "free, pro, team or custom"},
		"key_prefix": obj{"type": "string", "description": "The start of the key that made this request; empty when a browser session made it."},
		"limits":     ref("PlanLimits"),
		"usage":      ref("Usage"),
	}}
}

func planLimitsSchema() obj {
	integer := func(desc string) obj { return obj{"type": "integer", "description": desc} }
	return obj{"type": "object", "description": "The plan's limits (limitsBody).",
		"required": []string{"operations_per_month", "max_file_bytes", "requests_per_minute", "jobs_in_flight", "queue_priority", "result_ttl_seconds", "webhooks"},
		"properties": obj{
			"operations_per_month": integer("Process calls a month; 0 or less: unlimited."),
			"max_file_bytes":       integer("Bytes of one upload."),
			"requests_per_minute":  integer("Process calls a minute (reads get ten times as many)."),
			"jobs_in_flight":       integer("Jobs queued or processing at once."),
			"queue_priority":       integer("River priority of the account's jobs (1 first)."),
			"result_ttl_seconds":   integer("How long results are kept."),
			"webhooks":             integer("Webhook endpoints."),
		}}
}

func usageSchema() obj {
	return obj{"type": "object", "required": []string{"period", "operations_used", "operations_limit", "jobs_in_flight", "resets_at"}, "properties": obj{
		"period":           obj{"type": "string", "description": "The billing month, YYYY-MM.", "pattern": "^[0-9]{4}-[0-9]{2}$"},
		"operations_used":  obj{"type": "integer"},
		"operations_limit": obj{"type": "integer"},
		"jobs_in_flight":   obj{"type": "integer"},
		"resets_at":        obj{"type": "string", "format": "date-time"},
	}}
}

// toolSchema is a catalogue entry (toolBody).
func toolSchema() obj {
	return obj{"type": "object",
		"required": []string{"slug", "title", "accepts", "min_files", "max_files", "params", "long", "engine", "available", "endpoint"},
		"properties": obj{
			"slug":        obj{"type": "string", "pattern": "^[a-z0-9-]+$"},
			"title":       obj{"type": "string"},
			"description": obj{"type": "string"},
			"accepts":     obj{"type": "array", "items": obj{"type": "string"}, "description": "Content types taken, as sniffed from the bytes."},
			"min_files":   obj{"type": "integer", "minimum": 0},
			"max_files":   obj{"type": "integer", "minimum": 0, "description": "0: the tool takes no file; its params say what to work on (url-to-pdf)."},
			"params":      obj{"type": "array", "items": ref("ToolParam")},
			"long":        obj{"type": "boolean", "description": "Long tools answer 202 at once unless the request asks to wait (Prefer: wait=N)."},
			"engine":      obj{"type": "string"},
			"lane": obj{"type": "string", "enum": laneNames(),
				"description": "The class of work the tool's jobs queue in, each with its own workers: pdf (quick work in the PDF helper, qpdf), render (Ghostscript, poppler, libvips), browser (Chromium), office (LibreOffice), ocr (tesseract, OCRmyPDF). A pipeline's jobs take the lane of their heaviest step."},
			"available": obj{"type": "boolean", "description": "Whether the engine works on this node; if not, process calls are 503 engine_unavailable."},
			"engines":   obj{"type": "array", "items": ref("EngineStatus"), "description": "The external programs the tool runs."},
			"endpoint":  obj{"type": "string", "description": "The path of the process call."},
		}}
}

func toolParamSchema() obj {
	types := []string{}
	for _, t := range []docmill.ParamType{docmill.TypeString, docmill.TypeInteger, docmill.TypeNumber, docmill.TypeBoolean, docmill.TypePages, docmill.TypeColor, docmill.TypeURL, docmill.TypeSteps} {
		types = append(types, string(t))
	}
	return obj{"type": "object", "required": []string{"name", "type", "required"}, "properties": obj{
		"name":        obj{"type": "string"},
		"type":        obj{"type": "string", "enum": types, "description": "pages: a selection such as 1-3,5,8-; color: #rrggbb; url: an absolute http(s) URL the tool fetches; steps: the pipeline's JSON array of steps."},
		"description": obj{"type": "string"},
		"required":    obj{"type": "boolean"},
		"enum":        obj{"type": "array", "items": obj{"type": "string"}},
		"min":         obj{"type": "number", "description": "For strings, the least length."},
		"max":         obj{"type": "number", "description": "For strings, the greatest length."},
		"default":     obj{"type": "string", "description": "The value used when the field is absent, in canonical form."},
	}}
}

func engineStatusSchema() obj {
	return obj{"type": "object", "required": []string{"name", "available"}, "properties": obj{
		"name": obj{"type": "string"}, "path": obj{"type": "string"}, "version": obj{"type": "string"}, "available": obj{"type": "boolean"},
	}}
}

func readinessSchema() obj {
	return obj{"type": "object", "required": []string{"status", "checks", "engines"}, "properties": obj{
		"status":  obj{"type": "string", "enum": []string{"ready", "not ready"}},
		"checks":  obj{"type": "object", "additionalProperties": obj{"type": "string", "enum": []string{"ok", "unavailable", "low"}}, "description": "database, blob, disk, redis, ..."},
		"engines": obj{"type": "object", "additionalProperties": ref("EngineStatus")},
		"disk":    obj{"type": "object", "additionalProperties": ref("DiskSpace"), "description": "Free space of each local area, when guarded."},
	}}
}

func diskSpaceSchema() obj {
	return obj{"type": "object", "required": []string{"free_bytes", "total_bytes", "min_free_bytes", "ok"}, "properties": obj{
		"free_bytes": obj{"type": "integer"}, "total_bytes": obj{"type": "integer"}, "min_free_bytes": obj{"type": "integer"}, "ok": obj{"type": "boolean"},
	}}
}

// rateLimitHeaders are set on every answer of a rate-limited route
// (limited), 429 included.
var rateLimitHeaders = []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"}

func sharedHeaders() obj {
	integer := obj{"type": "integer", "minimum": 0}
	return obj{
		"X-Request-Id": obj{"required": true, "description": "The request's id, also in error bodies (request_id) and the server's log: the X-Request-Id the request came with when it is 1 to 128 characters of A-Z, a-z, 0-9, '.', '_' and '-', else a new one (req_...).",
			"schema": obj{"type": "string", "pattern": "^[A-Za-z0-9._-]{1,128}$"}},
		"Retry-After": obj{"required": true, "description": "Seconds to wait before trying again.", "schema": integer},
		"PollHint": obj{"description": "Seconds to wait before polling again, while the job is unfinished (1, or 5 for long tools).",
			"schema": integer},
		"Location":              obj{"required": true, "description": "The job's URL: /v1/jobs/{job_id}.", "schema": obj{"type": "string"}},
		"X-RateLimit-Limit":     obj{"description": "Requests allowed a minute on this route's scope (process, or reads).", "schema": integer},
		"X-RateLimit-Remaining": obj{"description": "Requests left in the current window.", "schema": integer},
		"X-RateLimit-Reset":     obj{"description": "Seconds until the window resets.", "schema": integer},
	}
}

// errorResponseName names the shared error answer of each status.
var errorResponseName = map[int]string{
	http.StatusBadRequest:                   "BadRequest",
	http.StatusUnauthorized:                 "Unauthorized",
	http.StatusForbidden:                    "Forbidden",
	http.StatusNotFound:                     "NotFound",
	http.StatusRequestTimeout:               "RequestTimeout",
	http.StatusConflict:                     "Conflict",
	http.StatusGone:                         "Gone",
	http.StatusPreconditionFailed:           "PreconditionFailed",
	http.StatusRequestedRangeNotSatisfiable: "RangeNotSatisfiable",
	http.StatusUnprocessableEntity:          "UnprocessableContent",
	http.StatusTooManyRequests:              "TooManyRequests",
	http.StatusServiceUnavailable:           "ServiceUnavailable",
	http.StatusInsufficientStorage:          "InsufficientStorage",
}

// errorResponses are the shared error answers: a Problem, with the codes
// of its status (from statusOf) and its headers.
func errorResponses() obj {
	out := obj{"Error": obj{
		"description": "Any other error (500 internal, 503 service_unavailable while a dependency is down, 405, ...).",
		"headers":     obj{"X-Request-Id": headerRef("X-Request-Id")},
		"content":     problemContent(http.StatusInternalServerError),
	}}
	for _, st := range slices.Sorted(maps.Keys(errorResponseName)) {
		h := obj{"X-Request-Id": headerRef("X-Request-Id")}
		desc := "Codes: " + strings.Join(codesOf(st), ", ") + "."
		switch st {
		case http.StatusUnauthorized:
			h["WWW-Authenticate"] = obj{"required": true, "schema": obj{"type": "string"}, "description": `Bearer realm="docmill"`}
			desc = "The API key is missing, malformed, unknown or revoked, or the session cookie is unknown, expired or revoked. " + desc
		case http.StatusTooManyRequests:
			h["Retry-After"] = headerRef("Retry-After")
			for _, name := range rateLimitHeaders {
				h[name] = headerRef(name)
			}
			desc += " rate_limited: the per-key rate limit (Retry-After: when a request is allowed again); " +
				"quota_exceeded: the month's operations are used up (Retry-After: until the period resets)."
		case http.StatusServiceUnavailable:
			h["Retry-After"] = obj{"description": "Seconds to wait before trying again.", "schema": obj{"type": "integer", "minimum": 0}}
			desc += " engine_unavailable: the tool's engine is not available on this node; service_unavailable: a dependency is down (Retry-After)."
		case http.StatusRequestTimeout:
			desc += " The upload came in below the server's minimum rate, or stopped; " +
				"the connection is closed, nothing was kept or charged."
		case http.StatusInsufficientStorage:
			h["Retry-After"] = headerRef("Retry-After")
			desc += " The server is short of disk space for the upload or the job (refused before the body is read when " +
				"Content-Length does not fit); not charged."
		}
		out[errorResponseName[st]] = obj{"description": desc, "headers": h, "content": problemContent(st)}
	}
	return out
}

// problemContent is a problem+json body, with an example of status.
func problemContent(status int) obj {
	codes := codesOf(status)
	code := docmill.Code(codes[0])
	ex := docmill.NewProblem(status, code, "What went wrong, for a person.", "req_4kqzv2mac5x7tjr5y3w6zeaqb4")
	if code == docmill.CodeInvalidParameter || status == http.StatusBadRequest {
		ex = docmill.NewProblem(status, docmill.CodeInvalidParameter, "The param quality must be between 1 and 100.", ex.RequestID)
		ex.Errors = []docmill.FieldError{{Field: "quality", Message: "must be between 1 and 100"}}
	}
	return obj{"application/problem+json": obj{"schema": ref("Problem"), "example": ex}}
}

// jobResponse is the content of an answer with a job record of schema.
func jobResponse(schema obj) obj {
	return jsonResponse(schema, exampleJob("rotate-pdf", "report-rotated.pdf"))
}

func exampleJob(tool, filename string) obj {
	return obj{
		"job_id": exampleJobID, "status": "done", "tool": tool,
		"created_at": "2026-11-22T10:00:00Z", "finished_at": "2026-11-22T10:00:01Z",
		"result": obj{
			"url":  "https://api.example.com/files/" + exampleJobID + "/" + filename + "?expires=1795432801&signature=3q2-7w",
			"size": 482113, "filename": filename, "content_type": "application/pdf", "expires_at": "2026-11-22T11:00:01Z",
		},
		"meta":  obj{"input_size": 2931102, "duration_ms": 812, "queued_ms": 3},
		"error": nil,
	}
}

// laneNames are the lanes' names, lightest first.
func laneNames() []string {
	out := make([]string, len(docmill.Lanes))
	for i, l := range docmill.Lanes {
		out[i] = string(l)
	}
	return out
}

func exampleTool() obj {
	return obj{
		"slug": "rotate-pdf", "title": "Rotate PDF", "accepts": []string{"application/pdf"}, "min_files": 1, "max_files": 1,
		"params": []obj{{"name": "angle", "type": "integer", "required": false, "enum": []string{"90", "180", "270"}, "default": "90"}},
		"long":   false, "engine": "pdfcpu", "lane": "pdf", "available": true, "endpoint": "/v1/rotate-pdf/process",
	}
}

func exampleToolList() obj { return obj{"tools": []obj{exampleTool()}} }

func exampleAccount() obj {
	return obj{
		"account_id": "acct_4kqzv2mac5x7tjr5y3w6zeaqb4", "name": "Acme", "email": "ops@acme.example", "plan": "pro", "key_prefix": "dm_live_3bOj",
		"limits": obj{"operations_per_month": 5000, "max_file_bytes": 524288000, "requests_per_minute": 120, "jobs_in_flight": 10,
			"queue_priority": 2, "result_ttl_seconds": 86400, "webhooks": 5},
		"usage": obj{"period": "2026-11", "operations_used": 42, "operations_limit": 5000, "jobs_in_flight": 1, "resets_at": "2026-12-01T00:00:00Z"},
	}
}

func exampleReadiness() obj {
	return obj{"status": "ready", "checks": obj{"database": "ok", "blob": "ok", "disk": "ok"},
		"engines": obj{"ghostscript": obj{"name": "ghostscript", "path": "/usr/bin/gs", "version": "10.05.1", "available": true}}}
}
