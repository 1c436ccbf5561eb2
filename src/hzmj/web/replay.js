// The replay page (/replay/{room_id}): step through a finished match.  The browser does
// not run the engine; the server sends the full (unredacted) events of every step, and
// the same board reducer as the live table rebuilds the table at each step.

import { api } from "./api.js";
import { applyEvent, emptyBoard } from "./board.js";
import { getLang, setLang, t } from "./i18n.js";
import {
  centreInfo, eventLine, finalElement, h, positionOf, seatName, seatNames, seatPanel,
  settlementElement,
} from "./render.js";

const roomId = decodeURIComponent(location.pathname.split("/").filter(Boolean)[1] || "");
const root = document.getElementById("app");
const header = document.getElementById("header");

const state = { names: [], steps: [], boards: [], index: 0, show: "all", error: "",
  reviewSeat: 0, review: null, reviewing: false, reviewError: "" };

/** Normalise the server's answer to a list of {action, events}. */
function stepsOf(data) {
  if (Array.isArray(data.steps)) return data.steps;
  if (Array.isArray(data.events)) return data.events.map((e) => ({ action: null, events: [e] }));
  return [];
}

function buildBoards(steps, n) {
  const boards = [];
  let b = emptyBoard(n, null);
  for (const s of steps) {
    b = structuredClone(b);
    for (const e of s.events) applyEvent(b, e);
    boards.push(b);
  }
  return boards;
}

function handStarts() {
  const out = [];
  state.steps.forEach((s, i) => {
    const hs = s.events.find((e) => e.type === "hand_start");
    if (hs) out.push([hs.hand_no, i]);
  });
  return out;
}

function go(i) {
  state.index = Math.max(0, Math.min(state.steps.length - 1, i));
  render();
}

function renderHeader() {
  header.replaceChildren(h("a.home", { href: "/" }, t("title")),
    h("button.lang", { onclick: () => { setLang(getLang() === "zh" ? "en" : "zh"); renderHeader(); render(); } },
      t("lang")));
}

function controls() {
  const n = state.steps.length;
  const seats = state.boards[0]?.n || 0;
  const jump = h("select.jump-hand", { "aria-label": t("jump_hand"),
    onchange: (e) => go(Number(e.target.value)) },
  h("option", { value: "" }, t("jump_hand")),
  handStarts().map(([no, i]) => h("option", { value: i }, t("hand_no", no))));
  const show = h("select.show-hand", { "aria-label": t("show_hand"),
    onchange: (e) => { state.show = e.target.value; render(); } },
  [["all", t("all")], ["none", t("none")],
    ...Array.from({ length: seats }, (_, i) => [String(i), seatName(state.names, i)])]
    .map(([v, label]) => h("option", { value: v, selected: v === state.show ? true : null }, label)));
  return h("div.replay-controls", {},
    h("button.first", { onclick: () => go(0), title: t("first") }, "«"),
    h("button.prev", { onclick: () => go(state.index - 1), title: t("prev") }, "◀"),
    h("span.step-no", {}, `${t("step")} ${state.index + 1} / ${n}`),
    h("button.next", { onclick: () => go(state.index + 1), title: t("next") }, "▶"),
    h("button.last", { onclick: () => go(n - 1), title: t("last") }, "»"),
    h("input.scrub", { type: "range", min: 0, max: Math.max(0, n - 1), value: state.index,
      "aria-label": t("step"), oninput: (e) => go(Number(e.target.value)) }),
    jump, h("label", {}, `${t("show_hand")} `, show));
}

/** Short text of an action's JSON ({type, tile?, tiles?, kind?}). */
function actionText(a) {
  const what = a.tile || (a.tiles || []).join("") || "";
  return [a.type, what, a.kind || ""].filter(Boolean).join(" ");
}

async function loadReview() {
  state.reviewing = true;
  state.reviewError = "";
  render();
  try {
    state.review = await api("GET", `/api/matches/${roomId}/review?seat=${state.reviewSeat}`);
  } catch (e) {
    state.reviewError = e.message;
  }
  state.reviewing = false;
  render();
}

/** The AI review box: a seat, a button, the summary and the costliest decisions; the
 * decision at the current step (if the reviewed seat acted here) is shown beside. */
