package httpapi

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/docmill/docmill"
)

// listGet sends GET target with key and returns the recorder.
func listGet(a *procAPI, key, target string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodGet, target, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	w := httptest.NewRecorder()
	a.s.ServeHTTP(w, req)
	return w
}

// TestJobListHandler pages through an account's jobs over the handler,
// rendered as a poll renders them, and never another account's.
func TestJobListHandler(t *testing.T) {
	a := newProcAPI(t, nil)
	key, acct := a.account(t, docmill.Plan{})
	_, other := a.account(t, docmill.Plan{})
	base := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
	var want []string // newest first
	for i := range 45 {
		for _, ac := range []*docmill.Account{acct, other} {
			j := &docmill.Job{AccountID: ac.ID, Tool: "rotate-pdf", CreatedAt: base.Add(time.Duration(i/4) * time.Millisecond)}
			if i%2 == 1 {
				j.Tool = "flip-pdf"
			}
			got, err := a.st.CreateJob(t.Context(), j, docmill.Admission{Period: "2026-11"})
			if err != nil {
				t.Fatal(err)
			}
			if ac == acct {
				want = append(want, got.ID)
			}
		}
	}
	var got []string
	target := "/v1/jobs?limit=10"
	for pages := 0; ; pages++ {
		w := listGet(a, key, target)
		if w.Code != http.StatusOK {
			t.Fatalf("%s: %d %s", target, w.Code, w.Body)
		}
		var body struct {
			Jobs       []map[string]any `json:"jobs"`
			NextCursor *string          `json:"next_cursor"`
		}
		if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
			t.Fatal(err)
		}
		for _, j := range body.Jobs {
			got = append(got, j["job_id"].(string))
			if j["status"] != "queued" || j["meta"] == nil || j["created_at"] == nil {
				t.Errorf("job record %v", j)
			}
		}
		if body.NextCursor == nil {
			if pages != 4 || len(body.Jobs) != 5 {
				t.Errorf("last page is page %d with %d jobs, want page 4 with 5", pages, len(body.Jobs))
			}
			break
		}
		if len(body.Jobs) != 10 {
			t.Fatalf("a page that is not the last has %d jobs", len(body.Jobs))
		}
		target = "/v1/jobs?limit=10&cursor=" + url.QueryEscape(*body.NextCursor)
	}
	seen := map[string]bool{}
	for _, id := range got {
		if seen[id] {
			t.Errorf("job %s listed twice", id)
		}
		seen[id] = true
	}
	for _, id := range want {
		if !seen[id] {
			t.Errorf("job %s not listed", id)
		}
	}
	if len(got) != len(want) {
		t.Errorf("listed %d jobs, want %d", len(got), len(want))
	}

	// Defaults and filters.
	var page struct {
		Jobs []struct {
			Tool string `json:"tool"`
		} `json:"jobs"`
		NextCursor string `json:"next_cursor"`
	}
	w := listGet(a, key, "/v1/jobs?tool=flip-pdf&status=queued&limit=")
	if err := json.Unmarshal(w.Body.Bytes(), &page); err != nil || w.Code != 200 {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	if len(page.Jobs) != defaultListLimit || page.NextCursor == "" {
		t.Errorf("default page: %d jobs, next %q", len(page.Jobs), page.NextCursor)
	}
	for _, j := range page.Jobs {
		if j.Tool != "flip-pdf" {
			t.Errorf("tool filter let %q through", j.Tool)
		}
	}
	w = listGet(a, key, "/v1/jobs?status=done")
	page.Jobs, page.NextCursor = nil, ""
	if err := json.Unmarshal(w.Body.Bytes(), &page); err != nil || len(page.Jobs) != 0 || page.NextCursor != "" {
		t.Errorf("status=done: %s", w.Body)
	}
	if w := listGet(a, key, "/v1/jobs?cursor=%zz"); w.Code != http.StatusBadRequest || problemCode(t, w) != docmill.CodeInvalidRequest {
		t.Errorf("malformed query: %d %s", w.Code, w.Body)
	}
	if w := listGet(a, "", "/v1/jobs"); w.Code != http.StatusUnauthorized {
		t.Errorf("no key: %d", w.Code)
	}
}

// TestJobListBadQuery checks that every bad query is a 400 naming its field.
func TestJobListBadQuery(t *testing.T) {
	a := newProcAPI(t, nil)
	key, _ := a.account(t, docmill.Plan{})
	for q, field := range map[string]string{
		"limit=0":                              "limit",
		"limit=101":                            "limit",
		"limit=-1":                             "limit",
		"limit=ten":                            "limit",
		"status=finished":                      "status",
		"status=DONE":                          "status",
		"tool=nope":                            "tool",
		"cursor=%25%25":                        "cursor",
		"cursor=abc":                           "cursor",
		"cursor=" + encodeCursorRaw("x.job_a"): "cursor",
		"cursor=" + encodeCursorRaw("12.notajob"): "cursor",
		"cursor=" + encodeCursorRaw("-5.job_a"):   "cursor",
		"cursor=" + encodeCursorRaw("12"):         "cursor",
		"stauts=done":                             "stauts",
		"limit=5&limit=6":                         "limit",
	} {
		w := listGet(a, key, "/v1/jobs?"+q)
		if w.Code != http.StatusBadRequest {
			t.Errorf("%s: %d %s", q, w.Code, w.Body)
			continue
		}
		var p struct {
			Code   string               `json:"code"`
			Errors []docmill.FieldError `json:"errors"`
		}
		if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil || p.Code != "invalid_parameter" || len(p.Errors) != 1 || p.Errors[0].Field != field {
			t.Errorf("%s: %s, want invalid_parameter on %s", q, w.Body, field)
		}
	}
}

