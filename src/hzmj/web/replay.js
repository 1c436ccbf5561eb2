// The replay page (/replay/{room_id}): step through a finished match, stopping at every
// hand's end with its settlement, with autoplay at several speeds and a jump per hand.
// A match still running is shown live to a spectator with the same viewer (the server's
// spectator stream over the WebSocket, RULES §13).  The browser does not run the engine:
// the same board reducer as the live table rebuilds the table from the events.

import { siteHeader } from "./account.js";
import { api, loadMe, wsUrl } from "./api.js";
import { applyEvent, boardFromView, buildBoards } from "./board.js";
import { eventFeedback } from "./feedback.js";
import { bi, durationText, getLang, setLang, t } from "./i18n.js";
import {
  centreInfo, dialog, eventLine, finalElement, h, historyElement, icon, positionOf, roomTitle,
  seatName, seatNames, seatPanel, settlementElement, tileOpts,
} from "./render.js";
import { tileElement, tileLabel } from "./tiles.js";

const roomId = decodeURIComponent(location.pathname.split("/").filter(Boolean)[1] || "");
const root = document.getElementById("app");
const header = document.getElementById("header");
const SPEEDS = [0.5, 1, 2, 4];
const LOG_LINES = 200; // the live view's log of the hand (the table shows the last three)

const state = {
  names: [], steps: [], moves: [], boards: [], index: 0, show: "all", error: "", title: roomId,
  playing: false, speed: 1, timer: null, live: null, room: null,
  reviewSeat: 0, review: null, reviewing: false, reviewError: "", fair: null, me: null,
  cut: null, // [hands replayed, hands] when the server replays the first hands only
};

/** Check the fairness commitment: SHA-256 of "hzmj-seed:{seed}:{salt}" must be the
 * commitment published when the match started.  null: nothing to check (no commitment, or
 * no WebCrypto outside a secure context). */
async function checkFair(data) {
  if (!data.commitment || data.salt == null || !globalThis.crypto?.subtle) return null;
  // the digits as the server wrote them: JSON.parse rounds a seed above 2^53 (most are)
  const seed = data.seed_text ?? String(data.seed);
  const bytes = new TextEncoder().encode(`hzmj-seed:${seed}:${data.salt}`);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  const hex = Array.from(digest, (x) => x.toString(16).padStart(2, "0")).join("");
  return { ok: hex === data.commitment, commitment: data.commitment, seed };
}

function fairLine() {
  const f = state.fair;
  if (!f) return null;
  return h(f.ok ? "p.fair.ok" : "p.fair.bad", { title: `${t("seed_word")} ${f.seed}` },
    f.ok ? t("fair_ok", f.commitment.slice(0, 16)) : t("fair_bad", f.commitment.slice(0, 16)));
}

/** Normalise the server's answer to a list of {action, events}. */
function stepsOf(data) {
  if (Array.isArray(data.steps)) return data.steps;
  if (Array.isArray(data.events)) return data.events.map((e) => ({ action: null, events: [e] }));
  return [];
}

/** A step that ends a hand and deals the next is shown as two: the end (with its
 * settlement), then the deal — so every hand's end is a step of its own. */
function splitHandEnds(steps) {
  const out = [];
  for (const [i, s] of steps.entries()) {
    const cut = s.events.findIndex((e) => e.type === "hand_start");
    if (cut > 0 && s.events.slice(0, cut).some((e) => e.type === "hand_end")) {
      out.push({ action: s.action, by: s.by, events: s.events.slice(0, cut), orig: -1 });
      out.push({ action: null, events: s.events.slice(cut), orig: i });
    } else {
      out.push({ ...s, orig: i });
    }
  }
  return out;
}


function handStarts() {
  const out = [];
  state.steps.forEach((s, i) => {
    const hs = s.events.find((e) => e.type === "hand_start");
    if (hs) out.push([hs.hand_no, i]);
  });
  return out;
}

const isHandEnd = (i) => state.steps[i]?.events.some((e) => e.type === "hand_end");

