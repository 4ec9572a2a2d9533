package diskspace

import (
	"testing"

	"github.com/docmill/docmill"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Threshold
	}{
		{"1GB", Threshold{Bytes: 1 << 30}},
		{"512MB", Threshold{Bytes: 512 << 20}},
		{"512mb", Threshold{Bytes: 512 << 20}},
		{"64KiB", Threshold{Bytes: 64 << 10}},
		{"1.5G", Threshold{Bytes: 3 << 29}},
		{"2 TB", Threshold{Bytes: 2 << 40}},
		{"1048576", Threshold{Bytes: 1 << 20}},
		{"100B", Threshold{Bytes: 100}},
		{"0", Threshold{}},
		{"5%", Threshold{Percent: 5}},
		{"0.5%", Threshold{Percent: 0.5}},
		{"100%", Threshold{Percent: 100}},
		{"1GB,5%", Threshold{Bytes: 1 << 30, Percent: 5}},
		{"5%, 1GB", Threshold{Bytes: 1 << 30, Percent: 5}},
	} {
		got, err := Parse(c.in)
		if err != nil || got != c.want {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "GB", "-1GB", "1PB", "1 GB GB", "101%", "-5%", "%", "five%", "1GB,2GB", "5%,6%", "1GB,5%,1", "NaN", "NaN%", "1e30GB", "0x10"} {
		if got, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) = %+v, want an error", bad, got)
		}
	}
}

func TestThresholdStringRoundTrips(t *testing.T) {
	for _, s := range []string{"1GB", "512MB", "5%", "1GB,5%", "0", "1536KB", "1000"} {
		th, err := Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := th.String(); got != s {
			t.Errorf("Parse(%q).String() = %q", s, got)
		}
	}
	if got := DefaultThreshold.String(); got != "1GB,5%" {
		t.Errorf("default %q", got)
	}
}

func TestThresholdOf(t *testing.T) {
	const gb = int64(1) << 30
	for _, c := range []struct {
		t     Threshold
		total int64
		want  int64
	}{
		{DefaultThreshold, 100 * gb, gb},            // 5% is 5 GB: 1 GB is smaller
		{DefaultThreshold, 10 * gb, gb / 2},         // 5% is 512 MB
		{DefaultThreshold, 64 << 20, 64 << 20 / 20}, // a 64 MB tmpfs keeps 3.2 MB
		{Threshold{Bytes: 8 << 20}, 64 << 20, 8 << 20},
		{Threshold{Percent: 50}, 64 << 20, 32 << 20},
		{Threshold{}, 64 << 20, 0},
	} {
		if got := c.t.Of(c.total); got != c.want {
			t.Errorf("%v.Of(%d) = %d, want %d", c.t, c.total, got, c.want)
		}
	}
}

// TestGuard measures a real directory: whatever its free space, a
// threshold of nothing admits a small upload and one of 100% refuses any.
func TestGuard(t *testing.T) {
	dir := t.TempDir()
	u, err := Stat(dir)
	if err != nil || u.Total <= 0 || u.Free < 0 || u.Free > u.Total {
		t.Fatalf("Stat: %+v %v", u, err)
	}
	open := &Guard{Areas: []Area{{Name: "files", Path: dir, Uploads: true}, {Name: "scratch", Path: dir}}}
	if err := open.Admit(1); err != nil {
		t.Fatalf("no minimum: %v", err)
	}
	if err := open.Admit(u.Total + 1); docmill.ErrorCode(err) != docmill.CodeInsufficientStorage {
		t.Fatalf("an upload larger than the disk: %v", err)
	}
	for _, d := range open.Check() {
		if !d.OK || d.TotalBytes != u.Total || d.MinFreeBytes != 0 {
			t.Fatalf("check: %+v", d)
		}
	}
	full := &Guard{Min: Threshold{Percent: 100}, Areas: open.Areas}
	err = full.Admit(-1)
	e := docmill.AsError(err)
	if e.Code != docmill.CodeInsufficientStorage || e.RetryAfter != docmill.StorageRetryAfter {
		t.Fatalf("100%% minimum: %v", err)
	}
	for _, d := range full.Check() {
		if d.OK {
			t.Fatalf("check under a 100%% minimum: %+v", d)
		}
	}
	// Only upload areas decide admission.
	scratchOnly := &Guard{Min: Threshold{Percent: 100}, Areas: open.Areas[1:]}
	if err := scratchOnly.Admit(1); err != nil {
		t.Fatalf("scratch only: %v", err)
	}
	gone := &Guard{Areas: []Area{{Name: "files", Path: dir + "/missing", Uploads: true}}}
	if d := gone.Check(); len(d) != 1 || d[0].OK || d[0].Name != "files" {
		t.Fatalf("missing dir: %+v", d)
	}
}