function reviewBox() {
  const seats = state.boards[0]?.n || 0;
  const pick = h("select.review-seat", { "aria-label": t("review_seat"),
    onchange: (e) => { state.reviewSeat = Number(e.target.value); state.review = null; render(); } },
  Array.from({ length: seats }, (_, i) => h("option",
    { value: i, selected: i === state.reviewSeat ? true : null }, seatName(state.names, i))));
  const r = state.review;
  const parts = [h("h3", {}, t("review")), h("label", {}, `${t("review_seat")} `, pick),
    h("button.review-run", { onclick: loadReview, disabled: state.reviewing ? true : null },
      state.reviewing ? t("reviewing") : t("review"))];
  if (state.reviewError) parts.push(h("p.error", { role: "alert" }, state.reviewError));
  if (r) {
    const pct = r.agreement === null ? "–" : `${Math.round(r.agreement * 100)}%`;
    parts.push(h("p.review-summary", {}, t("review_summary", r.reviewed, pct,
      r.loss_total.toFixed(2), r.loss_per_hand.toFixed(2)), ` (${r.unit})`));
    const here = r.decisions.find((d) => d.index === state.index); // before action i
    if (here) {
      parts.push(h("p.review-here", {}, `${t("played")}: ${actionText(here.played)} · `
        + `${t("best")}: ${actionText(here.best)} · ${t("loss")}: ${here.loss ?? "?"}`));
    }
    parts.push(h("h4", {}, t("costliest")), h("ol.review-costliest", {},
      r.costliest.map((d) => h("li", {}, h("button.link", { onclick: () => go(d.index) },
        `${t("hand_no", d.hand_no)}: ${t("played")} ${actionText(d.played)}, `
        + `${t("best")} ${actionText(d.best)}, ${t("loss")} ${d.loss.toFixed(2)}`)))));
  }
  return h("section.review-box", {}, parts);
}

function render() {
  if (state.error || !state.steps.length) {
    root.replaceChildren(h("main.replay", {}, h("h2", {}, t("replay")),
      h("p.error", { role: "alert" }, state.error || t("replay_missing"))));
    return;
  }
  const b = state.boards[state.index];
  const step = state.steps[state.index];
  const focus = state.show === "all" || state.show === "none" ? 0 : Number(state.show);
  const areas = { top: [], left: [], right: [], bottom: [] };
  for (let i = 0; i < b.n; i += 1) {
    const showHand = state.show === "all" || Number(state.show) === i;
    areas[positionOf({ ...b, seat: focus }, i)].push(seatPanel(b, i, state.names,
      { showHand, viewer: focus }));
  }
  const lines = step.events.map((e) => eventLine(b, e, state.names)).filter(Boolean);
  const he = step.events.find((e) => e.type === "hand_end") && b.handEnd;
  const me = step.events.find((e) => e.type === "match_end");
  root.replaceChildren(h("main.replay.table-page", {},
    h("h2", {}, `${t("replay")} · ${roomId}`),
    controls(),
    h(`div.table.n${b.n}`, {},
      h("div.area-top", {}, areas.top), h("div.area-left", {}, areas.left),
      h("div.area-right", {}, areas.right),
      h("div.area-centre", {}, centreInfo(b, state.names),
        h("div.log.step-events", {}, lines.map((x) => h("div", {}, x)))),
      h("div.area-bottom", {}, areas.bottom)),
    he ? h("section.settlement-box", {}, h("h3", {}, t("settlement")),
      settlementElement(b, he, state.names)) : null,
    me ? h("section.final-box", {}, h("h3", {}, t("final")), finalElement(me, state.names)) : null,
    reviewBox()));
}

document.addEventListener("keydown", (e) => {
  if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement) return;
  if (e.key === "ArrowRight") go(state.index + 1);
  else if (e.key === "ArrowLeft") go(state.index - 1);
  else if (e.key === "Home") go(0);
  else if (e.key === "End") go(state.steps.length - 1);
});

async function load() {
  renderHeader();
  try {
    const room = await api("GET", `/api/rooms/${roomId}`);
    state.names = seatNames(room);
    const data = await api("GET", `/api/matches/${roomId}/replay`);
    state.steps = stepsOf(data);
    const n = data.rules?.players || room.rules.players;
    state.boards = buildBoards(state.steps, n);
  } catch (e) {
    state.error = e.status === 409 ? t("not_over") : e.status === 404 ? t("replay_missing") : e.message;
  }
  render();
}

load();
