/** One field at fault in a refused request or a failed job. */
export interface FieldError {
  field: string;
  message: string;
}

/** What a DocmillError is made from: a problem+json answer, or a failed job's error. */
export interface DocmillErrorInit {
  status: number;
  code: string;
  detail: string;
  title?: string;
  type?: string;
  requestId?: string;
  jobId?: string;
  fields?: FieldError[];
  retryAfter?: number;
  headers?: Headers;
}

/**
 * An error answer of the server (RFC 9457 problem+json), or a job that
 * failed. `code` is the machine code to switch on (invalid_parameter,
 * rate_limited, ...; docs/api.md lists them), `status` the HTTP status
 * (0 for a failed job waited on: its record carries no status),
 * `requestId` the answer's X-Request-Id, `retryAfter` its Retry-After in
 * seconds (undefined without one).
 */
export class DocmillError extends Error {
  readonly status: number;
  readonly code: string;
  readonly detail: string;
  readonly title?: string;
  readonly type?: string;
  readonly requestId?: string;
  readonly jobId?: string;
  readonly fields: FieldError[];
  readonly retryAfter?: number;
  readonly headers?: Headers;

  constructor(init: DocmillErrorInit) {
    super(init.status ? `${init.status} ${init.code || "error"}: ${init.detail}` : `${init.code}: ${init.detail}`);
    this.name = "DocmillError";
    this.status = init.status;
    this.code = init.code;
    this.detail = init.detail;
    this.title = init.title;
    this.type = init.type;
    this.requestId = init.requestId;
    this.jobId = init.jobId;
    this.fields = init.fields ?? [];
    this.retryAfter = init.retryAfter;
    this.headers = init.headers;
  }
}

/** problem reads an answer of status 300 or more as a DocmillError. */
export async function problem(resp: Response): Promise<DocmillError> {
  const text = await resp.text().catch(() => "");
  let body: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === "object") body = parsed as Record<string, unknown>;
  } catch {
    body = { detail: text.trim() || resp.statusText };
  }
  const str = (v: unknown) => (typeof v === "string" ? v : undefined);
  const ra = Number.parseInt(resp.headers.get("retry-after") ?? "", 10);
  return new DocmillError({
    status: resp.status,
    code: str(body.code) ?? "",
    detail: str(body.detail) ?? resp.statusText,
    title: str(body.title),
    type: str(body.type),
    requestId: str(body.request_id) ?? resp.headers.get("x-request-id") ?? undefined,
    jobId: str(body.job_id),
    fields: Array.isArray(body.errors) ? (body.errors as FieldError[]) : [],
    retryAfter: Number.isFinite(ra) && ra > 0 ? ra : undefined,
    headers: resp.headers,
  });
}
