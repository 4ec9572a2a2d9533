package sandbox

import "testing"

// TestPaths: host paths become jail paths wherever a path starts, and
// back, and never inside another name or path.
func TestPaths(t *testing.T) {
	var m Paths
	m.add("/data/tmp/job-1", "/job")
	m.add("/data/tmp/pool", "/job-1")
	cases := []struct{ host, jail string }{
		{"/data/tmp/job-1", "/job"},
		{"/data/tmp/job-1/input-0.pdf", "/job/input-0.pdf"},
		{"-sOutputFile=/data/tmp/job-1/out.pdf", "-sOutputFile=/job/out.pdf"},
		{"-env:UserInstallation=file:///data/tmp/pool/profile", "-env:UserInstallation=file:///job-1/profile"},
		{"cat /data/tmp/job-1/a /data/tmp/job-1/b", "cat /job/a /job/b"},
		{"/data/tmp/job-12/x", "/data/tmp/job-12/x"},
		{"/other/data/tmp/job-1/x", "/other/data/tmp/job-1/x"},
		{"HOME=/data/tmp/job-1/run-7", "HOME=/job/run-7"},
	}
	for _, c := range cases {
		if got := m.InJail(c.host); got != c.jail {
			t.Errorf("InJail(%q) = %q, want %q", c.host, got, c.jail)
		}
	}
	// A stage named job inside /job comes back whole.
	if got := m.OnHost("/job/job/out.txt"); got != "/data/tmp/job-1/job/out.txt" {
		t.Errorf("OnHost = %q", got)
	}
	if got := m.OnHost("/job-1/profile"); got != "/data/tmp/pool/profile" {
		t.Errorf("OnHost = %q", got)
	}
}
