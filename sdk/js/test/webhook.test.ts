// A webhook endpoint on a local listener: a job's event arrives signed,
// verify accepts it with the endpoint's secret and refuses it with
// another, and the endpoint is listed and deleted.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { test } from "node:test";
import { verify, WebhookVerificationError } from "../src/index.js";
import { client, inputs, skip } from "./env.js";

test("a webhook delivery verified by verify", { skip, timeout: 60_000 }, async () => {
  const c = client("webhook");
  let deliver: (d: { body: string; headers: Record<string, string> }) => void;
  const delivered = new Promise<{ body: string; headers: Record<string, string> }>((r) => (deliver = r));
  const listener = createServer(async (req: any, res: any) => {
    const chunks: Uint8Array[] = [];
    for await (const chunk of req) chunks.push(chunk);
    res.writeHead(204);
    res.end();
    deliver({ body: Buffer.concat(chunks).toString("utf8"), headers: req.headers });
  });
  await new Promise<void>((r) => listener.listen(0, "127.0.0.1", r));
  try {
    const hook = await c.webhooks.create({ url: `http://127.0.0.1:${listener.address().port}/hook`, events: ["job.done"] });
    assert.match(hook.secret ?? "", /^whsec_/);
    assert.deepEqual((await c.webhooks.list()).map((w) => w.id), [hook.id]);
    const job = await c.process("rotate-pdf", { files: [inputs().pdf], wait: true });
    const { body, headers } = await delivered;
    const event = await verify(body, headers, hook.secret!);
    assert.equal(event.type, "job.done");
    assert.equal(event.data.job_id, job.id);
    assert.equal(event.data.status, "done");
    await assert.rejects(verify(body, headers, "whsec_" + btoa("another secret of 32 bytes......")), WebhookVerificationError);
    await assert.rejects(verify(body.replace("done", "dune"), headers, hook.secret!), WebhookVerificationError);
    await c.webhooks.delete(hook.id);
    assert.deepEqual(await c.webhooks.list(), []);
  } finally {
    listener.close();
  }
});
