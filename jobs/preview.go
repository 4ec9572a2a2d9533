package jobs

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/docmill/docmill"
)

// A done job whose result is a PDF gets a preview when its request asked
// for one (preview=true; docmill.Job.Preview): its first page as a
// small PNG, shown by the web page before the download. It is made by
// the node's own pdf-to-png tool, so it runs jailed and within the node's
// limits like every engine run, and is stored beside the result
// (docmill.PreviewName), expiring and deleted with it. A preview is not
// an operation: it is never charged, and when it cannot be made (no
// poppler on this node, a page too large to render, the time bound) the
// job goes on without one.

// previewTool makes previews; previewDPI is its lowest resolution (an A4
// page is 595 x 842 pixels).
const (
	previewTool = "pdf-to-png"
	previewDPI  = "72"
)

// previewTimeout bounds the making of one preview.
const previewTimeout = 20 * time.Second

// makePreview stores the preview of out, j's result, and returns its
// size; 0 when none was made. dir is the job's scratch directory.
func (q *Queue[TTx]) makePreview(ctx context.Context, j *docmill.Job, out *docmill.RunOutput, dir string) int64 {
	if !j.Preview || out.ContentType != "application/pdf" || q.cfg.Registry == nil {
		return 0
	}
	tool, ok := q.cfg.Registry.Lookup(previewTool)
	if !ok || !tool.IsAvailable() {
		return 0
	}
	params, err := tool.ParseParams(map[string]string{"dpi": previewDPI, "pages": "1"})
	if err != nil {
		q.cfg.Logger.Warn("preview params refused", "err", err)
		return 0
	}
	fi, err := os.Stat(out.Path)
	if err != nil {
		return 0
	}
	work, err := os.MkdirTemp(dir, "preview-")
	if err != nil {
		return 0
	}
	defer os.RemoveAll(work)
	// The jail shows the engine its work directory only: the result goes
	// in, by a link (it is not changed).
	input := filepath.Join(work, "result.pdf")
	if err := os.Link(out.Path, input); err != nil {
		return 0
	}
	ctx, cancel := context.WithTimeout(ctx, previewTimeout)
	defer cancel()
	in := &docmill.RunInput{
		Files:  []docmill.LocalFile{{Path: input, Filename: out.Filename, ContentType: out.ContentType, Size: fi.Size()}},
		Params: params, WorkDir: work, Limits: q.cfg.Limits.WithDefaults(),
	}
	png, err := tool.Invoke(ctx, in)
	if err != nil || png.ContentType != "image/png" {
		q.cfg.Logger.Debug("no preview", "job_id", j.ID, "err", err)
		return 0
	}
	png.ContentType = "image/png"
	size, err := q.storeResult(ctx, docmill.ResultKey(j.ID, docmill.PreviewName(out.Filename)), png)
	if err != nil {
		q.cfg.Logger.Warn("storing a preview failed", "job_id", j.ID, "err", err)
		return 0
	}
	return size
}

// deleteResult removes a result's file and its preview (which may not
// exist: a missing key is no error).
func deleteResult(ctx context.Context, bl docmill.BlobStore, jobID string, res *docmill.Result) error {
	err := bl.Delete(ctx, res.Key)
	if perr := bl.Delete(ctx, docmill.ResultKey(jobID, docmill.PreviewName(res.Filename))); err == nil {
		err = perr
	}
	return err
}
