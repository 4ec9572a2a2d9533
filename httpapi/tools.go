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
	Long        bool            `json:"long"`
	Engine      string          `json:"engine"`
	Available   bool            `json:"available"`
	// Engines are the external programs the tool runs, as found at start.
	Engines  []docmill.EngineStatus `json:"engines,omitempty"`
	Endpoint string                 `json:"endpoint"`
}

func renderTool(t *docmill.Tool) toolBody {
	params := t.Params
	if params == nil {
		params = []docmill.Param{}
	}
	b := toolBody{
		Slug: t.Slug, Title: t.Title, Description: t.Description, Accepts: t.Accepts,
		MinFiles: t.MinFiles, MaxFiles: t.MaxFiles, Params: params, Long: t.Long,
		Engine: t.Engine, Available: t.IsAvailable(), Endpoint: "/v1/" + t.Slug + "/process",
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
