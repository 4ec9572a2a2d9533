package main

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"html"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"software.sslmate.com/src/go-pkcs12"

	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/mail/mailpittest"
	"github.com/docmill/docmill/tools/toolstest"
)

// The API reference (GET /docs) tested as its readers use it: the page
// in Chromium, loading nothing from elsewhere, and its examples, taken
// from the page as served, run against the same server with the
// programs a reader has (curl, go, python3 with requests, node).

// exampleJobID is the job id of the reference's examples; the test puts
// a real one in its place.
const exampleJobID = "job_4kqzv2mac5x7tjr5y3w6zeaqb4"

// fullyRun are the reference's sections whose examples run in every
// language: a one-file tool, a several-files tool, a tool that takes no
// file, and calls of the jobs and the account. Of the other tools and
// endpoints, the curl example runs.
var fullyRun = []string{"tool-rotate-pdf", "tool-merge-pdf", "tool-url-to-pdf", "op-getAccount", "op-listJobs"}

func TestReference(t *testing.T) {
	// Mostly the examples' programs (go, python3, node, curl) against a
	// server and Mailpit of its own; its browser waits are generous
	// deadlines, no time is bounded.
	t.Parallel()
	mp := mailpittest.Start(t)
	srv := startServer(t, "", "--allow-private-urls", "--signup", "open", "--smtp-url", mp.SMTPURL, "--mail-from", "docmill@example.com")
	key := newKey(t, srv.DataDir, "team")
	page := string(download(t, srv.URL+"/docs"))
	if !strings.Contains(string(download(t, srv.URL+"/")), `href="/docs"`) {
		t.Error("the web interface does not link the reference")
	}
	t.Run("browser", func(t *testing.T) { referenceInBrowser(t, srv.URL) })
	t.Run("examples", func(t *testing.T) { referenceExamplesRun(t, srv, mp, key, page) })
}

// referenceExamples are the page's examples: by section id (tool-SLUG,
// op-OPERATIONID), by language.
func referenceExamples(page string) map[string]map[string]string {
	out := map[string]map[string]string{}
	sections := regexp.MustCompile(`(?s)<article class="op[^"]*" id="([^"]+)">(.*?)</article>`)
	samples := regexp.MustCompile(`(?s)<figure class="sample" data-lang="(\w+)">.*?<code>(.*?)</code>`)
	for _, s := range sections.FindAllStringSubmatch(page, -1) {
		for _, m := range samples.FindAllStringSubmatch(s[2], -1) {
			if out[s[1]] == nil {
				out[s[1]] = map[string]string{}
			}
			out[s[1]][m[1]] = html.UnescapeString(m[2])
		}
	}
	return out
}

func referenceExamplesRun(t *testing.T, srv *testServer, mp *mailpittest.Server, key, page string) {
	for _, prog := range []string{"curl", "go", "python3", "node"} {
		if _, err := exec.LookPath(prog); err != nil {
			missingTool(t, prog+" is not installed: the reference's examples need it (make test-deps)")
		}
	}
	if exec.Command("python3", "-c", "import requests").Run() != nil {
		missingTool(t, "Python's requests is not installed (make test-deps)")
	}
	examples := referenceExamples(page)
	inputs := referenceInputs(t, srv, key)
	lastJob := ""
	for _, id := range slices.Sorted(maps.Keys(examples)) {
		if !strings.HasPrefix(id, "tool-") {
			continue
		}
		code := strings.ReplaceAll(examples[id]["curl"], "https://example.com/", srv.URL+"/healthz")
		files := inputs
		switch id {
		case "tool-fill-pdf-form":
			files = withFile(inputs, "report.pdf", referenceFormPDF())
		case "tool-extract-einvoice": // a PDF holding an invoice
			files = withFile(inputs, "report.pdf", inputs["report-einvoice.pdf"])
		case "tool-pdf-to-csv", "tool-pdf-to-xlsx": // a PDF holding a table
			files = withFile(inputs, "report.pdf", toolstest.GridPDF("Quarterly figures",
				[][]string{{"quarter", "revenue"}, {"Q1", "120"}, {"Q2", "135"}}))
		}
		if missing := missingInputs(code, files); missing != "" {
			t.Errorf("%s: the test makes no %s for its example (referenceInputs)", id, missing)
			continue
		}
		out := runExample(t, id, "curl", code, key, files)
		if job := finishedJob(t, srv, key, id, out); job != nil {
			lastJob = job.JobID
		}
	}
	for _, id := range fullyRun {
		for _, lang := range []string{"go", "python", "js"} {
			code := strings.ReplaceAll(examples[id][lang], "https://example.com/", srv.URL+"/healthz")
			out := runExample(t, id, lang, code, key, inputs)
			if strings.HasPrefix(id, "tool-") && !strings.Contains(out, "saved ") {
				t.Errorf("%s in %s: %q, no file saved", id, lang, out)
			}
		}
	}
	referenceEndpointsRun(t, srv, mp, key, examples, lastJob)
	if len(examples) < 60 {
		t.Errorf("%d sections with examples", len(examples))
	}
}

