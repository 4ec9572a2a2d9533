// docmill's web interface: the catalogue, signing in, keys and the job
// flow of each tool, through the public API only. Plain modules, no build
// step.

import { api, key, loadSession, setKey, setSession, signedIn } from "./api.js";
import { $, el } from "./dom.js";
import { appendParams, buildParams, focusField } from "./controls.js";
import { buildChain, chainValue, keepChain, resetChain, stepsParam } from "./chain.js";
import { ChosenFiles } from "./files.js";
import { hideJobs, initJobs, refreshJobs, renderJobs, showJobs } from "./jobs.js";
import { runJob } from "./jobrun.js";
import { cancelBatch, previewURL, runBatch, stopBatch, zipBatch } from "./batch.js";
import { renderAccountPage, renderPlans } from "./pages.js";
import { initKeysPage, renderKeysPage } from "./keys.js";
import { initSession, showAuth, showVerify } from "./session.js";
import { fmtDate, fmtSize, jobErrorText, lang, loadDict, setLang, t, tOr, translatePage } from "./i18n.js";

const LANG = "docmill.lang";
// BATCH_MAX bounds the files of one batch (a tool that takes one file, run on each).
const BATCH_MAX = 20;

// Groups of the catalogue, by slug; a tool not listed here is a PDF tool.
const GROUPS = ["chain", "pdf", "pages", "forms", "inspect", "to-pdf", "from-pdf", "convert", "images", "security"];
const GROUP_OF = {
  "pipeline": "chain",
  "word-to-pdf": "to-pdf", "excel-to-pdf": "to-pdf", "powerpoint-to-pdf": "to-pdf",
  "html-to-pdf": "to-pdf", "markdown-to-pdf": "to-pdf", "jpg-to-pdf": "to-pdf",
  "pdf-to-jpg": "from-pdf", "pdf-to-png": "from-pdf", "pdf-to-text": "from-pdf", "pdf-to-pdfa": "from-pdf",
  "ocr-pdf": "from-pdf",
  "compress-image": "images", "resize-image": "images", "convert-image": "images",
  "rotate-image": "images", "crop-image": "images", "image-info": "images", "watermark-image": "images",
  "protect-pdf": "security", "unlock-pdf": "security", "sanitize-pdf": "security",
  "redact-pdf": "security", "sign-pdf": "security", "verify-pdf-signatures": "security",
  "resize-pdf": "pages", "nup-pdf": "pages", "booklet-pdf": "pages", "insert-pages": "pages",
  "crop-pdf": "pages", "remove-blank-pages": "pages",
  "pdf-form-fields": "forms", "fill-pdf-form": "forms", "flatten-pdf": "forms",
  "edit-metadata": "forms", "pdf-bookmarks": "forms", "edit-bookmarks": "forms",
  "add-attachments": "forms", "extract-attachments": "forms",
  "einvoice-pdf": "forms", "extract-einvoice": "forms",
  "pdf-info": "inspect", "remove-annotations": "inspect", "linearize-pdf": "inspect",
  "grayscale-pdf": "inspect", "compare-pdf": "inspect",
  "extract-images": "from-pdf", "pdf-to-svg": "from-pdf", "pdf-to-word": "from-pdf", "pdf-to-odt": "from-pdf",
  "pdf-to-markdown": "from-pdf", "pdf-to-csv": "from-pdf", "pdf-to-xlsx": "from-pdf",
  "image-to-text": "from-pdf",
  "html-to-image": "images",
  "url-to-pdf": "to-pdf", "url-to-image": "images",
  "convert-document": "convert", "document-thumbnail": "convert",
};

let tools = [];        // GET /v1/tools
let account = null;    // GET /v1/account, when signed in
let config = null;     // GET /v1/config: sign-up and plans
let current = null;    // the open tool
let run = null;        // the open tool's job (runJob)
let jobToken = 0;      // bumped to abandon a job's updates when the page moves on
const chosen = new ChosenFiles($("file-list"));

const toolTitle = (tool) => tOr("tool." + tool.slug + ".title", tool.title);
const toolDesc = (tool) => tOr("tool." + tool.slug + ".desc", tool.description || "");

// ---- problems ----