/** The shown step of the record's step k (a split hand end shows the record's step as its second part). */
function shownIndex(k) {
  const i = state.steps.findIndex((s) => s.orig === k);
  return i < 0 ? k : i;
}

/** The step a link opens at: "#end" the match's end (the final table: a finished room's
 * link opened its replay at the deal), "#step=12" step 12, else the first. */
function stepFromHash(n) {
  const hash = decodeURIComponent(location.hash.slice(1));
  if (hash === "end") return n - 1;
  const m = hash.match(/^step=(\d+)$/);
  return m ? Math.max(0, Math.min(n - 1, Number(m[1]) - 1)) : 0;
}

function go(i) {
  state.index = Math.max(0, Math.min(state.steps.length - 1, i));
  render();
}

/** Bring the board into view when its top is off screen (a phone: the review sits below
 * the board, and a jump to a decision left the player looking at the list). */
function showBoard() {
  const board = root.querySelector(".table");
  const top = board?.getBoundingClientRect().top;
  if (board && (top < 0 || top > window.innerHeight * 0.6)) board.scrollIntoView({ block: "start" });
}

// ---------------------------------------------------------------- autoplay

function stop() {
  state.playing = false;
  clearTimeout(state.timer);
  state.timer = null;
}

function schedule() {
  clearTimeout(state.timer);
  state.timer = setTimeout(() => {
    if (!state.playing) return;
    if (state.index >= state.steps.length - 1) {
      stop();
      render();
      return;
    }
    go(state.index + 1);
    if (isHandEnd(state.index)) {
      stop(); // read the settlement; ▶ goes on with the next hand
      render();
      return;
    }
    schedule();
  }, 700 / state.speed);
}

function togglePlay() {
  if (state.playing) stop();
  else {
    state.playing = true;
    if (state.index >= state.steps.length - 1) state.index = 0;
    schedule();
  }
  render();
}

// ---------------------------------------------------------------- drawing

function renderHeader() {
  document.title = `${t("replay")} · ${state.title} · ${t("title")}`;
  header.replaceChildren(...siteHeader(state.me, renderHeader, () => {
    setLang(getLang() === "zh" ? "en" : "zh");
    if (state.room) { // bot names and a table's default title are words of the language
      state.names = seatNames(state.room);
      state.title = roomTitle(state.room);
    }
    renderHeader();
    render();
  }));
}

/** The step buttons: they stay at the top of the screen while the table is read. */
function controls() {
  const n = state.steps.length;
  return h("div.replay-controls", {},
    h("button.first", { onclick: () => { stop(); go(0); }, title: t("first") }, "«"),
    h("button.prev", { onclick: () => { stop(); go(state.index - 1); }, title: t("prev") }, "◀"),
    h("button.play", { onclick: togglePlay, "aria-pressed": state.playing ? "true" : "false" },
      state.playing ? [icon("pause"), ` ${t("pause")}`] : `▶ ${t("autoplay")}`),
    // at 320 px the numbers alone (the slider under them says what they count)
    h("span.step-no", {}, h("span.step-word", {}, `${t("step")} `), `${state.index + 1} / ${n}`),
    h("button.next", { onclick: () => { stop(); go(state.index + 1); }, title: t("next") }, "▶"),
    h("button.last", { onclick: () => { stop(); go(n - 1); }, title: t("last") }, "»"));
}

/** The replay's other settings, under its step buttons. */
function options() {
  const n = state.steps.length;
  const seats = state.boards[0]?.n || 0;
  const jump = h("select.jump-hand", { "aria-label": t("jump_hand"),
    onchange: (e) => { stop(); go(Number(e.target.value)); } },
  h("option", { value: "" }, t("jump_hand")),
  handStarts().map(([no, i]) => h("option", { value: i }, t("hand_no", no))));
  const show = h("select.show-hand", { "aria-label": t("show_hand"),
    onchange: (e) => { state.show = e.target.value; render(); } },
  [["all", t("all")], ["none", t("none")],
    ...Array.from({ length: seats }, (_, i) => [String(i), seatName(state.names, i)])]
    .map(([v, label]) => h("option", { value: v, selected: v === state.show ? true : null }, label)));
  const speed = h("select.speed", { "aria-label": t("speed"),
    onchange: (e) => { state.speed = Number(e.target.value); if (state.playing) schedule(); } },
  SPEEDS.map((x) => h("option", { value: x, selected: x === state.speed ? true : null }, `×${x}`)));
  return h("div.replay-options", {},
    h("input.scrub", { type: "range", min: 0, max: Math.max(0, n - 1), value: state.index,
      "aria-label": t("step"), oninput: (e) => { stop(); go(Number(e.target.value)); } }),
    jump, h("label", {}, `${t("speed")} `, speed), h("label", {}, `${t("show_hand")} `, show));
}

