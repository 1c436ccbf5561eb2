// Entry point of index.html: the lobby at /, a room (waiting room, then table) at /room/{id}.

import { siteHeader } from "./account.js";
import { loadMe } from "./api.js";
import { getLang, setLang, t } from "./i18n.js";
import { renderLobby } from "./lobby.js";
import { RoomPage } from "./room.js";

const root = document.getElementById("app");
const header = document.getElementById("header");
const match = location.pathname.match(/^\/room\/([^/]+)/);
let page = null;
let me = null;

function renderHeader() {
  document.title = t("title");
  header.replaceChildren(...siteHeader(me, renderHeader, toggleLang));
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
