// Packs the SDK as an npm tarball, versioned as the docmill server it
// was built with: `node scripts/pack.mjs VERSION` (make sdk-js passes the
// Makefile's VERSION, git describe's). It compiles src/ to dist/, stages
// the package under build/pack with that version in package.json and in
// dist/version.js, and runs npm pack there, offline: the tarball is
// written to this directory and its name printed.
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const version = semver(process.argv[2] ?? "devel");

execFileSync(process.execPath, [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", join(root, "tsconfig.json")], { stdio: "inherit" });
const stage = join(root, "build", "pack");
rmSync(stage, { recursive: true, force: true });
mkdirSync(stage, { recursive: true });
cpSync(join(root, "dist"), join(stage, "dist"), { recursive: true });
cpSync(join(root, "README.md"), join(stage, "README.md"));
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
pkg.version = version;
delete pkg.scripts;
delete pkg.devDependencies;
writeFileSync(join(stage, "package.json"), JSON.stringify(pkg, null, 2) + "\n");
const versionJS = join(stage, "dist", "version.js");
const stamped = readFileSync(versionJS, "utf8").replace(/VERSION = "[^"]*"/, `VERSION = ${JSON.stringify(version)}`);
if (!stamped.includes(JSON.stringify(version))) throw new Error("dist/version.js has no VERSION to stamp");
writeFileSync(versionJS, stamped);
const out = execFileSync("npm", ["pack", "--offline", "--silent", "--pack-destination", root], { cwd: stage, encoding: "utf8" });
console.log(join(root, out.trim().split("\n").at(-1)));

/**
 * semver makes a server version npm's: a tag v1.2.3 (or v1.2.3-4-gabc,
 * -dirty) loses its v; anything else (a bare commit, "devel") is a
 * pre-release of 0.0.0 named by it, each of its dot-separated parts
 * made a valid identifier.
 */
function semver(v) {
  const m = /^v?(\d+\.\d+\.\d+)(?:-(.+))?$/.exec(v);
  const pre = (s) => s.split(/[^0-9A-Za-z.-]+/).join("-").split(".").map((id) => (/^0\d+$/.test(id) ? `g${id}` : id)).join(".");
  if (m) return m[2] ? `${m[1]}-${pre(m[2])}` : m[1];
  return `0.0.0-${pre(v)}`;
}