const madeByName = (by) => (by === "bot" ? bi("托管", "auto") : bi("超时", "timeout"));

/** The mark of a move its seat's player did not choose (the record's made_by): 托管, the
 * bot played it; 超时, the clock did. */
function madeByTag(by) {
  if (!by) return null;
  return h(`span.tag.made-by.made-by-${by}`, { title: t(`made_by_${by}_help`) }, madeByName(by));
}

/** The step's log: its events' sentences, the first marked when the bot or the clock
 * made the move (a pass shows no sentence: then the mark and the seat alone). */
function stepLog(b, step) {
  const lines = (step?.events || []).map((e) => eventLine(b, e, state.names)).filter(Boolean);
  const tag = madeByTag(step?.by);
  if (tag && !lines.length) lines.push(seatName(state.names, step.action.seat));
  return lines.map((x, i) => h("div", {}, i === 0 && tag ? [tag, " ", x] : x));
}

/** The live view's log: the hand's lines so far (a reload gets them back from the
 * snapshot's `hand_events`, the same redaction as the events, RULES §13). */
function liveLog(b) {
  return h("div.log.live-log", {}, state.live.log.slice(-3).map((x) => h("div", {}, x)));
}

function showLiveLog() {
  const log = state.live?.log || [];
  const lines = log.length ? log.map((x) => h("li", {}, x)) : [h("li", {}, t("log_empty"))];
  const d = dialog(t("log"), h("ol.log-list", {}, lines), [[t("close")]]);
  d.node.querySelector(".log-list li:last-child")?.scrollIntoView({ block: "end" });
}

function tableOf(b, step) {
  const focus = state.show === "all" || state.show === "none" ? 0 : Number(state.show);
  const areas = { top: [], left: [], right: [], bottom: [] };
  for (let i = 0; i < b.n; i += 1) {
    const showHand = state.show === "all" || Number(state.show) === i;
    const seat = state.room?.seats.find((x) => x.seat === i);
    areas[positionOf({ ...b, seat: focus }, i)].push(seatPanel(b, i, state.names,
      { showHand, viewer: focus, presence: state.live ? { seat } : null }));
  }
  return h(`div.table.n${b.n}`, {},
    h("div.area-top", {}, areas.top), h("div.area-left", {}, areas.left),
    h("div.area-right", {}, areas.right),
    h("div.area-centre", {}, centreInfo(b, state.names),
      state.live ? liveLog(b) : h("div.log.step-events", {}, stepLog(b, step))),
    h("div.area-bottom", {}, areas.bottom));
}

/** The board shown before the record's action k (the position the decision was made in). */
function boardBefore(k) {
  return state.boards[shownIndex(k)] || state.boards[0];
}

/** An action's JSON ({type, tile?, tiles?, kind?}) in the UI's language, with tile glyphs:
 * "打出 [五万]", "吃 [四筒][六筒] → [五筒]", "暗杠 [东]", "胡", "过".  `b`: the board the
 * decision was made on (the tile on offer for a claim, the 财神). */
