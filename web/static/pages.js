// The plans page (GET /v1/config: the server's plan table and prices, and
// how to change plan) and the account page: usage against the limit and
// operations per day (from the jobs list).

import { api, signedIn } from "./api.js";
import { $, el } from "./dom.js";
import { fmtDate, fmtSize, lang, t, tOr } from "./i18n.js";

const fmtNum = (n) => new Intl.NumberFormat(lang()).format(n);

/** priceText is a plan's price for people: "490 RUB a month", "from …", "on request". */
export function priceText(p) {
  if (!p) return t("plans.onRequest");
  const vars = { amount: fmtNum(p.amount), cur: tOr("cur." + p.currency, p.currency), per: tOr("per." + p.period, p.period) };
  return t(p.from ? "plans.priceFrom" : "plans.price", vars);
}

function ttlText(s) {
  return s >= 86400 && s % 86400 === 0 ? t("plans.days", { n: s / 86400 }) : t("plans.hours", { n: Math.round(s / 3600) });
}

/**
 * upgradeText says how to change plan: the operator changes plans, so the
 * page names the contact the server's config gives (an address becomes a
 * mailto: link, a web address a link), or says to write to the operator.
 */
function upgradeText(config) {
  const contact = config && typeof config.contact === "string" ? config.contact.trim() : "";
  if (!contact) return [t("plans.upgradeOperator")];
  const [before, after] = t("plans.upgradeContact").split("{contact}");
  const mail = /^[^\s@]+@[^\s@]+$/.test(contact.replace(/^mailto:/, ""));
  const web = /^https?:\/\//.test(contact);
  const link = mail ? el("a", { href: "mailto:" + contact.replace(/^mailto:/, ""), text: contact.replace(/^mailto:/, "") })
    : web ? el("a", { href: contact, rel: "noopener", text: contact }) : contact;
  return [before, link, after || ""];
}

/** renderPlans fills the plans page from config, marking the plan of account. */
export function renderPlans(config, account) {
  $("plans-upgrade").replaceChildren(...(config ? upgradeText(config) : []));
  $("plans-error").hidden = !!config;
  $("plans-error").textContent = config ? "" : t("plans.loadFailed");
  const mine = account && account.plan;
  $("plans-list").replaceChildren(...((config && config.plans) || []).map((p) => {
    const row = (k, v) => [el("dt", { text: t(k) }), el("dd", { text: v })];
    const current = p.name === mine;
    return el("li", { class: "plan" + (current ? " current" : ""), "data-plan": p.name, "aria-current": current ? "true" : null },
      el("h2", { text: tOr("plan." + p.name, p.name) }),
      current ? el("p", { class: "badge", text: t("plans.yours") }) : null,
      el("p", { class: "price", text: priceText(p.price) }),
      el("dl", {},
        ...row("plans.ops", fmtNum(p.operations_per_month)),
        ...row("plans.file", fmtSize(p.max_file_bytes)),
        ...row("plans.speed", tOr("speed." + p.queue_priority, String(p.queue_priority))),
        ...row("plans.inFlight", fmtNum(p.jobs_in_flight)),
        ...row("plans.kept", ttlText(p.result_ttl_seconds))));
  }));
}

// ---- account ----

/** perDay counts done jobs by day of this month (UTC), from the jobs list. */
async function perDay() {
  const now = new Date();
  const start = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
  const days = new Array(now.getUTCDate()).fill(0);
  let cursor = "";
  for (let page = 0; page < 10; page++) {
    const { res, data } = await api("GET", "/v1/jobs?status=done&limit=100" + (cursor ? "&cursor=" + encodeURIComponent(cursor) : ""));
    if (!res.ok) return null;
    for (const j of data.jobs || []) {
      const d = Date.parse(j.created_at);
      if (d < start) return days;
      days[new Date(d).getUTCDate() - 1]++;
    }
    cursor = data.next_cursor;
    if (!cursor) break;
  }
  return days;
}

const SVG = "http://www.w3.org/2000/svg";
function svg(tag, attrs, ...kids) {
  const e = document.createElementNS(SVG, tag);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  e.append(...kids);
  return e;
}

function renderChart(days) {
  const box = $("acct-chart");
  if (!days) { box.textContent = t("jobs.loadFailed"); return; }
  const top = Math.max(1, ...days);
  const w = 12, h = 80;
  const month = new Date().toLocaleString(lang(), { month: "short", timeZone: "UTC" });
  const label = t("acct.chartLabel", { list: days.map((n, i) => n ? (i + 1) + " " + month + ": " + n : "").filter(Boolean).join(", ") || "0" });
  const bars = days.map((n, i) => {
    const bh = Math.round((n / top) * (h - 14));
    return svg("rect", { x: i * w + 1, y: h - 12 - bh, width: w - 2, height: Math.max(bh, n ? 1 : 0), class: "bar" },
      svg("title", {}, (i + 1) + " " + month + ": " + n));
  });
  const ticks = days.map((_, i) => (i === 0 || (i + 1) % 5 === 0)
    ? svg("text", { x: i * w + w / 2, y: h - 1, "text-anchor": "middle", class: "tick" }, String(i + 1)) : null).filter(Boolean);
  box.replaceChildren(svg("svg", { viewBox: "0 0 " + days.length * w + " " + h, role: "img", "aria-label": label, "data-total": days.reduce((a, b) => a + b, 0) },
    svg("line", { x1: 0, x2: days.length * w, y1: h - 12, y2: h - 12, class: "axis" }), ...bars, ...ticks));
}

/** renderAccountPage fills the account page; it loads the chart when reload is set. */
export function renderAccountPage(account, reload) {
  $("acct-needkey").hidden = signedIn();
  $("acct-body").hidden = !signedIn() || !account;
  if (!account) return;
  $("acct-email").textContent = account.email ? t("acct.email", { email: account.email }) : "";
  const u = account.usage || {};
  $("acct-plan").replaceChildren(t("account.plan", { plan: tOr("plan." + account.plan, account.plan) }), " · ",
    t("account.resets", { date: fmtDate(u.resets_at) }), " · ", el("a", { href: "#/plans", text: t("acct.compare") }));
  $("acct-meter").max = u.operations_limit || 1;
  $("acct-meter").value = u.operations_used || 0;
  $("acct-used").textContent = t("account.usage", { used: u.operations_used ?? 0, limit: u.operations_limit ?? 0 });
  if (reload) perDay().then(renderChart);
}
