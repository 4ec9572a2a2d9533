import { DocmillError, problem } from "./errors.js";
import { nodeUpload } from "./nodeupload.js";
import { VERSION } from "./version.js";

/** How a client retries a call that failed for a reason a later attempt may not meet. */
export interface RetryOptions {
  /** How many times a call is sent at most (default 5; 1: never retried). */
  maxAttempts?: number;
  /** The longest wait before one retry, in ms (default 60000). A longer Retry-After (quota_exceeded) fails at once. */
  maxWait?: number;
  /** The first backoff of a retry without Retry-After, in ms (default 500), doubled each attempt. */
  baseDelay?: number;
  /** Called before each wait, to tell a user why nothing happens for a while. */
  onRetry?: (event: RetryEvent) => void;
}

/** A retry about to happen. */
export interface RetryEvent {
  /** The attempt that failed, from 1. */
  attempt: number;
  /** How long the client waits before the next one, in ms. */
  wait: number;
  /** Why: a DocmillError, or the network error fetch threw. */
  error: unknown;
}

/** A request's body: JSON text, a Blob of the parts, or their stream. */
export type RequestBody = string | Blob | ReadableStream<Uint8Array>;

/** One call: the request each attempt sends. */
export interface CallSpec {
  method: string;
  /** A path under the client's URL ("/v1/jobs"), or an absolute URL. */
  path: string;
  headers?: Record<string, string>;
  /**
   * The body of attempt n (from 1), made anew for each; it throws
   * NoRewind when the body cannot be sent again.
   */
  body?: (attempt: number, exclusive: boolean) => Promise<{ body: RequestBody; headers: Record<string, string> }>;
  /**
   * Whether the call may be sent again after the server may have acted
   * on it: an idempotent method, or a call with an Idempotency-Key.
   */
  repeatable: boolean;
  signal?: AbortSignal;
  /** Send the client's key (default true; a signed download needs none). */
  auth?: boolean;
}

/** Thrown by a CallSpec's body when its files cannot be read again (a ReadableStream given as a file). */
export class NoRewind extends Error {
  constructor() {
    super("the request body cannot be sent again");
    this.name = "NoRewind";
  }
}

const isNode = typeof (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node === "string";

/** Transport sends calls to one server with one key, retrying as its RetryOptions say. */
export class Transport {
  readonly url: string;
  readonly key: string;
  private readonly retry: Required<Omit<RetryOptions, "onRetry">> & Pick<RetryOptions, "onRetry">;
  private readonly fetchImpl?: typeof fetch;

  constructor(url: string, key: string, retry: RetryOptions = {}, fetchImpl?: typeof fetch) {
    this.url = url.replace(/\/+$/, "");
    this.key = key;
    this.retry = {
      maxAttempts: retry.maxAttempts ?? 5,
      maxWait: retry.maxWait ?? 60_000,
      baseDelay: retry.baseDelay ?? 500,
      onRetry: retry.onRetry,
    };
    this.fetchImpl = fetchImpl;
  }

  /** send performs the call and returns an answer below 300; any other answer is thrown as a DocmillError. */
  async send(spec: CallSpec): Promise<Response> {
    let lastError: unknown;
    for (let attempt = 1; ; attempt++) {
      const headers: Record<string, string> = { ...spec.headers };
      if (spec.auth !== false && this.key) headers["authorization"] = `Bearer ${this.key}`;
      if (isNode) headers["user-agent"] = `docmill-js/${VERSION}`;
      const init: RequestInit & { duplex?: "half" } = { method: spec.method, headers, signal: spec.signal };
      if (spec.body) {
        let made;
        try {
          made = await spec.body(attempt, this.exclusive);
        } catch (err) {
          if (err instanceof NoRewind && lastError !== undefined) throw lastError;
          throw err;
        }
        init.body = made.body;
        Object.assign(headers, made.headers);
        if (made.body instanceof ReadableStream) init.duplex = "half";
      }
      const url = /^https?:\/\//.test(spec.path) ? spec.path : this.url + spec.path;
      let error: unknown;
      try {
        const resp = await this.fetch(url, init);
        if (resp.status < 300) return resp;
        error = await problem(resp);
      } catch (err) {
        if (spec.signal?.aborted) throw err;
        error = err;
      }
      const wait = this.retryWait(attempt, error, spec.repeatable);
      if (wait === undefined) throw error;
      this.retry.onRetry?.({ attempt, wait, error });
      await sleep(wait, spec.signal);
      lastError = error;
    }
  }

  /** exclusive says a streamed body is read by nodeUpload, a chunk at a time. */
  private get exclusive(): boolean {
    return isNode && !this.fetchImpl;
  }

  /** fetch sends one attempt: a streamed body in Node by nodeUpload, unless the client was given a fetch of its own. */
  private fetch(url: string, init: RequestInit): Promise<Response> {
    if (this.fetchImpl) return this.fetchImpl(url, init);
    if (this.exclusive && init.body instanceof ReadableStream) return nodeUpload(url, init as RequestInit & { body: ReadableStream<Uint8Array> });
    return globalThis.fetch(url, init);
  }

  /** JSON sends a call and decodes its JSON answer. */
  async json<T>(spec: CallSpec): Promise<{ value: T; response: Response }> {
    const response = await this.send(spec);
    return { value: (await response.json()) as T, response };
  }

  /**
   * retryWait says how long to wait before retrying the failed attempt,
   * or undefined not to: a 429, 503 or 507 after its Retry-After (when
   * at most maxWait; the server refused it before doing anything); a
   * 502, 503 or 504 without one, a 500 internal and a network error
   * after a backoff with jitter, when the call is repeatable.
   */
  private retryWait(attempt: number, error: unknown, repeatable: boolean): number | undefined {
    if (attempt >= this.retry.maxAttempts) return undefined;
    if (!(error instanceof DocmillError)) {
      return error instanceof TypeError && repeatable ? this.backoff(attempt) : undefined;
    }
    const s = error.status;
    if (error.retryAfter !== undefined && (s === 429 || s === 503 || s === 507)) {
      const wait = error.retryAfter * 1000;
      return wait <= this.retry.maxWait ? wait : undefined;
    }
    if (s === 502 || s === 503 || s === 504 || (s === 500 && error.code === "internal")) {
      return repeatable ? this.backoff(attempt) : undefined;
    }
    return undefined;
  }

  /** backoff is baseDelay doubled each attempt, at most maxWait, less a random part of up to half. */
  private backoff(attempt: number): number {
    const d = Math.min(this.retry.baseDelay * 2 ** Math.min(attempt - 1, 16), this.retry.maxWait);
    return d - Math.random() * (d / 2);
  }
}

/** sleep waits ms, or rejects when signal aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", abort);
      resolve();
    }, ms);
    const abort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", abort, { once: true });
  });
}
