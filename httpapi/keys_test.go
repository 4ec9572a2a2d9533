package httpapi

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/docmill/docmill"
)

// call sends method target with key and a JSON body (none when "") and
// returns the recorder.
func (a *procAPI) call(key, method, target, body string) *httptest.ResponseRecorder {
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, target, r)
	req.Header.Set("Authorization", "Bearer "+key)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	w := httptest.NewRecorder()
	a.s.ServeHTTP(w, req)
	return w
}

// decode reads w's JSON body into v, failing t unless w's status is want.
func decode(t *testing.T, w *httptest.ResponseRecorder, want int, v any) {
	t.Helper()
	if w.Code != want {
		t.Fatalf("status %d, want %d: %s", w.Code, want, w.Body)
	}
	if v != nil {
		if err := json.Unmarshal(w.Body.Bytes(), v); err != nil {
			t.Fatalf("%v: %s", err, w.Body)
		}
	}
}

// TestKeys: an account's keys over the API: created (shown once, named
// "api" without a body), listed with the current one marked, renamed,
// revoked (a revoked key stops working at once); and the refusals of
// each: bad bodies, names too long or missing, prefixes of no key or of
// another account's key.
func TestKeys(t *testing.T) {
	a := newProcAPI(t, nil)
	key, _ := a.account(t, docmill.Plan{})
	otherKey, _ := a.account(t, docmill.Plan{})

	type newKey struct {
		APIKey string `json:"api_key"`
		Prefix string `json:"prefix"`
		Name   string `json:"name"`
	}
	var created newKey
	w := a.call(key, http.MethodPost, "/v1/keys", "")
	decode(t, w, http.StatusCreated, &created)
	if created.Name != "api" || !strings.HasPrefix(created.APIKey, created.Prefix) {
		t.Errorf("created %+v, want a key named api that starts with its prefix", created)
	}
	var named newKey
	decode(t, a.call(key, http.MethodPost, "/v1/keys", `{"name": " billing "}`), http.StatusCreated, &named)
	if named.Name != "billing" {
		t.Errorf("name %q, want billing (trimmed)", named.Name)
	}

	var list struct {
		Keys []keyBody `json:"keys"`
	}
	decode(t, a.call(key, http.MethodGet, "/v1/keys", ""), http.StatusOK, &list)
	// Keys made in the same second list in either order: find the current
	// one by its flag.
	current := 0
	for _, k := range list.Keys {
		if k.Current {
			current++
			if k.LastUsedAt == nil {
				t.Errorf("the current key %+v has no last use", k)
			}
		}
	}
	if len(list.Keys) != 3 || current != 1 {
		t.Errorf("keys %+v, want 3, one of them current and used", list.Keys)
	}

	var renamed keyBody
	decode(t, a.call(key, http.MethodPatch, "/v1/keys/"+named.Prefix, `{"name": "payroll"}`), http.StatusOK, &renamed)
	if renamed.Name != "payroll" || renamed.Prefix != named.Prefix {
		t.Errorf("renamed %+v", renamed)
	}
	var revoked keyBody
	decode(t, a.call(key, http.MethodDelete, "/v1/keys/"+created.Prefix, ""), http.StatusOK, &revoked)
	if revoked.RevokedAt == nil {
		t.Errorf("revoked %+v, want revoked_at", revoked)
	}
	if w := a.call(created.APIKey, http.MethodGet, "/v1/keys", ""); w.Code != http.StatusUnauthorized {
		t.Errorf("a revoked key: %d, want 401", w.Code)
	}

	refusals := []struct {
		key, method, target, body string
		status                    int
		code                      docmill.Code
	}{
		{key, http.MethodPost, "/v1/keys", `{"nom": "x"}`, 400, docmill.CodeInvalidRequest},
		{key, http.MethodPost, "/v1/keys", `{"name": "` + strings.Repeat("é", 101) + `"}`, 400, docmill.CodeInvalidParameter},
		{key, http.MethodPatch, "/v1/keys/" + named.Prefix, "", 400, docmill.CodeInvalidRequest},
		{key, http.MethodPatch, "/v1/keys/" + named.Prefix, `{"name": "  "}`, 400, docmill.CodeInvalidParameter},
		{key, http.MethodPatch, "/v1/keys/dm_nosuchkey", `{"name": "x"}`, 404, docmill.CodeNotFound},
		{key, http.MethodDelete, "/v1/keys/short", "", 404, docmill.CodeNotFound},
		{key, http.MethodDelete, "/v1/keys/" + docmill.KeyPrefix + strings.Repeat("x", 12-len(docmill.KeyPrefix)), "", 404, docmill.CodeNotFound},
		{otherKey, http.MethodDelete, "/v1/keys/" + named.Prefix, "", 404, docmill.CodeNotFound},
		{otherKey, http.MethodPatch, "/v1/keys/" + named.Prefix, `{"name": "theirs"}`, 404, docmill.CodeNotFound},
	}
	for _, r := range refusals {
		w := a.call(r.key, r.method, r.target, r.body)
		if w.Code != r.status || problemCode(t, w) != r.code {
			t.Errorf("%s %s %s: %d %s, want %d %s", r.method, r.target, r.body, w.Code, w.Body, r.status, r.code)
		}
	}
}

// TestTooManyKeys: an account at its most active keys is refused another
// as a conflict until it revokes one.
func TestTooManyKeys(t *testing.T) {
	a := newProcAPI(t, nil)
	key, _ := a.account(t, docmill.Plan{})
	var last struct{ Prefix string }
	for range maxActiveKeys - 1 { // the account's own key is the first
		decode(t, a.call(key, http.MethodPost, "/v1/keys", ""), http.StatusCreated, &last)
	}
	w := a.call(key, http.MethodPost, "/v1/keys", "")
	if w.Code != http.StatusConflict || problemCode(t, w) != docmill.CodeConflict {
		t.Fatalf("one key too many: %d %s, want 409 conflict", w.Code, w.Body)
	}
	decode(t, a.call(key, http.MethodDelete, "/v1/keys/"+last.Prefix, ""), http.StatusOK, nil)
	decode(t, a.call(key, http.MethodPost, "/v1/keys", ""), http.StatusCreated, nil)
}
