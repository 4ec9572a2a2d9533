package main

import (
	"github.com/docmill/docmill/sandbox"
	"github.com/docmill/docmill/tools/toolstest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// maxUnitExposure is the highest overall exposure `systemd-analyze
// security` may give deploy/docmill.service: what remains is what the
// engines' jail needs (the unit's comment says which and why).
const maxUnitExposure = 3.0

// TestSystemdUnit: deploy/docmill.service passes systemd-analyze verify
// (its ExecStart pointed at an existing program), its command line and
// DOCMILL_* settings parse as the program parses them, and its exposure
// stays at or below maxUnitExposure.
func TestSystemdUnit(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../../deploy/docmill.service")
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	checkEnvNames(t, "docmill.service", text)
	env := map[string]string{}
	var execLine string
	for _, line := range strings.Split(text, "\n") {
		if v, ok := strings.CutPrefix(line, "Environment="); ok {
			k, val, _ := strings.Cut(v, "=")
			env[k] = val
		}
		if v, ok := strings.CutPrefix(line, "ExecStart="); ok {
			execLine = v
		}
	}
	f := strings.Fields(execLine)
	if len(f) < 2 || f[0] != "/usr/local/bin/docmill" {
		t.Fatalf("ExecStart=%s", execLine)
	}
	parseNode(t, "docmill.service", f[1:], env)

	toolstest.Need(t, "systemd-analyze")
	exe, err := sandbox.LookPath("systemd-analyze")
	if err != nil {
		t.Fatal(err)
	}
	unit := filepath.Join(t.TempDir(), "docmill.service")
	self, _ := os.Executable()
	if err := os.WriteFile(unit, []byte(strings.ReplaceAll(text, "/usr/local/bin/docmill", self)), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(exe, "verify", unit).CombinedOutput(); err != nil || len(out) > 0 {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
	checkUnitExposure(t, exe, unit)
}

var exposureRE = regexp.MustCompile(`Overall exposure level for \S+: (\d+\.\d+)`)

// checkUnitExposure runs `systemd-analyze security --offline=true` on unit
// and fails above maxUnitExposure. Older systemd-analyze versions have no
// --offline; the score is then not checked.
func checkUnitExposure(t *testing.T, exe, unit string) {
	t.Helper()
	out, err := exec.Command(exe, "security", "--offline=true", "--no-pager", unit).CombinedOutput()
	m := exposureRE.FindSubmatch(out)
	if m == nil {
		if strings.Contains(string(out), "offline") {
			t.Logf("systemd-analyze security cannot analyze a unit file here: %v\n%s", err, out)
			return
		}
		t.Fatalf("systemd-analyze security: %v\n%s", err, out)
	}
	score, _ := strconv.ParseFloat(string(m[1]), 64)
	if score > maxUnitExposure {
		t.Errorf("systemd-analyze security: exposure %.1f, want at most %.1f\n%s", score, maxUnitExposure, out)
	}
}
