package main

import (
	"encoding/json"
	"net/netip"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
)

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
