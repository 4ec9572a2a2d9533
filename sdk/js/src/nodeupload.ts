/**
 * nodeUpload sends a request whose body is a stream with Node's own
 * http client, reading each chunk only once the socket took the one
 * before, so that a file of any size is held in memory a chunk
 * at a time: Node 20's fetch reads a request stream ahead of the socket,
 * without bound. It answers as fetch does, a network failure being a
 * TypeError.
 */
export async function nodeUpload(url: string, init: RequestInit & { body: ReadableStream<Uint8Array> }): Promise<Response> {
  const [http, https, { Readable }, { once }] = await Promise.all([
    import(/* webpackIgnore: true */ "node:http"), import(/* webpackIgnore: true */ "node:https"), import(/* webpackIgnore: true */ "node:stream"), import(/* webpackIgnore: true */ "node:events"),
  ]);
  const signal = init.signal ?? undefined;
  const req = (url.startsWith("https:") ? https : http).request(url, { method: init.method, headers: init.headers, signal });
  const answered = once(req, "response");
  // An answer before the whole body (an early refusal) ends the writes;
  // a failure is thrown by them, or below.
  let early = false;
  answered.then(() => (early = true), () => {});
  const reader = init.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        req.end();
        break;
      }
      // The chunk is the socket's until written (its buffer is read into again).
      await Promise.race([new Promise<void>((resolve, reject) => req.write(value, (err?: Error) => (err ? reject(err) : resolve()))), answered]);
      if (early) {
        await reader.cancel();
        break;
      }
    }
    const [res] = await answered;
    const headers = new Headers();
    for (const [k, v] of Object.entries(res.headers as Record<string, string | string[]>)) {
      for (const one of Array.isArray(v) ? v : [v]) headers.append(k, one);
    }
    const empty = res.statusCode === 204 || res.statusCode === 304 || init.method === "HEAD";
    if (empty) res.resume();
    return new Response(empty ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>), { status: res.statusCode, statusText: res.statusMessage, headers });
  } catch (err) {
    req.destroy();
    await reader.cancel(err).catch(() => {});
    if (signal?.aborted) throw signal.reason;
    throw new TypeError("fetch failed", { cause: err });
  }
}
