package main

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// serveFlagSet is serve's flags, to check the deployment files' settings
// against.
func serveFlagSet() *flag.FlagSet {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	(&serveFlags{}).register(fs)
	return fs
}

var envNameRE = regexp.MustCompile(`\bDOCMILL_[A-Z0-9_]+`)

// checkEnvNames fails for every DOCMILL_* name in text that is not the
// variable of one of serve's flags.
func checkEnvNames(t *testing.T, file, text string) {
	t.Helper()
	fs := serveFlagSet()
	for _, name := range envNameRE.FindAllString(text, -1) {
		flagName := strings.ReplaceAll(strings.ToLower(strings.TrimPrefix(name, "DOCMILL_")), "_", "-")
		if fs.Lookup(flagName) == nil {
			t.Errorf("%s: %s is no flag's variable (no --%s)", file, name, flagName)
		}
	}
}

// checkArgs fails unless args is a docmill command line that parses.
func checkArgs(t *testing.T, file string, args []string) {
	t.Helper()
	if len(args) == 0 {
		t.Errorf("%s: no command", file)
		return
	}
	switch args[0] {
	case "serve":
		fs := serveFlagSet()
		fs.SetOutput(new(strings.Builder))
		if err := fs.Parse(args[1:]); err != nil || fs.NArg() > 0 {
			t.Errorf("%s: serve %q: %v", file, args[1:], err)
		}
	case "migrate":
	default:
		t.Errorf("%s: unknown command %q", file, args[0])
	}
}

// TestComposeFile: deploy/compose.yaml parses, has the distributed shape's
// services, and sets only real flags and commands.
func TestComposeFile(t *testing.T) {
	data, err := os.ReadFile("../../deploy/compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Services map[string]struct {
			Command     []string          `yaml:"command"`
			Environment map[string]string `yaml:"environment"`
			Image       string            `yaml:"image"`
		} `yaml:"services"`
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("compose.yaml: %v", err)
	}
	for _, name := range []string{"postgres", "redis", "minio", "bucket", "migrate", "api", "worker"} {
		if _, ok := doc.Services[name]; !ok {
			t.Errorf("compose.yaml: no service %s", name)
		}
	}
	for _, name := range []string{"migrate", "api", "worker"} {
		svc := doc.Services[name]
		checkArgs(t, "compose.yaml "+name, svc.Command)
		for _, k := range []string{"DOCMILL_DATABASE_URL", "DOCMILL_BLOB_URL", "DOCMILL_REDIS_URL"} {
			if svc.Environment[k] == "" {
				t.Errorf("compose.yaml %s: %s not set (the anchors did not merge?)", name, k)
			}
		}
	}
	if !slices.Contains(doc.Services["api"].Command, "api") || !slices.Contains(doc.Services["worker"].Command, "worker") {
		t.Errorf("compose.yaml: roles %v / %v", doc.Services["api"].Command, doc.Services["worker"].Command)
	}
	checkEnvNames(t, "compose.yaml", string(data))
}

// TestDockerfile: deploy/Dockerfile installs the engines with the script
// make uses, runs as a user of its own, and sets only real flags.
func TestDockerfile(t *testing.T) {
	data, err := os.ReadFile("../../deploy/Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for _, want := range []string{"COPY scripts/install-engines.sh", "RUN /tmp/install-engines.sh", "USER docmill", `CMD ["serve"]`, "go build"} {
		if !strings.Contains(text, want) {
			t.Errorf("Dockerfile lacks %q", want)
		}
	}
	if _, err := os.Stat("../../scripts/install-engines.sh"); err != nil {
		t.Error(err)
	}
	checkEnvNames(t, "Dockerfile", text)
}

// TestSystemdUnit: deploy/docmill.service passes systemd-analyze verify
// (its ExecStart pointed at an existing program) and sets only real flags.
func TestSystemdUnit(t *testing.T) {
	data, err := os.ReadFile("../../deploy/docmill.service")
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	checkEnvNames(t, "docmill.service", text)
	exe, err := exec.LookPath("systemd-analyze")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("systemd-analyze is missing (make test-deps installs systemd)")
		}
		t.Skip("systemd-analyze is missing; make test-deps installs it")
	}
	unit := filepath.Join(t.TempDir(), "docmill.service")
	self, _ := os.Executable()
	if err := os.WriteFile(unit, []byte(strings.ReplaceAll(text, "/usr/local/bin/docmill", self)), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(exe, "verify", unit).CombinedOutput(); err != nil || len(out) > 0 {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
	var exec string
	for _, line := range strings.Split(text, "\n") {
		if v, ok := strings.CutPrefix(line, "ExecStart="); ok {
			exec = v
		}
	}
	f := strings.Fields(exec)
	if len(f) < 2 || f[0] != "/usr/local/bin/docmill" {
		t.Fatalf("ExecStart=%s", exec)
	}
	checkArgs(t, "docmill.service", f[1:])
}
