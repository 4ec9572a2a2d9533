package storetest

import (
	"errors"
	"testing"

	"github.com/docmill/docmill"
)

// testExport: a job's export is stored with the job, read back as it was,
// and replaced by SetExport whatever the job's status.
func testExport(t *testing.T, s docmill.Store) {
	a, _, _ := NewAccount(t, s, docmill.PlanPro)
	in := NewJob(a)
	in.Export = &docmill.Export{URL: "https://bucket.example.com/k?X-Amz-Signature=abc", KeepResult: true, Status: docmill.ExportPending}
	got, err := s.CreateJob(t.Context(), in, docmill.Admission{Period: period})
	if err != nil {
		t.Fatalf("CreateJob: %v", err)
	}
	if got.Export == nil || *got.Export != *in.Export {
		t.Fatalf("CreateJob: export %+v, want %+v", got.Export, in.Export)
	}
	done := &docmill.Export{URL: "https://bucket.example.com/k", Status: docmill.ExportFailed, Reason: "HTTP 403", Attempts: 1}
	if err := s.SetExport(t.Context(), in.ID, done); err != nil {
		t.Fatalf("SetExport: %v", err)
	}
	if j := mustJob(t, s, in.ID); j.Export == nil || *j.Export != *done {
		t.Errorf("after SetExport: %+v, want %+v", j.Export, done)
	}
	if err := s.SetExport(t.Context(), "job_none", done); !errors.Is(err, docmill.ErrNotFound) {
		t.Errorf("SetExport of an unknown job: %v, want ErrNotFound", err)
	}
	plain := NewJob(a)
	if _, err := s.CreateJob(t.Context(), plain, docmill.Admission{Period: period}); err != nil {
		t.Fatalf("CreateJob: %v", err)
	}
	if j := mustJob(t, s, plain.ID); j.Export != nil {
		t.Errorf("a job without export reads back with %+v", j.Export)
	}
}