function actionElement(a, b) {
  const lang = getLang();
  const opts = b ? tileOpts(b, { small: true }) : { small: true, lang };
  const glyphs = (tiles) => h("span.review-tiles", {}, tiles.map((x) => tileElement(x, opts)));
  const names = (tiles) => tiles.map((x) => tileLabel(x, lang)).join(lang === "zh" ? "" : ", ");
  const offered = b?.claim?.tile;
  let verb = t(a.type);
  let tiles = [];
  let after = null;
  if (a.type === "discard") tiles = [a.tile];
  else if (a.type === "chow") {
    tiles = a.tiles || [];
    if (offered) after = offered;
  } else if (a.type === "pong") tiles = offered ? [offered] : [];
  else if (a.type === "kong") {
    verb = t(`${a.kind || "exposed"}_kong`);
    tiles = a.tile ? [a.tile] : offered ? [offered] : [];
  } else if (a.type === "win") verb = b && b.phase !== "claim" ? t("win_self") : t("win");
  const label = [verb, names(tiles), after ? `→ ${tileLabel(after, lang)}` : ""]
    .filter(Boolean).join(" ");
  return h("span.review-action", { title: label, dataset: { type: a.type } },
    h("span.verb", {}, verb), tiles.length ? glyphs(tiles) : null,
    tiles.length ? h("span.tile-names", {}, names(tiles)) : null,
    after ? [h("span.arrow", {}, " → "), glyphs([after])] : null);
}

/** The review's unit in the UI's language (the server names it in English). */
function unitName(unit) {
  const key = { "expected points of the hand": "review_unit_points",
    "expected multiplier M": "review_unit_m", "efficiency score": "review_unit_score" }[unit];
  return key ? t(key) : unit || "";
}

const signedValue = (v) => (v > 0 ? `+${v.toFixed(2)}` : v.toFixed(2));
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/** The points the seat won or lost in the hand a decision belongs to (for a win played). */
function handDelta(d) {
  const he = state.boards.at(-1)?.history?.find((x) => x.hand_no === d.hand_no);
  return he ? he.deltas[state.review.seat] : null;
}

/** Why a decision reads as it does: a tie counted as agreeing, a win the AI would decline. */
function decisionNote(d) {
  if (d.top.length === 1) return t("review_only_move");
  if (d.played.type === "win" && d.best.type !== "win") return t("review_declined_win");
  if (d.agree && !same(d.played, d.best)) return t("review_tie_note");
  return null;
}

async function loadReview() {
  const seat = state.reviewSeat;
  state.reviewing = true;
  state.reviewError = "";
  render();
  try {
    const r = await api("GET", `/api/matches/${roomId}/review?seat=${seat}`);
    if (r.seat === state.reviewSeat) state.review = r; // the seat may have changed meanwhile
  } catch (e) {
    if (seat === state.reviewSeat) state.reviewError = e.message;
  }
  state.reviewing = false;
  render();
}

/** The bot's choices at one decision, in its order (its pick first), with their values
 * (points of the hand, a lone choice's too); the move played marked. */
function topChoices(d, b) {
  return h("ol.review-top", { "aria-label": t("top_choices") }, d.top.map((c, i) => {
    const played = same(c.action, d.played);
    return h(played ? "li.played" : "li", {},
      actionElement(c.action, b),
      h("span.value", { dataset: { sign: Math.sign(c.value) } }, signedValue(c.value)),
      i === 0 ? h("span.tag.tag-pick", {}, t("ai_pick")) : null,
      played ? h("span.tag.tag-played", {}, t("played")) : null);
  }));
}

/** One decision's line: played, the AI's pick, the loss. */
function decisionLine(d, b, { withHand = false } = {}) {
  const delta = d.played.type === "win" ? handDelta(d) : null;
  return [
    withHand ? h("b.hand", {}, `${t("hand_no", d.hand_no)} `) : null,
    h("span.part", {}, `${t("played")} `, actionElement(d.played, b),
      delta !== null && delta !== undefined ? h("small.win-points", {}, ` (${delta > 0 ? "+" : ""}${delta})`) : null),
    h("span.part", {}, `${t("best")} `, actionElement(d.best, b)),
    h("span.part.loss", {}, `${t("loss")} ${d.loss === null ? "?" : d.loss.toFixed(2)}`),
  ];
}

/** How many of the seat's decisions the review left out: the bot's or the clock's. */
const skippedCount = (r) => (r.skipped ? r.skipped.bot + r.skipped.clock : 0);

