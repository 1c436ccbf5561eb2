// Entry point of index.html: the lobby at /, a room (waiting room, then table) at /room/{id}.

import { accountLinks } from "./account.js";
import { loadMe } from "./api.js";
import { headerTools } from "./feedback.js";
import { getLang, setLang, t } from "./i18n.js";
import { renderLobby } from "./lobby.js";
import { h, homeLink } from "./render.js";
import { RoomPage } from "./room.js";

const root = document.getElementById("app");
const header = document.getElementById("header");
const match = location.pathname.match(/^\/room\/([^/]+)/);
let page = null;
let me = null;

function renderHeader() {
  document.title = t("title");
  header.replaceChildren(
    homeLink(), accountLinks(me),
    headerTools(renderHeader, toggleLang));
}

function toggleLang() {
  setLang(getLang() === "zh" ? "en" : "zh");
  renderHeader();
  if (page) page.render();
  else renderLobby(root, me);
}

// the session's CSRF token is needed before the first POST (taking a seat)
me = await loadMe();
renderHeader();
if (match) {
  page = new RoomPage(root, decodeURIComponent(match[1]), header, me);
  page.start();
} else {
  renderLobby(root, me);
}
