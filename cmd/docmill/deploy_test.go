package main

import (
	"encoding/json"
	"flag"
	"net"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/docmill/docmill/internal/testserver"
	"github.com/docmill/docmill/tools/toolstest"
)

// The deployment files cannot be run here (no Docker engine, no systemd
// as PID 1); these tests check what can be checked without them: every
// DOCMILL_* variable is a flag and its value parses, every command line
// parses as the program would parse it, the ports of the load balancer,
// the services, the image and the health checks line up, and the health
// checks themselves answer against a real server.

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

// parseNode parses a docmill command line as run does, its flags from
// args and then from env's DOCMILL_* variables, and returns serve's
// settings (nil for another command, whose flags are parsed and checked
// only).
func parseNode(t *testing.T, file string, args []string, env map[string]string) *serveFlags {
	t.Helper()
	if len(args) == 0 {
		t.Errorf("%s: no command", file)
		return nil
	}
	e := &environment{getenv: func(k string) string { return env[k] }, stdout: new(strings.Builder), stderr: new(strings.Builder)}
	switch args[0] {
	case "serve":
		f, _, err := parseServe(e, args[1:])
		if err != nil {
			t.Errorf("%s: %q: %v", file, args, err)
		}
		return f
	case "migrate":
		fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
		(&dataFlags{}).register(fs)
		if err := e.parse(fs, args[1:]); err != nil || fs.NArg() > 0 {
			t.Errorf("%s: %q: %v", file, args, err)
		}
	default:
		t.Errorf("%s: unknown command %q", file, args[0])
	}
	return nil
}

// dockerfile is what the tests read of deploy/Dockerfile.
type dockerfile struct {
	text   string
	env    map[string]string // ENV
	expose []string          // EXPOSE
	health []string          // HEALTHCHECK ... CMD [...]
	cmd    []string          // CMD [...]
}

// readDockerfile parses deploy/Dockerfile's instructions (continuation
// lines joined).
func readDockerfile(t *testing.T) dockerfile {
	t.Helper()
	data, err := os.ReadFile("../../deploy/Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	d := dockerfile{text: string(data), env: map[string]string{}}
	joined := strings.ReplaceAll(d.text, "\\\n", " ")
	for _, line := range strings.Split(joined, "\n") {
		word, rest, _ := strings.Cut(strings.TrimSpace(line), " ")
		rest = strings.TrimSpace(rest)
		switch word {
		case "ENV":
			for _, kv := range strings.Fields(rest) {
				k, v, _ := strings.Cut(kv, "=")
				d.env[k] = v
			}
		case "EXPOSE":
			d.expose = append(d.expose, strings.Fields(rest)...)
		case "HEALTHCHECK":
			_, array, _ := strings.Cut(rest, " CMD ")
			if err := json.Unmarshal([]byte(array), &d.health); err != nil {
				t.Errorf("Dockerfile: HEALTHCHECK %s: %v", array, err)
			}
		case "CMD":
			if err := json.Unmarshal([]byte(rest), &d.cmd); err != nil {
				t.Errorf("Dockerfile: CMD %s: %v", rest, err)
			}
		}
	}
	return d
}

// TestDockerfile: deploy/Dockerfile installs the engines with the script
// make uses, runs as a user of its own, sets only real flags with values
// that parse, exposes the port its command listens on, and its health
// check, run as written against a real server, passes.
func TestDockerfile(t *testing.T) {
	t.Parallel()
	d := readDockerfile(t)
	for _, want := range []string{"COPY scripts/install-engines.sh", "RUN /tmp/install-engines.sh", "USER docmill", "go build"} {
		if !strings.Contains(d.text, want) {
			t.Errorf("Dockerfile lacks %q", want)
		}
	}
	if _, err := os.Stat("../../scripts/install-engines.sh"); err != nil {
		t.Error(err)
	}
	checkEnvNames(t, "Dockerfile", d.text)
	f := parseNode(t, "Dockerfile CMD", d.cmd, d.env)
	if f == nil {
		t.Fatalf("Dockerfile: CMD %q is not serve", d.cmd)
	}
	port := addrPort(t, f.addr)
	if !slices.Contains(d.expose, port) {
		t.Errorf("Dockerfile: serve listens on %s (%s), EXPOSE %v", port, f.addr, d.expose)
	}
	checkHealthCommand(t, "Dockerfile HEALTHCHECK", d.health, port)
}

// addrPort is the port of a listen address such as ":8080".
func addrPort(t *testing.T, addr string) string {
	t.Helper()
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		t.Errorf("listen address %q: %v", addr, err)
	}
	return port
}

var healthRE = regexp.MustCompile(`/dev/tcp/127\.0\.0\.1/(\d+)\b.*GET (/healthz|/readyz) HTTP.* 200 `)

// checkHealthCommand checks that a container health check (["CMD", ...]
// or the exec form) asks /healthz or /readyz on port and wants a 200, and
// runs it as written, but for the port, with bash: it must pass against a
// real server and fail where nothing listens.
func checkHealthCommand(t *testing.T, what string, argv []string, port string) {
	t.Helper()
	if len(argv) > 0 && argv[0] == "CMD" {
		argv = argv[1:]
	}
	m := healthRE.FindStringSubmatch(strings.Join(argv, " "))
	if m == nil {
		t.Errorf("%s: %q does not ask /healthz or /readyz on 127.0.0.1 for a 200", what, argv)
		return
	}
	if m[1] != port {
		t.Errorf("%s: asks port %s, the server listens on %s", what, m[1], port)
	}
	toolstest.Need(t, "bash")
	run := func(to string) error {
		args := slices.Clone(argv)
		for i := range args {
			args[i] = strings.ReplaceAll(args[i], "/dev/tcp/127.0.0.1/"+port, "/dev/tcp/127.0.0.1/"+to)
		}
		return exec.Command(args[0], args[1:]...).Run()
	}
	s := startServer(t, "", "--dev-key=false")
	_, live, _ := net.SplitHostPort(strings.TrimPrefix(s.URL, "http://"))
	if err := run(live); err != nil {
		t.Errorf("%s against a ready server: %v", what, err)
	}
	_, dead, _ := net.SplitHostPort(testserver.ClosedAddr(t))
	if err := run(dead); err == nil {
		t.Errorf("%s passed with nothing listening", what)
	}
}

