// Form controls generated from a tool's param declarations in the
// catalogue: enums as segmented buttons (few values) or selects, bounded
// numbers as sliders with their value shown (number fields when the range
// is too wide to pick a value by dragging, such as pixel sizes), booleans as
// switches, colours as colour pickers, page selections as text checked as
// they are typed.

import { $, el } from "./dom.js";
import { t, tOr } from "./i18n.js";

// SEGMENTED_MAX is the most values an enum shows as buttons.
const SEGMENTED_MAX = 4;
// SLIDER_STEPS is the widest integer range given a slider.
const SLIDER_STEPS = 1000;
// LONG_TEXT is the shortest bound of a string param shown as a box of
// several lines.
const LONG_TEXT = 10000;

// A page selection as the API parses it: "all", or pages and ranges such as
// "1-3,5,8-" and "-3", comma-separated.
const PAGES = /^\s*(all|(\d+\s*(-\s*\d*)?|-\s*\d+)(\s*,\s*(\d+\s*(-\s*\d*)?|-\s*\d+))*)?\s*$/i;

/** pagesValid reports whether s is a page selection the API accepts in form. */
export const pagesValid = (s) => PAGES.test(s);

const label = (tool, p) => tOr("param." + tool.slug + "." + p.name, p.name.replace(/_/g, " "));
const help = (tool, p) => tOr("help." + tool.slug + "." + p.name, p.description || "");
const enumLabel = (tool, p, v) => tOr("enum." + tool.slug + "." + p.name + "." + v, v);

function control(tool, p, id, name) {
  const bounded = (p.type === "integer" || p.type === "number") && p.min != null && p.max != null;
  const hasDefault = p.default !== undefined && p.default !== "";
  if (p.enum && p.enum.length) {
    if (p.enum.length <= SEGMENTED_MAX) return null; // segmented: built by the caller as a fieldset
    const s = el("select", { id, name });
    if (!hasDefault) s.append(el("option", { value: "", text: t("tool.default") }));
    for (const v of p.enum) s.append(el("option", { value: v, text: enumLabel(tool, p, v) }));
    if (hasDefault) s.value = p.default;
    return s;
  }
  if (p.type === "boolean") {
    return el("input", { id, name, type: "checkbox", role: "switch", class: "switch", checked: p.default === "true" });
  }
  if (bounded && (p.type === "number" || p.max - p.min <= SLIDER_STEPS)) {
    const span = p.max - p.min;
    const step = p.type === "integer" ? 1 : span >= 100 ? 1 : span / 100;
    const r = el("input", { id, name, type: "range", min: p.min, max: p.max, step,
      value: hasDefault ? p.default : Math.round((Number(p.min) + Number(p.max)) / 2) });
    const out = el("output", { for: id, "aria-live": "off" });
    // Without a default, the slider stays unset (the API picks the value)
    // until it is moved; "auto" puts it back.
    const auto = hasDefault ? null : el("button", { type: "button", class: "link", text: t("tool.auto") });
    const show = () => {
      out.textContent = r.dataset.unset ? t("tool.automatic") : r.value;
      if (auto) auto.hidden = !!r.dataset.unset;
    };
    if (!hasDefault) r.dataset.unset = "1";
    r.addEventListener("input", () => { delete r.dataset.unset; show(); });
    if (auto) auto.addEventListener("click", () => { r.dataset.unset = "1"; show(); r.focus(); });
    show();
    return el("span", { class: "slider" }, r, out, auto);
  }
  if (p.type === "color") {
    return el("input", { id, name, type: "color", value: hasDefault ? p.default : "#000000" });
  }
  if (p.type === "integer" || p.type === "number") {
    return el("input", { id, name, type: "number", inputmode: "numeric", min: p.min, max: p.max,
      step: p.type === "integer" ? 1 : "any", placeholder: hasDefault ? p.default : t("tool.automatic") });
  }
  // A long text (redact's terms, one a line; JSON such as bookmarks or a
  // form's values) gets a box of several lines: an input cannot hold a
  // line break.
  if (p.type === "string" && p.max != null && p.max >= LONG_TEXT) {
    return el("textarea", { id, name, rows: 5, spellcheck: "false", autocomplete: "off", maxlength: p.max,
      required: p.required, text: hasDefault ? p.default : null });
  }
  const secret = /password/.test(p.name);
  const i = el("input", { id, name, type: secret ? "password" : p.type === "url" ? "url" : "text",
    autocomplete: secret ? "new-password" : "off", spellcheck: "false",
    value: p.type !== "pages" && hasDefault && !secret ? p.default : null,
    placeholder: p.type === "pages" ? t("tool.pagesHint") : p.type === "url" ? "https://" : null,
    maxlength: (p.type === "string" || p.type === "url") && p.max != null ? p.max : null, required: p.required });
  if (p.type === "pages") {
    i.dataset.pages = "1";
    i.addEventListener("input", () => checkPages(i));
  }
  return i;
}

