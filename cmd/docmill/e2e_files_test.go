package main

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/docmill/docmill/client"
)

func TestDownloadRangeHeadAndSignatures(t *testing.T) {
	t.Parallel()
	s := startServer(t, "")
	j, _, err := s.client(s.DevKey).Process(context.Background(), "rotate-pdf", []client.File{pdfFile("one-page.pdf", onePagePDF())}, client.ProcessOptions{})
	if err != nil {
		t.Fatal(err)
	}
	full := download(t, j.Result.URL)

	req, _ := http.NewRequest(http.MethodGet, j.Result.URL, nil)
	req.Header.Set("Range", "bytes=5-14")
	resp, part := send(t, req)
	if resp.StatusCode != http.StatusPartialContent || string(part) != string(full[5:15]) {
		t.Fatalf("range: %d %q", resp.StatusCode, part)
	}
	if !strings.Contains(resp.Header.Get("Content-Disposition"), "attachment") {
		t.Fatalf("Content-Disposition %q", resp.Header.Get("Content-Disposition"))
	}

	resp, err = http.Head(j.Result.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.ContentLength != int64(len(full)) || resp.Header.Get("Content-Type") != "application/pdf" {
		t.Fatalf("head: %d %d %q", resp.StatusCode, resp.ContentLength, resp.Header.Get("Content-Type"))
	}

	u, _ := url.Parse(j.Result.URL)
	q := u.Query()
	tampered := *u
	tq := url.Values{"expires": {fmt.Sprint(time.Now().Add(48 * time.Hour).Unix())}, "signature": q["signature"]}
	tampered.RawQuery = tq.Encode()
	expectStatus(t, tampered.String(), http.StatusForbidden, "forbidden")
	noSig := *u
	noSig.RawQuery = ""
	expectStatus(t, noSig.String(), http.StatusForbidden, "forbidden")
	other := strings.Replace(j.Result.URL, "-rotated.pdf", "-other.pdf", 1)
	expectStatus(t, other, http.StatusForbidden, "forbidden")

	// A correctly signed link whose time has passed is gone.
	secret := signingSecret(t, s.DataDir)
	exp := time.Now().Add(-time.Minute).Unix()
	m := hmac.New(sha256.New, []byte(secret))
	fmt.Fprintf(m, "%s\n%s\n%d", j.JobID, j.Result.Filename, exp)
	expired := *u
	expired.RawQuery = url.Values{"expires": {fmt.Sprint(exp)}, "signature": {base64.RawURLEncoding.EncodeToString(m.Sum(nil))}}.Encode()
	expectStatus(t, expired.String(), http.StatusGone, "gone")
}

func TestCDNURL(t *testing.T) {
	t.Parallel()
	s := startServer(t, "", "--cdn-url", "https://cdn.example.com/", "--base-url", "https://api.example.com")
	j, _, err := s.client(s.DevKey).Process(context.Background(), "rotate-pdf", []client.File{pdfFile("one-page.pdf", onePagePDF())}, client.ProcessOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(j.Result.URL, "https://cdn.example.com/files/"+j.JobID+"/") {
		t.Fatalf("url %s", j.Result.URL)
	}
}

func expectStatus(t testing.TB, u string, status int, code string) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var p struct{ Code string }
	_ = json.NewDecoder(resp.Body).Decode(&p)
	if resp.StatusCode != status || p.Code != code {
		t.Fatalf("GET %s: %d %s, want %d %s", u, resp.StatusCode, p.Code, status, code)
	}
}

// openDB opens a server's SQLite database read-only, for checks the API
// does not expose.
func openDB(t testing.TB, dataDir string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dataDir, "docmill.db")+"?mode=ro&_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func signingSecret(t testing.TB, dataDir string) string {
	var v string
	if err := openDB(t, dataDir).QueryRow(`SELECT value FROM settings WHERE name = 'url_signing_key'`).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func riverPriorities(t testing.TB, dataDir string) map[string]int {
	rows, err := openDB(t, dataDir).Query(`SELECT args, priority FROM river_job WHERE kind = 'docmill.process'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var args string
		var p int
		if err := rows.Scan(&args, &p); err != nil {
			t.Fatal(err)
		}
		var a struct {
			JobID string `json:"job_id"`
		}
		_ = json.Unmarshal([]byte(args), &a)
		out[a.JobID] = p
	}
	return out
}

// jobStatus reads a job's status straight from the database.
func jobStatus(t testing.TB, dataDir, id string) string {
	var st string
	if err := openDB(t, dataDir).QueryRow(`SELECT status FROM jobs WHERE id = $1`, id).Scan(&st); err != nil {
		t.Fatal(err)
	}
	return st
}
