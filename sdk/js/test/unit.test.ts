// The SDK's own behaviours against a fake fetch and a signature made by
// node:crypto, without a server.
import assert from "node:assert/strict";
import { createHmac, randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { Client, DocmillError, verify, WebhookVerificationError } from "../src/index.js";

type Sent = { url: string; headers: Record<string, string>; body: string };

/** fakeFetch answers the calls in turn with answers, and records what was sent. */
function fakeFetch(answers: (() => Response)[]): { fetch: typeof fetch; sent: Sent[] } {
  const sent: Sent[] = [];
  const f = async (url: RequestInfo | URL, init?: RequestInit) => {
    const body = init?.body ? await new Response(init.body).text() : "";
    sent.push({ url: String(url), headers: init?.headers as Record<string, string>, body });
    return answers[Math.min(sent.length, answers.length) - 1]();
  };
  return { fetch: f as typeof fetch, sent };
}

const problem = (status: number, code: string, headers: Record<string, string> = {}) => () =>
  new Response(JSON.stringify({ status, code, detail: `a ${code}`, request_id: "req_test" }), { status, headers: { "content-type": "application/problem+json", ...headers } });
const done = () => new Response(JSON.stringify({ job_id: "job_1", status: "done", tool: "rotate-pdf", created_at: "", meta: {}, error: null }), { status: 200 });

test("a 502 and a 500 internal are retried with the same Idempotency-Key, and the body sent whole each time", async () => {
  const { fetch, sent } = fakeFetch([problem(502, ""), problem(500, "internal"), done]);
  const c = new Client("http://docmill.test/", "dm_live_x", { fetch, retry: { baseDelay: 1 } });
  const job = await c.process("rotate-pdf", { files: [new Blob(["%PDF-1.7 one"]), { name: "two.pdf", body: new TextEncoder().encode("%PDF-1.7 two") }], params: { angle: 180, pages: "1-2" } });
  assert.equal(job.id, "job_1");
  assert.equal(sent.length, 3);
  assert.equal(sent[0].url, "http://docmill.test/v1/rotate-pdf/process");
  assert.equal(new Set(sent.map((s) => s.headers["idempotency-key"])).size, 1);
  for (const s of sent) {
    assert.equal(s.headers["authorization"], "Bearer dm_live_x");
    assert.match(s.body, /name="angle"\r\n\r\n180\r\n/);
    assert.match(s.body, /name="pages"\r\n\r\n1-2\r\n/);
    assert.match(s.body, /filename="file"\r\nContent-Type: application\/octet-stream\r\n\r\n%PDF-1.7 one\r\n/);
    assert.match(s.body, /filename="two.pdf"\r\nContent-Type: application\/octet-stream\r\n\r\n%PDF-1.7 two\r\n--docmill-[0-9a-f]+--\r\n$/);
  }
});

test("a path is streamed with its Content-Length, and its progress reported", async () => {
  const dir = await mkdtemp(join(tmpdir(), "docmill-sdk-unit-"));
  try {
    const path = join(dir, "report.pdf");
    await writeFile(path, "%PDF-1.7 " + "x".repeat(200_000));
    const { fetch, sent } = fakeFetch([problem(504, ""), done]);
    const progress: [number, number | undefined][] = [];
    const c = new Client("http://docmill.test", "k", { fetch, retry: { baseDelay: 1 } });
    await c.process("compress-pdf", { files: [path], onUploadProgress: (n, total) => progress.push([n, total]) });
    assert.equal(sent.length, 2);
    for (const s of sent) {
      assert.equal(Number(s.headers["content-length"]), new TextEncoder().encode(s.body).length);
      assert.match(s.body, /filename="report.pdf"\r\nContent-Type: application\/octet-stream\r\n\r\n%PDF-1.7 x{200000}\r\n/);
    }
    assert.deepEqual(progress.at(-1), [200_009, 200_009]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("a client error is thrown at once as a DocmillError", async () => {
  const { fetch, sent } = fakeFetch([problem(400, "invalid_parameter")]);
  const c = new Client("http://docmill.test", "k", { fetch });
  const err = await c.process("rotate-pdf", { files: [new Blob(["x"])] }).catch((e) => e);
  assert.ok(err instanceof DocmillError);
  assert.equal(err.status, 400);
  assert.equal(err.code, "invalid_parameter");
  assert.equal(err.requestId, "req_test");
  assert.equal(sent.length, 1);
});

test("a Retry-After longer than maxWait fails at once", async () => {
  const { fetch, sent } = fakeFetch([problem(429, "quota_exceeded", { "retry-after": "86400" })]);
  const err = await new Client("http://docmill.test", "k", { fetch }).account().catch((e) => e);
  assert.equal(err.code, "quota_exceeded");
  assert.equal(err.retryAfter, 86400);
  assert.equal(sent.length, 1);
});

test("a stream given as a file is sent once: its call is not retried", async () => {
  const { fetch, sent } = fakeFetch([problem(503, ""), done]);
  const c = new Client("http://docmill.test", "k", { fetch, retry: { baseDelay: 1 } });
  const body = new Blob(["%PDF-1.7"]).stream();
  const err = await c.process("rotate-pdf", { files: [body] }).catch((e) => e);
  assert.equal(err.status, 503);
  assert.equal(sent.length, 1);
});

test("verify accepts a Standard Webhooks signature and refuses others", async () => {
  const key = randomBytes(24);
  const secret = "whsec_" + key.toString("base64");
  const body = JSON.stringify({ type: "job.done", timestamp: "2026-11-22T10:00:01Z", data: { job_id: "job_1" } });
  const ts = String(Math.floor(Date.now() / 1000));
  const sig = (k: Uint8Array, t = ts) => "v1," + createHmac("sha256", k).update(`msg_1.${t}.${body}`).digest("base64");
  const headers = { "webhook-id": "msg_1", "webhook-timestamp": ts, "webhook-signature": `v1,bm90IGl0 ${sig(key)}` };
  assert.equal((await verify(body, headers, secret)).data.job_id, "job_1");
  assert.equal((await verify(new TextEncoder().encode(body), new Headers(headers), secret)).type, "job.done");
  await assert.rejects(verify(body, { ...headers, "webhook-signature": sig(randomBytes(24)) }, secret), WebhookVerificationError);
  await assert.rejects(verify(body + " ", headers, secret), WebhookVerificationError);
  const old = String(Number(ts) - 600);
  await assert.rejects(verify(body, { ...headers, "webhook-timestamp": old, "webhook-signature": sig(key, old) }, secret), /too far/);
  await assert.rejects(verify(body, { "webhook-id": "msg_1" }, secret), /missing/);
});