/** problemText turns an RFC 9457 body into one sentence for people. */
function problemText(status, p, retryAfter) {
  p = p || {};
  if (p.code === "rate_limited") return t("err.rateLimited", { s: Math.max(1, Number(retryAfter) || 1) });
  if (p.code === "quota_exceeded") {
    const reset = account && account.usage && account.usage.resets_at
      ? account.usage.resets_at : new Date(Date.now() + (Number(retryAfter) || 0) * 1000).toISOString();
    return t("err.quota", { date: fmtDate(reset) });
  }
  if (status === 0) return t("err.network");
  return p.detail || p.title || t("err.status", { status });
}

/** showFieldErrors puts each errors[].message next to the control it names; it returns the first field shown. */
function showFieldErrors(root, p) {
  root.querySelectorAll(".field-error").forEach((e) => { e.textContent = ""; });
  root.querySelectorAll("[aria-invalid=true]").forEach((e) => e.setAttribute("aria-invalid", "false"));
  let first = "";
  for (const fe of (p && p.errors) || []) {
    const slot = root.querySelector('.field-error[data-for="' + CSS.escape(fe.field || "") + '"]');
    if (!slot) continue;
    slot.textContent = fe.message;
    const row = slot.closest("[data-param]");
    const input = row && row.querySelector("input,select,textarea");
    if (input) input.setAttribute("aria-invalid", "true");
    first = first || fe.field;
  }
  return first;
}

// ---- account ----

async function loadAccount() {
  account = null;
  if (signedIn()) {
    const { res, data } = await api("GET", "/v1/account");
    if (res.ok) account = data;
    else if (res.status === 401) signedOut();
  }
  renderAccount(true);
  refreshJobs();
}

/** signedOut forgets a session the server no longer knows (expired, signed out elsewhere) or a refused key, and says so. */
function signedOut() {
  const hadKey = !!key();
  setSession(null);
  setKey("");
  account = null;
  showAuth("signin", t(hadKey ? "key.invalid" : "auth.ended"));
}

async function loadConfig() {
  const { res, data } = await api("GET", "/v1/config").catch(() => ({ res: {}, data: null }));
  config = res.ok ? data : null;
  // The page never offers what the server refuses: no sign-up when closed.
  const open = !!config && config.signup === "open";
  $("signup-form").hidden = !open;
  $("signup-closed").hidden = open;
  $("signup-open").hidden = !open || signedIn();
  $("auth-heading").dataset.i18n = open ? "auth.heading" : "auth.signIn";
  $("auth-heading").textContent = t($("auth-heading").dataset.i18n);
  renderPlans(config, account);
}

/** renderAccount redraws the header and, if open, the plans, account and keys pages (reload: their lists too). */
function renderAccount(reload) {
  const inside = signedIn();
  document.querySelectorAll("[data-needs-key]").forEach((e) => { e.hidden = !inside; });
  renderPlans(config, account);
  if (!$("acct").hidden) renderAccountPage(account, reload);
  if (!$("keys").hidden) renderKeysPage(reload);
  const box = $("account");
  box.replaceChildren();
  $("signin-open").hidden = inside;
  $("signup-open").hidden = inside || !config || config.signup !== "open";
  $("signout").hidden = !inside;
  $("tool-needkey").hidden = inside;
  if (inside) $("authbox").hidden = true;
  if (!account) return;
  const u = account.usage || {};
  const usage = t("account.usage", { used: u.operations_used ?? 0, limit: u.operations_limit ?? 0 });
  box.append(
    account.email ? el("span", { class: "who", text: account.email }) : "",
    el("span", { class: "plan", text: t("account.plan", { plan: tOr("plan." + account.plan, account.plan) }) }),
    el("meter", { min: 0, max: u.operations_limit || 1, value: u.operations_used || 0, "aria-label": usage }),
    el("span", { text: usage }),
    el("span", { class: "resets", text: t("account.resets", { date: fmtDate(u.resets_at) }) }));
}

/** whoChanged follows a sign-in, a sign-out or a key pasted or forgotten. */
function whoChanged() {
  loadAccount();
  if (!signedIn() && (!$("acct").hidden)) location.hash = "#/";
}

// ---- catalogue ----

