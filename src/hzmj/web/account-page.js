// Entry point of account.html: /account, /matches and /players/{id}.

import { renderAccountPages, siteHeader } from "./account.js";
import { getLang, setLang } from "./i18n.js";

const root = document.getElementById("app");
const header = document.getElementById("header");
let me = null;

function renderHeader() {
  header.replaceChildren(...siteHeader(me, renderHeader, async () => {
    setLang(getLang() === "zh" ? "en" : "zh");
    await render();
  }));
}

async function render() {
  me = await renderAccountPages(root, location.pathname);
  renderHeader();
}

render();
