import { awaitJob, getJob, Job, type JobRecord, type JobStatus, type WaitOptions } from "./job.js";
import type { Transport } from "./transport.js";

/** A page selection of GET /v1/jobs. */
export interface ListOptions {
  status?: JobStatus;
  /** A tool's slug. */
  tool?: string;
  /** The page size, 1-100 (server default 20). */
  limit?: number;
  /** The nextCursor of the page before. */
  cursor?: string;
  signal?: AbortSignal;
}

/** A page of the caller's jobs, newest first. */
export interface JobPage {
  jobs: Job[];
  /** Continues the list; undefined on the last page. */
  nextCursor?: string;
}

/** The caller's jobs (client.jobs). */
export class Jobs {
  readonly #transport: Transport;

  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /** get polls a job once; with wait (seconds, at most 60) it answers when the job finishes or the wait ends (a long poll). */
  async get(id: string, options: { wait?: number; signal?: AbortSignal } = {}): Promise<Job> {
    return (await getJob(this.#transport, id, options.wait ?? 0, options.signal)).job;
  }

  /** list returns one page of the caller's jobs, newest first. */
  async list(options: ListOptions = {}): Promise<JobPage> {
    const q = new URLSearchParams();
    for (const k of ["status", "tool", "cursor"] as const) if (options[k]) q.set(k, options[k]!);
    if (options.limit) q.set("limit", String(options.limit));
    const qs = q.toString();
    const { value, response } = await this.#transport.json<{ jobs: JobRecord[]; next_cursor?: string }>({
      method: "GET", path: `/v1/jobs${qs ? `?${qs}` : ""}`, repeatable: true, signal: options.signal,
    });
    const rid = response.headers.get("x-request-id") ?? undefined;
    return { jobs: value.jobs.map((j) => new Job(this.#transport, j, rid)), nextCursor: value.next_cursor || undefined };
  }

  /** all yields every job from options on, page after page. */
  async *all(options: ListOptions = {}): AsyncGenerator<Job> {
    let cursor = options.cursor;
    for (;;) {
      const page = await this.list({ ...options, cursor });
      yield* page.jobs;
      if (!page.nextCursor) return;
      cursor = page.nextCursor;
    }
  }

  /** wait long-polls a job until it is finished or options.timeout passes, and returns it as it then stands. */
  wait(id: string, options: WaitOptions = {}): Promise<Job> {
    return awaitJob(this.#transport, id, options);
  }

  /** cancel cancels a queued or processing job, or deletes a finished job's result now; it returns the job as it then stands. */
  async cancel(id: string): Promise<Job> {
    const { value, response } = await this.#transport.json<JobRecord>({
      method: "DELETE", path: `/v1/jobs/${encodeURIComponent(id)}`, repeatable: true,
    });
    return new Job(this.#transport, value, response.headers.get("x-request-id") ?? undefined);
  }
}