/** checkPages shows a page selection's error next to it and reports whether it is valid. */
export function checkPages(input) {
  const ok = pagesValid(input.value);
  const slot = input.closest(".param").querySelector(".field-error");
  slot.textContent = ok ? "" : t("tool.pagesInvalid");
  input.setAttribute("aria-invalid", ok ? "false" : "true");
  return ok;
}

function segmented(tool, p, id, helpId, errId, name) {
  const hasDefault = p.default !== undefined && p.default !== "";
  const box = el("fieldset", { class: "param segmented", "data-param": name, "aria-describedby": helpId + " " + errId },
    el("legend", { text: label(tool, p) }));
  const opts = el("div", { class: "options" });
  const values = hasDefault ? p.enum : ["", ...p.enum];
  values.forEach((v, n) => {
    const oid = id + "-" + n;
    opts.append(el("input", { type: "radio", id: oid, name, value: v, checked: hasDefault ? v === p.default : v === "" }),
      el("label", { for: oid, text: v === "" ? t("tool.default") : enumLabel(tool, p, v) }));
  });
  box.append(opts);
  return box;
}

/**
 * buildParams replaces box's controls with one per param of tool, named
 * prefix + the param's name (a pipeline's step: "steps[1].params."), as
 * the API's errors[].field names them. A steps param is left to the chain
 * editor (chain.js).
 */
export function buildParams(box, tool, prefix = "") {
  box.querySelectorAll(".param").forEach((e) => e.remove());
  box.hidden = !tool.params.length;
  for (const p of tool.params) {
    if (p.type === "steps") continue;
    const name = prefix + p.name;
    const id = "p-" + name.replace(/[^A-Za-z0-9_-]/g, "-"), helpId = id + "-help", errId = id + "-error";
    const text = help(tool, p);
    const hint = text ? el("span", { class: "desc", id: helpId, text }) : null;
    const err = el("span", { class: "field-error", id: errId, "data-for": name, "aria-live": "polite" });
    let row;
    if (p.enum && p.enum.length && p.enum.length <= SEGMENTED_MAX) {
      row = segmented(tool, p, id, helpId, errId, name);
    } else {
      const c = control(tool, p, id, name);
      const input = c.matches("input,select,textarea") ? c : c.querySelector("input");
      input.setAttribute("aria-describedby", (hint ? helpId + " " : "") + errId);
      row = el("div", { class: "param" + (p.type === "boolean" ? " boolean" : ""), "data-param": name },
        el("label", { for: id, text: label(tool, p) }), c);
    }
    row.append(...[hint, err].filter(Boolean));
    box.append(row);
  }
}

/**
 * appendParams adds the values set in form's controls named prefix + a
 * param's name to fd (anything with append(name, value)) under the
 * param's name; it returns false (showing why) if one is invalid.
 */
export function appendParams(form, tool, fd, prefix = "") {
  let ok = true;
  for (const p of tool.params) {
    const c = form.elements[prefix + p.name];
    if (!c) continue;
    if (c.type === "checkbox") { fd.append(p.name, c.checked ? "true" : "false"); continue; }
    if (c.dataset && c.dataset.unset) continue;
    if (c.dataset && c.dataset.pages && !checkPages(c)) { ok = false; continue; }
    if (c.value !== "") fd.append(p.name, c.value);
  }
  return ok;
}

/** focusField moves the focus to the control of the named param or to the file picker. */
export function focusField(name) {
  const target = name === "file" ? $("file-input") : document.querySelector(['input', 'select', 'textarea'].map((c) => '[data-param="' + CSS.escape(name) + '"] ' + c).join(", "));
  // A chain's step ("steps[1]", "steps[1].tool"): its own controls.
  const slot = document.querySelector('.field-error[data-for="' + CSS.escape(name) + '"]');
  const near = slot && slot.closest("[data-param]") && slot.closest("[data-param]").querySelector("select,input,textarea");
  if (target || near) (target || near).focus();
}
