// Package s3test runs a real S3-compatible server, versitygw, for tests that
// need an S3 bucket: the blob conformance suite and the distributed-mode
// tests of other packages.
//
// The versitygw binary is looked up on PATH, then in $GOBIN and
// $GOPATH/bin; scripts/install-versitygw.sh installs it. When it is
// missing, Start skips the test, or fails it when the environment variable
// CI is true.
package s3test

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docmill/docmill/internal/testserver"
	"github.com/docmill/docmill/tools/toolstest"
)

// Region is the region the server answers for.
const Region = "us-east-1"

// Binary is the name of the versitygw executable.
const Binary = "versitygw"

// Server is a running versitygw serving buckets from a temporary directory.
type Server struct {
	// Endpoint is the server's base URL, http://127.0.0.1:port.
	Endpoint string
	// AccessKey and SecretKey are the credentials the server accepts.
	AccessKey, SecretKey string
	// Root is the directory that holds the buckets, one subdirectory each.
	Root string

	cmd     *exec.Cmd
	exited  chan struct{} // closed when the process has exited
	waitErr error         // set before exited is closed
	log     *bytes.Buffer // the server's output; guarded by logMu
	logMu   *sync.Mutex
	stop    sync.Once
}

// Start starts versitygw on a free 127.0.0.1 port with a fresh data
// directory and random credentials, waits until it answers, and stops it
// when t ends. It skips t when versitygw is not installed, unless the
// environment variable CI is true, which makes it fail t instead.
func Start(t testing.TB) *Server {
	t.Helper()
	bin, err := FindBinary()
	if err != nil {
		toolstest.NeedService(t, "versitygw (scripts/install-versitygw.sh installs it)", err)
	}
	var lastErr error
	for range 3 { // a free port can be taken between picking and binding it
		s, err := start(t, bin)
		if err == nil {
			return s
		}
		lastErr = err
	}
	t.Fatalf("s3test: start versitygw: %v", lastErr)
	return nil
}

// FindBinary returns the path of the versitygw executable (testserver.Find).
func FindBinary() (string, error) { return testserver.Find(Binary) }

func start(t testing.TB, bin string) (*Server, error) {
	port, err := testserver.FreePort()
	if err != nil {
		return nil, err
	}
	s := &Server{
		Endpoint:  "http://127.0.0.1:" + strconv.Itoa(port),
		AccessKey: "AK" + randomHex(9),
		SecretKey: randomHex(20),
		Root:      filepath.Join(t.TempDir(), "buckets"),
		exited:    make(chan struct{}),
		log:       new(bytes.Buffer),
		logMu:     new(sync.Mutex),
	}
	if err := os.MkdirAll(s.Root, 0o750); err != nil {
		return nil, err
	}
	s.cmd = exec.Command(bin,
		"--access", s.AccessKey, "--secret", s.SecretKey, "--region", Region,
		"--port", "127.0.0.1:"+strconv.Itoa(port), "--quiet",
		"posix", s.Root)
	s.cmd.Stdout = testserver.LockedWriter{Mu: s.logMu, W: s.log}
	s.cmd.Stderr = s.cmd.Stdout
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		s.waitErr = s.cmd.Wait()
		close(s.exited)
	}()
	t.Cleanup(s.Stop)
	if err := s.waitReady(20 * time.Second); err != nil {
		s.Stop()
		return nil, fmt.Errorf("%w; output:\n%s", err, s.Output())
	}
	return s, nil
}

// waitReady waits until the server answers HTTP (any status: an
// unauthenticated request gets 403).
func (s *Server) waitReady(timeout time.Duration) error {
	client := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(timeout)
	for {
		select {
		case <-s.exited:
			return fmt.Errorf("versitygw exited: %v", s.waitErr)
		default:
		}
		resp, err := client.Get(s.Endpoint + "/")
		if err == nil {
			_ = resp.Body.Close()
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("versitygw did not answer within %v: %w", timeout, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Stop kills the server and waits for it to exit. It is safe to call more
// than once; Start registers it with t.Cleanup.
func (s *Server) Stop() {
	s.stop.Do(func() {
		_ = s.cmd.Process.Kill()
		<-s.exited
	})
}

// Output returns what the server has printed so far.
func (s *Server) Output() string {
	s.logMu.Lock()
	defer s.logMu.Unlock()
	return s.log.String()
}

// URL creates bucket if it does not exist and returns the gocloud.dev URL
// that opens it (for blob.OpenURL and --blob-url). The bucket name must be a
// valid S3 bucket name (3 to 63 lowercase letters, digits, '-' and '.').
// It panics when the name is invalid or the directory cannot be made. The
// URL carries no credentials: set them with Setenv or, for a child process,
// Env.
func (s *Server) URL(bucket string) string {
	if err := s.CreateBucket(bucket); err != nil {
		panic(err)
	}
	q := url.Values{}
	q.Set("endpoint", s.Endpoint)
	q.Set("region", Region)
	q.Set("use_path_style", "true")
	return "s3://" + bucket + "?" + q.Encode()
}

// CreateBucket creates bucket, an empty directory under Root, unless it
// exists.
func (s *Server) CreateBucket(bucket string) error {
	if !validBucketName(bucket) {
		return fmt.Errorf("s3test: invalid bucket name %q", bucket)
	}
	if err := os.MkdirAll(filepath.Join(s.Root, bucket), 0o750); err != nil {
		return fmt.Errorf("s3test: create bucket: %w", err)
	}
	return nil
}

// Env returns the environment variables that give the AWS SDK the server's
// credentials and region, as NAME=value for a child process's Env. It
// also clears AWS_SESSION_TOKEN and AWS_PROFILE so that no other
// credentials are mixed in.
func (s *Server) Env() []string {
	return []string{
		"AWS_ACCESS_KEY_ID=" + s.AccessKey,
		"AWS_SECRET_ACCESS_KEY=" + s.SecretKey,
		"AWS_REGION=" + Region,
		"AWS_SESSION_TOKEN=",
		"AWS_PROFILE=",
	}
}

// Setenv sets the variables of Env in this process for the duration of t
// (with t.Setenv, so t and its parents must not be parallel).
func (s *Server) Setenv(t testing.TB) {
	t.Helper()
	for _, kv := range s.Env() {
		name, value, _ := strings.Cut(kv, "=")
		t.Setenv(name, value)
	}
}

func validBucketName(name string) bool {
	if len(name) < 3 || len(name) > 63 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.') {
			return false
		}
	}
	return name[0] != '-' && name[0] != '.' && name[len(name)-1] != '-' && name[len(name)-1] != '.'
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