// The placeholders of the endpoints' examples, which the test replaces
// by what it made: a job, a key, a webhook (its endpoint this server,
// which --allow-private-urls admits), a mailed link's token.
const (
	exampleKeyPrefix  = "dm_live_4kQz"
	exampleWebhookID  = "wh_4kqzv2mac5x7tjr5y3w6zeaqb4"
	exampleWebhookURL = "https://example.com/docmill-hook"
	exampleLinkToken  = "TOKEN_FROM_THE_MAILED_LINK"
)

// referenceEndpointsRun runs the curl example of every endpoint that has
// one, in an order that makes what the next needs, and checks that each
// answers JSON (deleteWebhook: nothing, 204).
func referenceEndpointsRun(t *testing.T, srv *testServer, mp *mailpittest.Server, key string, examples map[string]map[string]string, job string) {
	values := strings.NewReplacer(exampleJobID, job, exampleWebhookURL, srv.URL+"/healthz")
	run := func(op string) map[string]any {
		code := examples["op-"+op]["curl"]
		if code == "" {
			t.Errorf("no curl example of %s", op)
			return nil
		}
		out := runExample(t, op, "curl", values.Replace(code), key, nil)
		var v map[string]any
		if err := json.Unmarshal([]byte(out), &v); err != nil && op != "deleteWebhook" {
			var list []any
			if json.Unmarshal([]byte(out), &list) != nil {
				t.Errorf("%s: not JSON: %q", op, out)
			}
		}
		return v
	}
	for _, op := range []string{"listTools", "getTool", "getConfig", "getAccount", "listJobs", "getJob", "listKeys", "listWebhooks"} {
		run(op)
	}
	if k := run("createKey"); k != nil {
		values = strings.NewReplacer(exampleJobID, job, exampleWebhookURL, srv.URL+"/healthz", exampleKeyPrefix, k["prefix"].(string))
	}
	run("renameKey")
	run("revokeKey")
	if wh := run("createWebhook"); wh != nil {
		values = strings.NewReplacer(exampleJobID, job, exampleWebhookURL, srv.URL+"/healthz", exampleWebhookID, wh["id"].(string))
	}
	for _, op := range []string{"getWebhook", "rotateWebhookSecret", "listWebhookDeliveries", "deleteWebhook", "signup"} {
		run(op)
	}
	values = strings.NewReplacer(exampleJobID, job, exampleLinkToken, mailedToken(t, mp, srv, "jane@example.com", 1))
	run("openSession")
	run("login")
	mailedToken(t, mp, srv, "jane@example.com", 2)
	run("deleteJob")
}

