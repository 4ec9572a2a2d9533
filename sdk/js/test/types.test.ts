// The compiler refuses a param of the wrong type or name, a value outside
// an enum and a missing required param, from the types generated from the
// registry; the right calls compile. One tsc run checks every snippet.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { before, test } from "node:test";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../", import.meta.url));

const snippets: Record<string, string> = {
  right: `await client.process("watermark-pdf", { files: ["a.pdf"], params: { text: "DRAFT", opacity: 0.5, position: "top-left" } });
await client.process("rotate-pdf", { files: ["a.pdf"] });
await client.pipeline([{ tool: "merge-pdf" }, { tool: "compress-pdf", params: { preset: "extreme" } }]);`,
  wrongType: `await client.process("watermark-pdf", { params: { text: 1 } });`,
  wrongName: `await client.process("watermark-pdf", { params: { text: "x", colour: "#ff0000" } });`,
  outside: `await client.process("rotate-pdf", { params: { angle: 45 } });
await client.process("watermark-pdf", { files: ["a.pdf"] });
await client.pipeline([{ tool: "compress-pdf", params: { preset: "huge" } }]);`,
};

/** errors are tsc's messages, by snippet. */
const errors: Record<string, string> = {};

before(async () => {
  const dir = await mkdtemp(join(tmpdir(), "docmill-sdk-tsc-"));
  try {
    await writeFile(join(dir, "package.json"), '{"type": "module"}');
    const files = [];
    for (const [name, code] of Object.entries(snippets)) {
      files.push(join(dir, `${name}.ts`));
      await writeFile(files.at(-1)!, `import { Client } from ${JSON.stringify(join(root, "build", "src", "index.js"))};\n` +
        `const client = new Client("http://localhost:8080", "key");\n${code}\nexport {};\n`);
    }
    const r = spawnSync(process.execPath, [join(root, "node_modules", "typescript", "bin", "tsc"), "--noEmit", "--strict", "--skipLibCheck",
      "--target", "ES2022", "--module", "NodeNext", "--moduleResolution", "NodeNext", "--lib", "ES2022,DOM", ...files], { encoding: "utf8" });
    for (const name of Object.keys(snippets)) errors[name] = "";
    let current = "";
    for (const line of (r.stdout + r.stderr).split("\n")) {
      const m = /([A-Za-z]+)\.ts\(\d+,\d+\): error/.exec(line);
      if (m) current = m[1];
      if (current) errors[current] += line + "\n";
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("the right params compile", () => {
  assert.equal(errors.right, "");
});

test("a param of the wrong type is refused", () => {
  assert.match(errors.wrongType, /wrongType\.ts\(3,\d+\): error TS2322: Type 'number' is not assignable to type 'string'/);
});

test("a param of the wrong name is refused", () => {
  assert.match(errors.wrongName, /error TS2561: Object literal may only specify known properties, but 'colour' does not exist/);
});

test("a value outside an enum, and a missing required param, are refused", () => {
  assert.match(errors.outside, /outside\.ts\(3,\d+\): error TS2322: Type '45' is not assignable to type '90 \| 180 \| 270 \| undefined'/);
  assert.match(errors.outside, /outside\.ts\(4,\d+\): error TS2345: [^\n]*\n\s+Property 'params' is missing/);
  assert.match(errors.outside, /outside\.ts\(5,\d+\): error TS2322/);
});
