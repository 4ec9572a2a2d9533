// Node's built-ins as the tests use them, typed loosely: the package's
// only development dependency is the TypeScript compiler.
declare module "node:test";
declare module "node:assert/strict";
declare module "node:os";
declare module "node:url";
declare module "node:crypto";
declare module "node:child_process";
declare const process: any;
declare const Buffer: any;
