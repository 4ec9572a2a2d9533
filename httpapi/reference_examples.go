package httpapi

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/docmill/docmill"
)

// The examples of the API reference (GET /docs), made from the registry:
// one process call per tool in four languages, with the tool's required
// params and those declaring an Example, and input files named as a
// user's would be for the tool's accepted types. Every example reads the
// key from the DOCMILL_KEY environment variable and calls the node's
// BaseURL, so it runs as copied; a test runs them against a real server.

// codeSample is one example in one language.
type codeSample struct {
	Lang  string // curl, go, python, js
	Label string
	Code  string
}

// sampleLangs are the languages of the examples, in the page's order.
var sampleLangs = []struct{ Lang, Label string }{
	{"curl", "curl"}, {"go", "Go"}, {"python", "Python"}, {"js", "JavaScript"},
}

// exampleWait is the Prefer header of every example's process call: it
// waits for a long tool's job as it does for a short one.
const exampleWait = "wait=60"

// processExample is what one tool's example sends.
type processExample struct {
	slug   string
	files  []string
	params [][2]string // name, value; in declaration order
}

// exampleOf is the example call of t.
func exampleOf(t *docmill.Tool) processExample {
	ex := processExample{slug: t.Slug, files: exampleFiles(t)}
	for _, p := range t.Params {
		v := p.Example
		if v == "" && p.Required {
			v = derivedExample(p)
		}
		if v != "" {
			ex.params = append(ex.params, [2]string{p.Name, v})
		}
	}
	return ex
}

// derivedExample is a value for a required param that declares no
// Example: its default, its first allowed value, or one its type admits.
func derivedExample(p docmill.Param) string {
	switch {
	case p.Default != "":
		return p.Default
	case len(p.Enum) > 0:
		return p.Enum[0]
	case p.Type == docmill.TypePages:
		return "1"
	case p.Type == docmill.TypeBoolean:
		return "true"
	case p.Type == docmill.TypeColor:
		return "#1f4fb8"
	case p.Type == docmill.TypeInteger || p.Type == docmill.TypeNumber:
		if p.Min != nil {
			return strconv.FormatFloat(*p.Min, 'f', -1, 64)
		}
		return "1"
	}
	return "example"
}

// exampleFiles names the files of t's example: as many as it needs at
// least, the first a PDF when it takes one, each next of its next
// accepted type (sign-pdf: a PDF and a certificate).
func exampleFiles(t *docmill.Tool) []string {
	if t.MaxFiles == 0 || len(t.Accepts) == 0 {
		return nil
	}
	var names []string
	seen := map[string]int{}
	for i := range max(t.MinFiles, 1) {
		typ := t.Accepts[min(i, len(t.Accepts)-1)]
		if i == 0 {
			typ = preferredType(t.Accepts)
		}
		name := exampleFileName(t.Slug, typ)
		if seen[name]++; seen[name] > 1 {
			stem, ext, _ := strings.Cut(name, ".")
			name = stem + "-" + strconv.Itoa(seen[name]) + "." + ext
		}
		names = append(names, name)
	}
	return names
}

// preferredType is the type of a tool's first example file: the first
// of these it takes, else the first it takes.
func preferredType(accepts []string) string {
	for _, typ := range []string{"application/pdf", "text/markdown", "text/html", "image/jpeg"} {
		if slices.Contains(accepts, typ) {
			return typ
		}
	}
	return accepts[0]
}

// exampleFileName is a file of type typ as a user would name it.
func exampleFileName(slug, typ string) string {
	switch typ {
	case "application/pdf":
		return "report.pdf"
	case "application/zip", "application/octet-stream":
		switch { // an office document: the tool's name says which
		case strings.HasPrefix(slug, "excel"):
			return "budget.xlsx"
		case strings.HasPrefix(slug, "powerpoint"):
			return "slides.pptx"
		}
		return "letter.docx"
	case "application/x-pkcs12":
		return "certificate.p12"
	case "text/xml":
		return "invoice.xml"
	case "text/html":
		return "page.html"
	case "text/markdown":
		return "notes.md"
	case "text/plain":
		return "notes.txt"
	case "text/rtf", "application/rtf":
		return "letter.rtf"
	case "image/png":
		return "logo.png"
	case "image/heif":
		return "photo.heic"
	case "image/tiff":
		return "scan.tiff"
	}
	if sub, ok := strings.CutPrefix(typ, "image/"); ok {
		return "photo." + strings.Replace(sub, "jpeg", "jpg", 1)
	}
	return "data.csv" // any type (add-attachments' files)
}