/** The AI review box: a seat, a button, the summary and the costliest decisions; the
 * decision at the current step (if the reviewed seat acted here) is shown beside. */
function reviewBox() {
  const seats = state.boards[0]?.n || 0;
  const pick = h("select.review-seat", { "aria-label": t("review_seat"),
    disabled: state.reviewing ? true : null,
    onchange: (e) => { state.reviewSeat = Number(e.target.value); state.review = null; render(); } },
  Array.from({ length: seats }, (_, i) => h("option",
    { value: i, selected: i === state.reviewSeat ? true : null }, seatName(state.names, i))));
  const r = state.review;
  const parts = [h("h3", {}, t("review")), h("p.review-pick", {}, h("label", {}, `${t("review_seat")} `, pick), " ",
    h("button.review-run", { onclick: loadReview, disabled: state.reviewing ? true : null },
      state.reviewing ? t("reviewing") : t("review")))];
  if (state.reviewError) parts.push(h("p.error", { role: "alert" }, state.reviewError));
  if (r) {
    const pct = r.agreement === null ? "–" : `${Math.round(r.agreement * 100)}%`;
    parts.push(h("p.review-summary", {}, t("review_summary", r.reviewed, pct,
      r.loss_total.toFixed(2), r.loss_per_hand.toFixed(2), r.hands_played),
    skippedCount(r) ? h("span.review-skipped", {}, t("review_skipped", skippedCount(r),
      r.skipped.bot, r.skipped.clock)) : null,
    r.unit ? h("span.review-unit", {}, t("review_unit", unitName(r.unit))) : null,
    r.hands_reviewed < r.hands ? t("review_first_hands", r.hands_reviewed, r.hands) : ""));
    if (r.unit === "expected points of the hand") {
      parts.push(h("p.review-help", {}, t("review_values_help")));
    }
    const k = state.steps[state.index]?.orig; // the position before the record's action k
    const here = r.decisions.find((d) => d.index === k);
    const next = state.moves[k];
    if (next?.by && next.action.seat === r.seat) {
      parts.push(h("p.review-here.review-skipped-here", {}, t("review_skipped_here",
        madeByName(next.by))));
    } else if (here) {
      const b = boardBefore(here.index);
      const note = decisionNote(here);
      parts.push(h("p.review-here", {}, decisionLine(here, b)),
        h("p.review-top-label", {}, t("top_choices")), topChoices(here, b),
        note ? h("p.review-note", {}, note) : null);
    }
    parts.push(h("h4", {}, t("costliest")), h("ol.review-costliest", {},
      r.costliest.map((d) => h("li", {}, h("button.link", { onclick: () => { stop(); go(shownIndex(d.index)); showBoard(); } },
        decisionLine(d, boardBefore(d.index), { withHand: true }))))));
  }
  return h("section.review-box", {}, parts);
}

function render() {
  if (state.live) {
    renderLive();
    return;
  }
  if (state.error || !state.steps.length) {
    root.replaceChildren(h("main.replay", {}, h("h2", {}, t("replay")),
      h("p.error", { role: "alert" }, state.error || t("replay_missing"))));
    return;
  }
  const b = state.boards[state.index];
  const step = state.steps[state.index];
  const he = step.events.find((e) => e.type === "hand_end") && b.handEnd;
  const me = step.events.find((e) => e.type === "match_end");
  root.replaceChildren(h("main.replay.table-page", {},
    h("h2", {}, `${t("replay")} · ${state.title}`),
    fairLine(),
    state.cut ? h("p.replay-cut", {}, t("replay_first_hands", ...state.cut)) : null,
    state.room?.status === "dissolved" ? h("p.replay-dissolved", {},
      t("replay_dissolved", durationText(state.room.dissolved_after || 0))) : null,
    controls(),
    options(),
    // the match's end: its result first (below the table, a phone showed it 2,000 px down)
    me ? h("section.final-box", {}, h("h3", {}, t("final")), finalElement(me, state.names),
      h("h3", {}, t("history")), historyElement(b.history, state.names, b.n)) : null,
    he ? h("section.settlement-box", {}, h("h3", {}, `${t("settlement")} · ${t("hand_no", he.hand_no)}`),
      settlementElement(b, he, state.names)) : null,
    tableOf(b, step),
    reviewBox()));
}

