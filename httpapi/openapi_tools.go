package httpapi

import (
	"strconv"
	"strings"

	"github.com/docmill/docmill"
)

// The process operations of the OpenAPI document, one per tool of the
// registry: POST /v1/{slug}/process, named after the slug (rotatePdf),
// with the tool's params as form fields and its meta figures in the job
// record's schema ({Name}Meta, {Name}Job).

// operationName is a slug camelCased: "rotate-pdf" -> "rotatePdf",
// "pdf-to-jpg" -> "pdfToJpg".
func operationName(slug string) string {
	parts := strings.Split(slug, "-")
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
}

// typeName is a slug as a schema name: "rotate-pdf" -> "RotatePdf".
func typeName(slug string) string {
	n := operationName(slug)
	return strings.ToUpper(n[:1]) + n[1:]
}

func metaSchemaName(t *docmill.Tool) string { return typeName(t.Slug) + "Meta" }
func jobSchemaName(t *docmill.Tool) string  { return typeName(t.Slug) + "Job" }

// toolSchemas are the schemas of a tool's job record: its meta (the
// figures of every job and the tool's declared Meta) and the job record
// carrying it.
func toolSchemas(schemas obj, t *docmill.Tool) {
	meta := jobMetaSchema(t.Meta)
	meta["description"] = "The figures of a " + t.Slug + " job: these of every job, and the tool's own."
	schemas[metaSchemaName(t)] = meta
	schemas[jobSchemaName(t)] = jobSchema(metaSchemaName(t))
}

// formSchema is the schema of a process call's multipart form: its fields'
// schemas and the required ones. Fields common to every process call
// (file_url, export_url, ...) belong in fileFields, so that the tools and
// the pipeline operation take them alike.
type formSchema struct {
	props    obj
	required []string
}

// toolForm is the form of t's process call: its files and its params.
func toolForm(t *docmill.Tool) formSchema {
	f := formSchema{props: obj{}}
	fileFields(&f, t.MinFiles, t.MaxFiles, t.Accepts)
	for _, p := range t.Params {
		f.props[p.Name] = paramSchema(p)
		if p.Required {
			f.required = append(f.required, p.Name)
		}
	}
	return f
}

// fileFields adds the input fields of a process call to f: the files,
// and the inputs fetched by URL and the export of the result (fetch.go).
// No input field is required on its own: file and file_url together
// make the tool's inputs.
func fileFields(f *formSchema, minFiles, maxFiles int, accepts []string) {
	if maxFiles == 0 { // a tool that takes no file (url-to-pdf): its params say what to work on
		addURLFields(f.props, 0, 0)
		delete(f.props, "file_url")
		return
	}
	f.props["file"] = obj{"type": "array", "items": obj{"type": "string", "format": "binary"}, "minItems": minFiles, "maxItems": maxFiles,
		"description": "Repeat the field for several files; accepted types: " + strings.Join(accepts, ", ")}
	addURLFields(f.props, minFiles, maxFiles)
}

// toolOperation is POST /v1/{t.Slug}/process.
func toolOperation(t *docmill.Tool) obj {
	desc := t.Description
	if t.Long {
		desc += " A long tool: answers 202 at once unless the request asks to wait (Prefer: wait=N)."
	}
	return processOperation(operationName(t.Slug), t.Title, desc, toolForm(t), jobSchemaName(t), t.Slug)
}

// processOperation is a process call: its form, and its answers (the
// job record of schema jobSchema: 200 done, 202 accepted) and errors.
func processOperation(id, summary, desc string, form formSchema, jobSchema, example string) obj {
	body := obj{"type": "object", "properties": form.props}
	if len(form.required) > 0 {
		body["required"] = form.required
	}
	job := jsonResponse(ref(jobSchema), exampleJob(example, "report.pdf"))
	o := obj{
		"operationId": id,
		"tags":        []string{tagProcessing},
		"summary":     summary,
		"description": desc,
		"parameters": []obj{
			{"name": "Idempotency-Key", "in": "header", "schema": obj{"type": "string", "maxLength": maxIdempotencyKey},
				"description": "The same key with the same request answers the first job again, uncharged; with another request, 409 idempotency_conflict."},
			{"name": "Prefer", "in": "header", "schema": obj{"type": "string"}, "example": "wait=30",
				"description": "respond-async (always 202), or wait=N (wait up to N seconds for the job)."},
		},
		"requestBody": obj{"required": true, "content": obj{"multipart/form-data": obj{"schema": body}}},
		"responses": obj{
			"200": obj{"description": "The job finished within the sync budget.", "content": job},
			"202": obj{"description": "Accepted and not finished; poll Location, after Retry-After seconds.", "content": job,
				"headers": obj{"Location": headerRef("Location"), "Retry-After": headerRef("Retry-After")}},
		},
	}
	return rateLimited(withErrors(o, 400, 408, 409, 422, 503, 507))
}

func paramSchema(p docmill.Param) obj {
	sc := obj{"description": p.Description}
	isNumber := p.Type == docmill.TypeInteger || p.Type == docmill.TypeNumber
	switch p.Type {
	case docmill.TypeInteger, docmill.TypeNumber, docmill.TypeBoolean:
		sc["type"] = string(p.Type)
	case docmill.TypeColor:
		sc["type"], sc["pattern"] = "string", "^#?[0-9a-fA-F]{6}$"
	case docmill.TypeURL:
		sc["type"], sc["format"] = "string", "uri"
	case docmill.TypePages:
		sc["type"] = "string"
		sc["description"] = strings.TrimSpace(p.Description + " A page selection such as 1-3,5,8-.")
	default:
		sc["type"] = "string"
	}
	if len(p.Enum) > 0 {
		sc["enum"] = enumValues(p)
	}
	// Min and Max bound numbers, and the length of strings.
	lo, hi := "minimum", "maximum"
	if !isNumber {
		lo, hi = "minLength", "maxLength"
	}
	if p.Min != nil && p.Type != docmill.TypeBoolean {
		sc[lo] = *p.Min
	}
	if p.Max != nil && p.Type != docmill.TypeBoolean {
		sc[hi] = *p.Max
	}
	if p.Default != "" {
		sc["default"] = p.Default
		if n, err := strconv.ParseFloat(p.Default, 64); err == nil && isNumber {
			sc["default"] = n
		} else if b, err := strconv.ParseBool(p.Default); err == nil && p.Type == docmill.TypeBoolean {
			sc["default"] = b
		}
	}
	if p.Example != "" {
		sc["examples"] = []any{typedValue(p, p.Example)}
	}
	if p.Secret {
		sc["writeOnly"] = true
	}
	return sc
}

// typedValue is v, a value of p in canonical form, as JSON has it: a
// number for an integer or number param, a boolean for a boolean one.
func typedValue(p docmill.Param, v string) any {
	if n, err := strconv.ParseFloat(v, 64); err == nil && (p.Type == docmill.TypeInteger || p.Type == docmill.TypeNumber) {
		return n
	}
	if b, err := strconv.ParseBool(v); err == nil && p.Type == docmill.TypeBoolean {
		return b
	}
	return v
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
