package httpapi

import (
	"maps"
	"net/http"
	"strconv"
)

// The OpenAPI 3.1 document (GET /v1/openapi.json) is built here from the
// tool registry, so it always lists exactly the tools, params and meta
// figures this node serves. Its parts live by seam: the operations of
// the tools (openapi_tools.go), the shared schemas, headers and error
// answers (openapi_schemas.go), the job list (joblist.go) and the
// webhooks (openapi_webhooks.go). Every operation has an operationId a
// person would write, so that generated clients read well
// (rotatePdf, getJob, listJobs, createWebhook, ...).

// handleOpenAPI serves the document.
func (s *Server) handleOpenAPI(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.openAPI())
}

type obj = map[string]any

func ref(name string) obj { return obj{"$ref": "#/components/schemas/" + name} }

// Tags group the operations in generated documentation.
const (
	tagProcessing = "Processing"
	tagJobs       = "Jobs"
	tagWebhooks   = "Webhooks"
	tagCatalogue  = "Catalogue"
	tagAccount    = "Account"
	tagFiles      = "Files"
	tagOperations = "Operations"
)

// openAPI is the document: the paths and schemas of every part, under
// the document's head (openAPIHead).
func (s *Server) openAPI() obj {
	paths := obj{}
	maps.Copy(paths, jobPaths())
	maps.Copy(paths, cataloguePaths())
	maps.Copy(paths, s.operationsPaths())
	for _, t := range s.cfg.Registry.All() {
		paths["/v1/"+t.Slug+"/process"] = obj{"post": toolOperation(t)}
	}
	schemas := sharedSchemas()
	addJobListOpenAPI(paths, schemas)
	for _, t := range s.cfg.Registry.All() {
		toolSchemas(schemas, t)
	}
	doc := s.openAPIHead(paths, schemas)
	webhooksOpenAPI(paths, schemas, doc)
	accountOpenAPI(paths, schemas)
	signinOpenAPI(paths, schemas)
	pipelineOpenAPI(paths, schemas)
	for _, item := range paths {
		for _, o := range item.(obj) {
			if o, ok := o.(obj); ok {
				requestIDEverywhere(o)
			}
		}
	}
	return doc
}

// openAPIHead is the document around paths and schemas: its version,
// info, server, tags, security schemes and shared components.
func (s *Server) openAPIHead(paths, schemas obj) obj {
	return obj{
		"openapi": "3.1.0",
		"info": obj{"title": "docmill API", "version": "1.0.0",
			"description": "Document processing: upload a file to a tool, get a job record with a link to the result. " +
				"Every answer carries X-Request-Id; every error is RFC 9457 application/problem+json."},
		"servers": []obj{{"url": s.cfg.BaseURL}},
		"tags": []obj{
			{"name": tagProcessing, "description": "Run a tool on uploaded files; every request becomes a job."},
			{"name": tagJobs, "description": "The caller's jobs: poll, list, cancel."},
			{"name": tagWebhooks, "description": "Endpoints told when a job ends (Standard Webhooks)."},
			{"name": tagCatalogue, "description": "The tools, their params, and this node's limits."},
			{"name": tagAccount, "description": "The caller's plan, usage and keys; sign-up and sign-in by mailed links, browser sessions; the plans and their prices."},
			{"name": tagFiles, "description": "Results, by signed, expiring links."},
			{"name": tagOperations, "description": "Health, metrics and this document."},
		},
		"paths": paths,
		"components": obj{
			"securitySchemes": obj{
				"bearer": obj{"type": "http", "scheme": "bearer", "description": "dm_live_... API key: the way of programs."},
				"session": obj{"type": "apiKey", "in": "cookie", "name": sessionCookie, "description": "A browser session " +
					"(POST /v1/sessions sets it). A request other than GET and HEAD made with it carries X-CSRF-Token: its csrf_token " +
					"(base64url, unpadded, of SHA-256 of \"csrf:\" and the cookie's value; GET /v1/session gives it), and an Origin, " +
					"when sent, of this server; otherwise it is 403 forbidden."},
			},
			"schemas":   schemas,
			"headers":   sharedHeaders(),
			"responses": errorResponses(),
		},
		"security": []obj{{"bearer": []string{}}, {"session": []string{}}},
	}
}

// jobIDParam is the job_id path parameter.
func jobIDParam() obj {
	return obj{"name": "job_id", "in": "path", "required": true, "schema": obj{"type": "string", "pattern": "^job_[a-z2-7]{26}$"}, "example": exampleJobID}
}

