package main

import (
	"encoding/json"
	"flag"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
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
// variable of one of serve's flags. DOCMILL_PORT, the compose file's own
// interpolation variable (the published port), is not one.
func checkEnvNames(t *testing.T, file, text string) {
	t.Helper()
	fs := serveFlagSet()
	for _, name := range envNameRE.FindAllString(text, -1) {
		if name == "DOCMILL_PORT" && strings.HasPrefix(file, "compose") {
			continue
		}
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
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash to run the health check")
	}
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
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, dead, _ := net.SplitHostPort(ln.Addr().String())
	ln.Close()
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

// checkLoadBalancer checks the lb service: Caddy, pinned, its Caddyfile
// mounted, listening on the port it publishes, proxying to the api
// service on apiPort; its address fixed, outside the range replicas get,
// and the one the api nodes trust.
func checkLoadBalancer(t *testing.T, doc composeFile, apiPort string, api *serveFlags) {
	t.Helper()
	lb := doc.Services["lb"]
	image, tag, _ := strings.Cut(lb.Image, ":")
	if image != "caddy" || tag == "" || tag == "latest" || !strings.Contains(tag, ".") {
		t.Errorf("compose.yaml lb: image %q, want caddy pinned to a version", lb.Image)
	}
	if !slices.Contains(lb.Volumes, "./Caddyfile:/etc/caddy/Caddyfile:ro") {
		t.Errorf("compose.yaml lb: volumes %v do not mount deploy/Caddyfile", lb.Volumes)
	}
	caddy := readCaddyfile(t)
	if len(lb.Ports) != 1 || !strings.HasSuffix(lb.Ports[0], ":"+caddy.listen) {
		t.Errorf("compose.yaml lb: publishes %v, Caddy listens on %s", lb.Ports, caddy.listen)
	}
	if caddy.upstream != "api" || caddy.upstreamPort != apiPort {
		t.Errorf("Caddyfile: proxies to %s:%s, want the api service on %s", caddy.upstream, caddy.upstreamPort, apiPort)
	}
	if !strings.Contains(strings.Join(lb.Healthcheck.Test, " "), "http://127.0.0.1:"+caddy.listen+"/healthz") {
		t.Errorf("compose.yaml lb: healthcheck %q does not ask /healthz through Caddy's port", lb.Healthcheck.Test)
	}

	nets, _ := lb.Networks.(map[string]any)
	var addr netip.Addr
	for name, v := range nets {
		m, _ := v.(map[string]any)
		a, err := netip.ParseAddr(strings.TrimSpace(stringOf(m["ipv4_address"])))
		if err != nil {
			t.Errorf("compose.yaml lb: network %s has no fixed ipv4_address: %v", name, err)
			continue
		}
		addr = a
		for _, c := range doc.Networks[name].IPAM.Config {
			subnet, err1 := netip.ParsePrefix(c.Subnet)
			dynamic, err2 := netip.ParsePrefix(c.IPRange)
			if err1 != nil || err2 != nil || !subnet.Contains(a) || dynamic.Contains(a) {
				t.Errorf("compose.yaml: lb's %s must be in subnet %q and outside ip_range %q", a, c.Subnet, c.IPRange)
			}
		}
	}
	if !addr.IsValid() {
		t.Fatal("compose.yaml lb: no fixed address")
	}
	if len(api.trustedProxies) == 0 || !slices.ContainsFunc(api.trustedProxies, func(p netip.Prefix) bool { return p.Contains(addr) }) {
		t.Errorf("compose.yaml api: --trusted-proxies %v does not name the load balancer's %s", api.trustedProxies, addr)
	}
	for _, p := range api.trustedProxies {
		if p.Bits() != p.Addr().BitLen() {
			t.Errorf("compose.yaml api: --trusted-proxies %s trusts a range; the load balancer alone should be", p)
		}
	}
}

func stringOf(v any) string {
	s, _ := v.(string)
	return s
}

// caddyfile is what the tests read of deploy/Caddyfile.
type caddyfile struct {
	listen                 string // the site's port
	upstream, upstreamPort string // dynamic a NAME PORT
}

// readCaddyfile parses deploy/Caddyfile far enough to check it against
// compose.yaml: balanced braces, one site on a bare port, one
// reverse_proxy with dynamic A upstreams. When caddy is installed, its
// own parser must accept the file too (caddy adapt), and its JSON must
// say the same.
func readCaddyfile(t *testing.T) caddyfile {
	t.Helper()
	data, err := os.ReadFile("../../deploy/Caddyfile")
	if err != nil {
		t.Fatal(err)
	}
	var c caddyfile
	depth := 0
	for _, raw := range strings.Split(string(data), "\n") {
		line, _, _ := strings.Cut(raw, "#")
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if depth == 0 && len(f) == 2 && f[1] == "{" && strings.HasPrefix(f[0], ":") {
			c.listen = strings.TrimPrefix(f[0], ":")
		}
		if len(f) >= 4 && f[0] == "dynamic" && f[1] == "a" {
			c.upstream, c.upstreamPort = f[2], f[3]
		}
		depth += strings.Count(line, "{") - strings.Count(line, "}")
		if depth < 0 {
			t.Fatalf("Caddyfile: unbalanced } in %q", raw)
		}
	}
	if depth != 0 {
		t.Fatalf("Caddyfile: %d unclosed {", depth)
	}
	if _, err := strconv.Atoi(c.listen); err != nil {
		t.Errorf("Caddyfile: no site on a bare port (:8080 {)")
	}
	checkCaddyAdapt(t, c)
	return c
}

// checkCaddyAdapt runs `caddy adapt` on the Caddyfile when caddy is
// installed (it is not a test dependency: Debian's package starts a
// service of its own).
func checkCaddyAdapt(t *testing.T, c caddyfile) {
	t.Helper()
	exe, err := exec.LookPath("caddy")
	if err != nil {
		t.Log("caddy is not installed: the Caddyfile was checked by its structure only")
		return
	}
	out, err := exec.Command(exe, "adapt", "--config", "../../deploy/Caddyfile", "--adapter", "caddyfile").Output()
	if err != nil {
		t.Fatalf("caddy adapt: %v", err)
	}
	var cfg struct {
		Apps struct {
			HTTP struct {
				Servers map[string]struct {
					Listen []string `json:"listen"`
					Routes []struct {
						Handle []struct {
							Handler string `json:"handler"`
							Dynamic struct {
								Source, Name, Port string
							} `json:"dynamic_upstreams"`
						} `json:"handle"`
					} `json:"routes"`
				} `json:"servers"`
			} `json:"http"`
		} `json:"apps"`
	}
	if err := json.Unmarshal(out, &cfg); err != nil {
		t.Fatalf("caddy adapt: %v\n%s", err, out)
	}
	var found bool
	for _, srv := range cfg.Apps.HTTP.Servers {
		for _, r := range srv.Routes {
			for _, h := range r.Handle {
				d := h.Dynamic
				if h.Handler == "reverse_proxy" && d.Source == "a" && d.Name == c.upstream && d.Port == c.upstreamPort &&
					slices.Equal(srv.Listen, []string{":" + c.listen}) {
					found = true
				}
			}
		}
	}
	if !found {
		t.Errorf("caddy adapt: no server on :%s proxying to %s:%s\n%s", c.listen, c.upstream, c.upstreamPort, out)
	}
}

// TestDockerignore: the build context leaves out the local data directory
// (its key database), build outputs, tools and the Git history.
func TestDockerignore(t *testing.T) {
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
