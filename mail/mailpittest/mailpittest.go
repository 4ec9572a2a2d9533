// Package mailpittest runs a real SMTP server, Mailpit, for tests that send
// mail, and reads what it received through Mailpit's HTTP API.
//
// The mailpit binary is looked up on PATH, then in $GOBIN and $GOPATH/bin;
// scripts/install-mailpit.sh (make test-deps) installs it. When it is
// missing, Start fails the test: mail tests are never skipped.
package mailpittest

import (
	"bytes"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/docmill/docmill/internal/testserver"
)

// Binary is the name of the Mailpit executable.
const Binary = "mailpit"

// TLSMode is how the SMTP port speaks TLS.
type TLSMode int

const (
	// NoTLS serves plain SMTP (smtp://), offering no STARTTLS.
	NoTLS TLSMode = iota
	// STARTTLS serves smtp:// and offers STARTTLS, with a certificate the
	// test made (Server.CAPool trusts it).
	STARTTLS
	// ImplicitTLS serves smtps://: TLS from the first byte.
	ImplicitTLS
)

// Option changes how Start runs Mailpit.
type Option func(*options)

type options struct {
	tls        TLSMode
	auth       bool
	recipients string
}

// WithTLS serves SMTP with TLS mode m.
func WithTLS(m TLSMode) Option { return func(o *options) { o.tls = m } }

// WithAuth makes the server offer SMTP AUTH and accept any user name and
// password; SMTPURL then carries "user:secret@". Mailpit offers AUTH on a
// plain connection only when told to (it is insecure), which this does.
func WithAuth() Option { return func(o *options) { o.auth = true } }

// WithAllowedRecipients makes the server refuse, with a permanent error
// (550) to RCPT TO, every recipient that the regular expression re does
// not match.
func WithAllowedRecipients(re string) Option { return func(o *options) { o.recipients = re } }

// Server is a running Mailpit on 127.0.0.1, its messages in a database
// file that outlives Stop, so that Restart keeps what it received.
type Server struct {
	// SMTPURL is the URL to send to: smtp://127.0.0.1:port, or smtps://
	// with ImplicitTLS; with "user:secret@" under WithAuth.
	SMTPURL string
	// SMTPAddr is the SMTP host:port.
	SMTPAddr string
	// HTTPURL is the base URL of the web UI and API, http://127.0.0.1:port.
	HTTPURL string
	// CAPool trusts the server's certificate (nil with NoTLS); CAFile is
	// that certificate as a PEM file.
	CAPool *x509.CertPool
	CAFile string

	t      testing.TB
	bin    string
	args   []string
	client *http.Client

	mu      sync.Mutex // guards the fields below
	cmd     *exec.Cmd
	exited  chan struct{} // closed when cmd has exited
	waitErr error         // set before exited is closed
	log     *bytes.Buffer
}

// Start runs Mailpit on free 127.0.0.1 ports (SMTP and HTTP), waits until
// both answer, and kills it when t ends. It fails t, saying how to install
// Mailpit, when the binary is missing.
func Start(t testing.TB, opts ...Option) *Server {
	t.Helper()
	bin, err := FindBinary()
	if err != nil {
		t.Fatalf("mailpittest: %v; install it with `make test-deps` (scripts/install-mailpit.sh)", err)
	}
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	var lastErr error
	for range 3 { // a free port can be taken between picking and binding it
		s, err := newServer(t, bin, o)
		if err == nil {
			err = s.run()
		}
		if err == nil {
			t.Cleanup(s.Stop)
			return s
		}
		lastErr = err
	}
	t.Fatalf("mailpittest: start mailpit: %v", lastErr)
	return nil
}

// FindBinary returns the path of the mailpit executable (testserver.Find).
func FindBinary() (string, error) { return testserver.Find(Binary) }