function renderLive() {
  const b = state.live.board;
  root.replaceChildren(h("main.replay.live.table-page", {},
    h("h2", {}, `${t("live_view")} · ${state.title}`),
    h("p.spectating", {}, t("spectating"), state.room?.spectators ? ` · ${t("spectators", state.room.spectators)}` : "",
      " ", h("button.show-log", { onclick: showLiveLog }, t("log"))),
    b ? tableOf(b, null) : null,
    b?.handEnd && b.phase === "over" ? h("section.settlement-box", {}, h("h3", {}, t("settlement")),
      settlementElement(b, b.handEnd, state.names)) : null,
    b?.matchEnd ? h("p", {}, h("a.button", { href: `/replay/${roomId}`, onclick: () => location.reload() }, t("replay"))) : null));
}

// ---------------------------------------------------------------- live spectating

function watchLive() {
  state.live = { board: null, log: [] };
  const ws = new WebSocket(wsUrl(`/ws/rooms/${encodeURIComponent(roomId)}`));
  ws.onmessage = (m) => {
    const msg = JSON.parse(m.data);
    if (msg.type === "room") {
      state.room = msg.room;
      state.names = seatNames(msg.room);
      if (msg.room.status === "dissolved") {
        ws.close();
        setTimeout(() => location.reload(), 500); // what was played replays in full
      }
    } else if (msg.type === "snapshot" && msg.view) {
      state.live.board = boardFromView(msg.view);
      state.live.board.history = msg.history || [];
      state.live.log = (msg.hand_events || []).map((e) => eventLine(state.live.board, e, state.names))
        .filter(Boolean).slice(-LOG_LINES);
    } else if (msg.type === "event" && state.live.board) {
      applyEvent(state.live.board, msg.event);
      eventFeedback(state.live.board, msg.event, (i) => seatName(state.names, i), null);
      if (msg.event.type === "hand_start") state.live.log = [];
      const line = eventLine(state.live.board, msg.event, state.names);
      if (line) state.live.log = [...state.live.log.slice(1 - LOG_LINES), line];
      if (msg.event.type === "match_end") {
        ws.close();
        setTimeout(() => location.reload(), 1500); // the finished match replays in full
      }
    }
    render();
  };
  ws.onclose = (ev) => {
    if (ev.code === 4404) state.error = t("replay_missing");
  };
}

document.addEventListener("keydown", (e) => {
  if (state.live || e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement) return;
  if (e.key === "ArrowRight") { stop(); go(state.index + 1); }
  else if (e.key === "ArrowLeft") { stop(); go(state.index - 1); }
  else if (e.key === "Home") { stop(); go(0); }
  else if (e.key === "End") { stop(); go(state.steps.length - 1); }
  else if (e.key === " ") { e.preventDefault(); togglePlay(); }
});

async function load() {
  state.me = await loadMe();
  renderHeader();
  try {
    const room = await api("GET", `/api/rooms/${roomId}`);
    state.room = room;
    state.names = seatNames(room);
    state.title = roomTitle(room);
    renderHeader();
    if (room.status === "running") {
      watchLive();
      return;
    }
    const data = await api("GET", `/api/matches/${roomId}/replay`);
    state.moves = stepsOf(data).slice(1); // the record's actions, each with its `by`
    state.steps = splitHandEnds(stepsOf(data));
    const n = data.rules?.players || room.rules.players;
    state.boards = buildBoards(state.steps, n);
    state.index = stepFromHash(state.steps.length);
    state.fair = await checkFair(data);
    // a match of more hands than the server replays (docs/protocol.md, Replay)
    state.cut = data.hands_replayed < data.hands ? [data.hands_replayed, data.hands] : null;
  } catch (e) {
    state.error = e.status === 409 ? t("not_over") : e.status === 404 ? t("replay_missing") : e.text;
  }
  render();
}

load();
