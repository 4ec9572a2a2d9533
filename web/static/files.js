// The chosen files of a tool, in the order they are sent. Tools that take
// several (merge-pdf, jpg-to-pdf) let people reorder them by dragging or
// with the move buttons (the keyboard's way), and remove any.

import { $, el } from "./dom.js";
import { t, fmtSize } from "./i18n.js";

const DRAG_TYPE = "application/x-docmill-file-index";

/** ChosenFiles keeps the files and renders them into the list element. */
export class ChosenFiles {
  constructor(list, onChange) {
    this.list = list;
    this.onChange = onChange;
    this.files = [];
    this.max = 1;
  }

  /** reset empties the list for a tool taking up to max files. */
  reset(max) {
    this.files = [];
    this.max = max;
    this.render();
  }

  /** add appends files (on a tool taking one file, several make a batch). */
  add(list) {
    for (const f of list) this.files.push(f);
    this.render();
  }

  /** move puts the file at index from at index to. */
  move(from, to, focusClass) {
    if (from === to || to < 0 || to >= this.files.length) return;
    const [f] = this.files.splice(from, 1);
    this.files.splice(to, 0, f);
    this.render(focusClass && to, focusClass);
  }

  remove(i) {
    this.files.splice(i, 1);
    this.render(this.files.length ? Math.min(i, this.files.length - 1) : null, "remove");
  }

  /**
   * render redraws the list. After a button moved or removed an item, the
   * focus goes to the same button of the item at focusAt, so that the
   * keyboard can keep moving it.
   */
  render(focusAt, focusClass) {
    const ol = this.list;
    const many = this.max > 1;
    ol.replaceChildren();
    this.files.forEach((f, i) => {
      const name = el("span", { class: "name", text: f.name });
      const li = el("li", { "data-index": i, draggable: many ? "true" : null }, name,
        el("span", { class: "size", text: fmtSize(f.size) }));
      const btn = (labelKey, text, fn, disabled, cls) => el("button", {
        type: "button", class: "icon " + cls, "aria-label": t(labelKey, { name: f.name }), title: t(labelKey, { name: f.name }),
        text, disabled, onclick: fn });
      if (many) {
        li.prepend(el("span", { class: "grip", "aria-hidden": "true", text: "⠿" }));
        li.append(btn("tool.moveUp", "↑", () => this.move(i, i - 1, "up"), i === 0, "up"),
          btn("tool.moveDown", "↓", () => this.move(i, i + 1, "down"), i === this.files.length - 1, "down"));
        li.addEventListener("dragstart", (e) => {
          e.dataTransfer.setData(DRAG_TYPE, String(i));
          e.dataTransfer.effectAllowed = "move";
          li.classList.add("dragging");
        });
        li.addEventListener("dragend", () => li.classList.remove("dragging"));
        li.addEventListener("dragover", (e) => {
          if (!e.dataTransfer.types.includes(DRAG_TYPE)) return;
          e.preventDefault();
          e.dataTransfer.dropEffect = "move";
          li.classList.add("target");
        });
        li.addEventListener("dragleave", () => li.classList.remove("target"));
        li.addEventListener("drop", (e) => {
          const from = e.dataTransfer.getData(DRAG_TYPE);
          if (from === "") return;
          e.preventDefault();
          e.stopPropagation();
          this.move(Number(from), i);
        });
      }
      li.append(btn("tool.remove", "✕", () => this.remove(i), false, "remove"));
      ol.append(li);
    });
    const li = typeof focusAt === "number" ? ol.children[focusAt] : null;
    const b = li && (li.querySelector("button." + focusClass + ":not(:disabled)") || li.querySelector("button:not(:disabled)"));
    if (b) b.focus();
    const total = this.files.reduce((n, f) => n + f.size, 0);
    $("file-summary").textContent = this.files.length > 1 ? t("tool.filesTotal", { n: this.files.length, size: fmtSize(total) }) : "";
    if (this.onChange) this.onChange();
  }
}
