package httpapi

import (
	"bytes"
	"compress/gzip"
	"embed"
	"html/template"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/docmill/docmill"
)

// The API reference (GET /docs): one HTML page made from the OpenAPI
// document and the registry (every operation, every tool with its params
// and an example per language), a style sheet and a script that switches
// the examples' language and copies them. Nothing is loaded from another
// origin, and the policy below forbids inline scripts and styles, as the
// web interface's does. The page is made once: the registry and the
// document do not change while the process runs.

//go:embed reference
var referenceFiles embed.FS

// referenceCSP is the page's Content-Security-Policy.
const referenceCSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

var referenceTemplate = template.Must(template.ParseFS(referenceFiles, "reference/reference.html"))

// referencePage is what the template renders.
type referencePage struct {
	BaseURL string
	// WebInterface is set when this node serves the web interface at /.
	WebInterface bool
	Langs        []struct{ Lang, Label string }
	Groups       []referenceGroup
	Tools        []referenceTool
}

// referenceGroup is the operations of one tag of the OpenAPI document.
type referenceGroup struct {
	Tag, Description string
	Operations       []referenceOperation
}

type referenceOperation struct {
	ID, Method, Path, Summary, Description string
	Samples                                []codeSample
}

// referenceTool is one tool's section.
type referenceTool struct {
	Slug, Title, Description, Accepts, Files, Engine string
	Long                                             bool
	Params                                           []referenceParam
	Samples                                          []codeSample
}

type referenceParam struct {
	Name, Type, Allowed, Default, Description string
	Required                                  bool
}

// renderedReference is the page, made once, whole and gzip-compressed.
type renderedReference struct {
	once       sync.Once
	html, gzip []byte
	err        error
}

// handleReference serves the page.
func (s *Server) handleReference(w http.ResponseWriter, r *http.Request) {
	s.reference.once.Do(func() {
		var buf bytes.Buffer
		if s.reference.err = referenceTemplate.Execute(&buf, s.referencePage()); s.reference.err != nil {
			return
		}
		s.reference.html = buf.Bytes()
		s.reference.gzip = gzipBytes(buf.Bytes())
	})
	if s.reference.err != nil {
		s.writeError(w, r, s.reference.err)
		return
	}
	serveReferenceBytes(w, r, "text/html; charset=utf-8", "no-cache", s.reference.html, s.reference.gzip)
}

// handleReferenceAsset serves the page's style sheet, script and icon
// (the web interface's, which a node without it does not serve).
func (s *Server) handleReferenceAsset(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("asset")
	types := map[string]string{"reference.css": "text/css; charset=utf-8", "reference.js": "text/javascript; charset=utf-8",
		"icon.svg": "image/svg+xml"}
	b, err := referenceFiles.ReadFile("reference/" + name)
	if types[name] == "" || err != nil {
		s.writeError(w, r, docmill.Errorf(docmill.CodeNotFound, "No such file."))
		return
	}
	serveReferenceBytes(w, r, types[name], "public, max-age=3600", b, nil)
}

func serveReferenceBytes(w http.ResponseWriter, r *http.Request, contentType, cache string, b, gz []byte) {
	h := w.Header()
	h.Set("Vary", "Accept-Encoding")
	if gz != nil && acceptsGzip(r.Header.Get("Accept-Encoding")) {
		h.Set("Content-Encoding", "gzip")
		b = gz
	}
	h.Set("Content-Type", contentType)
	h.Set("Cache-Control", cache)
	h.Set("Content-Security-Policy", referenceCSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	if r.Method != http.MethodHead {
		_, _ = w.Write(b)
	}
}

// acceptsGzip reports whether an Accept-Encoding header admits gzip
// (RFC 9110 12.5.3: listed, or "*", with a q-value above 0).
func acceptsGzip(header string) bool {
	for _, part := range strings.Split(header, ",") {
		coding, params, _ := strings.Cut(part, ";")
		coding = strings.ToLower(strings.TrimSpace(coding))
		if coding != "gzip" && coding != "*" {
			continue
		}
		q, found := strings.CutPrefix(strings.ReplaceAll(strings.ToLower(params), " ", ""), "q=")
		f, err := strconv.ParseFloat(q, 64)
		return !found || err == nil && f > 0
	}
	return false
}

func gzipBytes(b []byte) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	_, _ = zw.Write(b)
	_ = zw.Close()
	return buf.Bytes()
}