// composeService is what the tests read of a service of compose.yaml.
type composeService struct {
	Image       string            `yaml:"image"`
	Command     []string          `yaml:"command"`
	Environment map[string]string `yaml:"environment"`
	Ports       []string          `yaml:"ports"`
	Volumes     []string          `yaml:"volumes"`
	Networks    any               `yaml:"networks"`
	Healthcheck struct {
		Test []string `yaml:"test"`
	} `yaml:"healthcheck"`
	SecurityOpt []string `yaml:"security_opt"`
}

type composeFile struct {
	Services map[string]composeService `yaml:"services"`
	Networks map[string]struct {
		IPAM struct {
			Config []struct {
				Subnet  string `yaml:"subnet"`
				IPRange string `yaml:"ip_range"`
			} `yaml:"config"`
		} `yaml:"ipam"`
	} `yaml:"networks"`
}

var interpolationRE = regexp.MustCompile(`\$\{([A-Z0-9_]+):-([^}]*)\}`)

// interpolate replaces ${NAME:-default} with its default, as compose does
// when NAME is not set.
func interpolate(s string) string { return interpolationRE.ReplaceAllString(s, "$2") }

func readCompose(t *testing.T) (composeFile, string) {
	t.Helper()
	data, err := os.ReadFile("../../deploy/compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var doc composeFile
	if err := yaml.Unmarshal([]byte(interpolate(string(data))), &doc); err != nil {
		t.Fatalf("compose.yaml: %v", err)
	}
	return doc, string(data)
}

// TestComposeFile: deploy/compose.yaml has the cluster's services; the
// docmill nodes' command lines and variables parse as the program parses
// them (over the image's ENV), with the database, bucket and Redis set;
// only the load balancer publishes a port, so api and worker scale; the
// load balancer sends to the api nodes' port, which the image exposes;
// the api nodes trust the load balancer's fixed address alone; every
// health check asks /healthz or /readyz on the node's port and passes
// against a real server.
func TestComposeFile(t *testing.T) {
	t.Parallel()
	doc, text := readCompose(t)
	checkEnvNames(t, "compose.yaml", text)
	for _, name := range []string{"lb", "postgres", "redis", "minio", "bucket", "migrate", "api", "worker"} {
		if _, ok := doc.Services[name]; !ok {
			t.Errorf("compose.yaml: no service %s", name)
		}
	}
	d := readDockerfile(t)
	nodes := map[string]*serveFlags{}
	for _, name := range []string{"migrate", "api", "worker"} {
		svc := doc.Services[name]
		env := map[string]string{}
		for k, v := range d.env {
			env[k] = v
		}
		for k, v := range svc.Environment {
			env[k] = v
		}
		for _, k := range []string{"DOCMILL_DATABASE_URL", "DOCMILL_BLOB_URL", "DOCMILL_REDIS_URL", "DOCMILL_SMTP_URL"} {
			if _, ok := svc.Environment[k]; !ok {
				t.Errorf("compose.yaml %s: %s not set (the anchors did not merge?)", name, k)
			}
		}
		nodes[name] = parseNode(t, "compose.yaml "+name, svc.Command, env)
	}
	api, worker := nodes["api"], nodes["worker"]
	if api == nil || worker == nil {
		t.Fatal("compose.yaml: api or worker does not run serve")
	}
	if api.role != "api" || worker.role != "worker" {
		t.Errorf("compose.yaml: roles %s and %s", api.role, worker.role)
	}
	for name, svc := range doc.Services {
		if len(svc.Ports) > 0 && name != "lb" {
			t.Errorf("compose.yaml %s publishes %v: only the load balancer may (replicas would clash)", name, svc.Ports)
		}
	}
	for name, f := range map[string]*serveFlags{"api": api, "worker": worker} {
		port := addrPort(t, f.addr)
		if !slices.Contains(d.expose, port) {
			t.Errorf("compose.yaml %s listens on %s, the image exposes %v", name, port, d.expose)
		}
		checkHealthCommand(t, "compose.yaml "+name+" healthcheck", doc.Services[name].Healthcheck.Test, port)
	}
	if !slices.Contains(doc.Services["worker"].SecurityOpt, "seccomp=unconfined") {
		t.Error("compose.yaml worker: the engines' jail needs seccomp=unconfined (user namespaces)")
	}
	checkLoadBalancer(t, doc, addrPort(t, api.addr), api)
}

// TestDockerignore: the build context leaves out the local data directory
// (its key database), build outputs, tools and the Git history.
func TestDockerignore(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../../.dockerignore")
	if err != nil {
		t.Fatal(err)
	}
	var patterns []string
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			patterns = append(patterns, strings.Trim(l, "/"))
		}
	}
	for _, want := range []string{"data", "bin", ".git", ".tools", "**/node_modules", "**/*.test"} {
		if !slices.Contains(patterns, want) {
			t.Errorf(".dockerignore does not exclude %s", want)
		}
	}
	for _, p := range patterns {
		if strings.HasPrefix(p, "!") || p == "scripts" || p == "go.mod" || p == "go.sum" {
			t.Errorf(".dockerignore: %s would break the image's build", p)
		}
	}
}
