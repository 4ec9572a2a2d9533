package httpapi

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/jobview"
)

// The caller's own API keys: list them, add one (a second key for another
// program, or the new key of a rotation), rename one, revoke one. Keys are never
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
	// LastUsedAt and LastUsedIP are the key's last use, to the minute;
	// null if never used.
	LastUsedAt *string `json:"last_used_at"`
	LastUsedIP *string `json:"last_used_ip"`
	// Current marks the key that made this request.
	Current bool `json:"current"`
}

// keyBody is k as the API shows it; current is the key that made the
// request (nil: a session made it).
func (s *Server) keyBody(k *docmill.APIKey, current *docmill.APIKey) keyBody {
	b := keyBody{Prefix: k.Prefix, Name: k.Name, CreatedAt: jobview.Timestamp(k.CreatedAt), Current: current != nil && k.Hash == current.Hash}
	if k.RevokedAt != nil {
		ts := jobview.Timestamp(*k.RevokedAt)
		b.RevokedAt = &ts
	}
	if k.LastUsedAt != nil {
		ts, ip := jobview.Timestamp(*k.LastUsedAt), k.LastUsedIP
		b.LastUsedAt, b.LastUsedIP = &ts, &ip
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
	name, err := keyNameOf(r, false)
	if err != nil {
		s.writeError(w, r, err)
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
		"created_at": jobview.Timestamp(stored.CreatedAt),
		"note":       "Store this key now; it is not shown again.",
	})
}

// keyNameOf reads the body {"name": "..."} of a key's creation (where it
// is optional) or renaming (where it is required).
func keyNameOf(r *http.Request, required bool) (string, error) {
	var body struct {
		Name string `json:"name"`
	}
	dec := json.NewDecoder(io.LimitReader(r.Body, 16<<10))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil && (required || !errors.Is(err, io.EOF)) {
		return "", docmill.Errorf(docmill.CodeInvalidRequest, `The body must be JSON: {"name": "billing server"}.`)
	}
	name := strings.TrimSpace(body.Name)
	if utf8.RuneCountInString(name) > 100 {
		return "", docmill.ParamError("name", "must be at most 100 characters")
	}
	if required && name == "" {
		return "", docmill.ParamError("name", "is required")
	}
	return name, nil
}

// handleRenameKey names one of the caller's keys anew, by its display
// prefix; a prefix of no key of the caller's account is 404.
func (s *Server) handleRenameKey(w http.ResponseWriter, r *http.Request) {
	c := callerOf(r.Context())
	prefix := r.PathValue("prefix")
	name, err := keyNameOf(r, true)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	k, err := s.cfg.Store.RenameAccountKey(r.Context(), c.account.ID, prefix, name)
	if errors.Is(err, docmill.ErrNotFound) {
		s.writeError(w, r, noSuchKey(prefix))
		return
	}
	if err != nil {
		s.writeError(w, r, docmill.Internal(err))
		return
	}
	writeJSON(w, http.StatusOK, s.keyBody(k, c.key))
}

func noSuchKey(prefix string) error {
	return docmill.Errorf(docmill.CodeNotFound, "No key of this account has the prefix %q; GET /v1/keys lists them.", prefix)
}

// handleRevokeKey revokes one of the caller's keys by its display prefix
// (the key making the request too: it stops working at once). A prefix
// of no key of the caller's account is 404.
func (s *Server) handleRevokeKey(w http.ResponseWriter, r *http.Request) {
	c := callerOf(r.Context())
	prefix := r.PathValue("prefix")
	if !strings.HasPrefix(prefix, docmill.KeyPrefix) || len(prefix) != 12 {
		s.writeError(w, r, noSuchKey(prefix))
		return
	}
	k, err := s.cfg.Store.RevokeAccountKey(r.Context(), c.account.ID, prefix, s.cfg.Now())
	if errors.Is(err, docmill.ErrNotFound) {
		s.writeError(w, r, noSuchKey(prefix))
		return
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, s.keyBody(k, c.key))
}
