// The public API, and nothing else: the web interface has no private
// endpoints, so it cannot drift from what API users get.
//
// A person is signed in by the session cookie (HttpOnly: the page never
// sees it), which the browser sends itself. Every request that changes
// something carries the session's CSRF token, from GET /v1/session. A
// developer may instead paste an API key (the keys page): it is kept in
// this browser and sent as a Bearer header, which the server prefers.

const KEY = "docmill.key";

/** key returns the API key a developer pasted into this browser, or "". */
export const key = () => localStorage.getItem(KEY) || "";

/** setKey keeps k in this browser ("" forgets it). */
export function setKey(k) {
  if (k) localStorage.setItem(KEY, k); else localStorage.removeItem(KEY);
}

let session = null; // GET /v1/session: {account_id, email, csrf_token, expires_at}

/** currentSession returns the signed-in session, or null. */
export const currentSession = () => session;

/** setSession records s (a session or the answer to POST /v1/sessions), or forgets it (null). */
export function setSession(s) {
  session = s && s.csrf_token ? { ...s, email: s.email || (s.account && s.account.email) } : null;
}

/** signedIn reports whether requests are made as an account: by a session or a pasted key. */
export const signedIn = () => !!session || !!key();

/** authHeaders are the headers that make a request with method the account's. */
function authHeaders(method) {
  const h = {};
  if (key()) h.Authorization = "Bearer " + key();
  if (session && method !== "GET" && method !== "HEAD") h["X-CSRF-Token"] = session.csrf_token;
  return h;
}

/** api calls path with a JSON body; it returns the response and its parsed JSON (or null). */
export async function api(method, path, body) {
  const headers = { Accept: "application/json", ...authHeaders(method) };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const res = await fetch(path, {
    method, headers, credentials: "same-origin",
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  let data = null;
  try { data = await res.json(); } catch (e) { data = null; }
  return { res, data };
}

/** loadSession asks the server who the cookie signs in (GET /v1/session); it resolves to the session or null. */
export async function loadSession() {
  try {
    const { res, data } = await api("GET", "/v1/session");
    setSession(res.ok ? data : null);
  } catch (e) {
    setSession(null);
  }
  return session;
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
    const headers = authHeaders("POST");
    for (const k in headers) xhr.setRequestHeader(k, headers[k]);
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
