import { failure, Job, type JobRecord, type WaitOptions } from "./job.js";
import { Jobs } from "./jobs.js";
import type { ToolParams, ToolSlug } from "./tools.js";
import { Transport, type RetryOptions } from "./transport.js";
import { newIdempotencyKey, Upload, type FileInput, type UploadProgress } from "./upload.js";
import { Webhooks } from "./webhooks.js";

/** A param value: sent as a form field in its canonical text. */
type ParamValue = string | number | boolean;

/** What a process call and a pipeline take beside their params. */
export interface CallOptions {
  /** The files, in order: paths (Node), Blobs, bytes, ReadableStreams, or `{ url }` for the server to fetch. */
  files?: FileInput[];
  /**
   * true: wait until the job is finished (long polls after the server's
   * own wait), and throw a DocmillError if it failed or was canceled;
   * false: ask for a 202 at once (Prefer: respond-async) and return the
   * queued job; left out: the server's answer as it comes (done within
   * its sync budget, else queued).
   */
  wait?: boolean;
  /** With wait: the longest the whole wait may take, in ms. */
  timeout?: number;
  /** Makes a repeated call return the first call's job. Left out, one is made per call and sent with each of its attempts. */
  idempotencyKey?: string;
  /** A presigned PUT URL the result is sent to once the job is done (export_url). */
  exportUrl?: string;
  /** With exportUrl: false deletes the server's copy once the export succeeded. */
  keepResult?: boolean;
  /** Ask for a PDF result's first page as a PNG (result.preview_url). */
  preview?: boolean;
  /** Called as the files' bytes are sent. */
  onUploadProgress?: UploadProgress;
  /** Called with the job when it is answered, and as its status changes while waited on. */
  onStatus?: (job: Job) => void;
  signal?: AbortSignal;
}

type ParamsOf<T extends ToolSlug> = {} extends ToolParams[T] ? { params?: ToolParams[T] } : { params: ToolParams[T] };

/** The options of client.process(tool, ...): the tool's params (typed by tool) and CallOptions. */
export type ProcessOptions<T extends ToolSlug> = CallOptions & ParamsOf<T>;

/** One step of a pipeline: a tool and its params. */
export type PipelineStep = {
  [T in Exclude<ToolSlug, "pipeline">]: {} extends ToolParams[T] ? { tool: T; params?: ToolParams[T] } : { tool: T; params: ToolParams[T] };
}[Exclude<ToolSlug, "pipeline">];

/** A tool of the catalogue (GET /v1/tools). */
export interface Tool {
  slug: string;
  title: string;
  description?: string;
  accepts: string[];
  min_files: number;
  max_files: number;
  params: ToolParam[];
  long: boolean;
  engine: string;
  lane?: string;
  available: boolean;
  endpoint: string;
  outputs?: string[];
  [more: string]: unknown;
}

/** A param of a tool, as the catalogue declares it. */
export interface ToolParam {
  name: string;
  type: "string" | "integer" | "number" | "boolean" | "pages" | "color" | "url";
  description?: string;
  required: boolean;
  enum?: string[];
  min?: number;
  max?: number;
  default?: string;
}

/** The caller's account (GET /v1/account). */
export interface Account {
  account_id: string;
  name: string;
  email: string;
  plan: string;
  key_prefix: string;
  limits: Record<string, number>;
  usage: { period: string; operations_used: number; operations_limit: number; jobs_in_flight: number; resets_at: string };
}

/** Options of a client. */
export interface ClientOptions {
  retry?: RetryOptions;
  /** The fetch to use (default globalThis.fetch). */
  fetch?: typeof fetch;
}

/**
 * Client talks to one docmill server with one API key: typed tool calls
 * whose uploads stream, jobs, pipelines and webhooks; answers of 300 and
 * more are thrown as DocmillError; calls are retried as options.retry
 * says, a process call with the one Idempotency-Key across its attempts,
 * so that it makes one job, charged once.
 */
export class Client {
  readonly jobs: Jobs;
  readonly webhooks: Webhooks;
  readonly #transport: Transport;

  constructor(url: string, key = "", options: ClientOptions = {}) {
    this.#transport = new Transport(url, key, options.retry, options.fetch);
    this.jobs = new Jobs(this.#transport);
    this.webhooks = new Webhooks(this.#transport);
  }

  /** The server's URL, without a trailing slash. */
  get url(): string {
    return this.#transport.url;
  }

  /** process runs a tool on files with its params and returns the job (see CallOptions.wait). */
  process<T extends ToolSlug>(tool: T, options: ProcessOptions<T>): Promise<Job> {
    const params = (options as { params?: Record<string, ParamValue | undefined> }).params ?? {};
    return this.call(tool, fields(params), options);
  }

  /** pipeline runs tools one after the other on one job: the files go to the first step, each step's output to the next. */
  pipeline(steps: PipelineStep[], options: CallOptions = {}): Promise<Job> {
    const canonical = steps.map((s) => (s.params ? { tool: s.tool, params: s.params } : { tool: s.tool }));
    return this.call("pipeline", [["steps", JSON.stringify(canonical)]], options);
  }

  /** tools returns the server's catalogue (no key needed). */
  async tools(): Promise<Tool[]> {
    return (await this.#transport.json<{ tools: Tool[] }>({ method: "GET", path: "/v1/tools", repeatable: true })).value.tools;
  }

  /** tool returns one tool of the catalogue; an unknown slug is a 404 unknown_tool. */
  async tool(slug: string): Promise<Tool> {
    return (await this.#transport.json<Tool>({ method: "GET", path: `/v1/tools/${encodeURIComponent(slug)}`, repeatable: true })).value;
  }

  /** account returns the caller's plan, limits and this period's usage. */
  async account(): Promise<Account> {
    return (await this.#transport.json<Account>({ method: "GET", path: "/v1/account", repeatable: true })).value;
  }

  private async call(tool: string, params: [string, string][], options: CallOptions): Promise<Job> {
    const extra: [string, string][] = [];
    if (options.exportUrl !== undefined) extra.push(["export_url", options.exportUrl]);
    if (options.keepResult !== undefined) extra.push(["keep_result", String(options.keepResult)]);
    if (options.preview) extra.push(["preview", "true"]);
    const upload = await Upload.create([...params, ...extra], options.files ?? []);
    const headers: Record<string, string> = { "idempotency-key": options.idempotencyKey ?? newIdempotencyKey() };
    if (options.wait === false) headers["prefer"] = "respond-async";
    const { value, response } = await this.#transport.json<JobRecord>({
      method: "POST", path: `/v1/${encodeURIComponent(tool)}/process`, headers, repeatable: true, signal: options.signal,
      body: (attempt, exclusive) => upload.body(attempt, options.onUploadProgress, exclusive),
    });
    let job = new Job(this.#transport, value, response.headers.get("x-request-id") ?? undefined);
    options.onStatus?.(job);
    if (options.wait !== true) return job;
    if (!job.finished) {
      const wait: WaitOptions = { timeout: options.timeout, signal: options.signal, onStatus: options.onStatus };
      let last = job.status;
      wait.onStatus = (j) => {
        if (j.status !== last) options.onStatus?.(j);
        last = j.status;
      };
      job = await job.wait(wait);
    }
    if (job.status === "failed" || job.status === "canceled") throw failure(job);
    return job;
  }
}

/** fields are params as form fields, sorted by name, their values in canonical text; undefined ones are left out. */
function fields(params: Record<string, ParamValue | undefined>): [string, string][] {
  return Object.keys(params).sort().flatMap((k): [string, string][] => {
    const v = params[k];
    return v === undefined ? [] : [[k, String(v)]];
  });
}