// samples are ex in every language, calling base.
func (ex processExample) samples(base string) []codeSample {
	return []codeSample{
		{"curl", "curl", ex.curl(base)},
		{"go", "Go", ex.goProgram(base)},
		{"python", "Python", ex.python(base)},
		{"js", "JavaScript", ex.javaScript(base)},
	}
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=@,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func (ex processExample) curl(base string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "curl --fail-with-body -sS %s \\\n", shellQuote(base+"/v1/"+ex.slug+"/process"))
	b.WriteString("  -H \"Authorization: Bearer $DOCMILL_KEY\" \\\n")
	b.WriteString("  -H 'Prefer: " + exampleWait + "'")
	for _, f := range ex.files {
		b.WriteString(" \\\n  -F " + shellQuote("file=@"+f))
	}
	for _, p := range ex.params { // --form-string: a value is never read as @file or ;type=
		b.WriteString(" \\\n  --form-string " + shellQuote(p[0]+"="+p[1]))
	}
	b.WriteString("\n# The answer is the job record: download result.url when status is done.\n")
	return b.String()
}

func (ex processExample) goProgram(base string) string {
	var b strings.Builder
	b.WriteString(goHeader(base, true))
	b.WriteString("\tvar files []client.File\n")
	fmt.Fprintf(&b, "\tfor _, name := range %s {\n", goStrings(ex.files))
	b.WriteString("\t\tf, err := os.Open(name)\n\t\tif err != nil {\n\t\t\tlog.Fatal(err)\n\t\t}\n\t\tdefer f.Close()\n")
	b.WriteString("\t\tfiles = append(files, client.File{Name: name, Body: f})\n\t}\n")
	b.WriteString("\tparams := map[string]string{")
	for i, p := range ex.params {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s: %s", strconv.Quote(p[0]), goString(p[1]))
	}
	b.WriteString("}\n")
	fmt.Fprintf(&b, "\tjob, _, err := c.Process(ctx, %q, files, client.ProcessOptions{Params: params, Prefer: %q})\n", ex.slug, exampleWait)
	b.WriteString(`	if err != nil {
		log.Fatal(err)
	}
	if !job.Finished() {
		if job, err = c.WaitJob(ctx, job.JobID, 10*time.Minute); err != nil {
			log.Fatal(err)
		}
	}
	if job.Status != "done" {
		log.Fatalf("job %s %s: %+v", job.JobID, job.Status, job.Error)
	}
	out, err := os.Create(job.Result.Filename)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := c.Download(ctx, job.Result.URL, out); err != nil {
		log.Fatal(err)
	}
	if err := out.Close(); err != nil {
		log.Fatal(err)
	}
	fmt.Println("saved", job.Result.Filename)
}
`)
	return b.String()
}

// goHeader opens a Go example's main program: a client of base with the
// key of DOCMILL_KEY.
func goHeader(base string, process bool) string {
	imports := "\t\"context\"\n\t\"fmt\"\n\t\"log\"\n\t\"os\"\n"
	if process {
		imports += "\t\"time\"\n"
	}
	return "package main\n\nimport (\n" + imports + "\n\t\"github.com/docmill/docmill/client\"\n)\n\n" +
		"func main() {\n\tctx := context.Background()\n" +
		fmt.Sprintf("\tc := client.New(%q, os.Getenv(\"DOCMILL_KEY\"))\n", base)
}

// goString is s as a Go literal: raw when it holds double quotes.
func goString(s string) string {
	if strings.Contains(s, `"`) && !strings.ContainsAny(s, "`\n") {
		return "`" + s + "`"
	}
	return strconv.Quote(s)
}

