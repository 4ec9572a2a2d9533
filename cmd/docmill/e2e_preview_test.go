package main

import (
	"bytes"
	"context"
	"image/png"
	"net/http"
	"testing"
	"time"

	"github.com/docmill/docmill/client"
)

// TestResultPreview: asked for (preview=true), a PDF result has a
// preview, its first page as a PNG at 72 dpi, by a signed link, not
// charged; not asked for, or for an image result, there is none; a bad
// value is a 400; the preview goes when the result is deleted.
func TestResultPreview(t *testing.T) {
	t.Parallel()
	s := startServer(t, "")
	ctx := context.Background()
	c := s.client(s.DevKey)

	plain, _, err := c.Process(ctx, "rotate-pdf", []client.File{file(t, "pdf", "minimal-document.pdf")}, client.ProcessOptions{Params: map[string]string{"angle": "90"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := plain.Meta.Int("preview_size"); ok || plain.Result.PreviewURL != "" {
		t.Errorf("a preview no one asked for: %+v", plain.Result)
	}
	_, _, err = c.Process(ctx, "rotate-pdf", []client.File{file(t, "pdf", "minimal-document.pdf")}, client.ProcessOptions{Params: map[string]string{"angle": "90", "preview": "yes"}})
	apiErrorDetail(t, err, 400, "invalid_parameter", "preview")

	before := accountUsage(ctx, t, c).OperationsUsed
	job, _, err := c.Process(ctx, "rotate-pdf", []client.File{file(t, "pdf", "pdflatex-4-pages.pdf")}, client.ProcessOptions{Params: map[string]string{"angle": "90", "preview": "true"}})
	if err != nil {
		t.Fatal(err)
	}
	if job.Result.PreviewURL == "" {
		t.Fatalf("no preview_url: %+v", job.Result)
	}
	img, err := png.Decode(bytes.NewReader(download(t, job.Result.PreviewURL)))
	if err != nil {
		t.Fatalf("the preview is not a PNG: %v", err)
	}
	// The first page, turned a quarter: landscape, at 72 dpi (a letter or
	// A4 page is under 850 points long).
	if b := img.Bounds(); b.Dx() <= b.Dy() || b.Dx() > 850 {
		t.Errorf("preview %v, want a landscape page at 72 dpi", b)
	}
	if n, ok := job.Meta.Int("preview_size"); !ok || n <= 0 {
		t.Errorf("meta.preview_size %v %v", n, ok)
	}
	if used := accountUsage(ctx, t, c).OperationsUsed; used != before+1 {
		t.Errorf("operations used %d after one job, want %d: the preview was charged", used, before+1)
	}

	// An image result shows itself: no preview is made.
	imgJob, _, err := c.Process(ctx, "convert-image", []client.File{file(t, "image", "phone-photo.jpg")}, client.ProcessOptions{Params: map[string]string{"format": "png", "preview": "true"}, Prefer: "wait=60"})
	if err == nil && !imgJob.Finished() { // a loaded machine answers 202 past the wait
		imgJob, err = c.Wait(ctx, imgJob.JobID, time.Second)
	}
	if err != nil || imgJob.Result == nil {
		t.Fatalf("convert-image: %+v %v", imgJob, err)
	}
	if imgJob.Result.PreviewURL != "" {
		t.Errorf("an image result has a preview: %s", imgJob.Result.PreviewURL)
	}

	// Deleting the result deletes its preview.
	if _, err := c.CancelJob(ctx, job.JobID); err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(job.Result.PreviewURL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode == http.StatusOK {
		t.Error("the preview is still served after the result was deleted")
	}
}
