package main

import (
	"testing"
)

// TestReplicateToRefusals: serve refuses, as a usage error (exit 64)
// before anything starts, a --replicate-to it cannot honour: with --database-url (PostgreSQL is
// backed up with its own tools), a scheme that is no replica target, a
// relative directory and a bucket URL without a bucket.
func TestReplicateToRefusals(t *testing.T) {
	t.Parallel() // its directories are its own
	cases := []struct {
		name  string
		extra []string
		want  string
	}{
		{"postgres", []string{"--replicate-to", "file:///tmp/r", "--database-url", "postgres://u@127.0.0.1:5432/test"}, "pg_dump"},
		{"scheme", []string{"--replicate-to", "ftp://host/replica"}, "want file:///dir or s3://bucket"},
		{"relative dir", []string{"--replicate-to", "file://replica"}, "want file:///absolute/dir"},
		{"no bucket", []string{"--replicate-to", "s3:///replica"}, "no bucket"},
	}
	for _, c := range cases {
		args := append([]string{"serve", "--data-dir", t.TempDir(), "--addr", "127.0.0.1:0"}, c.extra...)
		_, err := runErr(args...)
		exitOf(t, c.name, err, exitUsage, c.want)
	}
}
