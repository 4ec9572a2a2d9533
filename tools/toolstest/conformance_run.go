package toolstest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	docmill "github.com/docmill/docmill"
)

// result is one run of a tool: its output (nil on error), the result's
// bytes and Fingerprint, and when Run returned.
type result struct {
	out   *docmill.RunOutput
	err   error
	data  []byte
	print []byte
	ended time.Time
}

// run runs tool on copies of samples with the raw params in a fresh work
// directory, alone in a directory of its own, and checks what every run
// must keep to, success or not: no panic, nothing written beside the work
// directory, the inputs unchanged and no new "input-" name; on success,
// a non-empty regular result file inside the work directory.
func (s *Suite) run(t testing.TB, ctx context.Context, tool *docmill.Tool, raw map[string]string, samples []sample) *result {
	t.Helper()
	params, err := tool.ParseParams(raw)
	if err != nil {
		t.Fatalf("params %v: %v", raw, err)
	}
	parent, err := os.MkdirTemp(s.Dir, "conform-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(parent)
	work := filepath.Join(parent, "work")
	if err := os.Mkdir(work, 0o700); err != nil {
		t.Fatal(err)
	}
	in := &docmill.RunInput{Params: params, WorkDir: work, Limits: s.Limits}
	for i, smp := range samples {
		b, err := os.ReadFile(smp.path)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(work, fmt.Sprintf("input-%d%s", i, filepath.Ext(smp.path)))
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		in.Files = append(in.Files, docmill.LocalFile{Path: p, Filename: filepath.Base(smp.path), ContentType: smp.contentType, Size: int64(len(b))})
	}
	inputs := fileState(t, work)
	r := &result{}
	r.out, r.err = runSafely(ctx, tool, in)
	r.ended = time.Now()
	if entries, _ := os.ReadDir(parent); len(entries) != 1 {
		t.Errorf("the run wrote beside its work directory: %v", entries)
	}
	if after := fileState(t, work); !maps.Equal(inputs, after) {
		t.Errorf("the run changed its inputs or wrote an input- name: %v, then %v", slices.Sorted(maps.Keys(inputs)), slices.Sorted(maps.Keys(after)))
	}
	if r.err != nil {
		return r
	}
	if rel, err := filepath.Rel(work, r.out.Path); err != nil || strings.HasPrefix(rel, "..") || rel == "." {
		t.Fatalf("result %s is not inside the work directory %s", r.out.Path, work)
	}
	if st, err := os.Lstat(r.out.Path); err != nil || !st.Mode().IsRegular() || st.Size() == 0 {
		t.Fatalf("result %s is missing, not a regular file or empty: %v", r.out.Path, err)
	}
	if r.data, err = os.ReadFile(r.out.Path); err != nil {
		t.Fatal(err)
	}
	r.print = Fingerprint(t, r.out.Path)
	checkOutputType(t, tool, in, r.out)
	return r
}

// checkOutputType holds a result's content type to the tool's declaration
// (OutputTypes, or a zip when MayZip), which pipelines rely on.
func checkOutputType(t testing.TB, tool *docmill.Tool, in *docmill.RunInput, out *docmill.RunOutput) {
	t.Helper()
	ct, _, _ := strings.Cut(out.ContentType, ";")
	var types []string
	for _, f := range in.Files {
		types = append(types, f.ContentType)
	}
	if ct == "application/zip" && tool.MayZip {
		return
	}
	if want := tool.OutputTypes(in.Params, types); !slices.Contains(want, strings.TrimSpace(ct)) {
		t.Errorf("result type %q is not one the tool declares (%v)", out.ContentType, want)
	}
}

// runSafely runs tool, turning a panic into an error.
func runSafely(ctx context.Context, tool *docmill.Tool, in *docmill.RunInput) (out *docmill.RunOutput, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, fmt.Errorf("panic: %v", p)
		}
	}()
	return tool.Invoke(ctx, in)
}

// BaseParams are the params of tool's base run (baseParams). A test
// that runs the tools another way (through an SDK over HTTP) sends them
// to run each tool as the suite does.
func (s *Suite) BaseParams(t testing.TB, tool *docmill.Tool) map[string]string {
	return s.baseParams(t, tool)
}

