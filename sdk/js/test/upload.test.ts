// A 500 MB file streamed from disk: the Node process's peak RSS stays
// under 100 MB. This file runs in a process of its own (node --test), so
// the peak is this upload's.
import assert from "node:assert/strict";
import { open, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { client, skip } from "./env.js";

const size = 500 * 1024 * 1024;

test("a 500 MB upload streams from disk", { skip, timeout: 300_000 }, async () => {
  const dir = await mkdtemp(join(tmpdir(), "docmill-sdk-upload-"));
  const path = join(dir, "big.pdf");
  // A PDF header and zeros: sparse on disk, read like any file.
  const f = await open(path, "w");
  await f.write("%PDF-1.7\n");
  await f.truncate(size);
  await f.close();
  try {
    const c = client("upload");
    let sent = 0;
    let total: number | undefined;
    const started = Date.now();
    const job = await c.process("rotate-pdf", {
      files: [path], wait: false,
      onUploadProgress: (s, t) => {
        sent = s;
        total = t;
      },
    });
    const seconds = (Date.now() - started) / 1000;
    assert.equal(total, size);
    assert.equal(sent, size);
    assert.ok(job.id.startsWith("job_"), job.id);
    const meta = (await c.jobs.get(job.id)).meta;
    assert.equal(meta.input_size, size);
    const canceled = await c.jobs.cancel(job.id);
    assert.ok(canceled.finished, canceled.status);
    const rssMB = process.resourceUsage().maxRSS / 1024;
    console.log(`500 MB upload: ${(500 / seconds).toFixed(0)} MB/s, Node peak RSS ${rssMB.toFixed(0)} MB (limit 100 MB)`);
    assert.ok(rssMB < 100, `peak RSS ${rssMB} MB`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