// jobPaths are the paths of one job and of its result file.
func jobPaths() obj {
	getJob := op("getJob", tagJobs, "Poll a job", "200", "The job record; Retry-After suggests when to poll again while it is unfinished.", jobResponse(ref("Job")))
	getJob["responses"].(obj)["200"].(obj)["headers"] = obj{"Retry-After": headerRef("PollHint")}
	deleteJob := op("deleteJob", tagJobs, "Cancel a job, or delete its result now", "200", "The job as it then stands.", jobResponse(ref("Job")))
	deleteJob["description"] = "Cancels a queued or processing job (status canceled), or deletes a finished job's result at once (result.expired)."
	return obj{
		"/v1/jobs/{job_id}": obj{
			"parameters": []obj{jobIDParam()},
			"get":        rateLimited(withErrors(getJob, 400, 401, 404)),
			"delete":     rateLimited(withErrors(deleteJob, 401, 404)),
		},
		"/files/{job_id}/{filename}": obj{
			"parameters": []obj{jobIDParam(), {"name": "filename", "in": "path", "required": true, "schema": obj{"type": "string"}, "example": "report-rotated.pdf"}},
			"get":        public(fileOperation()),
		},
	}
}

// cataloguePaths are the paths of the tool catalogue, the limits and the
// caller's account.
func cataloguePaths() obj {
	return obj{
		"/v1/tools": obj{"get": public(op("listTools", tagCatalogue, "The tool catalogue", "200",
			"Every tool this node serves, sorted by slug.", jsonResponse(ref("ToolList"), exampleToolList())))},
		"/v1/tools/{tool}": obj{
			"parameters": []obj{{"name": "tool", "in": "path", "required": true, "schema": obj{"type": "string"}, "example": "rotate-pdf",
				"description": "A tool's slug (GET /v1/tools lists them); another is 404 unknown_tool."}},
			"get": public(withErrors(op("getTool", tagCatalogue, "One tool", "200", "The tool.", jsonResponse(ref("Tool"), exampleTool())), 404)),
		},
		"/v1/limits": obj{"get": public(op("getLimits", tagCatalogue, "This server's processing limits", "200", "The limits.",
			jsonResponse(ref("Limits"))))},
		"/v1/account": obj{"get": rateLimited(withErrors(op("getAccount", tagAccount, "The caller's plan, limits and usage", "200",
			"The account.", jsonResponse(ref("Account"), exampleAccount())), 401))},
	}
}

// operationsPaths are the paths of this document, the reference page,
// health, metrics, and the web interface when the server has one.
func (s *Server) operationsPaths() obj {
	str := obj{"type": "string"}
	paths := obj{
		"/v1/openapi.json": obj{"get": public(op("getOpenAPI", tagOperations, "This document", "200",
			"The OpenAPI 3.1 document of this node's API.", jsonResponse(obj{"type": "object"})))},
		"/docs": obj{"get": public(obj{
			"operationId": "getReference", "tags": []string{tagOperations},
			"summary":     "The API reference for people (its style sheet and script are under /docs/)",
			"description": "This document as an HTML page, with an example per tool and endpoint in curl, Go, Python and JavaScript.",
			"responses":   obj{"200": obj{"description": "The page.", "content": obj{"text/html": obj{"schema": str}}}},
		})},
		"/healthz": obj{"get": public(op("getHealth", tagOperations, "Liveness", "200", "The process serves, and which build it is.",
			jsonResponse(ref("Health"), obj{"status": "ok", "version": "v1.4.0", "revision": "3f2a9c1e0b7d4a5c6e8f9a0b1c2d3e4f5a6b7c8d", "build_time": "2026-11-27T22:00:00Z"})))},
		"/readyz": obj{"get": public(readinessOperation())},
		"/metrics": obj{"get": public(obj{
			"operationId": "getMetrics", "tags": []string{tagOperations}, "summary": "Prometheus metrics",
			"responses": obj{"200": obj{"description": "Metrics in Prometheus' text exposition format.",
				"content": obj{"text/plain": obj{"schema": str}}}},
		})},
	}
	if s.cfg.Web != nil {
		paths["/"] = obj{"get": public(obj{
			"operationId": "getWebInterface", "tags": []string{tagOperations},
			"summary":   "The web interface (its assets are under /static/)",
			"responses": obj{"200": obj{"description": "The page.", "content": obj{"text/html": obj{"schema": str}}}},
		})}
	}
	return paths
}