// baseParams are the raw params of the suite's runs of tool: a value for
// each required param (the first that Values offers and ParseParams
// takes), then the caller's Params.
func (s *Suite) baseParams(t testing.TB, tool *docmill.Tool) map[string]string {
	raw := map[string]string{}
	for _, p := range tool.Params {
		if !p.Required {
			continue
		}
		for _, v := range s.candidates(tool, p) {
			if _, err := tool.ParseParams(map[string]string{p.Name: v}); err == nil || onlyRequired(err, tool) {
				raw[p.Name] = v
				break
			}
		}
	}
	maps.Copy(raw, s.Params[tool.Slug])
	return raw
}

// Values are the candidate values of p the suite tries, derived from its
// declaration: its enum; both booleans; a few page selections; its
// bounds and small numbers; a few short strings (a word, a page-number
// format, a permission list, a colour, a page size in millimetres).
func Values(p docmill.Param) []string {
	if len(p.Enum) > 0 {
		return p.Enum
	}
	switch p.Type {
	case docmill.TypeBoolean:
		return []string{"true", "false"}
	case docmill.TypePages:
		return []string{"1", "2", "1-2"}
	case docmill.TypeInteger, docmill.TypeNumber:
		var out []string
		if p.Min != nil {
			out = append(out, fmtNum(*p.Min))
		}
		if p.Max != nil {
			out = append(out, fmtNum(*p.Max))
		}
		return append(out, "2", "1", "50")
	}
	return []string{"conform", "Page {n}", "none", "#ff0000", "print", "100x150"}
}

func fmtNum(f float64) string { return fmt.Sprint(f) }

// candidates are the values of p the suite tries: the suite's own for p
// first (chosen for its samples, or to show quickly that the tool reads
// p), then Values.
func (s *Suite) candidates(tool *docmill.Tool, p docmill.Param) []string {
	return append(slices.Clone(s.Values[tool.Slug+"/"+p.Name]), Values(p)...)
}

// variants returns up to three values of p other than the one in params
// (the base run's) that ParseParams takes beside the base raw params.
func (s *Suite) variants(tool *docmill.Tool, p docmill.Param, base map[string]string, params docmill.Params) []string {
	var out []string
	for _, v := range s.candidates(tool, p) {
		raw := maps.Clone(base)
		raw[p.Name] = v
		got, err := tool.ParseParams(raw)
		if err == nil && got[p.Name] != params[p.Name] && len(out) < 3 {
			out = append(out, v)
		}
	}
	return out
}

// checkParams shows that each of tool's params changes its result on
// smp (or is read: refused beside the base params). first, if not nil,
// is a run of smp on the base params already made (the Output check's).
func (s *Suite) checkParams(t testing.TB, tool *docmill.Tool, smp sample, first *result) {
	if len(tool.Params) == 0 {
		return
	}
	raw := s.baseParams(t, tool)
	params, _ := tool.ParseParams(raw)
	base := s.reproducible(t, tool, raw, smp, first)
	for _, p := range tool.Params {
		s.checkParam(t, tool, smp, p, raw, params, base)
	}
}

// reproducible runs tool on the base params until two runs give the same
// result, at most three times, and returns that result; a tool that never
// does fails, since its params cannot then be judged. (A second run may
// differ now and then where normalization misses something, such as a
// date whose length changes with the second it was written.) first, if
// not nil, is the first of the runs.
func (s *Suite) reproducible(t testing.TB, tool *docmill.Tool, raw map[string]string, smp sample, first *result) *result {
	var runs []*result
	if first != nil {
		runs = append(runs, first)
	}
	for len(runs) < 3 {
		r := s.run(t, context.Background(), tool, raw, s.files(t, tool, smp))
		if r.err != nil {
			t.Fatalf("base run %v: %v", raw, r.err)
		}
		for _, prev := range runs {
			if sameResult(prev, r) {
				return r
			}
		}
		runs = append(runs, r)
	}
	t.Fatalf("three runs of the same input and params all differ (meta %v, %v, %v): the fingerprint must be reproducible for params to be judged", runs[0].out.Meta, runs[1].out.Meta, runs[2].out.Meta)
	return nil
}

