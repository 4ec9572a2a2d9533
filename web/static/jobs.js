// The caller's recent jobs (GET /v1/jobs): status, tool, when, sizes in
// and out, processing time, and the result's download link while it has
// not expired. While any listed job
// is unfinished the list refreshes itself; "Show more" follows the cursor.

import { api, signedIn } from "./api.js";
import { $, el } from "./dom.js";
import { fmtDate, fmtSize, t, tOr } from "./i18n.js";

const REFRESH_MS = 3000;
const PAGE = 20;

let jobs = [];     // the jobs shown, newest first
let next = "";     // next_cursor of the last page loaded
let timer = 0;
let token = 0;     // bumped when the view closes, to drop late answers
let toolTitle = (slug) => slug;

const finished = (j) => j.status === "done" || j.status === "failed" || j.status === "canceled";

/** initJobs binds the view's buttons; title names a tool by its slug. */
export function initJobs(title) {
  toolTitle = title;
  $("jobs-more").addEventListener("click", () => load(true));
  $("jobs-refresh").addEventListener("click", () => load(false));
}

/** showJobs opens the view and loads the first page. */
export function showJobs() {
  $("jobs").hidden = false;
  jobs = [];
  next = "";
  load(false);
}

/** hideJobs closes the view and stops refreshing it. */
export function hideJobs() {
  $("jobs").hidden = true;
  token++;
  clearTimeout(timer);
}

/** refreshJobs reloads the view, if open (the key changed). */
export function refreshJobs() {
  if (!$("jobs").hidden) load(false);
}

/** renderJobs redraws the view (after a change of language). */
export function renderJobs() {
  if (!$("jobs").hidden) render();
}

// load fetches the next page (more), or the jobs shown again from the top
// (a refresh: as many as are shown, up to a page of 100, so none drops off).
async function load(more) {
  clearTimeout(timer);
  const my = ++token;
  $("jobs-needkey").hidden = signedIn();
  if (!signedIn()) { jobs = []; next = ""; render(); return; }
  const params = new URLSearchParams();
  if (more && next) params.set("cursor", next);
  params.set("limit", String(more ? PAGE : Math.min(100, Math.max(PAGE, jobs.length))));
  let r;
  try {
    r = await api("GET", "/v1/jobs?" + params);
  } catch (e) {
    r = null;
  }
  if (my !== token) return;
  const ok = r && r.res.ok && r.data;
  $("jobs-error").hidden = !!ok;
  $("jobs-error").textContent = ok ? "" : t("jobs.loadFailed");
  if (ok) {
    jobs = more ? jobs.concat(r.data.jobs || []) : r.data.jobs || [];
    next = r.data.next_cursor || "";
    render();
  }
  if (jobs.some((j) => !finished(j)) || !ok) timer = setTimeout(() => { if (my === token) load(false); }, REFRESH_MS);
}

function resultCell(j) {
  const r = j.result;
  if (j.status === "failed") return el("span", { class: "error", text: (j.error && j.error.message) || "" });
  if (!r) return "";
  if (!r.url) return el("span", { class: "muted", text: t("jobs.expired") });
  return el("span", {},
    el("a", { href: r.url, download: r.filename || "", text: r.filename || t("result.download") }),
    " ", el("span", { class: "muted", text: fmtSize(r.size) + ", " + t("jobs.until", { date: fmtDate(r.expires_at) }) }));
}

// sizesText is "2.1 MB → 1.3 MB": what went in and, once done, what came out.
function sizesText(j) {
  const inSize = j.meta && j.meta.input_size;
  const out = j.result && j.result.size;
  return (inSize ? fmtSize(inSize) : "") + (out != null ? " → " + fmtSize(out) : "");
}

function render() {
  const body = $("jobs-body");
  body.replaceChildren(...jobs.map((j) => el("tr", { "data-job": j.job_id, "data-status": j.status },
    el("td", {}, el("span", { class: "status " + j.status, text: tOr("status." + j.status, j.status) })),
    el("td", { text: toolTitle(j.tool) }),
    el("td", {}, el("time", { datetime: j.created_at, text: fmtDate(j.created_at) })),
    el("td", { class: "sizes", text: sizesText(j) }),
    el("td", { text: j.meta && j.meta.duration_ms != null ? t("jobs.seconds", { s: (j.meta.duration_ms / 1000).toFixed(1) }) : "" }),
    el("td", {}, resultCell(j)))));
  $("jobs-table").hidden = !jobs.length;
  $("jobs-none").hidden = !!jobs.length || !signedIn();
  $("jobs-more").hidden = !next;
}
