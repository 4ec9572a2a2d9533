package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/docmill/docmill/tools/toolstest"
)

// oapiCodegen is the pinned generator the document must satisfy.
const oapiCodegen = "github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@v2.8.2"

// offlineRE matches the go command's complaints when it cannot fetch a
// module: the test then skips (fails under CI) rather than blaming the
// document.
var offlineRE = regexp.MustCompile(`(?i)dial tcp|i/o timeout|connection refused|no such host|proxyconnect|GOPROXY=off|GOFLAGS=-mod=mod|cannot find module providing`)

// goIn runs the go command with args in dir, in a module of its own
// (GOWORK off, GOFLAGS cleared of this module's), and returns its output.
func goIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-buildvcs=false", "GOTOOLCHAIN=local")
	out, err := cmd.CombinedOutput()
	if err != nil {
		if offlineRE.Match(out) {
			missingTool(t, "go "+strings.Join(args, " ")+": cannot fetch modules (offline?): "+string(out))
		}
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestOpenAPIClient generates a Go client from the served document with
// oapi-codegen, pinned, into a module of its own, and runs rotate-pdf
// through it against the server, with a few other calls: the names and
// types a person would write (RotatePdfWithBodyWithResponse answering a
// RotatePdfJob whose meta has RotatedPages, GetJob, ListTools, GetAccount).
func TestOpenAPIClient(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a generated client (-short)")
	}
	// Mostly the go command's work (generate, tidy, vet, build) on a
	// module and server of its own; no time is bounded.
	t.Parallel()
	s := startServer(t, "")
	dir := t.TempDir()
	write := func(name, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("openapi.json", string(openAPIDocument(t, s)))
	write("go.mod", "module clienttest\n\ngo 1.24\n")
	write("oapi-codegen.yaml", "package: docmillapi\noutput: docmillapi/client.gen.go\ngenerate:\n  models: true\n  client: true\n")
	write("doc.pdf", string(toolstest.TextPDF("one", "two")))
	write("main.go", clientMain)
	if err := os.MkdirAll(filepath.Join(dir, "docmillapi"), 0o755); err != nil {
		t.Fatal(err)
	}
	goIn(t, dir, "run", oapiCodegen, "-config", "oapi-codegen.yaml", "openapi.json")
	goIn(t, dir, "mod", "tidy")
	goIn(t, dir, "vet", ".", "./docmillapi")

	cmd := exec.Command("go", "run", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-buildvcs=false", "GOTOOLCHAIN=local", "DOCMILL_URL="+s.URL, "DOCMILL_KEY="+s.DevKey)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the generated client's program: %v\n%s", err, out)
	}
	var got struct {
		JobID        string `json:"job_id"`
		Status       string `json:"status"`
		RotatedPages int    `json:"rotated_pages"`
		Polled       string `json:"polled"`
		Tools        int    `json:"tools"`
		Plan         string `json:"plan"`
		Unauthorized string `json:"unauthorized"`
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &got); err != nil {
		t.Fatalf("the program's output: %v\n%s", err, out)
	}
	if got.Status != "done" || got.RotatedPages != 2 || got.Polled != "done" || got.Tools < 10 || got.Plan != "pro" || got.Unauthorized != "unauthorized" {
		t.Errorf("through the generated client: %+v", got)
	}
}

// clientMain is the program built on the generated client.
const clientMain = `package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"os"

	"clienttest/docmillapi"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run() error {
	ctx := context.Background()
	key := os.Getenv("DOCMILL_KEY")
	bearer := func(ctx context.Context, req *http.Request) error {
		req.Header.Set("Authorization", "Bearer "+key)
		return nil
	}
	c, err := docmillapi.NewClientWithResponses(os.Getenv("DOCMILL_URL"), docmillapi.WithRequestEditorFn(bearer))
	if err != nil {
		return err
	}

	pdf, err := os.ReadFile("doc.pdf")
	if err != nil {
		return err
	}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("file", "doc.pdf")
	fw.Write(pdf)
	mw.WriteField("angle", "180")
	mw.Close()
	rot, err := c.RotatePdfWithBodyWithResponse(ctx, &docmillapi.RotatePdfParams{}, mw.FormDataContentType(), &body)
	if err != nil {
		return err
	}
	job := rot.JSON200
	if job == nil {
		return fmt.Errorf("rotatePdf: %d %s", rot.StatusCode(), rot.Body)
	}
	out := map[string]any{"job_id": job.JobId, "status": string(job.Status)}
	if job.Meta.RotatedPages != nil {
		out["rotated_pages"] = *job.Meta.RotatedPages
	}

	polled, err := c.GetJobWithResponse(ctx, job.JobId, &docmillapi.GetJobParams{})
	if err != nil || polled.JSON200 == nil {
		return fmt.Errorf("getJob: %v %s", err, polled.Body)
	}
	out["polled"] = string(polled.JSON200.Status)

	tools, err := c.ListToolsWithResponse(ctx)
	if err != nil || tools.JSON200 == nil {
		return fmt.Errorf("listTools: %v", err)
	}
	out["tools"] = len(tools.JSON200.Tools)

	acct, err := c.GetAccountWithResponse(ctx)
	if err != nil || acct.JSON200 == nil {
		return fmt.Errorf("getAccount: %v %s", err, acct.Body)
	}
	out["plan"] = acct.JSON200.Plan

	anon, err := docmillapi.NewClientWithResponses(os.Getenv("DOCMILL_URL"))
	if err != nil {
		return err
	}
	denied, err := anon.GetAccountWithResponse(ctx)
	if err != nil || denied.ApplicationproblemJSON401 == nil {
		return fmt.Errorf("getAccount without a key: %v %s", err, denied.Body)
	}
	out["unauthorized"] = string(denied.ApplicationproblemJSON401.Code)

	b, _ := json.Marshal(out)
	fmt.Println(string(b))
	return nil
}
`