function unavailableReason(tool) {
  const missing = (tool.engines || []).filter((e) => !e.available).map((e) => e.name);
  return t("tools.engineMissing", { engines: missing.length ? missing.join(", ") : tool.engine });
}

function renderCatalog() {
  const q = $("search").value.trim().toLowerCase();
  const root = $("groups");
  root.replaceChildren();
  let shown = 0;
  for (const g of GROUPS) {
    const list = tools.filter((tool) => (GROUP_OF[tool.slug] || "pdf") === g).filter((tool) =>
      !q || [tool.slug, tool.title, tool.description, toolTitle(tool), toolDesc(tool)].join(" ").toLowerCase().includes(q));
    if (!list.length) continue;
    shown += list.length;
    const cards = el("ul", { class: "cards" });
    for (const tool of list) {
      const body = [el("h3", { text: toolTitle(tool) }), el("p", { text: toolDesc(tool) })];
      if (tool.available) {
        cards.append(el("li", {}, el("a", { class: "card", href: "#/tool/" + tool.slug, "data-slug": tool.slug }, ...body)));
      } else {
        body.push(el("p", { class: "reason", text: t("tools.unavailable", { reason: unavailableReason(tool) }) }));
        cards.append(el("li", {}, el("div", { class: "card disabled", "aria-disabled": "true", "data-slug": tool.slug }, ...body)));
      }
    }
    root.append(el("section", { class: "group", "data-group": g, "aria-labelledby": "group-" + g },
      el("h2", { id: "group-" + g, text: t("group." + g) }), cards));
  }
  $("no-match").hidden = shown > 0 || !tools.length;
  $("search-count").textContent = q ? t("tools.found", { n: shown }) : "";
}

async function loadTools() {
  try {
    const { res, data } = await api("GET", "/v1/tools");
    if (!res.ok) throw new Error(String(res.status));
    tools = data.tools || [];
    $("catalog-error").hidden = true;
  } catch (e) {
    $("catalog-error").textContent = t("tools.loadFailed");
    $("catalog-error").hidden = false;
  }
  renderCatalog();
  route();
}

// ---- tool page ----

