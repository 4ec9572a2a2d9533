package httpapi

import (
	"fmt"
	"strings"
)

// The examples of the reference's endpoints other than the tools: the
// jobs, the account, keys, webhooks, and sign-up and sign-in. Each is
// keyed by its operationId in the OpenAPI document; the page shows it
// under that operation.

// endpointExample is one call: its method, its path with example values
// (and query), its JSON body, whether it needs the key, and the client
// package's call (an expression of a value and an error, or of an error
// alone when noValue is set).
type endpointExample struct {
	method, path, body string
	public             bool
	goCall             string
	noValue            bool
}

// The webhook examples' endpoint and id, and the key prefix of the keys'.
const (
	exampleWebhookURL = "https://example.com/docmill-hook"
	exampleWebhookID  = "wh_4kqzv2mac5x7tjr5y3w6zeaqb4"
	exampleKeyPrefix  = "dm_live_4kQz"
	exampleLinkToken  = "TOKEN_FROM_THE_MAILED_LINK"
)

var endpointExamples = map[string]endpointExample{
	"getAccount": {method: "GET", path: "/v1/account", goCall: "c.Account(ctx)"},
	"listJobs": {method: "GET", path: "/v1/jobs?status=done&limit=20",
		goCall: `c.ListJobs(ctx, client.ListOptions{Status: "done", Limit: 20})`},
	"getJob": {method: "GET", path: "/v1/jobs/" + exampleJobID + "?wait=30",
		goCall: fmt.Sprintf("c.WaitJob(ctx, %q, time.Minute)", exampleJobID)},
	"deleteJob": {method: "DELETE", path: "/v1/jobs/" + exampleJobID,
		goCall: fmt.Sprintf("c.CancelJob(ctx, %q)", exampleJobID)},
	"listKeys":  {method: "GET", path: "/v1/keys", goCall: "c.Keys(ctx)"},
	"createKey": {method: "POST", path: "/v1/keys", body: `{"name": "CI"}`, goCall: `c.CreateKey(ctx, "CI")`},
	"createWebhook": {method: "POST", path: "/v1/webhooks",
		body:   `{"url": "` + exampleWebhookURL + `", "events": ["job.done", "job.failed"]}`,
		goCall: fmt.Sprintf(`c.CreateWebhook(ctx, %q, []string{"job.done", "job.failed"})`, exampleWebhookURL)},
	"listWebhooks": {method: "GET", path: "/v1/webhooks", goCall: "c.Webhooks(ctx)"},
	"getWebhook":   {method: "GET", path: "/v1/webhooks/" + exampleWebhookID, goCall: fmt.Sprintf("c.Webhook(ctx, %q)", exampleWebhookID)},
	"rotateWebhookSecret": {method: "POST", path: "/v1/webhooks/" + exampleWebhookID + "/rotate-secret",
		goCall: fmt.Sprintf("c.RotateWebhookSecret(ctx, %q)", exampleWebhookID)},
	"listWebhookDeliveries": {method: "GET", path: "/v1/webhooks/" + exampleWebhookID + "/deliveries",
		goCall: fmt.Sprintf("c.WebhookDeliveries(ctx, %q)", exampleWebhookID)},
	"deleteWebhook": {method: "DELETE", path: "/v1/webhooks/" + exampleWebhookID,
		goCall: fmt.Sprintf("c.DeleteWebhook(ctx, %q)", exampleWebhookID), noValue: true},
	"renameKey": {method: "PATCH", path: "/v1/keys/" + exampleKeyPrefix, body: `{"name": "CI (old)"}`,
		goCall: fmt.Sprintf(`c.RenameKey(ctx, %q, "CI (old)")`, exampleKeyPrefix)},
	"revokeKey": {method: "DELETE", path: "/v1/keys/" + exampleKeyPrefix, goCall: fmt.Sprintf("c.RevokeKey(ctx, %q)", exampleKeyPrefix)},
	"openSession": {method: "POST", path: "/v1/sessions", public: true, body: `{"token": "` + exampleLinkToken + `"}`,
		goCall: fmt.Sprintf("c.OpenLink(ctx, %q)", exampleLinkToken)},
	"getConfig": {method: "GET", path: "/v1/config", public: true, goCall: "c.Config(ctx)"},
	"getTool":   {method: "GET", path: "/v1/tools/rotate-pdf", public: true, goCall: `c.Tool(ctx, "rotate-pdf")`},
	"signup": {method: "POST", path: "/v1/signup", public: true,
		body: `{"email": "jane@example.com", "name": "Jane Roe"}`, goCall: `c.Signup(ctx, "jane@example.com", "Jane Roe", "en")`},
	"login": {method: "POST", path: "/v1/login", public: true,
		body: `{"email": "jane@example.com"}`, goCall: `c.Login(ctx, "jane@example.com", "en")`},
	"listTools": {method: "GET", path: "/v1/tools", public: true, goCall: "c.Tools(ctx)"},
}

