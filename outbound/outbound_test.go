package outbound

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/docmill/docmill"
)

func TestAllowed(t *testing.T) {
	tests := []struct {
		ip   string
		want bool
	}{
		{"93.184.215.14", true},
		{"8.8.8.8", true},
		{"2606:4700::1111", true},
		{"127.0.0.1", false},
		{"127.255.0.9", false},
		{"::1", false},
		{"10.0.0.1", false},
		{"172.16.3.4", false},
		{"192.168.1.1", false},
		{"100.64.0.1", false},
		{"169.254.169.254", false}, // cloud metadata
		{"fd00:ec2::254", false},   // AWS metadata over IPv6
		{"fe80::1", false},
		{"fc00::1", false},
		{"224.0.0.1", false},
		{"ff02::1", false},
		{"0.0.0.0", false},
		{"::", false},
		{"255.255.255.255", false},
		{"240.0.0.1", false},
		{"198.18.0.1", false},
		{"::ffff:127.0.0.1", false},       // IPv4-mapped loopback
		{"::ffff:169.254.169.254", false}, // IPv4-mapped metadata
		{"64:ff9b::a00:1", false},         // NAT64 of 10.0.0.1
		{"64:ff9b::808:808", true},        // NAT64 of 8.8.8.8
		{"2002:7f00:1::1", false},         // 6to4 of 127.0.0.1
		{"2001:db8::1", false},
		{"::127.0.0.1", false},         // IPv4-compatible loopback
		{"::a9fe:a9fe", false},         // IPv4-compatible metadata
		{"::ffff:0:7f00:1", false},     // IPv4-translated loopback
		{"2001:0:4136:e378::1", false}, // Teredo
		{"fec0::1", false},             // site-local
	}
	for _, tt := range tests {
		if got := Allowed(netip.MustParseAddr(tt.ip)); got != tt.want {
			t.Errorf("Allowed(%s) = %v, want %v", tt.ip, got, tt.want)
		}
	}
}

// TestDialRefused checks the dialer itself: a connection to a refused
// address fails before it is made, whatever the URL's checks said, and a
// host name is checked by the address it resolves to.
func TestDialRefused(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	c := New(Config{Timeout: 2 * time.Second})
	for _, host := range []string{"127.0.0.1", "10.0.0.1", "169.254.169.254", "[::1]", "[fd00:ec2::254]", "localhost", "[::ffff:127.0.0.1]"} {
		req, _ := http.NewRequest(http.MethodPost, "https://"+host+":"+port+"/hook", strings.NewReader("{}"))
		resp, err := c.Do(req)
		if err == nil {
			resp.Body.Close()
			t.Errorf("POST to %s: sent, want refused", host)
			continue
		}
		if !errors.Is(err, docmill.ErrInternalAddress) {
			t.Errorf("POST to %s: %v, want docmill.ErrInternalAddress", host, err)
		}
	}
}

