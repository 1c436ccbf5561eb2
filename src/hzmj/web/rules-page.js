// The rule book page (/rules): every page's header over the book the server rendered.
// The header speaks the book's language, and its language button opens the other book
// at the same section (the page had its own plainer header: no account, no sound).

import { siteHeader } from "./account.js";
import { loadMe } from "./api.js";
import { setLang } from "./i18n.js";

const header = document.getElementById("header");
// the book's language (i18n.js set the page's <html lang> to the stored one at its import)
const book = header.dataset.book === "zh" ? "zh" : "en";
const other = book === "zh" ? "en" : "zh";
// a shared link to one book leaves the lobby's own language as it was
setLang(book, { remember: false });
const me = await loadMe();

function renderHeader() {
  header.replaceChildren(...siteHeader(me, renderHeader, () => {
    setLang(other);
    location.href = `/rules?lang=${other}${location.hash}`;
  }));
  // this page is the rule book: its link stays here instead of opening it again
  const here = header.querySelector("a.rules-nav");
  here.setAttribute("aria-current", "page");
  here.removeAttribute("target");
}

renderHeader();
