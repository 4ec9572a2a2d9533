// The chain editor of the pipeline: its steps param as a list of tools,
// each step with the controls of its own params, built from the
// catalogue. Steps are added, moved up and down, and removed; each step's
// controls are named "steps[i].params.<name>", so that the API's
// errors[].field lands next to them, as "steps[i].tool" and "steps" do.

import { el } from "./dom.js";
import { appendParams, buildParams } from "./controls.js";
import { t, tOr } from "./i18n.js";

// MAX_STEPS is the API's bound on a pipeline's steps.
const MAX_STEPS = 10;

let steps = [];   // [{ slug, values: {name: value as entered} }]
let choices = []; // the tools a step may be: available ones that take files, not the pipeline
let root = null;  // the editor's element, inside the params box

const titleOf = (tool) => tOr("tool." + tool.slug + ".title", tool.title);
const toolOf = (slug) => choices.find((x) => x.slug === slug);
const isSteps = (p) => p.type === "steps";

/** stepsParam returns tool's steps param (the pipeline's), or undefined. */
export const stepsParam = (tool) => (tool.params || []).find(isSteps);

/** resetChain forgets the steps, for a new job. */
export function resetChain() { steps = []; }

/**
 * buildChain (re)builds the editor in box for tools (the catalogue) from
 * the steps kept, with the values entered in them.
 */
export function buildChain(box, tools) {
  choices = tools.filter((x) => x.available && x.max_files > 0 && !(x.params || []).some(isSteps));
  if (root) root.remove();
  root = el("div", { class: "param chain", "data-param": "steps" },
    el("span", { class: "label", id: "chain-label", text: t("chain.steps") }));
  const list = el("ol", { class: "steps", "aria-labelledby": "chain-label" });
  steps.forEach((st, i) => list.append(stepItem(st, i)));
  root.append(list);
  if (!steps.length) root.append(el("p", { class: "desc", text: t("chain.empty") }));
  root.append(addRow(), el("span", { class: "field-error", "data-for": "steps", "aria-live": "polite" }));
  box.append(root);
  steps.forEach((st, i) => restore(box.form || box.closest("form"), "steps[" + i + "].params.", st.values));
}

function stepItem(st, i) {
  const tool = toolOf(st.slug);
  const n = i + 1;
  const sel = el("select", { id: "step-" + i + "-tool", "aria-describedby": "step-" + i + "-tool-error",
    onchange: (e) => { keep(); steps[i] = { slug: e.target.value, values: {} }; rebuild("step-" + i + "-tool"); } });
  for (const x of choices) sel.append(el("option", { value: x.slug, text: titleOf(x) }));
  sel.value = st.slug;
  const btn = (key, label, onclick, disabled) =>
    el("button", { type: "button", class: "link", text: t(key), "aria-label": label, disabled, onclick });
  const move = (d) => () => { keep(); [steps[i], steps[i + d]] = [steps[i + d], steps[i]]; rebuild("step-" + (i + d) + "-tool"); };
  const params = el("div", { class: "step-params" });
  if (tool) buildParams(params, tool, "steps[" + i + "].params.");
  return el("li", { class: "step", "data-step": i, "data-param": "steps[" + i + "].tool" },
    el("div", { class: "step-head" },
      el("label", { for: sel.id, text: t("chain.step", { n }) }), sel,
      btn("chain.up", t("chain.upLabel", { n }), move(-1), i === 0),
      btn("chain.down", t("chain.downLabel", { n }), move(1), i === steps.length - 1),
      btn("chain.remove", t("chain.removeLabel", { n }), () => { keep(); steps.splice(i, 1); rebuild("chain-add"); })),
    el("span", { class: "field-error", id: "step-" + i + "-tool-error", "data-for": "steps[" + i + "].tool", "aria-live": "polite" }),
    el("span", { class: "field-error", "data-for": "steps[" + i + "]", "aria-live": "polite" }),
    params);
}

// addRow offers the tools that can take what the last step makes (all
// of them for the first step); none once the last step may make a zip.
function addRow() {
  const last = steps.length ? toolOf(steps[steps.length - 1].slug) : null;
  const fits = (x) => !last || (!last.may_zip && (x.accepts || []).some((a) => (last.outputs || []).includes(a)));
  const sel = el("select", { id: "chain-add", "aria-label": t("chain.choose") });
  for (const x of choices.filter(fits)) sel.append(el("option", { value: x.slug, text: titleOf(x) }));
  const full = steps.length >= MAX_STEPS || !sel.options.length;
  const add = el("button", { type: "button", text: t("chain.add"), disabled: full,
    onclick: () => { keep(); steps.push({ slug: sel.value, values: {} }); rebuild("step-" + (steps.length - 1) + "-tool"); } });
  return el("div", { class: "chain-add" }, sel, add);
}

// keep reads the values entered in each step's controls into steps.
function keep() {
  const form = root && root.closest("form");
  if (!form) return;
  steps.forEach((st, i) => {
    const tool = toolOf(st.slug);
    if (!tool) return;
    const prefix = "steps[" + i + "].params.";
    st.values = {};
    for (const p of tool.params) {
      const c = form.elements[prefix + p.name];
      if (c) st.values[p.name] = c.type === "checkbox" ? String(c.checked) : c.value;
    }
  });
}

function restore(form, prefix, values) {
  if (!form) return;
  for (const [name, v] of Object.entries(values || {})) {
    const c = form.elements[prefix + name];
    if (!c) continue;
    if (c.type === "checkbox") c.checked = v === "true"; else c.value = v;
  }
}

function rebuild(focusID) {
  const box = root.parentElement;
  buildChain(box, choices);
  const f = document.getElementById(focusID);
  if (f) f.focus();
}

/** keepChain reads what was entered, before the params box is rebuilt (a new language). */
export const keepChain = keep;

/**
 * chainValue returns the steps as the API's JSON, or null (showing why
 * next to the editor) when there are none or a value is invalid.
 */
export function chainValue(form) {
  const out = [];
  let ok = true;
  steps.forEach((st, i) => {
    const tool = toolOf(st.slug);
    const params = {};
    if (!tool || !appendParams(form, tool, { append: (k, v) => { params[k] = v; } }, "steps[" + i + "].params.")) ok = false;
    out.push({ tool: st.slug, params });
  });
  if (!out.length) {
    root.querySelector('.field-error[data-for="steps"]').textContent = t("chain.none");
    document.getElementById("chain-add").focus();
    return null;
  }
  return ok ? JSON.stringify(out) : null;
}
