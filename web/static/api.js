// The public API, and nothing else: the web interface has no private
// endpoints, so it cannot drift from what API users get.

const KEY = "docmill.key";

/** key returns the API key kept in this browser, or "". */
export const key = () => localStorage.getItem(KEY) || "";

/** setKey keeps k in this browser ("" forgets it). */
export function setKey(k) {
  if (k) localStorage.setItem(KEY, k); else localStorage.removeItem(KEY);
}

/** api calls path with the key and a JSON body; it returns the response and its parsed JSON (or null). */
export async function api(method, path, body) {
  const headers = { Accept: "application/json" };
  if (key()) headers.Authorization = "Bearer " + key();
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  let data = null;
  try { data = await res.json(); } catch (e) { data = null; }
  return { res, data };
}

/**
 * upload posts form to a tool's process endpoint, reporting progress as
 * (loaded, total, bytesPerSecond); it resolves to {status, data, retryAfter}
 * and rejects on a network error or when signal aborts it. XMLHttpRequest, because fetch reports no
 * upload progress.
 */
export function upload(slug, form, onProgress, onSent, signal) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    if (signal) signal.addEventListener("abort", () => xhr.abort());
    xhr.onabort = () => reject(new DOMException("aborted", "AbortError"));
    xhr.open("POST", "/v1/" + encodeURIComponent(slug) + "/process");
    xhr.setRequestHeader("Authorization", "Bearer " + key());
    xhr.setRequestHeader("Accept", "application/json");
    const started = performance.now();
    xhr.upload.onprogress = (e) => {
      if (!e.lengthComputable) return;
      const secs = (performance.now() - started) / 1000;
      onProgress(e.loaded, e.total, secs > 0 ? e.loaded / secs : 0);
    };
    xhr.upload.onload = () => onSent && onSent();
    xhr.onerror = () => reject(new Error("network"));
    xhr.onload = () => {
      let data = null;
      try { data = JSON.parse(xhr.responseText); } catch (e) { data = null; }
      resolve({ status: xhr.status, data, retryAfter: xhr.getResponseHeader("Retry-After") });
    };
    xhr.send(form);
  });
}