// TestPollWaitQuery checks ?wait on a poll: bounds, and that a finished
// job or a job of another account answers at once (the server under test
// has no queue to wait on).
func TestPollWaitQuery(t *testing.T) {
	a := newProcAPI(t, nil)
	key, acct := a.account(t, docmill.Plan{})
	otherKey, _ := a.account(t, docmill.Plan{})
	j, err := a.st.CreateJob(t.Context(), &docmill.Job{AccountID: acct.ID, Tool: "rotate-pdf"}, docmill.Admission{Period: "2026-11"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.st.CancelJob(t.Context(), j.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"wait=61", "wait=-1", "wait=1.5", "wait=x", "wait=1&wait=2"} {
		w := listGet(a, key, "/v1/jobs/"+j.ID+"?"+q)
		if w.Code != http.StatusBadRequest || problemCode(t, w) != docmill.CodeInvalidParameter {
			t.Errorf("%s: %d %s", q, w.Code, w.Body)
		}
	}
	for _, q := range []string{"wait=60", "wait=0", "wait="} {
		start := time.Now()
		w := listGet(a, key, "/v1/jobs/"+j.ID+"?"+q)
		if w.Code != http.StatusOK || time.Since(start) > 5*time.Second {
			t.Errorf("%s on a finished job: %d after %s: %s", q, w.Code, time.Since(start), w.Body)
		}
	}
	for _, target := range []string{"/v1/jobs/" + j.ID + "?wait=30", "/v1/jobs/job_nope?wait=30"} {
		if w := listGet(a, otherKey, target); w.Code != http.StatusNotFound {
			t.Errorf("%s by another account: %d %s", target, w.Code, w.Body)
		}
	}
}

func TestCursorRoundTrip(t *testing.T) {
	p := docmill.JobPosition{CreatedAt: time.UnixMilli(1795000000123).UTC(), ID: docmill.NewJobID()}
	c := encodeCursor(p)
	if url.QueryEscape(c) != c {
		t.Errorf("cursor %q needs escaping in a URL", c)
	}
	got, ok := decodeCursor(c)
	if !ok || !got.CreatedAt.Equal(p.CreatedAt) || got.ID != p.ID {
		t.Errorf("decodeCursor(%q) = %+v, %v; want %+v", c, got, ok, p)
	}
}

// TestJobListOpenAPI checks that the document describes the list, its
// cursor and the poll's wait.
func TestJobListOpenAPI(t *testing.T) {
	a := newProcAPI(t, nil)
	var doc struct {
		Paths      map[string]map[string]json.RawMessage `json:"paths"`
		Components struct {
			Schemas map[string]struct {
				Properties map[string]any `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	get(t, a.s, "/v1/openapi.json", &doc)
	names := func(path string) map[string]bool {
		var get struct {
			Parameters []struct{ Name string } `json:"parameters"`
		}
		if err := json.Unmarshal(doc.Paths[path]["get"], &get); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out := map[string]bool{}
		for _, p := range get.Parameters {
			out[p.Name] = true
		}
		return out
	}
	if got := names("/v1/jobs"); !got["status"] || !got["tool"] || !got["limit"] || !got["cursor"] {
		t.Errorf("GET /v1/jobs parameters: %v", got)
	}
	if got := names("/v1/jobs/{job_id}"); !got["wait"] {
		t.Errorf("GET /v1/jobs/{job_id} parameters: %v", got)
	}
	var list struct {
		Responses map[string]struct {
			Content map[string]struct {
				Schema struct {
					Ref string `json:"$ref"`
				} `json:"schema"`
			} `json:"content"`
		} `json:"responses"`
	}
	if err := json.Unmarshal(doc.Paths["/v1/jobs"]["get"], &list); err != nil {
		t.Fatal(err)
	}
	// The page's schema is a named one, for generated clients.
	name := strings.TrimPrefix(list.Responses["200"].Content["application/json"].Schema.Ref, "#/components/schemas/")
	if props := doc.Components.Schemas[name].Properties; props["jobs"] == nil || props["next_cursor"] == nil {
		t.Errorf("GET /v1/jobs 200 schema properties: %v", props)
	}
}

func encodeCursorRaw(s string) string {
	return url.QueryEscape(base64URL(s))
}

func base64URL(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