// runExample runs one example in a directory of its own holding files,
// with the key in DOCMILL_KEY, and returns its output; a failure fails
// the test.
func runExample(t *testing.T, id, lang, code, key string, files map[string][]byte) string {
	t.Helper()
	dir := t.TempDir()
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var cmd *exec.Cmd
	switch lang {
	case "curl":
		cmd = exec.Command("sh", "-c", code)
	case "go": // built in this module, where the client package is
		src := filepath.Join(dir, "main.go")
		if err := os.WriteFile(src, []byte(code), 0o600); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command("go", "build", "-o", filepath.Join(dir, "example"), src).CombinedOutput(); err != nil {
			t.Fatalf("%s: go build: %v\n%s\n%s", id, err, out, code)
		}
		cmd = exec.Command(filepath.Join(dir, "example"))
	case "python":
		cmd = exec.Command("python3", "-c", code)
	case "js":
		if err := os.WriteFile(filepath.Join(dir, "example.mjs"), []byte(code), 0o600); err != nil {
			t.Fatal(err)
		}
		cmd = exec.Command("node", "example.mjs")
	}
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "DOCMILL_KEY="+key)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	t.Logf("%s in %s: %s", id, lang, time.Since(start).Round(time.Millisecond))
	if err != nil {
		t.Errorf("%s in %s: %v\n%s%s\n%s", id, lang, err, stdout.String(), stderr.String(), code)
	}
	return stdout.String()
}

// finishedJob reads the job record a curl example printed, waits for it
// when it is still running, and checks that it is done.
func finishedJob(t *testing.T, srv *testServer, key, id, out string) *client.Job {
	t.Helper()
	var job client.Job
	if err := json.Unmarshal([]byte(out), &job); err != nil {
		t.Errorf("%s: the answer is not a job record: %v\n%s", id, err, out)
		return nil
	}
	if !job.Finished() {
		j, err := srv.client(key).WaitJob(context.Background(), job.JobID, 3*time.Minute)
		if err != nil {
			t.Errorf("%s: %v", id, err)
			return nil
		}
		job = *j
	}
	if job.Status != "done" {
		t.Errorf("%s: job %s %s: %+v", id, job.JobID, job.Status, job.Error)
		return nil
	}
	return &job
}

var exampleFileRE = regexp.MustCompile(`file=@([^\s'"]+)`)

// missingInputs names an input file of code that files lacks.
func missingInputs(code string, files map[string][]byte) string {
	for _, m := range exampleFileRE.FindAllStringSubmatch(code, -1) {
		if files[m[1]] == nil {
			return m[1]
		}
	}
	return ""
}

func withFile(files map[string][]byte, name string, b []byte) map[string][]byte {
	out := map[string][]byte{name: b}
	for n, f := range files {
		if n != name {
			out[n] = f
		}
	}
	return out
}

