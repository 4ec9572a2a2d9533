// Every visible string comes from i18n.json, one object per language. A key
// missing in a language falls back to English, then to a given fallback
// (tool texts fall back to the catalogue's, so a new tool still shows).

let dict = {};
let current = "en";

/** The language in use ("en" or "ru"). */
export const lang = () => current;

/** loadDict fetches i18n.json and picks the saved, else the browser's, language. */
export async function loadDict(saved) {
  try { dict = await (await fetch("/static/i18n.json")).json(); } catch (e) { dict = {}; }
  const browser = (navigator.language || "en").slice(0, 2).toLowerCase();
  current = dict[saved] ? saved : dict[browser] ? browser : "en";
  return current;
}

/** setLang switches the language; unknown ones fall back to English. */
export function setLang(l) {
  current = dict[l] ? l : "en";
  return current;
}

function fill(s, vars) {
  for (const k in vars || {}) s = s.split("{" + k + "}").join(String(vars[k]));
  return s;
}

/** t returns the string for key with {name} placeholders filled. */
export function t(key, vars) {
  return tOr(key, key, vars);
}

/** tOr is t with a fallback for keys that no language has. */
export function tOr(key, fallback, vars) {
  const s = (dict[current] && dict[current][key]) ?? (dict.en && dict.en[key]) ?? fallback;
  return fill(s ?? "", vars);
}

/** jobErrorText is a failed job's error for people: the page's own words for the codes it has them for ("err.code." + code), else the server's message. */
export function jobErrorText(e) {
  return e ? tOr("err.code." + e.code, e.message || "") : "";
}

/** translatePage fills every element marked data-i18n (text), data-i18n-placeholder and data-i18n-label (aria-label). */
export function translatePage(root = document) {
  document.documentElement.lang = current;
  root.querySelectorAll("[data-i18n]").forEach((e) => { e.textContent = t(e.dataset.i18n); });
  root.querySelectorAll("[data-i18n-placeholder]").forEach((e) => { e.placeholder = t(e.dataset.i18nPlaceholder); });
  root.querySelectorAll("[data-i18n-label]").forEach((e) => { e.setAttribute("aria-label", t(e.dataset.i18nLabel)); });
  document.title = t("app.title");
}

/** fmtSize formats bytes as "2.3 MB" in the current language. */
export function fmtSize(n) {
  const units = current === "ru" ? ["Б", "КБ", "МБ", "ГБ"] : ["B", "KB", "MB", "GB"];
  let i = 0;
  n = Number(n) || 0;
  while (n >= 1024 && i < units.length - 1) { n /= 1024; i++; }
  const num = i ? n.toLocaleString(current, { maximumFractionDigits: n < 10 ? 1 : 0 }) : String(n);
  return num + "\u00a0" + units[i];
}

/** fmtDate formats an RFC 3339 time for people. */
export function fmtDate(s) {
  const d = new Date(s);
  return isNaN(d) ? String(s ?? "") : d.toLocaleString(current, { dateStyle: "medium", timeStyle: "short" });
}
