package docmill

import (
	"regexp"
	"testing"
)

func TestNewJobID(t *testing.T) {
	pattern := regexp.MustCompile(`^job_[a-z2-7]{26}$`)
	seen := map[string]bool{}
	for range 1000 {
		id := NewJobID()
		if !pattern.MatchString(id) {
			t.Fatalf("NewJobID() = %q, want %v", id, pattern)
		}
		if seen[id] {
			t.Fatalf("duplicate id %q", id)
		}
		seen[id] = true
	}
}

func TestStatusFinished(t *testing.T) {
	tests := []struct {
		s    Status
		want bool
	}{
		{StatusQueued, false},
		{StatusProcessing, false},
		{StatusDone, true},
		{StatusFailed, true},
		{StatusCanceled, true},
	}
	for _, tt := range tests {
		if got := tt.s.Finished(); got != tt.want {
			t.Errorf("%s.Finished() = %v, want %v", tt.s, got, tt.want)
		}
	}
}

func TestJobInputSize(t *testing.T) {
	j := &Job{Inputs: []InputFile{{Size: 10}, {Size: 32}}}
	if got := j.InputSize(); got != 42 {
		t.Errorf("InputSize = %d, want 42", got)
	}
	if got := (&Job{}).InputSize(); got != 0 {
		t.Errorf("InputSize of no inputs = %d", got)
	}
}

func TestResultName(t *testing.T) {
	for _, tc := range []struct{ in, ext, suffix, want string }{
		{"report.pdf", ".pdf", "-rotated.pdf", "report-rotated.pdf"},
		{`C:\docs\Report.PDF`, ".pdf", ".zip", "Report.zip"},
		{"a/b/notes.txt", ".pdf", "-x.pdf", "notes.txt-x.pdf"},
		{"scan.tiff", "", "-ocr.pdf", "scan-ocr.pdf"},
		{"archive.v2.scan", "", ".pdf", "archive.v2.pdf"},
		{"README", "", ".pdf", "README.pdf"},
		{".md", "", ".pdf", "document.pdf"},
		{"", ".pdf", ".pdf", "document.pdf"},
	} {
		if got := ResultName(tc.in, tc.ext, tc.suffix); got != tc.want {
			t.Errorf("ResultName(%q, %q, %q) = %q, want %q", tc.in, tc.ext, tc.suffix, got, tc.want)
		}
	}
}