// op is an operation whose success is status with a body of content
// (jsonResponse), answering every other case with default (a Problem).
func op(id, tag, summary, status, desc string, content obj) obj {
	return withErrors(obj{
		"operationId": id,
		"tags":        []string{tag},
		"summary":     summary,
		"responses":   obj{status: obj{"description": desc, "content": content}},
	})
}

// jsonResponse is the content of a JSON answer of schema, with an example
// when one is given.
func jsonResponse(schema obj, example ...any) obj {
	mt := obj{"schema": schema}
	if len(example) > 0 {
		mt["example"] = example[0]
	}
	return obj{"application/json": mt}
}

// public marks an operation as needing no API key.
func public(o obj) obj {
	o["security"] = []obj{}
	return o
}

// withErrors declares the error answers an operation may give, each a
// Problem under components/responses (errorResponses), and default for
// any other (500 internal, 503 service_unavailable during an outage,
// 405 ...).
func withErrors(o obj, statuses ...int) obj {
	r := o["responses"].(obj)
	for _, st := range statuses {
		r[strconv.Itoa(st)] = obj{"$ref": "#/components/responses/" + errorResponseName[st]}
	}
	if _, ok := r["default"]; !ok {
		r["default"] = obj{"$ref": "#/components/responses/Error"}
	}
	return o
}

// rateLimited marks an authenticated operation under the per-key rate
// limit: its answers carry X-RateLimit-*, and it may be 401, 403 (a
// suspended account, or a session's request failing the CSRF rule) and
// 429.
func rateLimited(o obj) obj {
	withErrors(o, 401, 403, 429)
	for status, resp := range o["responses"].(obj) {
		resp := resp.(obj)
		if _, isRef := resp["$ref"]; isRef || status == "default" {
			continue
		}
		h, _ := resp["headers"].(obj)
		if h == nil {
			h = obj{}
			resp["headers"] = h
		}
		for _, name := range rateLimitHeaders {
			h[name] = headerRef(name)
		}
	}
	return o
}

// requestIDEverywhere declares X-Request-Id on each of o's answers that
// is not a shared one (those declare it themselves).
func requestIDEverywhere(o obj) {
	rs, _ := o["responses"].(obj)
	for _, resp := range rs {
		resp := resp.(obj)
		if _, isRef := resp["$ref"]; isRef {
			continue
		}
		h, _ := resp["headers"].(obj)
		if h == nil {
			h = obj{}
			resp["headers"] = h
		}
		h["X-Request-Id"] = headerRef("X-Request-Id")
	}
}

func headerRef(name string) obj { return obj{"$ref": "#/components/headers/" + name} }

// readinessOperation is GET /readyz: 200 or 503, with the same body.
func readinessOperation() obj {
	o := op("getReadiness", tagOperations, "Readiness: database, blob store, further checks, disk space, engines", "200",
		"Ready.", jsonResponse(ref("Readiness"), exampleReadiness()))
	o["responses"].(obj)["503"] = obj{"description": "Not ready; the body says which check failed.",
		"content": jsonResponse(ref("Readiness"))}
	return o
}

// fileOperation is GET /files/{job_id}/{filename}, a result's download.
func fileOperation() obj {
	binary := obj{"*/*": obj{"schema": obj{"type": "string", "contentMediaType": "application/octet-stream"}}}
	o := withErrors(obj{
		"operationId": "downloadFile",
		"tags":        []string{tagFiles},
		"summary":     "Download a result by its signed, expiring URL (HEAD and Range supported)",
		"description": "The URL is a job's result.url, as given. 403 forbidden when the signature does not match, " +
			"410 gone when the link or the file expired, 412 and 416 for If-* and Range requests that cannot be met.",
		"parameters": []obj{
			{"name": "expires", "in": "query", "required": true, "schema": obj{"type": "integer"}, "description": "Unix seconds"},
			{"name": "signature", "in": "query", "required": true, "schema": obj{"type": "string"}},
			{"name": "Range", "in": "header", "schema": obj{"type": "string"}, "description": "bytes=first-last, as RFC 9110"},
		},
		"responses": obj{
			"200": obj{"description": "The file, with the content type of the result.", "content": binary,
				"headers": obj{"Content-Disposition": obj{"schema": obj{"type": "string"}, "description": "attachment; filename=..."}}},
			"206": obj{"description": "Part of the file (Range).", "content": binary},
		},
	}, 403, 404, 410, 412, 416)
	return o
}
