package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/docmill/docmill"
)

// Build says which build of docmill a node runs; /healthz shows it.
type Build struct {
	Version   string `json:"version,omitempty"`
	Revision  string `json:"revision,omitempty"`
	BuildTime string `json:"build_time,omitempty"`
}

// handleHealthz says the process serves, and which build it is.
func (s *Server) handleHealthz(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, struct {
		Status string `json:"status"`
		Build
	}{"ok", s.cfg.Build})
}

// handleReadyz checks the database, the blob store, the further checks
// (Redis) and the free space of the local areas (Config.Space); any
// failure, or an area below its minimum free space, makes the node not
// ready (503). Config.Reports are shown, never judged. The engines are reported; a missing one only makes its
// tools unavailable.
func (s *Server) handleReadyz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 3*time.Second)
	defer cancel()
	checks := map[string]string{"database": "ok", "blob": "ok"}
	ready := true
	if err := s.cfg.Store.Ping(ctx); err != nil {
		checks["database"], ready = "unavailable", false
		s.log.Warn("readyz: database", "err", err)
	}
	if err := s.cfg.Blob.Ping(ctx); err != nil {
		checks["blob"], ready = "unavailable", false
		s.log.Warn("readyz: blob", "err", err)
	}
	for name, check := range s.cfg.Checks {
		checks[name] = "ok"
		if err := check(ctx); err != nil {
			checks[name], ready = "unavailable", false
			s.log.Warn("readyz: "+name, "err", err)
		}
	}
	details := map[string]any{}
	for name, report := range s.cfg.Reports {
		checks[name], details[name] = report()
	}
	var disks map[string]docmill.DiskSpace
	if s.cfg.Space != nil {
		disks = map[string]docmill.DiskSpace{}
		checks["disk"] = "ok"
		for _, d := range s.cfg.Space.Check() {
			disks[d.Name] = d
			if !d.OK {
				checks["disk"], ready = "low", false
				s.log.Warn("readyz: disk space low", "area", d.Name, "free_bytes", d.FreeBytes, "min_free_bytes", d.MinFreeBytes)
			}
		}
	}
	engines := map[string]docmill.EngineStatus{}
	if s.cfg.Ready != nil {
		engines = s.cfg.Ready(ctx)
	}
	status := http.StatusOK
	if !ready {
		status = http.StatusServiceUnavailable
	}
	body := map[string]any{"status": "ready", "checks": checks, "engines": engines}
	for name, d := range details {
		body[name] = d
	}
	if disks != nil {
		body["disk"] = disks
	}
	if !ready {
		body["status"] = "not ready"
	}
	writeJSON(w, status, body)
}
