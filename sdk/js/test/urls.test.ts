// file_url and export_url through the SDK: the server fetches an input
// from a local server (a { url } file, after a file sent from disk), and
// PUTs the result to a local "presigned" URL once the job is done.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import { test } from "node:test";
import { client, inputs, skip } from "./env.js";

test("file_url inputs and an export_url", { skip, timeout: 60_000 }, async () => {
  const pdf = await readFile(inputs().pdf);
  let exported: (d: { type: string; length: number; bytes: number }) => void;
  const put = new Promise<{ type: string; length: number; bytes: number }>((r) => (exported = r));
  const site = createServer(async (req: any, res: any) => {
    if (req.method === "GET" && req.url === "/in.pdf") {
      res.writeHead(200, { "content-type": "application/pdf" });
      res.end(pdf);
      return;
    }
    let bytes = 0;
    for await (const chunk of req) bytes += chunk.length;
    res.writeHead(200);
    res.end();
    exported({ type: req.headers["content-type"], length: Number(req.headers["content-length"]), bytes });
  });
  await new Promise<void>((r) => site.listen(0, "127.0.0.1", r));
  try {
    const base = `http://127.0.0.1:${site.address().port}`;
    const c = client("urls");
    const job = await c.process("merge-pdf", {
      files: [inputs().pdf, { url: `${base}/in.pdf` }], exportUrl: `${base}/out.pdf?signature=secret`, wait: true,
    });
    assert.equal(job.meta.pages, 4, "both inputs merged");
    const { type, length, bytes } = await put;
    assert.equal(type, "application/pdf");
    assert.equal(length, job.result!.size);
    assert.equal(bytes, job.result!.size);
    let now = await c.jobs.get(job.id);
    for (let i = 0; i < 50 && now.result?.export_status === "pending"; i++) {
      await new Promise((r) => setTimeout(r, 100));
      now = await c.jobs.get(job.id);
    }
    assert.equal(now.result?.export_status, "done");
    assert.equal(now.result?.exported_to, `${base}/out.pdf`);
    const page = await c.jobs.list({ tool: "merge-pdf", limit: 1 });
    assert.deepEqual(page.jobs.map((j) => j.id), [job.id]);
    assert.equal((await c.jobs.wait(job.id, { timeout: 5_000 })).status, "done");
  } finally {
    site.close();
  }
});
