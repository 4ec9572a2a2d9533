// What cmd/docmill's TestSDKJS gives the tests: a server, keys and inputs.
import { readFileSync } from "node:fs";
import { Client } from "../src/index.js";

export interface ToolRun {
  slug: string;
  files: string[];
  params: Record<string, string>;
  steps?: { tool: string; params?: Record<string, unknown> }[];
}

export interface Inputs {
  tools: ToolRun[];
  /** The tools whose engine the server lacks, left out of tools. */
  unavailable: string[];
  pdf: string;
  keys: Record<"tools" | "upload" | "retry" | "webhook" | "urls", string>;
}

/** server is the server's URL; undefined when the tests run without one (unit tests only). */
export const server: string | undefined = process.env.DOCMILL_URL;

/** inputs reads DOCMILL_SDK_INPUTS. */
export function inputs(): Inputs {
  return JSON.parse(readFileSync(process.env.DOCMILL_SDK_INPUTS, "utf8")) as Inputs;
}

/** client is a client of the server with the named test's key. */
export function client(key: keyof Inputs["keys"]): Client {
  return new Client(server!, inputs().keys[key]);
}

/** skip says why a test that needs the server does not run. */
export const skip = server ? false : "DOCMILL_URL is not set (cmd/docmill's TestSDKJS sets it)";