// newServer picks the ports, writes the certificate if one is needed, and
// composes the command line; run starts it.
func newServer(t testing.TB, bin string, o options) (*Server, error) {
	smtpPort, err := testserver.FreePort()
	if err != nil {
		return nil, err
	}
	httpPort, err := testserver.FreePort()
	if err != nil {
		return nil, err
	}
	dir := t.TempDir()
	s := &Server{
		SMTPAddr: "127.0.0.1:" + strconv.Itoa(smtpPort),
		HTTPURL:  "http://127.0.0.1:" + strconv.Itoa(httpPort),
		t:        t,
		bin:      bin,
		client:   &http.Client{Timeout: 10 * time.Second},
	}
	s.args = []string{
		"--database", filepath.Join(dir, "mailpit.db"),
		"--listen", "127.0.0.1:" + strconv.Itoa(httpPort),
		"--smtp", s.SMTPAddr,
		"--disable-version-check", "--smtp-disable-rdns", "--quiet",
		"--max", "10000",
	}
	scheme, user := "smtp", ""
	if o.tls != NoTLS {
		certFile, keyFile, pool, err := writeCert(dir)
		if err != nil {
			return nil, err
		}
		s.CAPool, s.CAFile = pool, certFile
		s.args = append(s.args, "--smtp-tls-cert", certFile, "--smtp-tls-key", keyFile)
		if o.tls == ImplicitTLS {
			scheme = "smtps"
			s.args = append(s.args, "--smtp-require-tls")
		}
	}
	if o.auth {
		user = "user:secret@"
		s.args = append(s.args, "--smtp-auth-accept-any")
		if o.tls == NoTLS {
			s.args = append(s.args, "--smtp-auth-allow-insecure")
		}
	}
	if o.recipients != "" {
		s.args = append(s.args, "--smtp-allowed-recipients", o.recipients)
	}
	s.SMTPURL = scheme + "://" + user + s.SMTPAddr
	return s, nil
}

// run starts the process and waits until its SMTP and HTTP ports answer.
func (s *Server) run() error {
	cmd := exec.Command(s.bin, s.args...)
	log := new(bytes.Buffer)
	cmd.Stdout = testserver.LockedWriter{Mu: &s.mu, W: log}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan struct{})
	s.mu.Lock()
	s.cmd, s.exited, s.log, s.waitErr = cmd, exited, log, nil
	s.mu.Unlock()
	go func() {
		err := cmd.Wait()
		s.mu.Lock()
		s.waitErr = err
		s.mu.Unlock()
		close(exited)
	}()
	if err := s.waitReady(exited, 30*time.Second); err != nil {
		s.kill()
		return fmt.Errorf("%w; output:\n%s", err, s.Output())
	}
	return nil
}

// waitReady waits until the HTTP API says ready and the SMTP port accepts
// connections.
func (s *Server) waitReady(exited <-chan struct{}, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		select {
		case <-exited:
			return errors.New("mailpit exited")
		default:
		}
		err := s.ready()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("mailpit was not ready within %v: %w", timeout, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (s *Server) ready() error {
	resp, err := s.client.Get(s.HTTPURL + "/readyz")
	if err != nil {
		return err
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("readyz: %s", resp.Status)
	}
	c, err := net.DialTimeout("tcp", s.SMTPAddr, time.Second)
	if err != nil {
		return err
	}
	return c.Close()
}

// Stop kills the server and waits for it to exit; its SMTP port then
// refuses connections. Restart starts it again. Stop may be called more
// than once; Start registers it with t.Cleanup.
func (s *Server) Stop() { s.kill() }

func (s *Server) kill() {
	s.mu.Lock()
	cmd, exited := s.cmd, s.exited
	s.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Kill()
	<-exited
}

// Restart starts a stopped server again on the same ports with the same
// messages, and waits until it answers. It fails the test (call it from
// the test's goroutine) when it cannot.
func (s *Server) Restart() {
	s.t.Helper()
	s.kill()
	var err error
	for range 50 { // a port of the old process may linger a moment
		if err = s.run(); err == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	s.t.Fatalf("mailpittest: restart mailpit: %v", err)
}

// Output returns what the current process has printed so far.
func (s *Server) Output() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.log == nil {
		return ""
	}
	return s.log.String()
}
