package main

import (
	"flag"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/docmill/docmill"
)

// TestLimitFlags parses the limit flags from a command line and the
// environment, as serve does.
func TestLimitFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want func(l *docmill.Limits) // changes to the defaults; nil: none
		err  string                  // part of the error; "" for none
	}{
		{name: "defaults"},
		{
			name: "megapixels and pages",
			args: []string{"--max-image-megapixels=20", "--max-render-megapixels", "300", "--max-pdf-pages=50"},
			want: func(l *docmill.Limits) { l.ImagePixels, l.RenderPixelsTotal, l.PDFPages = 20_000_000, 300_000_000, 50 },
		},
		{
			name: "MB",
			args: []string{"--max-archive-mb=64", "--max-pdf-mb=1"},
			want: func(l *docmill.Limits) { l.ArchiveBytes, l.PDFBytes = 64<<20, 1<<20 },
		},
		{
			name: "environment",
			env:  map[string]string{"DOCMILL_MAX_RENDER_PAGES": "10", "DOCMILL_MAX_ARCHIVE_ENTRIES": "99"},
			want: func(l *docmill.Limits) { l.RenderPages, l.ArchiveEntries = 10, 99 },
		},
		{
			name: "command line over environment",
			args: []string{"--max-render-page-megapixels=7"},
			env:  map[string]string{"DOCMILL_MAX_RENDER_PAGE_MEGAPIXELS": "8"},
			want: func(l *docmill.Limits) { l.RenderPagePixels = 7_000_000 },
		},
		{name: "zero", args: []string{"--max-pdf-pages=0"}, err: "above zero"},
		{name: "negative", args: []string{"--max-image-megapixels=-5"}, err: "above zero"},
		{name: "fraction", args: []string{"--max-image-megapixels=1.5"}, err: "whole number"},
		{name: "overflow", args: []string{"--max-archive-mb=9000000000000000"}, err: "too large"},
		{name: "bad environment", env: map[string]string{"DOCMILL_MAX_STREAM_MB": "lots"}, err: "DOCMILL_MAX_STREAM_MB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := &environment{getenv: func(k string) string { return tt.env[k] }, stderr: io.Discard}
			fs := flag.NewFlagSet("serve", flag.ContinueOnError)
			var got docmill.Limits
			registerLimits(fs, &got)
			err := env.parse(fs, tt.args)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error = %v, want one with %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := docmill.DefaultLimits()
			if tt.want != nil {
				tt.want(&want)
			}
			if got != want {
				t.Errorf("limits\n got %+v\nwant %+v", got, want)
			}
		})
	}
}

// TestLimitFlagsCoverLimits checks that every limit but the engines'
// memory (a flag of its own) has a flag, by setting each flag to 1 and
// seeing every field but that one move off its default.
func TestLimitFlagsCoverLimits(t *testing.T) {
	t.Parallel()
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	var got docmill.Limits
	registerLimits(fs, &got)
	var args []string
	fs.VisitAll(func(f *flag.Flag) { args = append(args, "--"+f.Name+"=1") })
	env := &environment{getenv: func(string) string { return "" }, stderr: io.Discard}
	if err := env.parse(fs, args); err != nil {
		t.Fatal(err)
	}
	d, g := reflect.ValueOf(docmill.DefaultLimits()), reflect.ValueOf(got)
	for i := range d.NumField() {
		name := d.Type().Field(i).Name
		if name == "EngineMemory" { // a flag of its own, not registerLimits'
			continue
		}
		if g.Field(i).Equal(d.Field(i)) {
			t.Errorf("no flag sets %s", name)
		}
	}
}