// methodOrder orders the operations of one path: reading before changing.
var methodOrder = map[string]int{"GET": 0, "POST": 1, "PATCH": 2, "DELETE": 3}

// referencePage gathers the page from the OpenAPI document (the
// operations other than the tools', by tag) and the registry (the tools).
func (s *Server) referencePage() referencePage {
	base := strings.TrimRight(s.cfg.BaseURL, "/")
	doc := s.openAPI()
	page := referencePage{BaseURL: base, Langs: sampleLangs, WebInterface: s.cfg.Web != nil}
	byTag := map[string]*referenceGroup{}
	for _, t := range doc["tags"].([]obj) {
		if t["name"] == tagProcessing {
			continue // the tools' section
		}
		page.Groups = append(page.Groups, referenceGroup{Tag: t["name"].(string), Description: t["description"].(string)})
	}
	for i := range page.Groups {
		byTag[page.Groups[i].Tag] = &page.Groups[i]
	}
	for path, item := range doc["paths"].(obj) {
		for method := range methodOrder {
			method = strings.ToLower(method)
			o, ok := item.(obj)[method].(obj)
			if !ok {
				continue
			}
			tags, _ := o["tags"].([]string)
			if len(tags) == 0 || byTag[tags[0]] == nil {
				continue
			}
			op := referenceOperation{Method: strings.ToUpper(method), Path: path}
			op.ID, _ = o["operationId"].(string)
			op.Summary, _ = o["summary"].(string)
			op.Description, _ = o["description"].(string)
			if e, ok := endpointExamples[op.ID]; ok {
				op.Samples = e.samples(base)
			}
			g := byTag[tags[0]]
			g.Operations = append(g.Operations, op)
		}
	}
	for _, g := range page.Groups {
		sort.Slice(g.Operations, func(i, j int) bool {
			a, b := g.Operations[i], g.Operations[j]
			return a.Path < b.Path || a.Path == b.Path && methodOrder[a.Method] < methodOrder[b.Method]
		})
	}
	for _, t := range s.cfg.Registry.All() {
		page.Tools = append(page.Tools, referenceToolOf(t, base))
	}
	return page
}

func referenceToolOf(t *docmill.Tool, base string) referenceTool {
	rt := referenceTool{Slug: t.Slug, Title: t.Title, Description: t.Description, Engine: t.Engine, Long: t.Long,
		Accepts: strings.Join(t.Accepts, ", "), Samples: exampleOf(t).samples(base)}
	switch {
	case t.MaxFiles == 0:
		rt.Files = "none: the params say what to work on"
	case t.MinFiles == t.MaxFiles:
		rt.Files = strconv.Itoa(t.MinFiles)
	default:
		rt.Files = strconv.Itoa(t.MinFiles) + " to " + strconv.Itoa(t.MaxFiles)
	}
	for _, p := range t.Params {
		rt.Params = append(rt.Params, referenceParam{Name: p.Name, Type: string(p.Type), Allowed: allowedValues(p),
			Default: p.Default, Description: p.Description, Required: p.Required})
	}
	return rt
}

// allowedValues says what p admits beyond its type: its enum or bounds.
func allowedValues(p docmill.Param) string {
	if len(p.Enum) > 0 {
		return strings.Join(p.Enum, ", ")
	}
	num := func(v *float64) string { return strconv.FormatFloat(*v, 'f', -1, 64) }
	unit := ""
	if p.Type != docmill.TypeInteger && p.Type != docmill.TypeNumber {
		unit = " characters"
	}
	switch {
	case p.Min != nil && p.Max != nil:
		return num(p.Min) + " to " + num(p.Max) + unit
	case p.Max != nil:
		return "at most " + num(p.Max) + unit
	case p.Min != nil:
		return "at least " + num(p.Min) + unit
	}
	return ""
}