// checkParam tries the variants of p in turn until one changes the
// result (a value may equal the tool's implicit behaviour: split's every
// 1 is its default of a file per page).
func (s *Suite) checkParam(t testing.TB, tool *docmill.Tool, smp sample, p docmill.Param, raw map[string]string, params docmill.Params, base *result) {
	vs := s.variants(tool, p, raw, params)
	if len(vs) == 0 {
		if v, ok := refusedBeside(tool, p, raw); ok {
			t.Logf("param %s=%q: valid alone, refused beside %v by the tool's rule across params (it is read)", p.Name, v, raw)
			return
		}
		t.Errorf("param %s: no second valid value derivable from its declaration", p.Name)
		return
	}
	why, listed := s.NoEffect[tool.Slug+"/"+p.Name]
	for _, v := range vs {
		with := maps.Clone(raw)
		with[p.Name] = v
		r := s.run(t, context.Background(), tool, with, s.files(t, tool, smp))
		switch {
		case r.err != nil && namesField(r.err, p.Name):
			t.Logf("param %s=%q: refused beside %v: %v (the tool reads it)", p.Name, v, raw, r.err)
			return
		case r.err != nil:
			t.Errorf("param %s=%q: %v", p.Name, v, r.err)
			return
		case !sameResult(base, r) && listed:
			t.Errorf("param %s=%q is listed as making no difference (%s), but it does: drop it from the list", p.Name, v, why)
			return
		case !sameResult(base, r):
			return
		}
	}
	if !listed {
		t.Errorf("param %s: none of %q (base %q) changes the output or the meta %v", p.Name, vs, params[p.Name], base.out.Meta)
	}
}

// refusedBeside finds a value of p that is valid on its own but refused,
// naming p, beside raw: the tool's CheckParams reads p (percent excludes
// width and height).
func refusedBeside(tool *docmill.Tool, p docmill.Param, raw map[string]string) (string, bool) {
	for _, v := range Values(p) {
		_, alone := tool.ParseParams(map[string]string{p.Name: v})
		with := maps.Clone(raw)
		with[p.Name] = v
		_, beside := tool.ParseParams(with)
		if (alone == nil || onlyRequired(alone, tool)) && beside != nil && namesField(beside, p.Name) {
			return v, true
		}
	}
	return "", false
}

// namesField reports whether err is an invalid_parameter error about
// field.
func namesField(err error, field string) bool {
	var e *docmill.Error
	if !errors.As(err, &e) || e.Code != docmill.CodeInvalidParameter {
		return false
	}
	for _, f := range e.Fields {
		if f.Field == field {
			return true
		}
	}
	return strings.Contains(e.Message, field)
}

func (s *Suite) checkBadInput(t testing.TB, tool *docmill.Tool, smp sample) {
	b, err := os.ReadFile(smp.path)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(label string, data []byte) sample {
		p := filepath.Join(dir, label, filepath.Base(smp.path))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return sample{p, smp.contentType}
	}
	bad := map[string]sample{}
	if !strings.HasPrefix(smp.contentType, "text/") { // cut text is still text
		bad["truncated"] = write("truncated", b[:min(len(b)/2, truncatedSize)])
	}
	if smp.contentType == "application/pdf" {
		bad["encrypted"] = write("encrypted", Encrypt(t, smp.path))
	}
	for _, label := range slices.Sorted(maps.Keys(bad)) {
		r := s.run(t, context.Background(), tool, s.baseParams(t, tool), s.files(t, tool, bad[label]))
		switch {
		case r.err == nil:
			t.Errorf("%s %s: it succeeded (%s, meta %v)", label, smp.contentType, r.out.Filename, r.out.Meta)
		case !isClientError(r.err):
			t.Errorf("%s %s: %v, want a client error", label, smp.contentType, r.err)
		case label == "encrypted" && docmill.ErrorCode(r.err) != docmill.CodeInvalidDocument && !takesPassword(tool):
			t.Errorf("encrypted PDF: %v, want invalid_document", r.err)
		}
	}
}

// truncatedSize is how much of a sample the truncated input keeps: the
// magic number and a little more, so that no repair can recover a page.
const truncatedSize = 64

// takesPassword reports whether tool has a secret param, and so may
// answer an encrypted input with invalid_parameter (a wrong password).
func takesPassword(tool *docmill.Tool) bool {
	return slices.ContainsFunc(tool.Params, func(p docmill.Param) bool { return p.Secret })
}

// Encrypt returns the PDF at path encrypted by qpdf with AES-256, user
// password "user" and owner password "owner".
func Encrypt(t testing.TB, path string) []byte {
	t.Helper()
	out := filepath.Join(t.TempDir(), "encrypted.pdf")
	if b, err := exec.Command("qpdf", "--encrypt", "user", "owner", "256", "--", path, out).CombinedOutput(); err != nil {
		t.Fatalf("qpdf --encrypt: %v\n%s", err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
