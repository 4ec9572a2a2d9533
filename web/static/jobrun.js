// One job through its life: the upload with its progress, then polls.
// While the job is queued it is polled every second (so "processing"
// shows as soon as it starts); once it runs, a long poll (?wait=30)
// answers as soon as it ends. cancel() aborts the upload or cancels the
// job (DELETE /v1/jobs/{id}).

import { api, upload } from "./api.js";

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const FINAL = ["done", "failed", "canceled"];

/**
 * runJob starts a job of tool slug with form and reports each change as
 * onUpdate(state): state.phase is uploading (pct, rate), sent, queued,
 * processing, done, failed, canceled (job set), or error (an HTTP problem:
 * status, problem, retryAfter). It returns {done, cancel, stop}: done
 * resolves to the last state; stop ends the polling, leaving the job be.
 */
export function runJob(slug, form, onUpdate) {
  const ctl = new AbortController();
  let jobId = "";
  let state = {};
  let wanted = false; // cancel asked while the server was making the job
  const set = (s) => { state = s; onUpdate(s); return s; };
  const cancel = async () => {
    if (FINAL.includes(state.phase) || state.phase === "error") return;
    // Once the upload is sent, the job exists or is being made: it is
    // canceled by its id, not by dropping the request.
    if (state.phase === "sent") { wanted = true; return; }
    ctl.abort();
    if (!jobId) { set({ phase: "canceled", job: null }); return; }
    const { res, data } = await api("DELETE", "/v1/jobs/" + encodeURIComponent(jobId));
    if (res.ok && data) set({ phase: data.status, job: data });
  };
  const done = (async () => {
    set({ phase: "uploading", pct: 0, rate: 0 });
    let r;
    try {
      r = await upload(slug, form, (loaded, total, rate) => set({ phase: "uploading", pct: Math.floor((loaded / total) * 100), rate }),
        () => set({ phase: "sent" }), ctl.signal);
    } catch (e) {
      return ctl.signal.aborted ? state : set({ phase: "error", status: 0, problem: null });
    }
    let status = r.status, job = r.data, retryAfter = r.retryAfter;
    for (let fails = 0; ;) {
      if (ctl.signal.aborted) return state;
      if (status !== 200 && status !== 202) return set({ phase: "error", status, problem: job, retryAfter });
      jobId = job.job_id;
      set({ phase: job.status, job });
      if (FINAL.includes(job.status)) return state;
      if (wanted) { wanted = false; await cancel(); return state; }
      const wait = job.status === "processing" ? 30 : 0;
      if (!wait) await sleep(1000);
      if (ctl.signal.aborted) return state;
      let p;
      try {
        p = await api("GET", "/v1/jobs/" + encodeURIComponent(jobId) + (wait ? "?wait=" + wait : ""));
      } catch (e) {
        p = null; // a dropped connection: the job goes on; ask again
      }
      if (!p || p.res.status === 429 || p.res.status >= 500) {
        await sleep(Math.min(30, Math.max(1, Number(p && p.res.headers.get("Retry-After")) || 2 ** Math.min(4, ++fails))) * 1000);
        continue;
      }
      fails = 0;
      status = p.res.ok ? 202 : p.res.status;
      job = p.data;
      retryAfter = p.res.headers.get("Retry-After");
    }
  })();
  return { done, cancel, stop: () => ctl.abort() };
}
