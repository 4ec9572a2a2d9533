// The API reference's behaviour: show the examples in one language (the
// choice is kept in localStorage) and copy an example with its button.
// Without this script every example shows.

const langKey = "docmill.reference.lang";
const buttons = [...document.querySelectorAll(".lang-button")];

function showLang(lang) {
  document.body.dataset.lang = lang;
  for (const b of buttons) b.setAttribute("aria-pressed", String(b.dataset.lang === lang));
  try { localStorage.setItem(langKey, lang); } catch (e) { /* storage refused: the choice lasts this visit */ }
}

let saved = "";
try { saved = localStorage.getItem(langKey) || ""; } catch (e) { /* storage refused */ }
showLang(buttons.some((b) => b.dataset.lang === saved) ? saved : "curl");
for (const b of buttons) b.addEventListener("click", () => showLang(b.dataset.lang));

// copyText copies the text of box, as the web interface's keys page does:
// the clipboard API, else selecting the text and the copy command.
async function copyText(box) {
  try {
    await navigator.clipboard.writeText(box.textContent);
    return true;
  } catch (e) {
    getSelection().selectAllChildren(box);
    try { return document.execCommand("copy"); } catch (e2) { return false; }
  }
}

document.addEventListener("click", async (ev) => {
  const button = ev.target.closest("button.copy");
  if (!button) return;
  const ok = await copyText(button.closest(".sample").querySelector("code"));
  const said = ok ? "Copied" : "Press Ctrl+C to copy";
  button.textContent = said;
  document.getElementById("copy-status").textContent = said;
  setTimeout(() => { button.textContent = "Copy"; }, 2000);
});
