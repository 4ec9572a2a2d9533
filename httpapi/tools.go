package httpapi

import (
	"net/http"

	"github.com/docmill/docmill"
)

// toolBody is one catalogue entry.
type toolBody struct {
	Slug        string          `json:"slug"`
	Title       string          `json:"title"`
	Description string          `json:"description,omitempty"`
	Accepts     []string        `json:"accepts"`
	MinFiles    int             `json:"min_files"`
	MaxFiles    int             `json:"max_files"`
	Params      []docmill.Param `json:"params"`
	// Outputs are the content types of the tool's result as one file;
	// MayZip says it may be a zip of several instead (a pipeline takes
	// such a tool as its last step only).
	Outputs   []string `json:"outputs"`
	KeepsType bool     `json:"keeps_type,omitempty"`
	MayZip    bool     `json:"may_zip,omitempty"`
	Long      bool     `json:"long"`
	Engine    string   `json:"engine"`
	// Lane is the class of work the tool's jobs queue in (docmill.Lane);
	// a pipeline's is its heaviest step's, the heaviest any may take here.
	Lane      docmill.Lane `json:"lane,omitempty"`
	Available bool         `json:"available"`
	// Engines are the external programs the tool runs, as found at start.
	Engines  []docmill.EngineStatus `json:"engines,omitempty"`
	Endpoint string                 `json:"endpoint"`
}

func renderTool(t *docmill.Tool) toolBody {
	params := t.Params
	if params == nil {
		params = []docmill.Param{}
	}
	accepts := t.Accepts
	if accepts == nil { // a tool that takes no file (url-to-pdf)
		accepts = []string{}
	}
	b := toolBody{
		Slug: t.Slug, Title: t.Title, Description: t.Description, Accepts: accepts,
		MinFiles: t.MinFiles, MaxFiles: t.MaxFiles, Params: params, Long: t.Long,
		Outputs: t.Outputs, KeepsType: t.KeepsType, MayZip: t.MayZip,
		Engine: t.Engine, Lane: t.Lane, Available: t.IsAvailable(), Endpoint: "/v1/" + t.Slug + "/process",
	}
	if t.Engines != nil {
		b.Engines = t.Engines()
	}
	return b
}

func (s *Server) handleTools(w http.ResponseWriter, r *http.Request) {
	all := s.cfg.Registry.All()
	out := make([]toolBody, len(all))
	for i, t := range all {
		out[i] = renderTool(t)
	}
	writeJSON(w, http.StatusOK, map[string]any{"tools": out})
}

func (s *Server) handleTool(w http.ResponseWriter, r *http.Request) {
	t, ok := s.cfg.Registry.Lookup(r.PathValue("tool"))
	if !ok {
		s.writeError(w, r, docmill.Errorf(docmill.CodeUnknownTool, "There is no tool %q; GET /v1/tools lists them.", r.PathValue("tool")))
		return
	}
	writeJSON(w, http.StatusOK, renderTool(t))
}