function route() {
  const m = location.hash.match(/^#\/tool\/([a-z0-9-]+)$/);
  const tool = m && tools.find((x) => x.slug === m[1] && x.available);
  const jobsView = location.hash === "#/jobs";
  if (jobsView && $("jobs").hidden) { showJobs(); $("jobs-heading").focus(); }
  if (!jobsView) hideJobs();
  const verify = location.hash.match(/^#\/verify(?:\/([^/]+))?$/);
  const page = location.hash === "#/plans" ? "plans" : location.hash === "#/account" ? "acct"
    : location.hash === "#/keys" ? "keys" : verify ? "verify" : "";
  if (verify) showVerify(verify[1] || "");
  for (const id of ["plans", "acct", "keys", "verify"]) {
    const opening = page === id && $(id).hidden;
    $(id).hidden = page !== id;
    if (opening) { renderAccount(true); $(id + "-heading").focus(); }
  }
  $("catalog").hidden = !!tool || jobsView || !!page;
  $("tool").hidden = !tool;
  if (tool && tool !== current) {
    current = tool;
    resetTool();
    $("tool-title").focus();
  }
  if (!tool) { current = null; abandonJob(); }
}

function abandonJob() {
  jobToken++;
  if (run) run.stop();
  run = null;
  stopBatch();
}

function resetTool() {
  abandonJob();
  $("tool-form").hidden = false;
  $("progress").hidden = true;
  $("result").hidden = true;
  showError("");
  resetChain();
  buildParams($("params"), current);
  if (stepsParam(current)) buildChain($("params"), tools);
  chosen.reset(current.max_files);
  renderTool();
}

/** ACCEPT_EXTENSIONS are the file extensions the file picker offers beside a content type. */
const ACCEPT_EXTENSIONS = { "image/heif": [".heic", ".heif"], "image/avif": [".avif"] };

function renderTool() {
  const tool = current;
  $("tool-title").textContent = toolTitle(tool);
  $("tool-desc").textContent = toolDesc(tool);
  $("tool-needkey").hidden = signedIn();
  const input = $("file-input");
  // A tool that takes one file runs several as a batch, one job each.
  input.multiple = true;
  const accepts = tool.accepts || [];
  // "*/*": any file. A type some systems map no extension to (.heic on
  // Windows and Linux) is also offered by its extensions.
  input.accept = accepts.includes("*/*") ? "" : accepts.flatMap((a) => [a, ...(ACCEPT_EXTENSIONS[a] || [])]).join(",");
  $("drop-text").textContent = tool.max_files > 1 ? t("tool.dropMany", { max: tool.max_files }) : t("tool.dropBatch", { max: BATCH_MAX });
  $("reorder-hint").hidden = !(tool.max_files > 1);
  // A tool that takes no file (url-to-pdf) shows its address field only.
  const noFiles = tool.max_files === 0;
  $("tool-form").querySelector('[data-param="file"]').hidden = noFiles;
  $("tool-files-title").hidden = noFiles;
  document.title = toolTitle(tool) + " — docmill";
}

function showError(text) {
  $("tool-error").textContent = text;
  $("tool-error").hidden = !text;
}

async function onStart(ev) {
  ev.preventDefault();
  const form = $("tool-form");
  showFieldErrors(form, null);
  showError("");
  if (!signedIn()) { showAuth("signin", t("auth.neededTools")); return; }
  const noFiles = current.max_files === 0;
  const min = noFiles ? 0 : Math.max(1, current.min_files);
  const max = noFiles ? 0 : current.max_files > 1 ? current.max_files : BATCH_MAX;
  // The plan's file size is known: a file over it is not sent to be refused.
  const limit = account && account.limits && account.limits.max_file_bytes;
  const big = limit && chosen.files.find((f) => f.size > limit);
  if (chosen.files.length < min || chosen.files.length > max || big) {
    const slot = form.querySelector('.field-error[data-for="file"]');
    slot.textContent = big ? t("tool.fileTooLarge", { name: big.name, size: fmtSize(big.size), max: fmtSize(limit) })
      : chosen.files.length < min ? t("tool.needFiles", { min }) : t("tool.tooMany", { max });
    $("file-input").focus();
    return;
  }
  // The fields go before the files: the server checks them (a chain's
  // steps) before it stores any file.
  const fd = new FormData();
  const steps = stepsParam(current) ? chainValue(form) : "";
  if (!appendParams(form, current, fd) || steps === null) {
    const bad = form.querySelector("[aria-invalid=true]");
    if (bad) bad.focus();
    return;
  }
  if (steps) fd.append(stepsParam(current).name, steps);
  fd.append("preview", "true"); // a PDF result's first page, shown before the download
  const token = ++jobToken;
  form.hidden = true;
  if (current.max_files === 1 && chosen.files.length > 1) {
    // Each batch job gets its own copy of the fields.
    const fields = () => { const c = new FormData(); for (const [k, v] of fd) c.append(k, v); return c; };
    const parallel = (account && account.limits && account.limits.jobs_in_flight) || 2;
    runBatch(current.slug, chosen.files, fields, parallel, problemText, () => { if (token === jobToken) loadAccount(); });
    return;
  }
  for (const f of chosen.files) fd.append("file", f, f.name);
  run = runJob(current.slug, fd, (s) => { if (token === jobToken) showState(s); });
}

// showState shows a job's progress, its result or its problem.
function showState(s) {
  switch (s.phase) {
    case "uploading":
      setProgress(s.pct, t("progress.uploading", { pct: s.pct, speed: s.rate ? fmtSize(s.rate) + t("progress.perSecond") : "" }));
      return;
    case "sent": case "processing": setProgress(null, t("progress.processing")); return;
    case "queued": setProgress(null, t("progress.queued")); return;
    case "done": showResult(s.job); loadAccount(); return;
    case "failed": failed(t("err.failed", { message: jobErrorText(s.job.error) })); return;
    case "canceled": failed(t("err.canceled")); return;
  }
  if (s.status === 401) signedOut();
  if (s.status === 429 && s.problem && s.problem.code === "quota_exceeded") loadAccount();
  failed(problemText(s.status, s.problem, s.retryAfter), s.problem);
}

function setProgress(pct, text) {
  $("progress").hidden = false;
  const bar = $("progress-bar");
  if (pct == null) bar.removeAttribute("value"); else bar.value = pct;
  $("progress-text").textContent = text;
}

function failed(text, problem) {
  $("progress").hidden = true;
  $("tool-form").hidden = false;
  const field = problem ? showFieldErrors($("tool-form"), problem) : "";
  // A problem about one field is shown next to it; the banner says so too.
  showError(text);
  if (field) focusField(field); else $("tool-error").focus();
}

function showResult(job) {
  const r = job.result || {};
  $("progress").hidden = true;
  $("result").hidden = false;
  $("result-name").textContent = r.filename || "";
  $("result-size").textContent = fmtSize(r.size || 0);
  const input = job.meta && job.meta.input_size;
  const saved = $("result-saved");
  saved.hidden = !(/^compress-/.test(job.tool) && input > 0);
  if (!saved.hidden) {
    const pct = Math.max(0, Math.round((1 - r.size / input) * 100));
    saved.textContent = pct > 0 ? t("result.saved", { pct, from: fmtSize(input), to: fmtSize(r.size) }) : t("result.notSmaller");
  }
  const img = $("result-preview");
  const src = previewURL(job);
  img.hidden = !src;
  if (src) { img.src = src; img.alt = t("batch.preview", { name: r.filename || "" }); } else img.removeAttribute("src");
  const link = $("result-link");
  link.hidden = !r.url;
  if (r.url) { link.href = r.url; link.setAttribute("download", r.filename || ""); }
  $("result-expiry").textContent = r.expired || !r.url ? t("result.expired") : t("result.expires", { date: fmtDate(r.expires_at) });
  $("result-heading").focus();
}

// ---- start ----

function changeLang(l) {
  localStorage.setItem(LANG, setLang(l));
  $("lang").value = lang();
  translatePage();
  renderCatalog();
  $("keys-status").textContent = ""; // said in the language left
  renderAccount(true); // the account page's lists are drawn in the language
  renderJobs();
  if (current) {
    // Rebuild the controls in the new language, keeping what was entered.
    const kept = new FormData($("tool-form"));
    if (stepsParam(current)) keepChain();
    buildParams($("params"), current);
    if (stepsParam(current)) buildChain($("params"), tools);
    for (const [name, v] of kept) {
      const c = $("tool-form").elements[name];
      if (!c || typeof v !== "string") continue;
      if (c.type === "checkbox") c.checked = v === "true"; else c.value = v;
    }
    renderTool();
    chosen.render();
  }
}

function bind() {
  initJobs((slug) => { const tool = tools.find((x) => x.slug === slug); return tool ? toolTitle(tool) : slug; });
  $("lang").addEventListener("change", (e) => changeLang(e.target.value));
  $("search").addEventListener("input", renderCatalog);
  initSession(whoChanged, problemText, showFieldErrors);
  initKeysPage(whoChanged);
  $("tool-signin").addEventListener("click", () => showAuth("signin"));
  $("tool-form").addEventListener("submit", onStart);
  $("again").addEventListener("click", () => { resetTool(); $("file-input").focus(); });
  $("batch-again").addEventListener("click", () => { resetTool(); $("file-input").focus(); });
  $("cancel").addEventListener("click", () => { if (run) run.cancel(); });
  $("batch-cancel").addEventListener("click", cancelBatch);
  $("batch-zip").addEventListener("click", zipBatch);
  $("file-input").addEventListener("change", (e) => { chosen.add(e.target.files); e.target.value = ""; });
  const drop = $("drop");
  drop.addEventListener("dragover", (e) => {
    if (!e.dataTransfer.types.includes("Files")) return;
    e.preventDefault();
    drop.classList.add("over");
  });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", (e) => {
    e.preventDefault();
    drop.classList.remove("over");
    chosen.add(e.dataTransfer.files);
  });
  window.addEventListener("hashchange", route);
}

async function start() {
  bind();
  await loadDict(localStorage.getItem(LANG));
  $("lang").value = lang();
  translatePage();
  await Promise.all([loadTools(), loadConfig(), loadSession().then(loadAccount)]);
  document.body.dataset.ready = "1";
}

start();