// referenceInputs are the files the examples name, made here: PDFs of
// three pages (one of them an e-invoice), a photo, a logo, a web page,
// text, a certificate, a CII invoice, and the
// office documents made by the server's own convert-document from text,
// a CSV and an OpenDocument presentation written here.
func referenceInputs(t *testing.T, srv *testServer, key string) map[string][]byte {
	t.Helper()
	pdfPath := filepath.Join(t.TempDir(), "report.pdf")
	writeVectorPDF(t, pdfPath, 3, 30)
	pdf, err := os.ReadFile(pdfPath)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{
		"report.pdf": pdf, "report-2.pdf": pdf,
		"photo.jpg": referenceImage(t, 640, 480, "jpeg"), "logo.png": referenceImage(t, 200, 100, "png"),
		"page.html":       []byte("<!doctype html><title>Hello</title><h1>Hello from docmill</h1>\n"),
		"notes.md":        []byte("# Notes\n\nThe *quick* brown fox.\n"),
		"notes.txt":       []byte("The quick brown fox.\n"),
		"data.csv":        []byte("item,amount\npaper,12\nink,30\n"),
		"letter.rtf":      []byte(`{\rtf1\ansi Dear Jane,\par the quick brown fox.\par}`),
		"certificate.p12": sign2PKCS12(t, "Jane Roe", false, pkcs12.Modern, "changeit"),
		"slides.odp":      referenceODP(t),
		"invoice.xml":     toolstest.CIIInvoice(toolstest.GuidelineEN16931, 2),
	}
	c := srv.client(key)
	for name, from := range map[string]string{"letter.docx": "notes.txt", "budget.xlsx": "data.csv", "slides.pptx": "slides.odp"} {
		job, _, err := c.Process(context.Background(), "convert-document",
			[]client.File{{Name: from, Body: bytes.NewReader(files[from])}},
			client.ProcessOptions{Params: map[string]string{"format": strings.TrimPrefix(filepath.Ext(name), ".")}, Prefer: "wait=120"})
		if err != nil || job.Status != "done" {
			t.Fatalf("making %s: convert-document of %s: %v %+v", name, from, err, job)
		}
		files[name] = download(t, job.Result.URL)
	}
	job, _, err := c.Process(context.Background(), "einvoice-pdf",
		[]client.File{{Name: "report.pdf", Body: bytes.NewReader(pdf)}, {Name: "invoice.xml", Body: bytes.NewReader(files["invoice.xml"])}},
		client.ProcessOptions{Prefer: "wait=120"})
	if err != nil || job.Status != "done" {
		t.Fatalf("making report-einvoice.pdf: %v %+v", err, job)
	}
	files["report-einvoice.pdf"] = download(t, job.Result.URL)
	return files
}

// referenceImage is a w x h gradient in format (jpeg or png).
func referenceImage(t *testing.T, w, h int, format string) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{uint8(x * 255 / w), uint8(y * 255 / h), 120, 255})
		}
	}
	var b bytes.Buffer
	var err error
	if format == "png" {
		err = png.Encode(&b, img)
	} else {
		err = jpeg.Encode(&b, img, nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// referenceFormPDF is a one-page PDF form with a text field "Name", for
// fill-pdf-form's example.
func referenceFormPDF() []byte {
	content := "BT /F1 18 Tf 72 760 Td (Name:) Tj ET"
	return toolstest.PDF(
		"<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [5 0 R] /DR << /Font << /Helv 6 0 R >> >> /DA (/Helv 12 Tf 0 g) >> >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 6 0 R >> >> /Contents 4 0 R /Annots [5 0 R] >>",
		"<< /Length "+strconv.Itoa(len(content))+" >>\nstream\n"+content+"\nendstream",
		"<< /Type /Annot /Subtype /Widget /FT /Tx /T (Name) /Rect [140 750 400 780] /P 3 0 R /DA (/Helv 12 Tf 0 g) /V () >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
}

// referenceODP is an OpenDocument presentation of one slide with a title.
func referenceODP(t *testing.T) []byte {
	t.Helper()
	const mime = "application/vnd.oasis.opendocument.presentation"
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	w, err := zw.CreateHeader(&zip.FileHeader{Name: "mimetype", Method: zip.Store}) // first and stored, as ODF requires
	if err == nil {
		_, err = w.Write([]byte(mime))
	}
	for name, body := range map[string]string{
		"META-INF/manifest.xml": `<?xml version="1.0" encoding="UTF-8"?>
<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2">
<manifest:file-entry manifest:full-path="/" manifest:media-type="` + mime + `"/>
<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>
</manifest:manifest>`,
		"content.xml": `<?xml version="1.0" encoding="UTF-8"?>
<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"
 xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"
 xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" office:version="1.2">
<office:body><office:presentation><draw:page draw:name="page1">
<draw:frame svg:x="2cm" svg:y="2cm" svg:width="20cm" svg:height="3cm"><draw:text-box><text:p>Quarterly results</text:p></draw:text-box></draw:frame>
</draw:page></office:presentation></office:body></office:document-content>`,
	} {
		if err != nil {
			break
		}
		if w, err = zw.Create(name); err == nil {
			_, err = w.Write([]byte(body))
		}
	}
	if err == nil {
		err = zw.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
