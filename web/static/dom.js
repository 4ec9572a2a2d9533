// Small DOM helpers shared by the modules.

/** $ returns the element with id. */
export const $ = (id) => document.getElementById(id);

/**
 * el creates an element: attrs sets attributes ("text" sets the text,
 * "on<event>" adds a listener, true/false/null toggle or omit), kids are
 * appended.
 */
export function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const k in attrs || {}) {
    const v = attrs[k];
    if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (v === true) e.setAttribute(k, "");
    else if (v !== false && v != null) e.setAttribute(k, v);
  }
  for (const c of kids) if (c != null && c !== false) e.append(c);
  return e;
}

/**
 * copyText copies the text of element box to the clipboard; it resolves to
 * true when copied. Where the clipboard API is refused (no permission, an
 * insecure origin) it falls back to selecting the text and the copy
 * command; failing that too, the text is left selected for Ctrl+C.
 */
export async function copyText(box) {
  try {
    await navigator.clipboard.writeText(box.textContent);
    return true;
  } catch (e) {
    getSelection().selectAllChildren(box);
    try { return document.execCommand("copy"); } catch (e2) { return false; }
  }
}
