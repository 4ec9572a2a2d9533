package docmill

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInvokeRefusesLinkedOutput: an output left as a symbolic link (to a
// host file, by a subverted engine) is an internal failure, never a
// result that would hand the link's target back.
func TestInvokeRefusesLinkedOutput(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret")
	if err := os.WriteFile(secret, []byte("host data"), 0o600); err != nil {
		t.Fatal(err)
	}
	tool := &Tool{Slug: "linker", MinFiles: 0, MaxFiles: 1, Run: func(_ context.Context, in *RunInput) (*RunOutput, error) {
		p := filepath.Join(in.WorkDir, "out.pdf")
		if err := os.Symlink(secret, p); err != nil {
			return nil, err
		}
		return &RunOutput{Path: p, Filename: "out.pdf", ContentType: "application/pdf"}, nil
	}}
	work := t.TempDir()
	out, err := tool.Invoke(context.Background(), &RunInput{WorkDir: work})
	if err == nil || out != nil || ErrorCode(err) != CodeInternal {
		t.Fatalf("Invoke = %v, %v; want an internal error", out, err)
	}
	plain := &Tool{Slug: "writer", MaxFiles: 1, Run: func(_ context.Context, in *RunInput) (*RunOutput, error) {
		p := filepath.Join(in.WorkDir, "plain.pdf")
		return &RunOutput{Path: p, Filename: "plain.pdf"}, os.WriteFile(p, []byte("%PDF-"), 0o600)
	}}
	if _, err := plain.Invoke(context.Background(), &RunInput{WorkDir: work}); err != nil {
		t.Fatalf("a regular output: %v", err)
	}
}

// TestCheckFileCountNoFiles: a tool that takes no file accepts none and
// refuses one, saying so.
func TestCheckFileCountNoFiles(t *testing.T) {
	tool := &Tool{Slug: "url-to-pdf"}
	if err := tool.CheckFileCount(0); err != nil {
		t.Errorf("no file: %v", err)
	}
	err := tool.CheckFileCount(1)
	if ErrorCode(err) != CodeTooManyFiles || !strings.Contains(err.Error(), "takes no file") {
		t.Errorf("one file: %v, want too_many_files saying it takes none", err)
	}
}
