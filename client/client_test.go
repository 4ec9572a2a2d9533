package client

import (
	"bytes"
	"encoding/json"
	"testing"
)

// jobBodies are job records in the server's rendering (indented, HTML
// left unescaped) of the one shape cmd/docmill's TestClient cannot ask
// the real server for in a test: a done job whose result expired (no
// url), which takes the retention period. The server's done, failed and
// queued jobs are round-tripped there, as the server renders them; the
// client's calls and retries are tested there too, against the real
// server.
var jobBodies = []string{
	`{
  "job_id": "job_4kq8v2m0c9x7t1r5y3w6z8a2b7",
  "status": "done",
  "tool": "rotate-pdf",
  "created_at": "2026-11-22T10:00:00Z",
  "finished_at": "2026-11-22T10:00:01Z",
  "result": {
    "size": 25012,
    "filename": "a-rotated.pdf",
    "content_type": "application/pdf",
    "expires_at": "2026-11-23T10:00:01Z",
    "expired": true
  },
  "meta": {},
  "error": null
}
`,
}

// TestJobRoundTrip: a Job decoded from the server's body encodes back to the
// same bytes (no "result": null, no "url": "" once expired).
func TestJobRoundTrip(t *testing.T) {
	for _, body := range jobBodies {
		var j Job
		if err := json.Unmarshal([]byte(body), &j); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		enc := json.NewEncoder(&out)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(&j); err != nil {
			t.Fatal(err)
		}
		if out.String() != body {
			t.Errorf("re-encoded:\n%s\nwant:\n%s", out.String(), body)
		}
	}
}
