import { NoRewind, type RequestBody } from "./transport.js";

/**
 * A file to send. In Node a string is a path, streamed from disk
 * (never read whole). A Blob (a browser's File keeps its name), bytes,
 * or a ReadableStream of bytes work everywhere; a ReadableStream can be
 * read once, so a call with one is not retried after it was sent.
 * `{ url }` has the server fetch the file (a `file_url` field), in its
 * place among the files.
 */
export type FileInput =
  | string
  | Blob
  | Uint8Array
  | ReadableStream<Uint8Array>
  | { path: string; name?: string }
  | { body: Blob | Uint8Array | ReadableStream<Uint8Array>; name?: string; size?: number }
  | { url: string };

/** Upload progress: the file bytes sent so far in this attempt, and their total (undefined when a stream's size is unknown). */
export type UploadProgress = (sent: number, total: number | undefined) => void;

/** A part of the form, resolved: a field, or a file and how to read it. */
type Part =
  | { field: string; value: string }
  | { name: string; size: number | undefined; open: (exclusive: boolean) => Promise<ReadableStream<Uint8Array>>; blob?: Blob };

const encoder = new TextEncoder();

/**
 * Upload is the multipart body of a process call: its fields first (as
 * the server reads a pipeline's steps before its files), then its files
 * and file_url fields in the order given. Each attempt streams the files
 * anew.
 */
export class Upload {
  private readonly parts: Part[];
  private readonly boundary = `docmill-${randomHex(16)}`;

  private constructor(parts: Part[]) {
    this.parts = parts;
  }

  /** create resolves the files (a path's size from the disk) behind the fields. */
  static async create(fields: [string, string][], files: FileInput[]): Promise<Upload> {
    const parts: Part[] = fields.map(([field, value]) => ({ field, value }));
    for (const f of files) parts.push(await resolve(f));
    return new Upload(parts);
  }

  /**
   * body returns attempt n's body and its headers; a stream given as a
   * file is read by the first attempt only. exclusive says the body's
   * reader is done with each chunk before it reads the next (nodeUpload),
   * so that a file of the disk is read into one buffer, over and over,
   * and the upload makes no garbage for the collector to catch up with.
   */
  async body(attempt: number, progress?: UploadProgress, exclusive = false): Promise<{ body: RequestBody; headers: Record<string, string> }> {
    if (attempt > 1 && this.parts.some((p) => "open" in p && !rewindable.has(p))) throw new NoRewind();
    const chunks: (Uint8Array | Part)[] = [];
    let length = 0;
    let total = 0;
    let known = true;
    for (const p of this.parts) {
      const head = encoder.encode(this.header(p));
      chunks.push(head);
      length += head.length;
      if ("field" in p) continue;
      chunks.push(p);
      if (p.size === undefined) known = false;
      else total += p.size;
      chunks.push(encoder.encode("\r\n"));
      length += 2;
    }
    const tail = encoder.encode(`--${this.boundary}--\r\n`);
    chunks.push(tail);
    length += tail.length + total;
    const headers: Record<string, string> = { "content-type": `multipart/form-data; boundary=${this.boundary}` };
    if (!exclusive && chunks.every((c) => c instanceof Uint8Array || ("blob" in c && c.blob))) {
      // Blobs alone: a Blob body, which every browser's fetch sends (few
      // stream a request body), with no upload progress to report.
      return { body: new Blob(chunks.map((c) => (c instanceof Uint8Array ? c : (c as { blob: Blob }).blob))), headers };
    }
    if (known) headers["content-length"] = String(length);
    return { body: stream(chunks, known ? total : undefined, exclusive, progress), headers };
  }

  private header(p: Part): string {
    if ("field" in p) {
      return `--${this.boundary}\r\nContent-Disposition: form-data; name="${quote(p.field)}"\r\n\r\n${p.value}\r\n`;
    }
    return `--${this.boundary}\r\nContent-Disposition: form-data; name="file"; filename="${quote(p.name)}"\r\n` +
      "Content-Type: application/octet-stream\r\n\r\n";
  }
}

/** The file parts that can be read again (all but ReadableStreams). */
const rewindable = new WeakSet<object>();

