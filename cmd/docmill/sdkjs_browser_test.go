package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/docmill/docmill/tools/toolstest"
)

// TestSDKJSBrowser runs the JavaScript SDK in headless Chromium, as a
// page's ES module, against a real server: a File uploaded (a Blob
// body), the job waited on, its result fetched as a Blob, a refused
// param thrown as a DocmillError, and a webhook signature checked by
// verify with the browser's WebCrypto. The page and the API share one
// origin, a proxy in front of the server (--base-url names it), as a
// site that serves its own front end and its API does; the server sends
// no CORS headers.
func TestSDKJSBrowser(t *testing.T) {
	t.Parallel() // its server and browser are its own; build/ is compiled once (buildSDKJS)
	if testing.Short() {
		t.Skip("starts Chromium")
	}
	toolstest.Need(t, "node", "npm")
	b := newBrowser(t)
	buildSDKJS(t)
	var api atomic.Pointer[url.URL] // set once the server is up, before the page asks for it
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasPrefix(r.URL.Path, "/sdk/"):
			w.Header().Set("Content-Type", "text/javascript")
			http.ServeFile(w, r, filepath.Join(sdkJSDir, "build", "src", strings.TrimPrefix(r.URL.Path, "/sdk/")))
		case r.URL.Path == "/":
			fmt.Fprint(w, "<!doctype html><title>SDK</title>")
		case r.URL.Path == "/sample.pdf":
			w.Write(toolstest.TextPDF("Browser page one", "Browser page two"))
		default:
			httputil.NewSingleHostReverseProxy(api.Load()).ServeHTTP(w, r)
		}
	}))
	defer site.Close()
	s := startServer(t, "", "--base-url", site.URL)
	u, err := url.Parse(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	api.Store(u)
	key := newKey(t, s.DataDir, "pro")
	secret, headers, body := signedDelivery(t)
	b.run(chromedp.Navigate(site.URL + "/"))
	out, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](fmt.Sprintf(sdkBrowserScript, key, body, headers, secret), chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("the page's script: %v", err)
	}
	var got struct {
		Status, Filename, Head, Error, Event string
		Size                                 int64
		Statuses                             []string
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	t.Logf("in Chromium: %s", out)
	if got.Status != "done" || got.Head != "%PDF-" || got.Size == 0 || !strings.HasSuffix(got.Filename, ".pdf") {
		t.Errorf("the job in the browser: %s", out)
	}
	if got.Error != "DocmillError 400 invalid_parameter angle req" {
		t.Errorf("a refused param in the browser: %q", got.Error)
	}
	if got.Event != "job.done job_browser verified; refused" {
		t.Errorf("verify in the browser: %q", got.Event)
	}
}

// sdkBrowserScript is the page's script: %q the key, the delivery's body,
// its headers (JSON) and the secret.
const sdkBrowserScript = `(async () => {
  const { Client, DocmillError, verify } = await import("/sdk/index.js");
  const c = new Client(location.origin, %q);
  const pdf = await (await fetch("/sample.pdf")).blob();
  const statuses = [];
  const job = await c.process("rotate-pdf", { files: [new File([pdf], "sample.pdf")], params: { angle: 90 }, wait: true, onStatus: (j) => statuses.push(j.status) });
  const result = await job.blob();
  const head = new TextDecoder().decode(await result.slice(0, 5).arrayBuffer());
  let error = "";
  try {
    await c.process("rotate-pdf", { files: [pdf], params: { angle: 45 } });
  } catch (e) {
    error = [e instanceof DocmillError ? "DocmillError" : e.name, e.status, e.code, e.fields.map((f) => f.field).join(","), e.requestId ? "req" : "no request id"].join(" ");
  }
  const body = %q, headers = JSON.parse(%q), secret = %q;
  const event = await verify(body, headers, secret);
  const refused = await verify(body.replace("done", "dune"), headers, secret).then(() => "accepted", () => "refused");
  return JSON.stringify({ status: job.status, filename: job.result.filename, size: result.size, head, error, statuses,
    event: event.type + " " + event.data.job_id + " verified; " + refused });
})()`

// signedDelivery is a webhook delivery signed here, per Standard
// Webhooks: the secret, the headers (JSON) and the body.
func signedDelivery(t *testing.T) (secret, headers, body string) {
	key := []byte("a browser's webhook key, 32 byte")
	secret = "whsec_" + base64.StdEncoding.EncodeToString(key)
	body = `{"type": "job.done", "timestamp": "2026-11-22T10:00:01Z", "data": {"job_id": "job_browser", "status": "done"}}`
	ts := strconv.FormatInt(time.Now().Unix(), 10)
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte("msg_browser." + ts + "." + body))
	h, err := json.Marshal(map[string]string{"webhook-id": "msg_browser", "webhook-timestamp": ts,
		"webhook-signature": "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))})
	if err != nil {
		t.Fatal(err)
	}
	return secret, string(h), body
}
