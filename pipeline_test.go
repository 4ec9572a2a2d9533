package docmill_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/docmill/docmill"
)

const pdf = "application/pdf"

// testRegistry holds tools shaped as the real ones are, for the pipeline's
// rules: what each takes and makes, and a few params.
func testRegistry() *docmill.Registry {
	images := []string{"image/jpeg", "image/png", "image/tiff"}
	onePDF := func(slug string, params ...docmill.Param) *docmill.Tool {
		return &docmill.Tool{Slug: slug, Accepts: []string{pdf}, Outputs: []string{pdf}, MinFiles: 1, MaxFiles: 1, Params: params, Timeout: time.Minute}
	}
	merge := onePDF("merge-pdf")
	merge.MinFiles, merge.MaxFiles = 2, 50
	split := onePDF("split-pdf", docmill.Param{Name: "every", Type: docmill.TypeInteger, Min: docmill.Bound(1)})
	split.MayZip = true
	ocr := onePDF("ocr-pdf")
	ocr.Accepts, ocr.Long, ocr.Timeout = append([]string{pdf}, images...), true, 20*time.Minute
	protect := onePDF("protect-pdf", docmill.Param{Name: "password", Type: docmill.TypeString, Required: true, Secret: true})
	return docmill.NewRegistry(
		merge, split, ocr, protect,
		onePDF("watermark-pdf", docmill.Param{Name: "text", Type: docmill.TypeString, Required: true}),
		onePDF("compress-pdf",
			docmill.Param{Name: "preset", Type: docmill.TypeString, Enum: []string{"low", "recommended", "extreme"}, Default: "recommended"},
			docmill.Param{Name: "quality", Type: docmill.TypeInteger, Min: docmill.Bound(1), Max: docmill.Bound(100)}),
		&docmill.Tool{Slug: "pdf-to-text", Accepts: []string{pdf}, Outputs: []string{"text/plain"}, MinFiles: 1, MaxFiles: 1},
		&docmill.Tool{Slug: "resize-image", Accepts: images, Outputs: images, KeepsType: true, MinFiles: 1, MaxFiles: 1},
		&docmill.Tool{Slug: "compress-image", Accepts: images[:2], Outputs: images[:2], KeepsType: true, MinFiles: 1, MaxFiles: 1},
		&docmill.Tool{Slug: "convert-image", Accepts: images, Outputs: images, MinFiles: 1, MaxFiles: 1,
			Params: []docmill.Param{{Name: "format", Type: docmill.TypeString, Enum: []string{"jpg", "png", "tiff"}, Required: true}},
			OutputsFor: func(p docmill.Params) []string {
				return []string{map[string]string{"jpg": "image/jpeg", "png": "image/png", "tiff": "image/tiff"}[p.String("format")]}
			}},
		&docmill.Tool{Slug: "url-to-pdf", Outputs: []string{pdf},
			Params: []docmill.Param{{Name: "url", Type: docmill.TypeURL, Required: true}}},
	)
}

