// A process call whose first attempt reached the server, which made and
// charged its job, but whose answer a proxy replaced with a 502: the
// client sends it again with the same Idempotency-Key, gets the same
// job, and the account is charged once.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { test } from "node:test";
import { Client } from "../src/index.js";
import { inputs, server, skip } from "./env.js";

test("a retried process call is one job, charged once", { skip }, async () => {
  const { keys, pdf } = inputs();
  const seen: { key: string; status: number; job?: string }[] = [];
  const proxy = createServer(async (req: any, res: any) => {
    const chunks: Uint8Array[] = [];
    for await (const c of req) chunks.push(c);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers as Record<string, string>)) if (k !== "host" && k !== "connection") headers[k] = v;
    const up = await fetch(server + req.url, { method: req.method, headers, body: chunks.length ? Buffer.concat(chunks) : undefined });
    const body = await up.text();
    if (req.url.endsWith("/process")) {
      seen.push({ key: req.headers["idempotency-key"], status: up.status, job: JSON.parse(body).job_id });
      if (seen.length === 1) {
        res.writeHead(502, { "content-type": "text/plain" });
        res.end("bad gateway (the test's proxy)");
        return;
      }
    }
    res.writeHead(up.status, { "content-type": up.headers.get("content-type") ?? "application/json" });
    res.end(body);
  });
  await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
  try {
    const retries: number[] = [];
    const c = new Client(`http://127.0.0.1:${proxy.address().port}`, keys.retry, { retry: { baseDelay: 50, onRetry: (e) => retries.push(e.attempt) } });
    const before = (await c.account()).usage.operations_used;
    const job = await c.process("rotate-pdf", { files: [pdf], params: { angle: 90 }, wait: true });
    assert.equal(job.status, "done");
    assert.deepEqual(retries, [1]);
    assert.equal(seen.length, 2);
    assert.equal(seen[0].key, seen[1].key, "one Idempotency-Key across the attempts");
    assert.match(seen[0].key, /^dmc_[0-9a-f]{32}$/);
    assert.equal(seen[0].job, job.id, "the retry answered the first attempt's job");
    assert.equal((await c.account()).usage.operations_used - before, 1, "charged once");
  } finally {
    proxy.close();
  }
});
