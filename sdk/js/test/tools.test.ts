// Every tool of the catalogue once through the SDK, on the inputs of
// cmd/docmill's conformance suite.
import assert from "node:assert/strict";
import { mkdtemp, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { TOOLS, type Job, type PipelineStep, type ToolSlug } from "../src/index.js";
import { client, inputs, skip, type ToolRun } from "./env.js";

test("every tool through the SDK", { skip }, async () => {
  const c = client("tools");
  const { tools, unavailable } = inputs();
  const catalogue = await c.tools();
  const slugs = catalogue.map((t) => t.slug).sort();
  assert.deepEqual(slugs, Object.keys(TOOLS).sort(), "the generated types name every tool the server serves");
  // TestSDKJS leaves out (and fails under CI) the tools whose engine is missing.
  assert.deepEqual([...tools.map((t) => t.slug), ...unavailable].sort(), slugs, "the inputs name every tool");
  assert.deepEqual(catalogue.filter((t) => !t.available).map((t) => t.slug).sort(), [...unavailable].sort());
  const dir = await mkdtemp(join(tmpdir(), "docmill-sdk-"));
  const failures: string[] = [];
  const queue = [...tools];
  // Three calls at a time: the server's lanes run them side by side.
  await Promise.all([1, 2, 3].map(async () => {
    for (let run = queue.shift(); run; run = queue.shift()) {
      try {
        await runTool(run, dir);
      } catch (err) {
        failures.push(`${run.slug}: ${err instanceof Error ? err.message : err}`);
      }
    }
  }));
  assert.deepEqual(failures, []);

  async function runTool(run: ToolRun, dir: string): Promise<void> {
    let job: Job;
    const statuses: string[] = [];
    const onStatus = (j: Job) => statuses.push(j.status);
    if (run.steps) {
      job = await c.pipeline(run.steps as PipelineStep[], { files: run.files, wait: true, timeout: 180_000, onStatus });
    } else {
      // Catalogue-driven: the slug and params come from the inputs, not the source, so they are not typed here.
      job = await c.process(run.slug as ToolSlug, { files: run.files, params: run.params, wait: true, timeout: 180_000, onStatus } as never);
    }
    assert.equal(job.status, "done");
    assert.equal(statuses.at(-1), "done", `statuses seen: ${statuses}`);
    const saved = await job.download(join(dir, `${run.slug}-${job.result!.filename}`));
    assert.equal((await stat(saved)).size, job.result!.size);
  }
});