func TestAllowPrivate(t *testing.T) {
	var ua string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ua = r.Header.Get("User-Agent")
		switch r.URL.Path {
		case "/redirect":
			http.Redirect(w, r, "/big", http.StatusFound)
		case "/big":
			w.Write([]byte(strings.Repeat("x", 1<<20)))
		}
	}))
	defer srv.Close()

	strict := New(Config{})
	resp, err := strict.Do(mustRequest(t, srv.URL+"/big"))
	if err == nil {
		resp.Body.Close()
		t.Fatal("http:// to 127.0.0.1 sent without AllowPrivate")
	}

	c := New(Config{AllowPrivate: true, UserAgent: "docmill-webhooks/test", MaxResponseBytes: 1000})
	resp, err = c.Do(mustRequest(t, srv.URL+"/big"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if len(b) != 1000 {
		t.Errorf("read %d bytes of the answer, want the cap, 1000", len(b))
	}
	if ua != "docmill-webhooks/test" {
		t.Errorf("User-Agent %q", ua)
	}
	resp, err = c.Do(mustRequest(t, srv.URL+"/redirect"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound {
		t.Errorf("redirect: %d, want the 302 itself (not followed)", resp.StatusCode)
	}
}

func mustRequest(t *testing.T, url string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

func TestCheckURL(t *testing.T) {
	strict, lax := New(Config{}), New(Config{AllowPrivate: true})
	tests := []struct {
		url         string
		strict, lax bool // accepted
	}{
		{"https://93.184.215.14/hook", true, true},
		{"https://127.0.0.1/hook", false, true},
		{"https://10.0.0.1/hook", false, true},
		{"https://169.254.169.254/latest/meta-data", false, true},
		{"https://[::1]:8443/hook", false, true},
		{"https://[fd00:ec2::254]/", false, true},
		{"https://localhost/hook", false, true}, // resolves to loopback
		{"http://93.184.215.14/hook", false, true},
		{"http://127.0.0.1:9999/hook", false, true},
		{"ftp://93.184.215.14/", false, false},
		{"/relative", false, false},
		{"https://", false, false},
		{"not a url", false, false},
		{"https://no-such-host.invalid/hook", false, true},
	}
	ctx := context.Background()
	for _, tt := range tests {
		for _, c := range []struct {
			client *Client
			want   bool
			name   string
		}{{strict, tt.strict, "strict"}, {lax, tt.lax, "allow-private"}} {
			err := c.client.CheckURL(ctx, "url", tt.url)
			if (err == nil) != c.want {
				t.Errorf("%s CheckURL(%q) = %v, want accepted %v", c.name, tt.url, err, c.want)
			}
			var e *docmill.Error
			if err != nil && (!errors.As(err, &e) || e.Code != docmill.CodeInvalidParameter || e.Fields[0].Field != "url") {
				t.Errorf("%s CheckURL(%q) = %v, want invalid_parameter on url", c.name, tt.url, err)
			}
		}
	}
}

// TestFetch checks Fetch: redirects followed within MaxRedirects, no cap
// on the body when MaxResponseBytes is negative, and the header timeout,
// which covers a server that accepts and never answers but not a body
// that streams slowly after the header.
func TestFetch(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/hop":
			http.Redirect(w, r, "/big", http.StatusFound)
		case "/hop2":
			http.Redirect(w, r, "/hop", http.StatusFound)
		case "/big":
			w.Write([]byte(strings.Repeat("x", 1<<20)))
		case "/stall":
			<-r.Context().Done() // never answers: the client's header timeout ends the request
		case "/slowbody":
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			time.Sleep(700 * time.Millisecond) // not ordering: a body slower than the header timeout, what is tested
			w.Write([]byte("late"))
		}
	}))
	defer srv.Close()
	c := New(Config{AllowPrivate: true, Timeout: -1, HeaderTimeout: 500 * time.Millisecond, MaxResponseBytes: -1, MaxRedirects: 1})
	resp, err := c.Fetch(context.Background(), srv.URL+"/hop")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || len(b) != 1<<20 {
		t.Errorf("/hop: %d, %d bytes; want 200 and the whole 1 MiB", resp.StatusCode, len(b))
	}
	resp, err = c.Fetch(context.Background(), srv.URL+"/hop2")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound {
		t.Errorf("two redirects with MaxRedirects 1: %d, want the 302 itself", resp.StatusCode)
	}
	start := time.Now()
	_, err = c.Fetch(context.Background(), srv.URL+"/stall")
	if !errors.Is(err, ErrHeaderTimeout) {
		t.Errorf("/stall: %v, want ErrHeaderTimeout", err)
	}
	if d := time.Since(start); d > 1500*time.Millisecond {
		t.Errorf("/stall took %v, want about the 500ms header timeout", d)
	}
	resp, err = c.Fetch(context.Background(), srv.URL+"/slowbody")
	if err != nil {
		t.Fatal(err)
	}
	b, err = io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || string(b) != "late" {
		t.Errorf("/slowbody: %q, %v; want the body read past the header timeout", b, err)
	}
	if _, err := New(Config{Timeout: -1}).Fetch(context.Background(), srv.URL+"/big"); !errors.Is(err, docmill.ErrInsecureURL) {
		t.Errorf("http:// without AllowPrivate: %v, want ErrInsecureURL", err)
	}
}
