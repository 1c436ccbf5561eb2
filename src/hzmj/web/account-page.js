// Entry point of account.html: /account, /matches and /players/{id}.

import { accountLinks, renderAccountPages } from "./account.js";
import { getLang, setLang, t } from "./i18n.js";
import { h, homeLink } from "./render.js";

const root = document.getElementById("app");
const header = document.getElementById("header");
let me = null;

function renderHeader() {
  header.replaceChildren(
    homeLink(), accountLinks(me),
    h("button.lang", {
      onclick: async () => {
        setLang(getLang() === "zh" ? "en" : "zh");
        await render();
      },
      "aria-label": "language",
    }, t("lang")));
}

async function render() {
  me = await renderAccountPages(root, location.pathname);
  renderHeader();
}

render();