async function resolve(f: FileInput): Promise<Part> {
  if (typeof f === "string") return pathPart(f);
  if (typeof Blob !== "undefined" && f instanceof Blob) return blobPart(f, (f as { name?: string }).name);
  if (f instanceof Uint8Array) return blobPart(new Blob([f]), undefined);
  if (f instanceof ReadableStream) return streamPart(f, undefined, undefined);
  if ("url" in f) return { field: "file_url", value: f.url };
  if ("path" in f) return pathPart(f.path, f.name);
  const { body, name, size } = f as { body: Blob | Uint8Array | ReadableStream<Uint8Array>; name?: string; size?: number };
  if (body instanceof ReadableStream) return streamPart(body, name, size);
  return blobPart(body instanceof Uint8Array ? new Blob([body]) : body, name);
}

function blobPart(blob: Blob, name: string | undefined): Part {
  const p = { name: name || "file", size: blob.size, open: async () => blob.stream() as ReadableStream<Uint8Array>, blob };
  rewindable.add(p);
  return p;
}

function streamPart(s: ReadableStream<Uint8Array>, name: string | undefined, size: number | undefined): Part {
  return { name: name || "file", size, open: async () => s };
}

/** pathPart reads a file of the disk, in Node: its size now, its bytes streamed at each attempt. */
async function pathPart(path: string, name?: string): Promise<Part> {
  const [{ stat }, { createReadStream }, { basename }] = await Promise.all([
    import(/* webpackIgnore: true */ "node:fs/promises"), import(/* webpackIgnore: true */ "node:fs"), import(/* webpackIgnore: true */ "node:path"),
  ]);
  const info = await stat(path);
  if (!info.isFile()) throw new Error(`${path} is not a file`);
  const p = {
    name: name || basename(path),
    size: Number(info.size),
    open: async (exclusive: boolean) => (exclusive ? reused(path) : pulled(createReadStream(path))),
  };
  rewindable.add(p);
  return p;
}

/**
 * pulled is a Node stream as a ReadableStream that reads a chunk only
 * when one is asked for (Node 20's Readable.toWeb reads ahead without
 * bound: a fast disk filled memory with a file being uploaded).
 */
function pulled(s: AsyncIterable<Uint8Array> & { destroy(): void }): ReadableStream<Uint8Array> {
  const it = s[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await it.next();
      if (done) controller.close();
      else controller.enqueue(new Uint8Array(value.buffer, value.byteOffset, value.byteLength));
    },
    cancel() {
      s.destroy();
    },
  }, { highWaterMark: 0 });
}

/** reused reads a file of the disk into one buffer, a chunk a read: each chunk is valid until the next read. */
async function reused(path: string): Promise<ReadableStream<Uint8Array>> {
  const { open } = await import(/* webpackIgnore: true */ "node:fs/promises");
  const file = await open(path, "r");
  const buffer = new Uint8Array(256 * 1024);
  let position = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { bytesRead } = await file.read(buffer, 0, buffer.length, position);
      if (bytesRead === 0) {
        await file.close();
        controller.close();
        return;
      }
      position += bytesRead;
      controller.enqueue(buffer.subarray(0, bytesRead));
    },
    async cancel() {
      await file.close();
    },
  }, { highWaterMark: 0 });
}

/**
 * stream is a ReadableStream of the chunks and the files' bytes, pulled
 * one read at a time, so that no more than a chunk of a file is in memory
 * however large it is.
 */
function stream(chunks: (Uint8Array | Part)[], total: number | undefined, exclusive: boolean, progress?: UploadProgress): ReadableStream<Uint8Array> {
  let i = 0;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  let sent = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        if (reader) {
          const { done, value } = await reader.read();
          if (!done) {
            sent += value.byteLength;
            progress?.(sent, total);
            controller.enqueue(value);
            return;
          }
          reader = undefined;
        }
        if (i >= chunks.length) {
          controller.close();
          return;
        }
        const c = chunks[i++];
        if (c instanceof Uint8Array) {
          controller.enqueue(c);
          return;
        }
        if ("open" in c) reader = (await c.open(exclusive)).getReader();
      }
    },
    async cancel(reason) {
      await reader?.cancel(reason);
    },
  }, { highWaterMark: 0 });
}

/** quote escapes a name for a Content-Disposition parameter, as browsers do. */
function quote(s: string): string {
  return s.replace(/"/g, "%22").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

function randomHex(bytes: number): string {
  const b = new Uint8Array(bytes);
  globalThis.crypto.getRandomValues(b);
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

/** newIdempotencyKey returns 128 random bits, as the Go client's keys are. */
export function newIdempotencyKey(): string {
  return `dmc_${randomHex(16)}`;
}
