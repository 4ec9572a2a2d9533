import { DocmillError, type FieldError } from "./errors.js";
import { sleep, type Transport } from "./transport.js";

/** A job's status. */
export type JobStatus = "queued" | "processing" | "done" | "failed" | "canceled";

/** A done job's file. */
export interface JobResult {
  /** The signed download link; absent once the result expired or was deleted (expired is then true). */
  url?: string;
  /** A PDF result's first page as a small PNG, when asked for (preview). */
  preview_url?: string;
  size: number;
  filename: string;
  content_type: string;
  expires_at: string;
  expired?: boolean;
  /** The export to export_url: its destination without the query, its status and the reason of a failure. */
  exported_to?: string;
  export_status?: "pending" | "done" | "failed";
  export_error?: string;
}

/** A failed job's reason. */
export interface JobError {
  code: string;
  message: string;
  errors?: FieldError[];
}

/** The job record exactly as the API renders it (GET /v1/jobs/{id}, webhook events). */
export interface JobRecord {
  job_id: string;
  status: JobStatus;
  tool: string;
  created_at: string;
  finished_at?: string;
  result?: JobResult;
  /** The job's figures: duration_ms, queued_ms, input_size, and each tool's own. */
  meta: Record<string, unknown>;
  error: JobError | null;
}

/** Options of a wait for a job to finish. */
export interface WaitOptions {
  /** The longest the whole wait may take, in ms (default: no limit). */
  timeout?: number;
  /** The longest one long poll waits, in whole seconds (1-60, default 60); shorter shows a queued job start sooner. */
  pollWait?: number;
  /** Called with the job when a poll finds its status changed (the first poll included). */
  onStatus?: (job: Job) => void;
  signal?: AbortSignal;
}

/** A job: its record's fields, and what can be done with it. */
export class Job implements JobRecord {
  job_id!: string;
  status!: JobStatus;
  tool!: string;
  created_at!: string;
  finished_at?: string;
  result?: JobResult;
  meta!: Record<string, unknown>;
  error!: JobError | null;
  /** The X-Request-Id of the answer that gave this record. */
  readonly requestId?: string;
  readonly #transport: Transport;

  constructor(transport: Transport, record: JobRecord, requestId?: string) {
    Object.assign(this, record);
    this.requestId = requestId;
    this.#transport = transport;
  }

  /** The job's id (job_id). */
  get id(): string {
    return this.job_id;
  }

  /** Whether the job reached a final status (done, failed or canceled). */
  get finished(): boolean {
    return this.status === "done" || this.status === "failed" || this.status === "canceled";
  }

  /** The record as the API sent it, without the SDK's additions. */
  toJSON(): JobRecord {
    const { job_id, status, tool, created_at, finished_at, result, meta, error } = this;
    return { job_id, status, tool, created_at, finished_at, result, meta, error };
  }

  /** wait long-polls the job until it is finished (or the timeout passes) and returns it as it then stands. */
  wait(options: WaitOptions = {}): Promise<Job> {
    return awaitJob(this.#transport, this.job_id, options);
  }

  /** cancel cancels a queued or processing job, or deletes a finished job's result now. */
  async cancel(): Promise<Job> {
    const { value, response } = await this.#transport.json<JobRecord>({
      method: "DELETE", path: `/v1/jobs/${encodeURIComponent(this.job_id)}`, repeatable: true,
    });
    return new Job(this.#transport, value, response.headers.get("x-request-id") ?? undefined);
  }

  /** stream fetches the result (the signed link needs no key). */
  async stream(signal?: AbortSignal): Promise<ReadableStream<Uint8Array>> {
    const resp = await this.#transport.send({ method: "GET", path: this.resultURL(), repeatable: true, auth: false, signal });
    if (!resp.body) throw new Error("the download has no body");
    return resp.body;
  }

  /** blob fetches the result into memory: for small results, and browsers. */
  async blob(signal?: AbortSignal): Promise<Blob> {
    const resp = await this.#transport.send({ method: "GET", path: this.resultURL(), repeatable: true, auth: false, signal });
    return resp.blob();
  }

  /**
   * download saves the result to path, in Node, streamed to the disk;
   * when path is a directory, under the result's file name. It returns
   * the path written.
   */
  async download(path: string, signal?: AbortSignal): Promise<string> {
    const [{ stat }, { createWriteStream }, { Readable }, { pipeline }, { join }] = await Promise.all([
      import(/* webpackIgnore: true */ "node:fs/promises"), import(/* webpackIgnore: true */ "node:fs"), import(/* webpackIgnore: true */ "node:stream"), import(/* webpackIgnore: true */ "node:stream/promises"), import(/* webpackIgnore: true */ "node:path"),
    ]);
    const info = await stat(path).catch(() => undefined);
    const target: string = info?.isDirectory() ? join(path, this.result!.filename) : path;
    const body = await this.stream(signal);
    await pipeline(Readable.fromWeb(body), createWriteStream(target));
    return target;
  }

  private resultURL(): string {
    if (this.status !== "done" || !this.result?.url) {
      throw new DocmillError({ status: 0, code: "no_result", detail: `job ${this.job_id} is ${this.status}${this.result?.expired ? " and its result expired" : ""}: it has no result to download`, jobId: this.job_id });
    }
    return this.result.url;
  }
}

/** failure is a failed job's error as a DocmillError (status 0: no HTTP answer). */
export function failure(job: Job): DocmillError {
  return new DocmillError({
    status: 0, code: job.error?.code ?? job.status, detail: job.error?.message ?? `the job was ${job.status}`,
    jobId: job.job_id, fields: job.error?.errors, requestId: job.requestId,
  });
}

/** getJob polls a job once; wait > 0 long-polls up to that many seconds (at most 60). */
export async function getJob(transport: Transport, id: string, wait = 0, signal?: AbortSignal): Promise<{ job: Job; retryAfter: number }> {
  const q = wait > 0 ? `?wait=${Math.min(60, Math.ceil(wait))}` : "";
  const { value, response } = await transport.json<JobRecord>({
    method: "GET", path: `/v1/jobs/${encodeURIComponent(id)}${q}`, repeatable: true, signal,
  });
  const ra = Number.parseInt(response.headers.get("retry-after") ?? "", 10);
  return { job: new Job(transport, value, response.headers.get("x-request-id") ?? undefined), retryAfter: Number.isFinite(ra) && ra > 0 ? ra : 1 };
}

/**
 * awaitJob long-polls a job until it is finished or the timeout passes.
 * An unfinished answer that came back early (a server shutting down, or
 * one that does not long-poll) is followed by a pause of its
 * Retry-After, so the loop never spins.
 */
export async function awaitJob(transport: Transport, id: string, options: WaitOptions = {}): Promise<Job> {
  const deadline = options.timeout ? Date.now() + options.timeout : undefined;
  const longest = Math.max(1, Math.min(60, options.pollWait ?? 60));
  let last: string | undefined;
  for (;;) {
    let wait = longest;
    if (deadline !== undefined) wait = Math.max(1, Math.min(wait, Math.ceil((deadline - Date.now()) / 1000)));
    const asked = Date.now();
    const { job, retryAfter } = await getJob(transport, id, wait, options.signal);
    if (options.onStatus && job.status !== last) options.onStatus(job);
    last = job.status;
    if (job.finished || (deadline !== undefined && Date.now() >= deadline)) return job;
    if (Date.now() - asked >= (wait * 1000) / 2) continue;
    let pause = retryAfter * 1000;
    if (deadline !== undefined) pause = Math.min(pause, Math.max(0, deadline - Date.now()));
    await sleep(pause, options.signal);
  }
}
