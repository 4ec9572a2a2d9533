import type { JobRecord } from "./job.js";
import type { Transport } from "./transport.js";

/** A webhook event's type. */
export type WebhookEventType = "job.done" | "job.failed" | "job.canceled";

/** A webhook endpoint of the account. secret is set only in the answers of create and rotateSecret. */
export interface Webhook {
  id: string;
  url: string;
  events: WebhookEventType[];
  created_at: string;
  enabled: boolean;
  disabled_at?: string;
  disabled_reason?: string;
  failing_since?: string;
  previous_secret_expires_at?: string;
  secret?: string;
}

/** One attempt to deliver an event. */
export interface WebhookAttempt {
  message_id: string;
  event: WebhookEventType;
  job_id: string;
  attempt: number;
  attempted_at: string;
  succeeded: boolean;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  next_retry_at: string | null;
}

/** The body of a delivery: data is the job record as it was when the job finished. */
export interface WebhookEvent {
  type: WebhookEventType;
  timestamp: string;
  data: JobRecord;
}

/** The account's webhook endpoints (client.webhooks). */
export class Webhooks {
  readonly #transport: Transport;

  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /**
   * create registers an endpoint for events (all of them when left out)
   * and returns it with its signing secret, shown only this once. It is
   * not retried after the server may have acted on it (that would make
   * two endpoints).
   */
  async create(options: { url: string; events?: WebhookEventType[] }): Promise<Webhook> {
    const body = JSON.stringify(options.events ? { url: options.url, events: options.events } : { url: options.url });
    return (await this.#transport.json<Webhook>({
      method: "POST", path: "/v1/webhooks", repeatable: false,
      body: async () => ({ body, headers: { "content-type": "application/json" } }),
    })).value;
  }

  /** list returns the account's endpoints. */
  async list(): Promise<Webhook[]> {
    return (await this.#transport.json<{ webhooks: Webhook[] }>({ method: "GET", path: "/v1/webhooks", repeatable: true })).value.webhooks;
  }

  /** get returns one endpoint. */
  async get(id: string): Promise<Webhook> {
    return (await this.#transport.json<Webhook>({ method: "GET", path: path(id), repeatable: true })).value;
  }

  /** delete removes an endpoint; its pending deliveries are dropped. */
  async delete(id: string): Promise<void> {
    const resp = await this.#transport.send({ method: "DELETE", path: path(id), repeatable: true });
    await resp.body?.cancel();
  }

  /** rotateSecret gives an endpoint a new secret, returned once; the old one signs beside it for 24 hours. */
  async rotateSecret(id: string): Promise<Webhook> {
    return (await this.#transport.json<Webhook>({ method: "POST", path: `${path(id)}/rotate-secret`, repeatable: true })).value;
  }

  /** enable sends events to a disabled endpoint again. */
  async enable(id: string): Promise<Webhook> {
    return (await this.#transport.json<Webhook>({ method: "POST", path: `${path(id)}/enable`, repeatable: true })).value;
  }

  /** deliveries returns an endpoint's recent delivery attempts, newest first. */
  async deliveries(id: string): Promise<WebhookAttempt[]> {
    return (await this.#transport.json<{ deliveries: WebhookAttempt[] }>({ method: "GET", path: `${path(id)}/deliveries`, repeatable: true })).value.deliveries;
  }
}

function path(id: string): string {
  return `/v1/webhooks/${encodeURIComponent(id)}`;
}

/** A delivery that verify refused: its signature, timestamp or headers are not right. */
export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "WebhookVerificationError";
  }
}

/** The headers of a delivery: a Headers, or an object such as Node's req.headers. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

/**
 * verify checks a delivery per the Standard Webhooks specification and
 * returns its event: one of the webhook-signature's v1 signatures must be
 * the HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{payload}` keyed
 * with the bytes the secret's base64 (after whsec_) encodes, and the
 * timestamp within toleranceSeconds (default 300) of now, so that an old
 * delivery cannot be replayed. payload must be the body exactly as
 * received (not parsed and encoded again). It uses WebCrypto, so it runs
 * in Node 20+ and browsers alike; the comparison is WebCrypto's own
 * verify, in constant time.
 */
export async function verify(
  payload: string | Uint8Array | ArrayBuffer,
  headers: WebhookHeaders,
  secret: string,
  options: { toleranceSeconds?: number; now?: Date } = {},
): Promise<WebhookEvent> {
  const id = header(headers, "webhook-id");
  const timestamp = header(headers, "webhook-timestamp");
  const signatures = header(headers, "webhook-signature");
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError("missing webhook-id, webhook-timestamp or webhook-signature");
  const ts = Number(timestamp);
  if (!/^\d+$/.test(timestamp)) throw new WebhookVerificationError("webhook-timestamp is not a number of seconds");
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const tolerance = options.toleranceSeconds ?? 300;
  if (Math.abs(now - ts) > tolerance) throw new WebhookVerificationError("webhook-timestamp is too far from now");
  const body = typeof payload === "string" ? new TextEncoder().encode(payload) : new Uint8Array(payload);
  const prefix = new TextEncoder().encode(`${id}.${timestamp}.`);
  const signed = new Uint8Array(prefix.length + body.length);
  signed.set(prefix);
  signed.set(body, prefix.length);
  const key = await globalThis.crypto.subtle.importKey("raw", base64(secret.startsWith("whsec_") ? secret.slice(6) : secret), { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
  for (const sig of signatures.split(" ")) {
    const [version, value] = sig.split(",", 2);
    if (version !== "v1" || !value) continue;
    let mac: Uint8Array;
    try {
      mac = base64(value);
    } catch {
      continue;
    }
    if (await globalThis.crypto.subtle.verify("HMAC", key, mac, signed)) {
      return JSON.parse(new TextDecoder().decode(body)) as WebhookEvent;
    }
  }
  throw new WebhookVerificationError("no signature matches");
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof Headers !== "undefined" && headers instanceof Headers) return headers.get(name) ?? undefined;
  const h = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(h).find((k) => k.toLowerCase() === name);
  const v = key === undefined ? undefined : h[key];
  return Array.isArray(v) ? v.join(" ") : v;
}

function base64(s: string): Uint8Array {
  const bin = atob(s);
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}
