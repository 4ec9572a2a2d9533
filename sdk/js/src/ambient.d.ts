// The few Node built-ins the SDK uses, typed loosely: the package has no
// dependency on @types/node, and these modules are loaded only in Node
// (by a path given as a file, or a download to a path).
declare module "node:fs";
declare module "node:fs/promises";
declare module "node:stream";
declare module "node:stream/promises";
declare module "node:path";
declare module "node:http";
declare module "node:https";
declare module "node:events";
