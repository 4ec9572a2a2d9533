package docmill

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"syscall"
	"testing"
)

func TestErrorCode(t *testing.T) {
	param := ParamError("pages", "selects page %d", 9)
	tests := []struct {
		name string
		err  error
		want Code
	}{
		{"nil", nil, ""},
		{"plain", errors.New("boom"), CodeInternal},
		{"docmill error", ErrNotFound, CodeNotFound},
		{"wrapped", fmt.Errorf("store: %w", ErrQuotaExceeded), CodeQuotaExceeded},
		{"param", param, CodeInvalidParameter},
		{"full disk", &fs.PathError{Op: "write", Path: "/data/tmp/x", Err: syscall.ENOSPC}, CodeInsufficientStorage},
		{"internal, full disk", Internal(fmt.Errorf("put: %w", syscall.ENOSPC)), CodeInsufficientStorage},
		{"client error, full disk", &Error{Code: CodeInvalidDocument, Err: syscall.ENOSPC}, CodeInvalidDocument},
	}
	for _, tt := range tests {
		if got := ErrorCode(tt.err); got != tt.want {
			t.Errorf("%s: ErrorCode = %q, want %q", tt.name, got, tt.want)
		}
	}
	if param.Message != `Parameter "pages" selects page 9.` || !slices.Equal(param.Fields, []FieldError{{"pages", "selects page 9"}}) {
		t.Errorf("ParamError = %+v", param)
	}
}

func TestAsErrorHidesInternals(t *testing.T) {
	cause := errors.New("dial tcp 10.0.0.5:5432: connection refused")
	e := AsError(fmt.Errorf("store: %w", cause))
	if e.Code != CodeInternal || strings.Contains(e.Message, "10.0.0.5") || !errors.Is(e, cause) {
		t.Errorf("AsError = %+v", e)
	}
	if got := AsError(ErrNotFound); got != ErrNotFound {
		t.Errorf("AsError(ErrNotFound) = %v", got)
	}
	full := AsError(&fs.PathError{Op: "write", Path: "/srv/docmill/blobs/x", Err: syscall.ENOSPC})
	if full.Code != CodeInsufficientStorage || full.RetryAfter != StorageRetryAfter || strings.Contains(full.Message, "/srv") || !IsNoSpace(full) {
		t.Errorf("AsError(ENOSPC) = %+v", full)
	}
}

func TestRegistry(t *testing.T) {
	b := &Tool{Slug: "b", Accepts: []string{"application/pdf"}, Params: []Param{{Name: "x"}}}
	a := &Tool{Slug: "a", Available: func() bool { return false }}
	r := NewRegistry(b, a)
	if got, ok := r.Lookup("b"); !ok || got != b {
		t.Error("Lookup(b)")
	}
	if _, ok := r.Lookup("c"); ok {
		t.Error("Lookup(c) found a tool")
	}
	if all := r.All(); len(all) != 2 || all[0] != a || all[1] != b {
		t.Errorf("All = %v, want sorted by slug", all)
	}
	if !b.AcceptsType("application/pdf") || b.AcceptsType("image/png") {
		t.Error("AcceptsType")
	}
	if anyFile := (&Tool{Accepts: []string{"application/pdf", AnyType}}); !anyFile.AcceptsType("text/plain") || !anyFile.AcceptsType("application/octet-stream") {
		t.Error("AcceptsType with AnyType")
	}
	if !b.IsAvailable() || a.IsAvailable() {
		t.Error("IsAvailable")
	}
	if _, ok := b.Param("x"); !ok {
		t.Error("Param(x)")
	}
	defer func() {
		if recover() == nil {
			t.Error("NewRegistry accepted a duplicate slug")
		}
	}()
	NewRegistry(a, &Tool{Slug: "a"})
}

func TestCodeTitle(t *testing.T) {
	for code, want := range map[Code]string{
		CodeFileTooLarge:        "File too large",
		CodeInternal:            "Internal",
		CodeUnknownTool:         "Unknown tool",
		CodeIdempotencyConflict: "Idempotency conflict",
		"a":                     "A",
		"":                      "",
	} {
		if got := code.Title(); got != want {
			t.Errorf("Code(%q).Title() = %q, want %q", code, got, want)
		}
	}
}
