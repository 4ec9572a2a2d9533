package main

import (
	"flag"
	"slices"
	"testing"
)

// TestInterspersed: flags after the positional arguments are still flags,
// with or without their value joined by "="; bool flags take no value;
// "--" ends the flags and "-" is an argument.
func TestInterspersed(t *testing.T) {
	t.Parallel()
	fs := flag.NewFlagSet("process", flag.ContinueOnError)
	fs.String("o", "", "")
	fs.Bool("force", false, "")
	fs.Var(paramFlags{}, "p", "")
	for _, tc := range []struct{ in, want []string }{
		{[]string{"rotate-pdf", "a.pdf", "-p", "angle=90"}, []string{"-p", "angle=90", "--", "rotate-pdf", "a.pdf"}},
		{[]string{"--force", "rotate-pdf", "a.pdf", "--o=x.pdf"}, []string{"--force", "--o=x.pdf", "--", "rotate-pdf", "a.pdf"}},
		{[]string{"rotate-pdf", "--force", "a.pdf", "-o", "x"}, []string{"--force", "-o", "x", "--", "rotate-pdf", "a.pdf"}},
		{[]string{"rotate-pdf", "--", "-p", "-"}, []string{"--", "rotate-pdf", "-p", "-"}},
		{[]string{"rotate-pdf", "-", "--nope"}, []string{"--nope", "--", "rotate-pdf", "-"}},
	} {
		if got := interspersed(fs, tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("%q: %q, want %q", tc.in, got, tc.want)
		}
	}
}