func TestParseSteps(t *testing.T) {
	reg := testRegistry()
	tests := []struct {
		name  string
		steps string
		types []string // nil: before the files are known
		// fields are the fields the refusal names; none: accepted.
		fields []string
		// canon is the accepted steps' String, when checked.
		canon string
	}{
		{name: "the issue's example shape", steps: `[{"tool": "merge-pdf"}, {"tool": "watermark-pdf", "params": {"text": "DRAFT"}}, {"tool": "compress-pdf", "params": {"preset": "EXTREME"}}]`,
			canon: `[{"tool":"merge-pdf"},{"tool":"watermark-pdf","params":{"text":"DRAFT"}},{"tool":"compress-pdf","params":{"preset":"extreme"}}]`},
		{name: "numbers and null as values", steps: `[{"tool": "compress-pdf", "params": {"quality": 40, "preset": null}}]`,
			canon: `[{"tool":"compress-pdf","params":{"preset":"recommended","quality":"40"}}]`},
		{name: "not JSON", steps: `merge-pdf`, fields: []string{"steps"}},
		{name: "not an array", steps: `{"tool": "merge-pdf"}`, fields: []string{"steps"}},
		{name: "null", steps: `null`, fields: []string{"steps"}},
		{name: "no steps", steps: `[]`, fields: []string{"steps"}},
		{name: "eleven steps", steps: "[" + strings.Repeat(`{"tool": "compress-pdf"},`, 10) + `{"tool": "compress-pdf"}]`, fields: []string{"steps"}},
		{name: "ten steps", steps: "[" + strings.Repeat(`{"tool": "compress-pdf"},`, 9) + `{"tool": "compress-pdf"}]`},
		{name: "unknown tool", steps: `[{"tool": "compress-pdf"}, {"tool": "frobnicate"}]`, fields: []string{"steps[1].tool"}},
		{name: "missing tool", steps: `[{"params": {}}]`, fields: []string{"steps[0].tool"}},
		{name: "pipeline in a pipeline", steps: `[{"tool": "pipeline"}]`, fields: []string{"steps[0].tool"}},
		{name: "unknown key", steps: `[{"tool": "compress-pdf", "parms": {}}]`, fields: []string{"steps[0]"}},
		{name: "a step not an object", steps: `[{"tool": "compress-pdf"}, "watermark-pdf"]`, fields: []string{"steps[1]"}},
		{name: "bad param of step 3", steps: `[{"tool": "merge-pdf"}, {"tool": "watermark-pdf", "params": {"text": "x"}}, {"tool": "compress-pdf", "params": {"quality": 500}}]`,
			fields: []string{"steps[2].params.quality"}},
		{name: "unknown param", steps: `[{"tool": "compress-pdf", "params": {"dpi": 72}}]`, fields: []string{"steps[0].params.dpi"}},
		{name: "missing required param", steps: `[{"tool": "watermark-pdf"}]`, fields: []string{"steps[0].params.text"}},
		{name: "object as a value", steps: `[{"tool": "watermark-pdf", "params": {"text": {"a": 1}}}]`, fields: []string{"steps[0].params.text"}},
		{name: "every problem at once", steps: `[{"tool": "nope"}, {"tool": "compress-pdf", "params": {"quality": 0}}]`,
			fields: []string{"steps[0].tool", "steps[1].params.quality"}},
		{name: "split not last", steps: `[{"tool": "split-pdf"}, {"tool": "compress-pdf"}]`, fields: []string{"steps[0].tool"}},
		{name: "split last", steps: `[{"tool": "compress-pdf"}, {"tool": "split-pdf", "params": {"every": 2}}]`},
		{name: "text cannot be compressed as PDF", steps: `[{"tool": "pdf-to-text"}, {"tool": "compress-pdf"}]`, fields: []string{"steps[1].tool"}},
		{name: "images to OCR", steps: `[{"tool": "resize-image"}, {"tool": "ocr-pdf"}, {"tool": "compress-pdf"}]`},
		{name: "resize then compress-image, files unknown", steps: `[{"tool": "resize-image"}, {"tool": "compress-image"}]`},
		{name: "resize then compress-image, a JPEG", steps: `[{"tool": "resize-image"}, {"tool": "compress-image"}]`, types: []string{"image/jpeg"}},
		{name: "resize then compress-image, a TIFF", steps: `[{"tool": "resize-image"}, {"tool": "compress-image"}]`, types: []string{"image/tiff"},
			fields: []string{"steps[1].tool"}},
		{name: "convert a TIFF to PNG, then compress", steps: `[{"tool": "convert-image", "params": {"format": "png"}}, {"tool": "compress-image"}]`, types: []string{"image/tiff"}},
		{name: "a tool that takes no file, first", steps: `[{"tool": "url-to-pdf", "params": {"url": "https://example.com/"}}, {"tool": "compress-pdf"}]`,
			fields: []string{"steps[0].tool"}},
		{name: "a tool that takes no file, later", steps: `[{"tool": "compress-pdf"}, {"tool": "url-to-pdf", "params": {"url": "https://example.com/"}}]`,
			fields: []string{"steps[1].tool"}},
		{name: "convert to TIFF, then compress", steps: `[{"tool": "convert-image", "params": {"format": "tiff"}}, {"tool": "compress-image"}]`,
			fields: []string{"steps[1].tool"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			steps, err := docmill.ParseSteps(reg, tc.steps, tc.types)
			if len(tc.fields) == 0 {
				if err != nil {
					t.Fatalf("ParseSteps = %v; want accepted", err)
				}
				if tc.canon != "" && steps.String() != tc.canon {
					t.Errorf("String = %s; want %s", steps, tc.canon)
				}
				again, err := docmill.ParseSteps(reg, steps.String(), tc.types)
				if err != nil || again.String() != steps.String() {
					t.Errorf("ParseSteps(String()) = %v, %v; want the same steps", again, err)
				}
				return
			}
			e, ok := err.(*docmill.Error)
			if !ok || e.Code != docmill.CodeInvalidParameter {
				t.Fatalf("ParseSteps = %v; want an invalid_parameter error", err)
			}
			var got []string
			for _, f := range e.Fields {
				got = append(got, f.Field)
			}
			if !slices.Equal(got, tc.fields) {
				t.Errorf("fields %v (%s); want %v", got, e.Message, tc.fields)
			}
		})
	}
}

