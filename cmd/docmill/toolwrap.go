package main

import (
	"context"

	"github.com/docmill/docmill"
)

// toolWrappers are what toolset puts around the tools' runs, each where a
// tool's declaration asks for it: the PDF stream check (Tool.CheckPDFs),
// repairs (Tool.Repairs) and image conversion (Tool.ConvertsImages).
type toolWrappers struct {
	// check is the stream check, run in the PDF helper.
	check docmill.RunFunc
	// repairs are tried in turn (see repairing).
	repairs []docmill.RunFunc
	// convert is the tool that provides docmill.CapConvertImage, or nil.
	convert *docmill.Tool
}

// apply wraps each of tools as its declaration asks: repairs innermost,
// so that a repaired input passes the check too, and the conversion of
// images outermost.
func (w toolWrappers) apply(tools []*docmill.Tool) {
	for _, t := range tools {
		if t.Repairs {
			repairing(w.repairs, t)
		}
		if t.CheckPDFs {
			t.Run = checkedPDFs(w.check, t.Run)
		}
		if t.ConvertsImages != "" {
			convertedImages(t, w.convert)
		}
	}
}

// checkedPDFs makes every PDF input of run pass check (the stream check,
// run in the PDF helper) before run's engine sees it, so that a flate
// bomb is refused at once instead of costing an engine minutes.
func checkedPDFs(check, run docmill.RunFunc) docmill.RunFunc {
	return func(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
		for _, f := range in.Files {
			if f.ContentType != "application/pdf" {
				continue
			}
			if _, err := check(ctx, &docmill.RunInput{Files: []docmill.LocalFile{f}, WorkDir: in.WorkDir, Limits: in.Limits}); err != nil {
				return nil, err
			}
		}
		return run(ctx, in)
	}
}
