package main

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/tools/toolstest"
)

// TestServerReadsNoHostileBytes: issue 29's hostile inputs that the
// server used to parse or serve itself, sent to a real server: 10 MB of
// nested '>' and a 10 MB table of 1,000 columns to markdown-to-pdf (parsed
// in the jailed Markdown helper: refused, or stopped at the parse's
// bound), and a zipped page asking 50 times for its 60 MB file to
// html-to-pdf (read by Chromium itself: printed). Each job ends, and the
// server's peak RSS stays under 200 MB.
func TestServerReadsNoHostileBytes(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("10 MB Markdown and a 60 MB zipped page through real engines")
	}
	dir := t.TempDir()
	s := startChild(t, dir)
	c := s.client(s.DevKey)
	row := strings.Repeat("| a ", 1000) + "|\n"
	table := row + strings.Repeat("|---", 1000) + "|\n" + strings.Repeat(row, (10<<20)/len(row)-2)
	cases := []struct {
		tool, name string
		body       func() *os.File
		want       string // the job's status, or the error code (one of, |)
	}{
		{"markdown-to-pdf", "deep.md", func() *os.File { return hostileFile(t, dir, "deep.md", bytes.Repeat([]byte(">"), 10<<20)) }, "invalid_document"},
		{"markdown-to-pdf", "wide.md", func() *os.File { return hostileFile(t, dir, "wide.md", []byte(table)) }, "invalid_document|processing_timeout"},
		{"html-to-pdf", "site.zip", func() *os.File { return hostileZippedPage(t, dir) }, "done"},
	}
	for _, tc := range cases {
		f := tc.body()
		ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
		j, _, err := c.Process(ctx, tc.tool, []client.File{{Name: tc.name, Body: f}}, client.ProcessOptions{Prefer: "wait=60"})
		if err == nil && !j.Finished() {
			j, err = c.Wait(ctx, j.JobID, time.Second)
		}
		cancel()
		f.Close()
		got, msg := "", ""
		var p *client.Problem
		switch {
		case errors.As(err, &p):
			got, msg = string(p.Code), p.Detail
		case err != nil:
			t.Fatalf("%s: %v", tc.name, err)
		case j.Status == "failed" && j.Error != nil:
			got, msg = string(j.Error.Code), j.Error.Message
		default:
			got = string(j.Status)
		}
		t.Logf("%s: %s %q", tc.name, got, msg)
		if !slices.Contains(strings.Split(tc.want, "|"), got) {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
		t.Logf("%s: %s; server peak RSS so far %d MB", tc.name, got, toolstest.PeakRSS(t, s.cmd.Process.Pid)>>20)
	}
	if peak := toolstest.PeakRSS(t, s.cmd.Process.Pid); peak > 200<<20 {
		t.Errorf("server peak RSS %d MB, want under 200 MB", peak>>20)
	}
}

// hostileFile writes b to dir/name and opens it.
func hostileFile(t *testing.T, dir, name string, b []byte) *os.File {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// hostileZippedPage writes a zipped page whose index.html asks 50 times for
// its 60 MB file (noise, stored), and opens it.
func hostileZippedPage(t *testing.T, dir string) *os.File {
	t.Helper()
	p := filepath.Join(dir, "site.zip")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	w, _ := zw.CreateHeader(&zip.FileHeader{Name: "index.html", Method: zip.Store})
	fmt.Fprint(w, "<!DOCTYPE html><h1>Big file page</h1>")
	for i := 0; i < 50; i++ {
		fmt.Fprintf(w, `<img src="big.bin?%d">`, i)
	}
	w, _ = zw.CreateHeader(&zip.FileHeader{Name: "big.bin", Method: zip.Store})
	chunk := toolstest.Noise(1 << 20)
	for i := 0; i < 60; i++ {
		chunk[0] = byte(i)
		w.Write(chunk)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	f, err = os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	return f
}
