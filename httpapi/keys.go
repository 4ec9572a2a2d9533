package httpapi

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/docmill/docmill"
)

// The caller's own API keys: list them, add one (a second key for another
// program, or the new key of a rotation), revoke one. Keys are never
// shown again after their creation; a key is named by its display prefix.

// maxActiveKeys bounds an account's unrevoked keys, so that a leaked key
// cannot mint keys without end.
const maxActiveKeys = 10

// keyBody is a key as GET /v1/keys lists it.
type keyBody struct {
	Prefix    string  `json:"prefix"`
	Name      string  `json:"name"`
	CreatedAt string  `json:"created_at"`
	RevokedAt *string `json:"revoked_at"`
	// Current marks the key that made this request.
	Current bool `json:"current"`
}

func (s *Server) keyBody(k *docmill.APIKey, current *docmill.APIKey) keyBody {
	b := keyBody{Prefix: k.Prefix, Name: k.Name, CreatedAt: timestamp(k.CreatedAt), Current: k.Hash == current.Hash}
	if k.RevokedAt != nil {
		ts := timestamp(*k.RevokedAt)
		b.RevokedAt = &ts
	}
	return b
}

// handleListKeys lists the caller's keys, revoked ones too, oldest first.
func (s *Server) handleListKeys(w http.ResponseWriter, r *http.Request) {
	c := callerOf(r.Context())
	keys, err := s.cfg.Store.AccountKeys(r.Context(), c.account.ID)
	if err != nil {
		s.writeError(w, r, docmill.Internal(err))
		return
	}
	out := make([]keyBody, len(keys))
	for i := range keys {
		out[i] = s.keyBody(&keys[i], c.key)
	}
	writeJSON(w, http.StatusOK, map[string]any{"keys": out})
}

// handleCreateKey adds a key to the caller's account and shows it, once.
// The body is optional: {"name": "..."}.
func (s *Server) handleCreateKey(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Name string `json:"name"`
	}
	dec := json.NewDecoder(io.LimitReader(r.Body, 16<<10))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil && !errors.Is(err, io.EOF) {
		s.writeError(w, r, docmill.Errorf(docmill.CodeInvalidRequest, `The body must be empty or JSON: {"name": "billing server"}.`))
		return
	}
	name := strings.TrimSpace(body.Name)
	if utf8.RuneCountInString(name) > 100 {
		s.writeError(w, r, docmill.ParamError("name", "must be at most 100 characters"))
		return
	}
	if name == "" {
		name = "api"
	}
	c := callerOf(r.Context())
	key, stored := docmill.NewAPIKey(c.account.ID, name, s.cfg.Now())
	if err := s.cfg.Store.AddAccountKey(r.Context(), &stored, maxActiveKeys); err != nil {
		if errors.Is(err, docmill.ErrTooManyKeys) {
			s.writeError(w, r, docmill.Errorf(docmill.CodeConflict, "This account has %d active keys, the most it may have; revoke one first.", maxActiveKeys))
			return
		}
		s.writeError(w, r, docmill.Internal(err))
		return
	}
	writeJSON(w, http.StatusCreated, map[string]any{
		"api_key":    key,
		"prefix":     stored.Prefix,
		"name":       stored.Name,
		"created_at": timestamp(stored.CreatedAt),
		"note":       "Store this key now; it is not shown again.",
	})
}

// handleRevokeKey revokes one of the caller's keys by its display prefix
// (the key making the request too: it stops working at once). A prefix
// of no key of the caller's account is 404.
func (s *Server) handleRevokeKey(w http.ResponseWriter, r *http.Request) {
	c := callerOf(r.Context())
	prefix := r.PathValue("prefix")
	if !strings.HasPrefix(prefix, docmill.KeyPrefix) || len(prefix) != 12 {
		s.writeError(w, r, docmill.Errorf(docmill.CodeNotFound, "No key of this account has the prefix %q; GET /v1/keys lists them.", prefix))
		return
	}
	k, err := s.cfg.Store.RevokeAccountKey(r.Context(), c.account.ID, prefix, s.cfg.Now())
	if errors.Is(err, docmill.ErrNotFound) {
		s.writeError(w, r, docmill.Errorf(docmill.CodeNotFound, "No key of this account has the prefix %q; GET /v1/keys lists them.", prefix))
		return
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, s.keyBody(k, c.key))
}