// samples are e in every language, calling base.
func (e endpointExample) samples(base string) []codeSample {
	return []codeSample{
		{"curl", "curl", e.curl(base)},
		{"go", "Go", e.goProgram(base)},
		{"python", "Python", e.python(base)},
		{"js", "JavaScript", e.javaScript(base)},
	}
}

func (e endpointExample) curl(base string) string {
	var b strings.Builder
	b.WriteString("curl --fail-with-body -sS")
	if e.method != "GET" {
		b.WriteString(" -X " + e.method)
	}
	b.WriteString(" " + shellQuote(base+e.path))
	if !e.public {
		b.WriteString(" \\\n  -H \"Authorization: Bearer $DOCMILL_KEY\"")
	}
	if e.body != "" {
		b.WriteString(" \\\n  -H 'Content-Type: application/json' \\\n  -d " + shellQuote(e.body))
	}
	return b.String() + "\n"
}

func (e endpointExample) goProgram(base string) string {
	h := goHeader(base, strings.Contains(e.goCall, "time."))
	if e.noValue {
		return h + "\tif err := " + e.goCall + "; err != nil {\n\t\tlog.Fatal(err)\n\t}\n\tfmt.Println(\"ok\")\n}\n"
	}
	return h + "\tv, err := " + e.goCall + "\n\tif err != nil {\n\t\tlog.Fatal(err)\n\t}\n\tfmt.Printf(\"%+v\\n\", v)\n}\n"
}

func (e endpointExample) python(base string) string {
	var b strings.Builder
	b.WriteString(pyHeader(base))
	args := ""
	if !e.public {
		args = ", headers=AUTH"
	}
	if e.body != "" {
		args += ", json=" + pyLiteral(e.body)
	}
	fmt.Fprintf(&b, "r = requests.request(%q, f\"{BASE}%s\"%s)\n", e.method, e.path, args)
	b.WriteString("if not r.ok:\n    raise SystemExit(f\"{r.status_code}: {r.text}\")\nprint(r.json() if r.content else r.status_code)\n")
	return b.String()
}

// pyLiteral is a JSON object of the examples as a Python literal (their
// JSON uses no true, false or null).
func pyLiteral(jsonText string) string { return jsonText }

func (e endpointExample) javaScript(base string) string {
	var b strings.Builder
	b.WriteString("// Node 20 or later, as an ES module (example.mjs).\n")
	b.WriteString(jsHeader(base))
	opts := []string{fmt.Sprintf("method: %q", e.method)}
	headers := []string{}
	if !e.public {
		headers = append(headers, "...AUTH")
	}
	if e.body != "" {
		headers = append(headers, `"Content-Type": "application/json"`)
		opts = append(opts, "body: JSON.stringify("+e.body+")")
	}
	if len(headers) > 0 {
		opts = append(opts, "headers: { "+strings.Join(headers, ", ")+" }")
	}
	fmt.Fprintf(&b, "const res = await fetch(`${BASE}%s`, { %s });\n", e.path, strings.Join(opts, ", "))
	b.WriteString("const text = await res.text(); // empty for 204\nconst body = text ? JSON.parse(text) : res.status;\n" +
		"if (!res.ok) throw new Error(`${res.status} ${body.code}: ${body.detail}`);\nconsole.log(body);\n")
	return b.String()
}
