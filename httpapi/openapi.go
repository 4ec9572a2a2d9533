package httpapi

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/docmill/docmill"
)

// handleOpenAPI serves an OpenAPI 3.1 document built from the tool registry,
// so it always lists exactly the tools and params this node serves.
func (s *Server) handleOpenAPI(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.openAPI())
}

type obj = map[string]any

func ref(name string) obj { return obj{"$ref": "#/components/schemas/" + name} }

func (s *Server) openAPI() obj {
	paths := obj{
		"/v1/jobs/{job_id}": obj{
			"parameters": []obj{{"name": "job_id", "in": "path", "required": true, "schema": obj{"type": "string"}}},
			"get":        op("Poll a job", "200", "The job record.", ref("Job")),
			"delete":     op("Cancel a job, or delete its result now", "200", "The job as it then stands.", ref("Job")),
		},
		"/v1/tools":        obj{"get": public(op("The tool catalogue", "200", "Every tool.", obj{"type": "object"}))},
		"/v1/tools/{tool}": obj{"get": public(op("One tool", "200", "The tool.", obj{"type": "object"}))},
		"/v1/limits":       obj{"get": public(op("This server's processing limits", "200", "The limits.", ref("Limits")))},
		"/v1/account":      obj{"get": op("The caller's plan, limits and usage", "200", "The account.", obj{"type": "object"})},
		"/v1/signup": obj{"post": public(obj{
			"summary":     "Create a Free account and its API key (when sign-up is open)",
			"requestBody": obj{"content": obj{"application/json": obj{"schema": obj{"type": "object", "required": []string{"email"}, "properties": obj{"email": obj{"type": "string", "format": "email"}}}}}},
			"responses":   withErrors(obj{"201": obj{"description": "The account and its key, shown once."}}),
		})},
		"/files/{job_id}/{filename}": obj{"get": public(obj{
			"summary": "Download a result by its signed, expiring URL (HEAD and Range supported)",
			"parameters": []obj{
				{"name": "job_id", "in": "path", "required": true, "schema": obj{"type": "string"}},
				{"name": "filename", "in": "path", "required": true, "schema": obj{"type": "string"}},
				{"name": "expires", "in": "query", "required": true, "schema": obj{"type": "integer"}},
				{"name": "signature", "in": "query", "required": true, "schema": obj{"type": "string"}},
			},
			"responses": withErrors(obj{"200": obj{"description": "The file."}, "206": obj{"description": "Part of the file."}}),
		})},
	}
	for _, t := range s.cfg.Registry.All() {
		paths["/v1/"+t.Slug+"/process"] = obj{"post": toolOperation(t)}
	}
	addJobListOpenAPI(paths)
	schemas := obj{"Job": jobSchema(), "Problem": problemSchema(), "Limits": limitsSchema()}
	doc := obj{
		"openapi": "3.1.0",
		"info":    obj{"title": "docmill API", "version": "1.0.0", "description": "Document processing: upload a file to a tool, get a job record with a link to the result."},
		"servers": []obj{{"url": s.cfg.BaseURL}},
		"paths":   paths,
		"components": obj{
			"securitySchemes": obj{"bearer": obj{"type": "http", "scheme": "bearer", "description": "dm_live_... API key"}},
			"schemas":         schemas,
		},
		"security": []obj{{"bearer": []string{}}},
	}
	webhooksOpenAPI(paths, schemas, doc)
	pipelineOpenAPI(paths, schemas)
	return doc
}

func op(summary, status, desc string, schema obj) obj {
	return obj{"summary": summary, "responses": withErrors(obj{status: obj{"description": desc, "content": obj{"application/json": obj{"schema": schema}}}})}
}

func public(o obj) obj {
	o["security"] = []obj{}
	return o
}

func withErrors(r obj) obj {
	r["default"] = obj{"description": "An error (RFC 9457).", "content": obj{"application/problem+json": obj{"schema": ref("Problem")}}}
	return r
}

