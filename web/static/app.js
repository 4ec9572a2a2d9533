// docmill web interface. Plain JS, no build step; it calls the public API
// (/v1/...) only. Everything visible comes from i18n.json.
"use strict";

(function () {
  const KEY = "docmill.key";
  const LANG = "docmill.lang";

  // Groups of the catalogue, by slug; a tool not listed here is a PDF tool.
  const GROUPS = ["pdf", "to-pdf", "from-pdf", "images", "security"];
  const GROUP_OF = {
    "word-to-pdf": "to-pdf", "excel-to-pdf": "to-pdf", "powerpoint-to-pdf": "to-pdf",
    "html-to-pdf": "to-pdf", "markdown-to-pdf": "to-pdf", "jpg-to-pdf": "to-pdf",
    "pdf-to-jpg": "from-pdf", "pdf-to-png": "from-pdf", "pdf-to-text": "from-pdf", "pdf-to-pdfa": "from-pdf",
    "compress-image": "images", "resize-image": "images", "convert-image": "images",
    "protect-pdf": "security", "unlock-pdf": "security",
  };

  const $ = (id) => document.getElementById(id);
  let dict = {};           // the whole of i18n.json
  let lang = "en";
  let tools = [];          // GET /v1/tools
  let account = null;      // GET /v1/account, when a key is known
  let current = null;      // the open tool
  let files = [];          // the open tool's chosen files, in order
  let pollTimer = 0;

  // ---- i18n ----

  function t(key, vars) {
    let s = (dict[lang] && dict[lang][key]) || (dict.en && dict.en[key]) || key;
    for (const k in vars || {}) s = s.split("{" + k + "}").join(String(vars[k]));
    return s;
  }

  function translatePage() {
    document.documentElement.lang = lang;
    document.querySelectorAll("[data-i18n]").forEach((el) => { el.textContent = t(el.dataset.i18n); });
    document.querySelectorAll("[data-i18n-placeholder]").forEach((el) => { el.placeholder = t(el.dataset.i18nPlaceholder); });
    document.querySelectorAll("[data-i18n-label]").forEach((el) => { el.setAttribute("aria-label", t(el.dataset.i18nLabel)); });
    $("lang").value = lang;
  }

  function setLang(l) {
    lang = dict[l] ? l : "en";
    localStorage.setItem(LANG, lang);
    translatePage();
    renderCatalog();
    renderAccount();
    if (current) renderTool();
  }

  // ---- formatting ----

  function fmtSize(n) {
    const units = lang === "ru" ? ["Б", "КБ", "МБ", "ГБ"] : ["B", "KB", "MB", "GB"];
    let i = 0;
    while (n >= 1024 && i < units.length - 1) { n /= 1024; i++; }
    return (i ? n.toFixed(1) : String(n)) + " " + units[i];
  }

  function fmtDate(s) {
    const d = new Date(s);
    return isNaN(d) ? s : d.toLocaleString(lang);
  }

  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const k in attrs || {}) {
      if (k === "text") e.textContent = attrs[k];
      else if (k.startsWith("on")) e.addEventListener(k.slice(2), attrs[k]);
      else if (attrs[k] === true) e.setAttribute(k, "");
      else if (attrs[k] !== false && attrs[k] != null) e.setAttribute(k, attrs[k]);
    }
    for (const c of kids) if (c) e.append(c);
    return e;
  }

  // ---- API ----

  function key() { return localStorage.getItem(KEY) || ""; }

  async function api(method, path, body) {
    const headers = {};
    if (key()) headers.Authorization = "Bearer " + key();
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    let data = null;
    try { data = await res.json(); } catch (e) { data = null; }
    return { res, data };
  }

  // problemText turns an RFC 9457 body into one sentence for the user.
  function problemText(status, p, retryAfter) {
    p = p || {};
    if (p.code === "rate_limited") return t("err.rateLimited", { s: retryAfter || 1 });
    if (p.code === "quota_exceeded") {
      const reset = account && account.usage ? account.usage.resets_at
        : new Date(Date.now() + (Number(retryAfter) || 0) * 1000).toISOString();
      return t("err.quota", { date: fmtDate(reset) });
    }
    return p.detail || p.title || t("err.network") + (status ? " (" + status + ")" : "");
  }

  // showFieldErrors puts each errors[].message next to the field it names.
  function showFieldErrors(root, p) {
    root.querySelectorAll(".field-error").forEach((e) => { e.textContent = ""; });
    let shown = false;
    for (const fe of (p && p.errors) || []) {
      const slot = root.querySelector('.field-error[data-for="' + CSS.escape(fe.field || "") + '"]');
      if (slot) { slot.textContent = fe.message; shown = true; }
    }
    return shown;
  }

  // ---- key and account ----

  async function loadAccount() {
    account = null;
    if (key()) {
      const { res, data } = await api("GET", "/v1/account");
      if (res.ok) account = data;
      else if (res.status === 401) { showKeyBox(t("key.invalid")); }
    }
    renderAccount();
  }

  function renderAccount() {
    const box = $("account");
    box.replaceChildren();
    $("key-open").hidden = !!key();
    $("key-forget").hidden = !key();
    if (current) $("tool-needkey").hidden = !!key();
    if (!account) return;
    const u = account.usage || {};
    box.append(el("span", { text: t("account.plan", { plan: account.plan }) }));
    box.append(el("meter", { min: 0, max: u.operations_limit || 1, value: u.operations_used || 0 }));
    box.append(el("span", { text: t("account.usage", { used: u.operations_used, limit: u.operations_limit }) }));
    box.append(el("span", { text: t("account.resets", { date: fmtDate(u.resets_at) }) }));
  }

  function showKeyBox(message) {
    $("keybox").hidden = false;
    $("key-error").hidden = !message;
    $("key-error").textContent = message || "";
  }

  async function onSignup(ev) {
    ev.preventDefault();
    const form = ev.target;
    const { res, data } = await api("POST", "/v1/signup", { email: form.email.value });
    if (!res.ok) {
      const inField = showFieldErrors(form, data);
      showKeyBox(inField ? "" : problemText(res.status, data, res.headers.get("Retry-After")));
      return;
    }
    localStorage.setItem(KEY, data.api_key);
    $("key-value").textContent = data.api_key;
    $("key-created").hidden = false;
    form.reset();
    showKeyBox("");
    loadAccount();
  }

  async function onPaste(ev) {
    ev.preventDefault();
    localStorage.setItem(KEY, ev.target.key.value.trim());
    ev.target.reset();
    await loadAccount();
    if (account) $("keybox").hidden = true;
  }

  function forgetKey() {
    localStorage.removeItem(KEY);
    account = null;
    $("key-created").hidden = true;
    renderAccount();
  }

  // ---- catalogue ----

  function toolTitle(tool) { return tool.title; }

  function unavailableReason(tool) {
    const missing = (tool.engines || []).filter((e) => !e.available).map((e) => e.name);
    return t("tools.engineMissing", { engines: missing.length ? missing.join(", ") : tool.engine });
  }

  function renderCatalog() {
    const q = $("search").value.trim().toLowerCase();
    const root = $("groups");
    root.replaceChildren();
    let any = false;
    for (const g of GROUPS) {
      const list = tools.filter((tool) => (GROUP_OF[tool.slug] || "pdf") === g).filter((tool) =>
        !q || [tool.slug, tool.title, tool.description || "", toolTitle(tool)].join(" ").toLowerCase().includes(q));
      if (!list.length) continue;
      any = true;
      const cards = el("div", { class: "cards" });
      for (const tool of list) {
        const body = [el("h3", { text: toolTitle(tool) }), el("p", { text: tool.description || "" })];
        if (tool.available) {
          cards.append(el("a", { class: "card", href: "#/tool/" + tool.slug, "data-slug": tool.slug }, ...body));
        } else {
          body.push(el("p", { class: "reason", text: t("tools.unavailable", { reason: unavailableReason(tool) }) }));
          cards.append(el("div", { class: "card disabled", "aria-disabled": "true", "data-slug": tool.slug }, ...body));
        }
      }
      root.append(el("section", { class: "group", "data-group": g }, el("h2", { text: t("group." + g) }), cards));
    }
    $("no-match").hidden = any || !tools.length;
  }

  async function loadTools() {
    try {
      const { res, data } = await api("GET", "/v1/tools");
      if (!res.ok) throw new Error(res.status);
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
    clearTimeout(pollTimer);
    $("catalog").hidden = !!tool;
    $("tool").hidden = !tool;
    if (tool && tool !== current) { current = tool; resetTool(); }
    if (!tool) current = null;
    if (tool) renderTool();
  }

  function resetTool() {
    files = [];
    clearTimeout(pollTimer);
    $("tool-form").hidden = false;
    $("progress").hidden = true;
    $("result").hidden = true;
    $("tool-error").hidden = true;
    buildParams();
    renderFiles();
  }

  function renderTool() {
    const tool = current;
    $("tool-title").textContent = toolTitle(tool);
    $("tool-desc").textContent = tool.description || "";
    $("tool-needkey").hidden = !!key();
    const input = $("file-input");
    input.multiple = tool.max_files > 1;
    input.accept = (tool.accepts || []).join(",");
    $("drop-text").textContent = tool.max_files > 1 ? t("tool.dropMany", { max: tool.max_files }) : t("tool.drop");
    document.querySelectorAll("#params [data-pages]").forEach((e) => { e.placeholder = t("tool.pagesHint"); });
    document.querySelectorAll("#params option[data-default]").forEach((e) => { e.textContent = t("tool.default"); });
    renderFiles();
  }

  // buildParams makes one form control per declared param.
  function buildParams() {
    const box = $("params");
    box.querySelectorAll(".param").forEach((e) => e.remove());
    box.hidden = !current.params.length;
    for (const p of current.params) {
      const id = "p-" + p.name;
      let control;
      const bounded = (p.type === "integer" || p.type === "number") && p.min != null && p.max != null;
      if (p.enum && p.enum.length) {
        control = el("select", { id, name: p.name });
        if (!p.required && !p.default) control.append(el("option", { value: "", "data-default": true }));
        for (const v of p.enum) control.append(el("option", { value: v, text: v }));
        if (p.default) control.value = p.default;
      } else if (p.type === "boolean") {
        control = el("input", { id, name: p.name, type: "checkbox", checked: p.default === "true" });
      } else if (bounded && p.default !== undefined && p.default !== "") {
        control = el("input", { id, name: p.name, type: "range", min: p.min, max: p.max,
          step: p.type === "integer" ? 1 : "any", value: p.default });
        const out = el("output", { for: id, text: p.default });
        control.addEventListener("input", () => { out.textContent = control.value; });
        control = el("span", {}, control, " ", out);
      } else if (p.type === "integer" || p.type === "number") {
        control = el("input", { id, name: p.name, type: "number", min: p.min, max: p.max,
          step: p.type === "integer" ? 1 : "any", placeholder: p.default || "" });
      } else {
        const secret = /password/.test(p.name);
        control = el("input", { id, name: p.name, type: secret ? "password" : "text", autocomplete: secret ? "new-password" : "off",
          placeholder: p.default || "", "data-pages": p.type === "pages" || null, required: p.required });
      }
      box.append(el("div", { class: "param" },
        el("label", { for: id, text: p.name.replace(/_/g, " ") }), " ", control,
        p.description ? el("span", { class: "desc", text: p.description }) : null,
        el("span", { class: "field-error", "data-for": p.name })));
    }
    renderTool();
  }

  function addFiles(list) {
    for (const f of list) files.push(f);
    if (current.max_files <= 1) files = files.slice(-1);
    renderFiles();
  }

  function renderFiles() {
    const ol = $("file-list");
    ol.replaceChildren();
    const many = current && current.max_files > 1;
    files.forEach((f, i) => {
      const li = el("li", {}, el("span", { text: f.name + " — " + fmtSize(f.size) }));
      const btn = (label, text, fn, disabled) => el("button", { type: "button", "aria-label": t(label), title: t(label),
        text, disabled, onclick: () => { fn(); renderFiles(); } });
      if (many) {
        li.append(btn("tool.moveUp", "↑", () => { [files[i - 1], files[i]] = [files[i], files[i - 1]]; }, i === 0));
        li.append(btn("tool.moveDown", "↓", () => { [files[i + 1], files[i]] = [files[i], files[i + 1]]; }, i === files.length - 1));
      }
      li.append(btn("tool.remove", "✕", () => { files.splice(i, 1); }, false));
      ol.append(li);
    });
  }

  function showError(text) {
    $("tool-error").textContent = text;
    $("tool-error").hidden = !text;
  }

  function onStart(ev) {
    ev.preventDefault();
    const form = $("tool-form");
    showFieldErrors(form, null);
    showError("");
    if (!key()) { showKeyBox(t("key.needed")); return; }
    if (files.length < Math.max(1, current.min_files)) { showError(t("tool.needFiles", { min: Math.max(1, current.min_files) })); return; }
    if (files.length > current.max_files) { showError(t("tool.tooMany", { max: current.max_files })); return; }
    const fd = new FormData();
    for (const f of files) fd.append("file", f, f.name);
    for (const p of current.params) {
      const c = form.elements[p.name];
      if (!c) continue;
      if (c.type === "checkbox") fd.append(p.name, c.checked ? "true" : "false");
      else if (c.value !== "") fd.append(p.name, c.value);
    }
    const xhr = new XMLHttpRequest();
    xhr.open("POST", "/v1/" + encodeURIComponent(current.slug) + "/process");
    xhr.setRequestHeader("Authorization", "Bearer " + key());
    xhr.setRequestHeader("Accept", "application/json");
    xhr.upload.onprogress = (e) => {
      if (!e.lengthComputable) return;
      const pct = Math.round((e.loaded / e.total) * 100);
      setProgress(pct, t("progress.uploading", { pct }));
    };
    xhr.upload.onload = () => setProgress(null, t("progress.processing"));
    xhr.onerror = () => failed(t("err.network"));
    xhr.onload = () => {
      let data = null;
      try { data = JSON.parse(xhr.responseText); } catch (e) { data = null; }
      handleJob(xhr.status, data, xhr.getResponseHeader("Retry-After"));
    };
    $("tool-form").hidden = true;
    setProgress(0, t("progress.uploading", { pct: 0 }));
    xhr.send(fd);
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
    if (problem) showFieldErrors($("tool-form"), problem);
    showError(text);
  }

  // handleJob follows a job record: 200 done, 202 poll, anything else a problem.
  function handleJob(status, job, retryAfter) {
    if (status !== 200 && status !== 202) {
      if (status === 401) showKeyBox(t("key.invalid"));
      failed(problemText(status, job, retryAfter), job);
      return;
    }
    if (status === 200 && job && job.status === "queued") status = 202;
    switch (job && job.status) {
      case "done": showResult(job); loadAccount(); return;
      case "failed": failed(t("err.failed", { message: (job.error && job.error.message) || "" })); return;
      case "canceled": failed(t("err.canceled")); return;
    }
    setProgress(null, t(job.status === "queued" ? "progress.queued" : "progress.processing"));
    const wait = Math.min(30, Math.max(1, Number(retryAfter) || 1)) * 1000;
    pollTimer = setTimeout(() => poll(job.job_id), wait);
  }

  async function poll(id) {
    if (!current) return;
    try {
      const { res, data } = await api("GET", "/v1/jobs/" + encodeURIComponent(id));
      if (res.status === 429) {
        pollTimer = setTimeout(() => poll(id), Math.max(1, Number(res.headers.get("Retry-After")) || 1) * 1000);
        return;
      }
      handleJob(res.ok ? 202 : res.status, data, res.headers.get("Retry-After"));
    } catch (e) {
      failed(t("err.network"));
    }
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
      saved.textContent = t("result.saved", { pct, from: fmtSize(input), to: fmtSize(r.size) });
    }
    const link = $("result-link");
    link.hidden = !r.url;
    if (r.url) { link.href = r.url; link.setAttribute("download", r.filename || ""); }
    $("result-expiry").textContent = r.expired || !r.url ? t("result.expired") : t("result.expires", { date: fmtDate(r.expires_at) });
  }

  // ---- start ----

  function bind() {
    $("lang").addEventListener("change", (e) => setLang(e.target.value));
    $("search").addEventListener("input", renderCatalog);
    $("key-open").addEventListener("click", () => showKeyBox(""));
    $("key-close").addEventListener("click", () => { $("keybox").hidden = true; $("key-created").hidden = true; });
    $("key-forget").addEventListener("click", forgetKey);
    $("signup-form").addEventListener("submit", onSignup);
    $("paste-form").addEventListener("submit", onPaste);
    $("tool-form").addEventListener("submit", onStart);
    $("again").addEventListener("click", resetTool);
    $("file-input").addEventListener("change", (e) => { addFiles(e.target.files); e.target.value = ""; });
    const drop = $("drop");
    drop.addEventListener("dragover", (e) => { e.preventDefault(); drop.classList.add("over"); });
    drop.addEventListener("dragleave", () => drop.classList.remove("over"));
    drop.addEventListener("drop", (e) => { e.preventDefault(); drop.classList.remove("over"); addFiles(e.dataTransfer.files); });
    window.addEventListener("hashchange", route);
  }

  async function start() {
    bind();
    try { dict = await (await fetch("/static/i18n.json")).json(); } catch (e) { dict = {}; }
    const saved = localStorage.getItem(LANG);
    const browser = (navigator.language || "en").slice(0, 2).toLowerCase();
    lang = saved || (dict[browser] ? browser : "en");
    translatePage();
    await Promise.all([loadTools(), loadAccount()]);
  }

  start();
})();
