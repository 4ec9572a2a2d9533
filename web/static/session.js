// Signing up, in and out. The panel asks for an address (POST /v1/signup,
// POST /v1/login): the server mails a link and answers the same whether or
// not the address has an account. The link opens #/verify/<token> (a
// fragment: the token reaches no log), which shows one button that POSTs
// the token (POST /v1/sessions), so a mail scanner that fetches the link
// cannot use it up. Signing out (DELETE /v1/session) ends this browser's
// session only.

import { api, currentSession, setKey, setSession } from "./api.js";
import { $, copyText } from "./dom.js";
import { lang, t } from "./i18n.js";

let token = "";          // the open link's token
let changed = () => {};  // called when the account signed in changed
let problemText = (status) => t("err.status", { status });
let showFieldErrors = () => "";

/** showAuth opens the panel on its sign-up or sign-in form ("signup", "signin"), with message as an error if given. */
export function showAuth(mode, message) {
  $("authbox").hidden = false;
  $("authforms").hidden = false;
  $("auth-sent").hidden = true;
  $("auth-error").hidden = !message;
  $("auth-error").textContent = message || "";
  const signup = mode === "signup" && !$("signup-form").hidden;
  $(signup ? "signup-email" : "signin-email").focus();
}

function hideAuth() {
  $("authbox").hidden = true;
}

/** mailLink posts body to path (sign-up or sign-in) and says to check the mail. */
async function mailLink(form, path, body) {
  showFieldErrors(form, null);
  $("auth-error").hidden = true;
  if (!body.email) {
    showFieldErrors(form, { errors: [{ field: "email", message: t("auth.emailNeeded") }] });
    form.elements.email.focus();
    return;
  }
  body.lang = lang();
  const { res, data } = await api("POST", path, body).catch(() => ({ res: { status: 0, headers: new Headers() }, data: null }));
  if (res.status !== 202) {
    const field = showFieldErrors(form, data);
    const input = field && form.elements.namedItem(field);
    if (input) { input.focus(); return; }
    $("auth-error").textContent = problemText(res.status, data, res.headers.get("Retry-After"));
    $("auth-error").hidden = false;
    return;
  }
  $("authforms").hidden = true;
  $("auth-sent").hidden = false;
  $("auth-sent-text").textContent = t("auth.sentTo", { email: body.email });
  form.reset();
  $("auth-close").focus();
}

function onSignup(ev) {
  ev.preventDefault();
  const f = ev.target;
  const body = { email: f.elements.email.value.trim() };
  const name = f.elements.namedItem("name").value.trim();
  if (name) body.name = name;
  mailLink(f, "/v1/signup", body);
}

function onSignin(ev) {
  ev.preventDefault();
  mailLink(ev.target, "/v1/login", { email: ev.target.elements.email.value.trim() });
}

/**
 * showVerify shows the page of a mailed link: with a token, its button; with
 * none (the token was used on this page, or the address lost it), what
 * became of it.
 */
export function showVerify(linkToken) {
  if (linkToken && linkToken !== token) {
    token = linkToken;
    $("verify-form").hidden = false;
    $("verify-done").hidden = true;
    $("verify-error").hidden = true;
    $("verify-go").disabled = false;
  } else if (!token && $("verify-done").hidden) {
    $("verify-form").hidden = true;
    verifyFailed(t("verify.noToken"));
  }
}

function verifyFailed(text) {
  $("verify-error").hidden = false;
  $("verify-error-text").textContent = text;
}

async function onVerify(ev) {
  ev.preventDefault();
  $("verify-go").disabled = true;
  const { res, data } = await api("POST", "/v1/sessions", { token }).catch(() => ({ res: { status: 0, headers: new Headers() }, data: null }));
  $("verify-form").hidden = true;
  token = "";
  // The token is spent either way: it leaves the address bar and history.
  history.replaceState(null, "", "#/verify");
  if (res.status !== 201) {
    verifyFailed(res.status === 410 ? t("verify.gone") : problemText(res.status, data, res.headers.get("Retry-After")));
    $("verify-again").focus();
    return;
  }
  setKey(""); // the account signed in replaces a key pasted before
  setSession(data);
  $("verify-done").hidden = false;
  $("verify-welcome").textContent = t(data.api_key ? "verify.welcomeNew" : "verify.welcome", { email: (data.account && data.account.email) || "" });
  $("first-key").hidden = !data.api_key;
  $("first-key-value").textContent = data.api_key || "";
  $("first-key-status").textContent = "";
  (data.api_key ? $("first-key-value") : $("verify-heading")).focus();
  changed();
}

/** signOut ends this browser's session (and forgets a pasted key). */
export async function signOut() {
  if (currentSession()) await api("DELETE", "/v1/session").catch(() => null);
  setSession(null);
  setKey("");
  changed();
}

/**
 * initSession binds the panel, the link page and sign-out; onChange is
 * called when who is signed in changed; problem and fieldErrors show an
 * API problem (app.js).
 */
export function initSession(onChange, problem, fieldErrors) {
  changed = onChange;
  problemText = problem;
  showFieldErrors = fieldErrors;
  $("signin-open").addEventListener("click", () => showAuth("signin"));
  $("signup-open").addEventListener("click", () => showAuth("signup"));
  $("auth-close").addEventListener("click", hideAuth);
  $("signup-form").addEventListener("submit", onSignup);
  $("signin-form").addEventListener("submit", onSignin);
  $("verify-form").addEventListener("submit", onVerify);
  $("verify-again").addEventListener("click", () => showAuth("signin"));
  $("signout").addEventListener("click", signOut);
  $("first-key-copy").addEventListener("click", async () => {
    const ok = await copyText($("first-key-value"));
    $("first-key-status").textContent = t(ok ? "keys.copied" : "keys.copyManually");
  });
}