func TestStepsFigures(t *testing.T) {
	reg := testRegistry()
	steps, err := docmill.ParseSteps(reg, `[{"tool": "ocr-pdf"}, {"tool": "protect-pdf", "params": {"password": "s3cret"}}, {"tool": "compress-pdf"}]`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if steps.Operations() != 3 || !steps.Long() {
		t.Errorf("Operations %d, Long %v; want 3, true", steps.Operations(), steps.Long())
	}
	// 20 min + 1 min + 1 min, within 30 min; each step within the limit.
	if got := steps.Timeout(30 * time.Minute); got != 22*time.Minute {
		t.Errorf("Timeout(30m) = %v; want 22m", got)
	}
	if got := steps.Timeout(15 * time.Minute); got != 15*time.Minute {
		t.Errorf("Timeout(15m) = %v; want 15m", got)
	}
	if strings.Contains(steps.Public(), "s3cret") || !strings.Contains(steps.String(), "s3cret") {
		t.Errorf("Public %s, String %s: the password must be in String only", steps.Public(), steps)
	}
	pipe := docmill.NewPipeline(reg, time.Hour, func(context.Context, *docmill.RunInput) (*docmill.RunOutput, error) { return nil, nil })
	kept := pipe.WithoutSecrets(docmill.Params{docmill.StepsParam: steps.String()})
	if strings.Contains(kept[docmill.StepsParam], "s3cret") {
		t.Errorf("WithoutSecrets kept the password: %s", kept[docmill.StepsParam])
	}
	var back []map[string]any
	if err := json.Unmarshal([]byte(kept[docmill.StepsParam]), &back); err != nil || len(back) != 3 {
		t.Errorf("WithoutSecrets = %s, %v; want the three steps", kept[docmill.StepsParam], err)
	}
	if err := steps.CheckInputs([]docmill.InputFile{{Filename: "a.txt", ContentType: "text/plain"}}); docmill.ErrorCode(err) != docmill.CodeUnsupportedFileType {
		t.Errorf("CheckInputs(text) = %v; want unsupported_file_type", err)
	}
	if err := steps.CheckInputs([]docmill.InputFile{{ContentType: pdf}, {ContentType: pdf}}); docmill.ErrorCode(err) != docmill.CodeTooManyFiles {
		t.Errorf("CheckInputs(2 PDFs) = %v; want too_many_files", err)
	}
	// The pipeline's own declaration refuses bad steps in ParseParams.
	if _, err := pipe.ParseParams(map[string]string{"steps": `[{"tool": "compress-pdf", "params": {"quality": 0}}]`}); err == nil ||
		!strings.Contains(err.Error(), "steps[0].params.quality") {
		t.Errorf("ParseParams = %v; want steps[0].params.quality named", err)
	}
	if !pipe.AcceptsType("image/png") || pipe.MaxFiles != 50 {
		t.Errorf("pipeline accepts %v, max files %d; want every tool's types and 50", pipe.Accepts, pipe.MaxFiles)
	}
}

// TestOutputTypesRecodes: a tool that keeps its input's type gives a type
// it does not write as the type Recodes names, so the next step of a
// pipeline is checked against what the tool really makes.
func TestOutputTypesRecodes(t *testing.T) {
	keep := &docmill.Tool{Slug: "resize-image", Accepts: []string{"image/png", "image/jpeg", "image/heif"},
		Outputs: []string{"image/png", "image/jpeg"}, KeepsType: true, Recodes: map[string]string{"image/heif": "image/jpeg"}}
	for _, tt := range []struct{ in, want []string }{
		{[]string{"image/png"}, []string{"image/png"}},
		{[]string{"image/heif"}, []string{"image/jpeg"}},
		{[]string{"image/heif", "image/jpeg", "image/png"}, []string{"image/jpeg", "image/png"}},
		{[]string{"application/pdf"}, []string{}},
	} {
		if got := keep.OutputTypes(nil, tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("OutputTypes(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}