func goStrings(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = strconv.Quote(s)
	}
	return "[]string{" + strings.Join(q, ", ") + "}"
}

// pyString is s as a Python literal.
func pyString(s string) string {
	if strings.Contains(s, `"`) && !strings.ContainsAny(s, "'\\\n") {
		return "'" + s + "'"
	}
	return strconv.Quote(s)
}

func (ex processExample) python(base string) string {
	var b strings.Builder
	b.WriteString(pyHeader(base))
	// Params go as multipart fields (None: no file name), the files after.
	b.WriteString("fields = [\n")
	for _, p := range ex.params {
		fmt.Fprintf(&b, "    (%s, (None, %s)),\n", pyString(p[0]), pyString(p[1]))
	}
	for _, f := range ex.files {
		fmt.Fprintf(&b, "    (\"file\", (%s, open(%s, \"rb\"))),\n", pyString(f), pyString(f))
	}
	b.WriteString("]\n")
	fmt.Fprintf(&b, "r = requests.post(f\"{BASE}/v1/%s/process\", headers={**AUTH, \"Prefer\": %q}, files=fields)\n", ex.slug, exampleWait)
	b.WriteString(`if not r.ok:
    raise SystemExit(f"{r.status_code}: {r.text}")
job = r.json()
while job["status"] in ("queued", "processing"):
    job = requests.get(f"{BASE}/v1/jobs/{job['job_id']}?wait=30", headers=AUTH).json()
if job["status"] != "done":
    raise SystemExit(f"job {job['job_id']} {job['status']}: {job['error']}")
result = requests.get(job["result"]["url"])
result.raise_for_status()
with open(job["result"]["filename"], "wb") as out:
    out.write(result.content)
print("saved", job["result"]["filename"])
`)
	return b.String()
}

func pyHeader(base string) string {
	return "import os\n\nimport requests\n\n" + fmt.Sprintf("BASE = %q\n", base) +
		"AUTH = {\"Authorization\": \"Bearer \" + os.environ[\"DOCMILL_KEY\"]}\n\n"
}

// jsString is s as a JavaScript literal.
func jsString(s string) string { return pyString(s) }

func (ex processExample) javaScript(base string) string {
	var b strings.Builder
	b.WriteString("// Node 20 or later, as an ES module (example.mjs).\nimport { readFile, writeFile } from \"node:fs/promises\";\n\n")
	b.WriteString(jsHeader(base))
	b.WriteString("const form = new FormData();\n")
	for _, p := range ex.params {
		fmt.Fprintf(&b, "form.append(%s, %s);\n", jsString(p[0]), jsString(p[1]))
	}
	for _, f := range ex.files {
		fmt.Fprintf(&b, "form.append(\"file\", new Blob([await readFile(%s)]), %s);\n", jsString(f), jsString(f))
	}
	fmt.Fprintf(&b, "let res = await fetch(`${BASE}/v1/%s/process`, {\n  method: \"POST\", headers: { ...AUTH, Prefer: %q }, body: form,\n});\n", ex.slug, exampleWait)
	b.WriteString(`let job = await res.json();
if (!res.ok) throw new Error(` + "`${res.status} ${job.code}: ${job.detail}`" + `);
while (job.status === "queued" || job.status === "processing") {
  res = await fetch(` + "`${BASE}/v1/jobs/${job.job_id}?wait=30`" + `, { headers: AUTH });
  job = await res.json();
}
if (job.status !== "done") throw new Error(` + "`job ${job.job_id} ${job.status}: ${job.error?.message}`" + `);
const result = await fetch(job.result.url);
if (!result.ok) throw new Error(` + "`download: ${result.status}`" + `);
await writeFile(job.result.filename, Buffer.from(await result.arrayBuffer()));
console.log("saved", job.result.filename);
`)
	return b.String()
}

func jsHeader(base string) string {
	return fmt.Sprintf("const BASE = %q;\n", base) +
		"const AUTH = { Authorization: `Bearer ${process.env.DOCMILL_KEY}` };\n\n"
}
