package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/filecopy"
)

// repairing makes each tool try again on repaired inputs when its parser
// could not read one (docmill.ErrUnreadable): the tools that declare
// Tool.Repairs. repairs are tried in turn, each on the original inputs,
// until the tool reads the result (ghostscript.RepairSteps: qpdf's
// recovery, then Ghostscript's rewrite). Real-world PDFs with a broken
// cross-reference table, wrong offsets or a missing trailer are then
// processed as often as qpdf processes them. When every repair fails, or
// the tool fails otherwise than unreadable on a repair, the first error
// stands. A repaired job's meta says "repaired": true.
func repairing(repairs []docmill.RunFunc, tools ...*docmill.Tool) []*docmill.Tool {
	for _, t := range tools {
		run := t.Run
		t.Run = func(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
			out, err := run(ctx, in)
			if err == nil || !errors.Is(err, docmill.ErrUnreadable) || ctx.Err() != nil {
				return out, err
			}
			for _, repair := range repairs {
				fixed, ok := repairInputs(ctx, repair, in)
				if !ok {
					continue
				}
				out, err2 := run(ctx, fixed)
				if err2 == nil {
					if out.Meta == nil {
						out.Meta = map[string]any{}
					}
					out.Meta["repaired"] = true
					return out, nil
				}
				if !errors.Is(err2, docmill.ErrUnreadable) || ctx.Err() != nil {
					break
				}
			}
			return nil, err
		}
	}
	return tools
}

// repairInputs returns in with every PDF input replaced by its repair,
// each made in a directory of its own inside in.WorkDir (the jail of the
// repair sees only that directory); ok is false when one cannot be
// repaired.
func repairInputs(ctx context.Context, repair docmill.RunFunc, in *docmill.RunInput) (*docmill.RunInput, bool) {
	fixed := *in
	fixed.Files = append([]docmill.LocalFile(nil), in.Files...)
	for i, f := range fixed.Files {
		if f.ContentType != "application/pdf" {
			continue
		}
		dir, err := os.MkdirTemp(in.WorkDir, "repair-")
		if err != nil {
			return nil, false
		}
		src := filepath.Join(dir, "input-0.pdf")
		if err := filecopy.Link(f.Path, src); err != nil {
			return nil, false
		}
		f.Path = src
		out, err := repair(ctx, &docmill.RunInput{Files: []docmill.LocalFile{f}, WorkDir: dir, Limits: in.Limits})
		if err != nil {
			return nil, false
		}
		st, err := os.Stat(out.Path)
		if err != nil {
			return nil, false
		}
		fixed.Files[i].Path, fixed.Files[i].Size = out.Path, st.Size()
	}
	return &fixed, true
}