func toolOperation(t *docmill.Tool) obj {
	props := obj{"file": obj{"type": "array", "items": obj{"type": "string", "format": "binary"}, "minItems": t.MinFiles, "maxItems": t.MaxFiles,
		"description": "Repeat the field for several files; accepted types: " + strings.Join(t.Accepts, ", ")}}
	required := []string{"file"}
	for _, p := range t.Params {
		props[p.Name] = paramSchema(p)
		if p.Required {
			required = append(required, p.Name)
		}
	}
	return obj{
		"summary":     t.Title,
		"description": t.Description,
		"parameters": []obj{
			{"name": "Idempotency-Key", "in": "header", "schema": obj{"type": "string", "maxLength": maxIdempotencyKey}},
			{"name": "Prefer", "in": "header", "schema": obj{"type": "string"}, "description": "respond-async, or wait=N (seconds)"},
		},
		"requestBody": obj{"required": true, "content": obj{"multipart/form-data": obj{"schema": obj{"type": "object", "properties": props, "required": required}}}},
		"responses": withErrors(obj{
			"200": obj{"description": "Done within the sync budget.", "content": obj{"application/json": obj{"schema": ref("Job")}}},
			"202": obj{"description": "Accepted; poll Location.", "content": obj{"application/json": obj{"schema": ref("Job")}}},
			"507": obj{
				"description": "insufficient_storage: the server is short of disk space for the upload or the job (refused before the body is read when Content-Length does not fit); not charged; retry after Retry-After seconds.",
				"headers":     obj{"Retry-After": obj{"schema": obj{"type": "integer"}, "description": "seconds"}},
				"content":     obj{"application/problem+json": obj{"schema": ref("Problem")}},
			},
		}),
	}
}

func paramSchema(p docmill.Param) obj {
	sc := obj{"description": p.Description}
	switch p.Type {
	case docmill.TypeInteger, docmill.TypeNumber, docmill.TypeBoolean:
		sc["type"] = string(p.Type)
	case docmill.TypeColor:
		sc["type"], sc["pattern"] = "string", "^#?[0-9a-fA-F]{6}$"
	default:
		sc["type"] = "string"
	}
	if len(p.Enum) > 0 {
		sc["enum"] = enumValues(p)
	}
	if p.Min != nil {
		sc["minimum"] = *p.Min
	}
	if p.Max != nil {
		sc["maximum"] = *p.Max
	}
	if p.Default != "" {
		sc["default"] = p.Default
		if n, err := strconv.ParseFloat(p.Default, 64); err == nil && (p.Type == docmill.TypeInteger || p.Type == docmill.TypeNumber) {
			sc["default"] = n
		}
	}
	return sc
}

// enumValues lists an enum's values typed as the param is: numbers for an
// integer or number param, strings otherwise.
func enumValues(p docmill.Param) []any {
	out := make([]any, len(p.Enum))
	for i, v := range p.Enum {
		out[i] = v
		if n, err := strconv.ParseFloat(v, 64); err == nil && (p.Type == docmill.TypeInteger || p.Type == docmill.TypeNumber) {
			out[i] = n
		}
	}
	return out
}

func jobSchema() obj {
	return obj{"type": "object", "required": []string{"job_id", "status", "tool", "created_at", "meta", "error"}, "properties": obj{
		"job_id":      obj{"type": "string", "pattern": "^job_[a-z2-7]{26}$"},
		"status":      obj{"type": "string", "enum": []string{"queued", "processing", "done", "failed", "canceled"}},
		"tool":        obj{"type": "string"},
		"created_at":  obj{"type": "string", "format": "date-time"},
		"finished_at": obj{"type": "string", "format": "date-time"},
		"result": obj{"type": "object", "properties": obj{
			"url": obj{"type": "string", "format": "uri"}, "size": obj{"type": "integer", "description": "bytes"},
			"filename": obj{"type": "string"}, "content_type": obj{"type": "string"},
			"expires_at": obj{"type": "string", "format": "date-time"}, "expired": obj{"type": "boolean"},
		}},
		"meta":  obj{"type": "object", "properties": obj{"duration_ms": obj{"type": "integer"}, "input_size": obj{"type": "integer"}}},
		"error": obj{"type": []string{"object", "null"}, "properties": obj{"code": obj{"type": "string"}, "message": obj{"type": "string"}}},
	}}
}

func problemSchema() obj {
	return obj{"type": "object", "required": []string{"type", "title", "status", "code", "request_id"}, "properties": obj{
		"type": obj{"type": "string"}, "title": obj{"type": "string"}, "status": obj{"type": "integer"},
		"detail": obj{"type": "string"}, "code": obj{"type": "string", "enum": errorCodes()}, "request_id": obj{"type": "string"},
		"job_id": obj{"type": "string"},
		"errors": obj{"type": "array", "items": obj{"type": "object", "properties": obj{"field": obj{"type": "string"}, "message": obj{"type": "string"}}}},
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
