// Several files on a tool that takes one: each file is its own job, run in
// parallel up to the plan's jobs in flight, each with its own progress,
// result, preview and Cancel; "download all" zips the results in the
// browser.

import { $, el } from "./dom.js";
import { runJob } from "./jobrun.js";
import { zip } from "./zip.js";
import { fmtSize, jobErrorText, t } from "./i18n.js";

let runs = [];   // {file, li, run, state}
let token = 0;

/** previewURL is the picture of a job's result: its preview, or the result itself when it is an image. */
export function previewURL(job) {
  const r = (job && job.result) || {};
  if (r.preview_url) return r.preview_url;
  return r.url && /^image\/(jpeg|png|webp|gif)$/.test(r.content_type) ? r.url : "";
}

function stateText(s, problemText) {
  switch (s.phase) {
    case "uploading": return t("batch.uploading", { pct: s.pct || 0 });
    case "sent": case "processing": return t("status.processing");
    case "queued": return t("status.queued");
    case "done": return t("status.done") + " · " + fmtSize(s.job.result.size);
    case "failed": return t("err.failed", { message: jobErrorText(s.job.error) });
    case "canceled": return t("status.canceled");
    case "error": return problemText(s.status, s.problem, s.retryAfter);
  }
  return t("batch.waiting");
}

function draw(item, problemText) {
  const s = item.state;
  const bar = item.li.querySelector("progress");
  if (s.phase === "uploading") bar.value = s.pct || 0; else if (s.phase === "done") bar.value = 100; else bar.removeAttribute("value");
  bar.hidden = ["failed", "canceled", "error", "done"].includes(s.phase);
  item.li.dataset.phase = s.phase || "waiting";
  item.li.querySelector(".state").textContent = stateText(s, problemText);
  item.li.querySelector(".cancel").hidden = ["done", "failed", "canceled", "error"].includes(s.phase);
  const r = s.phase === "done" && s.job.result;
  const link = item.li.querySelector("a");
  link.hidden = !(r && r.url);
  if (r && r.url) { link.href = r.url; link.setAttribute("download", r.filename || ""); link.textContent = t("batch.download", { name: r.filename }); }
  const img = item.li.querySelector("img");
  const src = r ? previewURL(s.job) : "";
  if (src && img.getAttribute("src") !== src) img.src = src;
  img.hidden = !src;
}

function summary() {
  const n = (p) => runs.filter((x) => p.includes(x.state.phase)).length;
  const finished = n(["done", "failed", "canceled", "error"]);
  $("batch-summary").textContent = t("batch.summary", { done: n(["done"]), total: runs.length, failed: finished - n(["done"]) });
  const over = finished === runs.length;
  $("batch-zip").hidden = !over || n(["done"]) === 0;
  $("batch-cancel").hidden = over;
  $("batch-again").hidden = !over;
  return over;
}

/**
 * runBatch runs slug on each file, with the form's fields (fields(file)
 * gives a fresh FormData without the file), at most parallel at once;
 * onEnd is called when all are finished.
 */
export async function runBatch(slug, files, fields, parallel, problemText, onEnd) {
  const my = ++token;
  $("batch").hidden = false;
  runs = files.map((file) => {
    const li = el("li", { class: "item" },
      el("img", { class: "preview", alt: t("batch.preview", { name: file.name }), hidden: true }),
      el("div", { class: "body" },
        el("span", { class: "name", text: file.name }), " ", el("span", { class: "muted", text: fmtSize(file.size) }),
        el("progress", { max: 100, "aria-label": file.name }),
        el("span", { class: "state" }),
        el("a", { class: "button small", hidden: true })),
      el("button", { type: "button", class: "secondary small cancel", text: t("progress.cancel"), "aria-label": t("batch.cancelOne", { name: file.name }) }));
    return { file, li, run: null, state: {} };
  });
  $("batch-list").replaceChildren(...runs.map((x) => x.li));
  for (const item of runs) {
    item.li.querySelector(".cancel").addEventListener("click", () => {
      if (item.run) item.run.cancel(); else { item.state = { phase: "canceled", job: null }; draw(item, problemText); summary(); }
    });
    draw(item, problemText);
  }
  summary();
  $("batch-heading").focus();
  let next = 0;
  const worker = async () => {
    while (next < runs.length && my === token) {
      const item = runs[next++];
      if (item.state.phase === "canceled") continue;
      for (let attempt = 0; ; attempt++) {
        const fd = fields();
        fd.append("file", item.file, item.file.name);
        item.run = runJob(slug, fd, (s) => { item.state = s; if (my === token) { draw(item, problemText); summary(); } });
        const s = await item.run.done;
        // Too many jobs in flight (another tab, an API client): wait and send again.
        if (s.phase !== "error" || s.status !== 429 || (s.problem && s.problem.code) !== "rate_limited" || attempt >= 5) break;
        await new Promise((r) => setTimeout(r, Math.max(1, Number(s.retryAfter) || 2) * 1000));
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(parallel, runs.length)) }, worker));
  if (my === token) onEnd();
}

/** cancelBatch cancels every unfinished job of the batch. */
export function cancelBatch() {
  for (const item of runs) {
    if (item.run) item.run.cancel();
    else if (!item.state.phase) item.state = { phase: "canceled", job: null };
  }
}

/** stopBatch forgets the batch (the page moved on); its jobs go on. */
export function stopBatch() {
  token++;
  for (const item of runs) if (item.run) item.run.stop();
  runs = [];
  $("batch").hidden = true;
}

/** zipBatch downloads every result as one zip made here. */
export async function zipBatch() {
  const entries = [];
  for (const item of runs) {
    const r = item.state.phase === "done" && item.state.job.result;
    if (!r || !r.url) continue;
    const res = await fetch(r.url);
    if (res.ok) entries.push({ name: r.filename, data: new Uint8Array(await res.arrayBuffer()) });
  }
  const a = el("a", { href: URL.createObjectURL(zip(entries)), download: "docmill-results.zip", hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 60000);
}
