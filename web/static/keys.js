// The keys page, for developers: the account's API keys (GET /v1/keys:
// name, prefix, created, last used when and from where, revoked), a new
// named key (shown once, with a Copy button), rename (PATCH) and revoke
// (DELETE); the webhook endpoints; and a key pasted into this browser,
// sent as a Bearer header in place of the session (for trying a key).

import { api, key, setKey, signedIn } from "./api.js";
import { $, copyText, el } from "./dom.js";
import { fmtDate, t } from "./i18n.js";

let changed = () => {};  // called when a pasted key was used or forgotten
let renaming = "";       // the prefix of the key whose name is being edited
let rows = [];           // the last GET /v1/keys

function say(text) {
  $("keys-status").textContent = text;
}

function problem(res, data) {
  return (data && data.detail) || t("err.status", { status: res.status });
}

function lastUsed(k) {
  if (!k.last_used_at) return t("keys.never");
  return k.last_used_ip ? t("keys.usedFrom", { date: fmtDate(k.last_used_at), ip: k.last_used_ip }) : fmtDate(k.last_used_at);
}

function nameCell(k) {
  if (renaming !== k.prefix) {
    return el("td", { class: "name" }, el("span", { text: k.name }), k.current ? el("span", { class: "muted", text: " " + t("keys.current") }) : null);
  }
  const input = el("input", { type: "text", name: "name", value: k.name, maxlength: "100", required: true,
    "aria-label": t("keys.renameLabel", { prefix: k.prefix }) });
  const form = el("form", { class: "inline rename", onsubmit: (ev) => { ev.preventDefault(); rename(k.prefix, input.value.trim()); } },
    input, el("button", { type: "submit", class: "small", text: t("keys.save") }),
    el("button", { type: "button", class: "small", text: t("keys.cancel"), onclick: () => { renaming = ""; render(); } }));
  return el("td", { class: "name" }, form);
}

function stateCell(k) {
  if (k.revoked_at) return el("td", { class: "muted", text: t("keys.revoked", { date: fmtDate(k.revoked_at) }) });
  return el("td", {},
    el("button", { type: "button", class: "small rename", text: t("keys.rename"), "aria-label": t("keys.renameKey", { prefix: k.prefix }),
      onclick: () => { renaming = k.prefix; render(); const i = document.querySelector("#keys-list form.rename input"); i.focus(); i.select(); } }),
    " ",
    // The key this browser uses is not revoked from here: forget it below first.
    k.current ? null : el("button", { type: "button", class: "small revoke", text: t("keys.revoke"), "aria-label": t("keys.revokeLabel", { prefix: k.prefix }),
      onclick: () => revoke(k.prefix) }));
}

function render() {
  $("keys-list").replaceChildren(...rows.map((k) => el("tr", { "data-prefix": k.prefix, "data-revoked": k.revoked_at ? "true" : "false" },
    nameCell(k), el("td", {}, el("code", { text: k.prefix + "…" })), el("td", { text: fmtDate(k.created_at) }),
    el("td", { class: "used", text: lastUsed(k) }), stateCell(k))));
}

async function loadKeys() {
  const { res, data } = await api("GET", "/v1/keys");
  if (!res.ok) { rows = []; render(); say(t("keys.loadFailed")); return; }
  rows = data.keys || [];
  render();
}

async function rename(prefix, name) {
  if (!name) return;
  const { res, data } = await api("PATCH", "/v1/keys/" + encodeURIComponent(prefix), { name });
  say(res.ok ? t("keys.renamed", { prefix, name }) : problem(res, data));
  if (res.ok) renaming = "";
  await loadKeys();
}

async function revoke(prefix) {
  $("key-new-box").hidden = true;
  const { res, data } = await api("DELETE", "/v1/keys/" + encodeURIComponent(prefix));
  say(res.ok ? t("keys.revokedNow", { prefix }) : problem(res, data));
  await loadKeys();
}

async function create(ev) {
  ev.preventDefault();
  const input = $("key-name");
  const name = input.value.trim();
  input.setAttribute("aria-invalid", String(!name));
  if (!name) { say(t("keys.nameNeeded")); input.focus(); return; }
  const { res, data } = await api("POST", "/v1/keys", { name });
  if (!res.ok) { say(problem(res, data)); return; }
  say("");
  input.value = "";
  $("key-new-value").textContent = data.api_key;
  $("key-new-box").hidden = false;
  $("key-new-value").focus();
  await loadKeys();
}

async function loadHooks() {
  const { res, data } = await api("GET", "/v1/webhooks");
  const hooks = (res.ok && data.webhooks) || [];
  $("hooks-none").hidden = hooks.length > 0;
  $("hooks-list").replaceChildren(...hooks.map((h) => el("li", {}, el("code", { text: h.url }), " ",
    el("span", { class: "muted", text: (h.events || []).join(", ") + " · " + t(h.enabled ? "hooks.on" : "hooks.off") }))));
}

/** usePasted keeps a pasted key if the API takes it. */
async function usePasted(ev) {
  ev.preventDefault();
  const k = ev.target.elements.key.value.trim();
  setKey(k);
  const { res } = await api("GET", "/v1/account").catch(() => ({ res: { ok: false } }));
  $("paste-error").hidden = res.ok;
  $("paste-error").textContent = res.ok ? "" : t("key.invalid");
  if (!res.ok) { setKey(""); return; }
  ev.target.reset();
  changed();
}

/** renderKeysPage fills the keys page; it loads the keys and webhooks when reload is set. */
export function renderKeysPage(reload) {
  $("keys-needkey").hidden = signedIn();
  $("keys-body").hidden = !signedIn();
  $("paste-using").hidden = !key();
  $("paste-form").hidden = !!key();
  $("paste-using-text").textContent = key() ? t("dev.using", { prefix: key().slice(0, 12) }) : "";
  if (!signedIn()) { rows = []; $("key-new-box").hidden = true; return; }
  if (reload) { loadKeys(); loadHooks(); } else render();
}

/** initKeysPage binds the page's forms; onChange is called when a pasted key was used or forgotten. */
export function initKeysPage(onChange) {
  changed = onChange;
  $("key-create-form").addEventListener("submit", create);
  $("key-new-copy").addEventListener("click", async () => {
    say(t((await copyText($("key-new-value"))) ? "keys.copied" : "keys.copyManually"));
  });
  $("paste-form").addEventListener("submit", usePasted);
  $("key-forget").addEventListener("click", () => { setKey(""); changed(); });
}
