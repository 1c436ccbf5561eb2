// The room page (/room/{id}): the waiting room before the start, then the live table
// over the WebSocket (docs/protocol.md), with reconnection from the stored seat token.

import { api, forgetSeat, loadSeat, saveName, saveSeat, savedName, wsUrl } from "./api.js";
import { applyEvent, boardFromView } from "./board.js";
import { PHRASES, banner, eventFeedback, phraseText, sound } from "./feedback.js";
import { handleKey, ownArea, splitHand } from "./hand.js";
import { bi, botName, durationText, getLang, rulesSummary, serverError, t } from "./i18n.js";
import {
  centreInfo, dialog, eventLine, finalElement, h, historyElement, icon, positionOf, ratingChip,
  replayHref, roomTitle, ruleLink, seatName, seatNames, seatPanel, settlementElement, tileOpts,
} from "./render.js";
import { tileElement, tileLabel } from "./tiles.js";

// the bots a seat may have (the server refuses the oracle: it sees every tile), the
// experimental search bot last (docs/bots.md: it does not beat the strong bot)
const BOTS = ["efficiency", "strong", "random", "expert"];
const EXPERIMENTAL_BOTS = ["expert"];
// a phone on its side (style.css sizes the table to the screen there)
const LANDSCAPE_PHONE = window.matchMedia("(max-height: 500px) and (orientation: landscape)");
const LOG_LINES = 200; // the log's lines kept (the table shows the last three, 记录 all)

/** Seconds left until an epoch-ms deadline. */
function secondsLeft(deadline) {
  return Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
}

export class RoomPage {
  /** `me`: the signed-in player (GET /api/me), who sits under their display name. */
  constructor(root, roomId, header, me = null) {
    this.root = root;
    this.roomId = roomId;
    this.header = header;
    this.account = me?.account || null;
    this.room = null;
    this.mine = loadSeat(roomId);
    this.board = null;
    this.prompt = null;
    this.selected = null;
    this.hover = null;
    this.hints = null;
    this.hintsAvailable = true;
    this.suggestion = null;
    this.log = [];
    this.dialogs = [];
    this.openDialog = null;
    this.ws = null;
    this.retry = 0;
    this.error = "";
    this.clock = null; // the latest clock message: whose timer runs (presence)
    this.unknown = false; // the room does not exist: a friendly page, no reconnecting
    this.bubbles = new Map(); // seat → its phrase bubble, shown for a few seconds
    document.addEventListener("keydown", (ev) => this.onKey(ev));
    // a dropped network often leaves the socket open but silent (no close for minutes):
    // say so at once, and start a fresh socket (and snapshot) when the network is back
    window.addEventListener("offline", () => {
      this.disconnected = true;
      this.render();
    });
    window.addEventListener("online", () => this.reconnectNow());
    setInterval(() => this.tick(), 200);
    // a phone turned on its side: to the table, as when it opens
    LANDSCAPE_PHONE.addEventListener("change", () => {
      this.toTop = true;
      this.render();
    });
  }

  async start() {
    await this.refreshRoom();
    this.connect();
  }

  async refreshRoom() {
    try {
      this.room = await api("GET", `/api/rooms/${this.roomId}`);
      this.error = "";
    } catch (e) {
      if (e.status === 404) this.unknown = true;
      this.error = e.text;
    }
    this.render();
    this.refreshRatings();
  }

  /** Ratings next to the names: fetched again only when the seats change. */
  async refreshRatings() {
    const key = JSON.stringify((this.room?.seats || []).map((s) => [s.name, s.bot]));
    if (key === this.ratingsKey) return;
    this.ratingsKey = key;
    try {
      const data = await api("GET", `/api/rooms/${this.roomId}/ratings`);
      this.ratings = data.ratings;
      this.signedIn = data.signed_in || null;
      this.render();
    } catch {
      this.ratings = null;
      this.signedIn = null;
    }
  }

  get names() {
    const names = seatNames(this.room);
    names.ratings = this.ratings;
    names.signedIn = this.signedIn;
    return names;
  }

  get token() {
    return this.mine?.token;
  }

  // ---------------------------------------------------------------- WebSocket

  connect() {
    if (this.room?.status === "dissolved") this.unknown = true; // no table to connect to
    if (this.unknown) return;
    // the seat token travels as a subprotocol, never in the URL (URLs end up in logs)
    const protocols = this.token ? ["hzmj", `token.${this.token}`] : ["hzmj"];
    const ws = new WebSocket(wsUrl(`/ws/rooms/${this.roomId}`), protocols);
    this.ws = ws;
    ws.onopen = () => {
      this.retry = 0;
      this.disconnected = false;
      this.render();
    };
    ws.onmessage = (m) => this.onMessage(JSON.parse(m.data));
    ws.onclose = (ev) => {
      if (this.ws !== ws) return;
      // the match is over: the server lets its room go (finished_grace) and nothing more
      // comes; the final table stays (it turned into "this match is over" under the
      // player reading it, the toolbar's 终局 gone)
      if (this.board?.over && this.finalEvent) return;
      if (ev.code === 4404 || this.room?.status === "dissolved") {
        // no such room (any more): stop reconnecting; a dissolved one says so (GET)
        this.unknown = true;
        this.refreshRoom();
        return;
      }
      if (ev.code === 4401 || ev.code === 4403) {
        // the stored token is no longer valid (or the owner removed us): watch instead
        forgetSeat(this.roomId);
        this.mine = null;
        this.toast(t(ev.code === 4403 ? "closed_removed" : "closed_token"));
      }
      this.disconnected = true;
      this.render();
      this.retry = Math.min(this.retry + 1, 5);
      setTimeout(() => this.connect(), 400 * this.retry);
    };
  }

  /** Drop the current socket, whatever state it believes it is in, and connect again. */
  reconnectNow() {
    if (this.unknown) return;
    const old = this.ws;
    this.ws = null;
    if (old) {
      old.onopen = null;
      old.onclose = null;
      old.onmessage = null;
      old.close();
    }
    this.retry = 0;
    this.connect();
  }

  send(msg) {
    if (this.ws?.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(msg));
  }

  onMessage(msg) {
    switch (msg.type) {
      case "snapshot":
        if (msg.seat !== undefined && msg.seat !== null && this.mine) this.mine.seat = msg.seat;
        this.stateId = msg.state_id;
        if (msg.view?.over && !this.finalEvent) {
          // a finished match (a visitor's link, a reload after the end): its replay at the
          // final table, where every hand and the result are (the table showed only backs)
          location.replace(this.replayHref);
          return;
        }
        if (msg.view) {
          // the table replaces the waiting room: show it from its top (the toolbar)
          if (!this.board) this.toTop = true;
          this.board = boardFromView(msg.view);
          this.board.history = (msg.history || []).map((he) => ({ ...he, caishen: this.board.caishen }));
          // the log of the hand so far (a reload or a new socket starts with none)
          this.log = (msg.hand_events || []).map((e) => eventLine(this.board, e, this.names))
            .filter(Boolean).slice(-LOG_LINES);
          // the server follows a snapshot with a prompt when this seat has to act
          this.prompt = null;
          this.showGateSettlement();
        }
        break;
      case "event":
        this.onEvent(msg);
        break;
      case "prompt":
        this.prompt = msg;
        this.selected = null;
        this.suggestion = null;
        if (msg.phase === "claim") sound("claim");
        this.fetchHints();
        break;
      case "clock":
        this.clock = msg;
        break;
      case "phrase":
        this.showPhrase(msg.seat, msg.phrase);
        return;
      case "ack":
        // my answer was applied; a pass in a claim window leaves the public step as it is
        if (this.prompt && this.prompt.state_id <= msg.state_id) this.prompt = null;
        break;
      case "room": {
        const gateWas = this.room?.gate;
        const autoWas = this.mySeatInfo(this.room)?.auto;
        this.room = msg.room;
        // the server put this seat under 托管 (clock expiries, away): say why the bot plays
        const now = this.mySeatInfo(msg.room);
        if (autoWas === false && now?.auto && !now.left && this.autoWanted !== true) {
          this.toast(t("auto_by_server"), 8000);
        }
        // the gate closes at once under 托管: the settlement stays until it is closed
        if (gateWas && !msg.room.gate && !this.autoOn) this.closeSettlement();
        this.refreshRatings();
        break;
      }
      case "error":
        this.toast(serverError(msg.code, msg.reason));
        break;
      default:
        break;
    }
    this.render();
  }

  onEvent(msg) {
    const e = msg.event;
    this.stateId = msg.state_id;
    if (!this.board) return; // a snapshot follows the start
    if (this.prompt && this.prompt.state_id < msg.state_id) this.prompt = null;
    // under 托管 the next hand starts at once: the settlement stays until it is closed
    // (a newer one replaces it); otherwise the deal means everyone pressed 继续
    if (e.type === "hand_start" && !this.autoOn) this.closeSettlement();
    applyEvent(this.board, e);
    eventFeedback(this.board, e, (i) => seatName(this.names, i), this.board.seat);
    const line = eventLine(this.board, e, this.names);
    if (line) this.log = [...this.log.slice(1 - LOG_LINES), line];
    if (e.type === "hand_end") {
      const he = this.board.handEnd;
      this.queueDialog("settlement", t("settlement"),
        () => this.settlementBody(he), t("ready"), () => this.ready());
    } else if (e.type === "match_end") {
      this.finalEvent = e;
      this.queueDialog("final", t("final"), () => this.finalBody(), t("back_lobby"),
        () => { location.href = "/"; }, [[t("replay"), () => { location.href = this.replayHref; }],
          [t("close")]]);
    }
    if (e.type === "hand_start") this.hints = null;
  }

  /** The final table and every hand's scores. */
  finalBody() {
    const b = this.board;
    return h("div", {}, finalElement(this.finalEvent, this.names),
      h("h3", {}, t("history")), historyElement(b.history, this.names, b.n));
  }

  /** The final table again, once its dialog was closed (nothing on the table showed it). */
  showFinal() {
    dialog(t("final"), this.finalBody(),
      [[t("replay"), () => { location.href = this.replayHref; }], [t("close")]]);
  }

  /** The match's replay at its end, the final table (it opened at step 1, the deal). */
  get replayHref() {
    return replayHref(this.roomId);
  }

  /** The settlement, with the gate's countdown and who is ready (RULES §8.7). */
  settlementBody(he) {
    // the countdown first: on a phone the settlement is long and 继续 is at its foot
    return h("div", {}, h("div.gate-line"), settlementElement(this.board, he, this.names));
  }

  /** After a reload between hands: the hand just finished, waiting for 继续. */
  showGateSettlement() {
    const last = this.board?.history?.[this.board.history.length - 1];
    if (!this.room?.gate || !last || this.openDialog || this.board.seat === null) return;
    const ready = this.room.gate.ready.includes(this.board.seat);
    if (ready) return;
    this.queueDialog("settlement", t("settlement"), () => this.settlementBody(last), t("ready"),
      () => this.ready());
  }

  closeSettlement() {
    if (this.openDialog?.kind === "settlement") {
      this.openDialog.close();
      this.openDialog = null;
      this.nextDialog();
    }
    this.dialogs = this.dialogs.filter((d) => d.kind !== "settlement");
  }

  /** 继续: ready for the next hand (the server starts it when all are ready). */
  ready() {
    if (this.board && this.board.seat !== null && this.room?.gate) this.send({ type: "ready" });
  }

  showHistory() {
    if (!this.board) return;
    dialog(t("history"), historyElement(this.board.history, this.names, this.board.n),
      [[t("close")]]);
  }

  /** The hand's log so far (the table shows its last three lines, a phone none). */
  showLog() {
    const lines = this.log.length ? this.log.map((x) => h("li", {}, x)) : [h("li", {}, t("log_empty"))];
    const d = dialog(t("log"), h("ol.log-list", {}, lines), [[t("close")]]);
    d.node.querySelector(".log-list li:last-child")?.scrollIntoView({ block: "end" });
  }

  sendPhrase(i) {
    this.send({ type: "phrase", phrase: i });
    this.root.querySelector("details.phrases")?.removeAttribute("open");
  }

  showPhrase(seat, i) {
    sound("phrase");
    const bubble = h("div.phrase-bubble", { role: "status" }, `${seatName(this.names, seat)}: ${phraseText(i)}`);
    // one bubble a seat, kept over re-renders for its 4 s (the next move redrew the table
    // and took it away, often before it could be read)
    this.bubbles.get(seat)?.remove();
    this.bubbles.set(seat, bubble);
    this.placeBubbles();
    setTimeout(() => {
      bubble.remove();
      if (this.bubbles.get(seat) === bubble) this.bubbles.delete(seat);
    }, 4000);
  }

  /** The phrase bubbles shown, each in its seat's panel of the table as drawn now. */
  placeBubbles() {
    for (const [seat, bubble] of this.bubbles) {
      const panel = this.root.querySelector(`section.seat[data-seat="${seat}"]`);
      (panel || document.body).append(bubble);
    }
  }

  /** Show a dialog after the open one; a newer settlement replaces an unread one.
   * `extra`: more [label, fn] buttons before the main one. */
  queueDialog(kind, title, body, label, after, extra = []) {
    if (kind === "settlement" && this.openDialog?.kind === "settlement") {
      this.openDialog.close();
      this.openDialog = null;
    }
    if (kind === "final" && this.openDialog?.kind === "settlement") {
      this.openDialog.node.querySelector(".buttons button").textContent = t("final");
    }
    this.dialogs.push({ kind, title, body, label, after, extra });
    this.nextDialog();
  }

  nextDialog() {
    if (this.openDialog || !this.dialogs.length) return;
    const d = this.dialogs.shift();
    const done = (fn) => () => {
      this.openDialog = null;
      fn?.();
      this.nextDialog();
    };
    this.openDialog = dialog(d.title, d.body(), [
      ...d.extra.map(([label, fn]) => [label, done(fn)]), [d.label, done(d.after)]], done(null));
    this.openDialog.kind = d.kind;
  }

  // ---------------------------------------------------------------- actions

  act(action) {
    if (!this.prompt) return;
    this.send({ type: "action", state_id: this.prompt.state_id, action });
    this.prompt = null;
    this.suggestion = null;
    this.revealHints = false;
    this.selected = null;
    this.hover = null;
    this.render();
  }

  discardTile(tile) {
    const a = this.prompt?.actions.find((x) => x.type === "discard" && x.tile === tile);
    if (a) this.act(a);
  }

  select(i, tile, { click }) {
    const canDiscard = this.prompt?.actions.some((x) => x.type === "discard" && x.tile === tile);
    if (click && this.selected === i && canDiscard) {
      this.discardTile(tile);
      return;
    }
    this.selected = i;
    this.hover = tile;
    this.root.querySelectorAll(".hand-tile").forEach((n) => {
      n.classList.toggle("selected", Number(n.dataset.index) === i);
    });
    this.revealHints = true;
    this.renderHintPanel();
  }

  onKey(ev) {
    if (!this.board || this.board.seat === null || this.openDialog) return;
    if (ev.target instanceof HTMLInputElement || ev.target instanceof HTMLSelectElement) return;
    if (handleKey(ev, this.ctx())) ev.preventDefault();
  }

  /** This browser's seat in a RoomInfo (undefined for a spectator). */
  mySeatInfo(room) {
    const seat = this.mine?.seat;
    return seat === undefined || seat === null ? undefined : room?.seats.find((x) => x.seat === seat);
  }

  /** 托管 as the server sees it (it also turns on after repeated timeouts). */
  get autoOn() {
    const s = this.room?.seats.find((x) => x.seat === this.mine?.seat);
    const server = Boolean(s?.auto);
    // show the user's choice until the server's room update confirms it
    const pending = this.autoWanted !== undefined && Date.now() - this.autoAt < 10000;
    if (pending && this.autoWanted !== server) return this.autoWanted;
    this.autoWanted = undefined;
    return server;
  }

  toggleAuto() {
    this.autoWanted = !this.autoOn;
    this.autoAt = Date.now();
    this.send({ type: "auto", on: this.autoWanted });
  }

  async fetchHints() {
    if (!this.hintsAvailable || !this.token || !this.prompt) return;
    try {
      const data = await api("GET", `/api/rooms/${this.roomId}/hints`, undefined, this.token);
      const byTile = {};
      const best = data.discards?.[0]?.tile;
      for (const d of data.discards || []) byTile[d.tile] = { ...d, best: d.tile === best };
      this.hints = { ...data, byTile };
    } catch (e) {
      if (e.status === 404 || e.status === 405) this.hintsAvailable = false;
      this.hints = null;
    }
    this.render();
  }

  showSuggestion() {
    if (!this.hintsAvailable) {
      this.toast(t("no_hints"));
      return;
    }
    this.suggestion = this.hints?.suggestion || null;
    if (!this.suggestion) this.fetchHints();
    this.revealHints = true;
    this.render();
  }

  // ---------------------------------------------------------------- lobby actions

  async takeSeat(seat) {
    const name = this.root.querySelector("#seat-name")?.value.trim();
    if (!name) {
      this.error = t("your_name");
      this.render();
      return;
    }
    if (!this.account) saveName(name);
    try {
      const r = await api("POST", `/api/rooms/${this.roomId}/seats`, { name, seat });
      this.mine = { seat: r.seat, token: r.token, name };
      saveSeat(this.roomId, this.mine);
      this.ws?.close();
      this.ws = null;
      this.connect();
      await this.refreshRoom();
    } catch (e) {
      this.error = e.text;
      this.render();
    }
  }

  async ownerCall(path, body) {
    try {
      await api("POST", `/api/rooms/${this.roomId}/${path}`, body, this.token);
      await this.refreshRoom();
    } catch (e) {
      this.error = e.text;
      this.render();
    }
  }

  async leave() {
    // RULES §8.5: leaving a running match at dealer level 3 costs the escape penalty
    if (this.board && !this.board.over && !window.confirm(t("leave_confirm"))) return;
    try {
      await api("POST", `/api/rooms/${this.roomId}/leave`, {}, this.token);
    } catch (e) {
      this.toast(e.text);
    }
    forgetSeat(this.roomId);
    location.href = "/";
  }

  toast(text, ms = 3500) {
    const node = h("div.toast", { role: "status" }, text);
    document.body.append(node);
    setTimeout(() => node.remove(), ms);
  }

  // ---------------------------------------------------------------- rendering

  /** Presence of seat i for its panel: room info, ready mark between hands, its clock. */
  presence(i) {
    const seat = this.room?.seats.find((x) => x.seat === i);
    const gate = this.room?.gate;
    const c = this.clock;
    const running = c && this.board && !this.board.over && !gate && c.deadline_ms > Date.now()
      && ((c.phase === "turn" && c.seat === i && this.board.turn === i && this.board.phase === "turn"));
    return { seat, ready: gate ? gate.ready.includes(i) : null, clock: running ? c.deadline_ms : null };
  }

  ctx() {
    const b = this.board;
    return {
      board: b, names: this.names, actions: this.prompt?.actions || [],
      selected: this.selected, hints: this.hints, deadline: this.prompt?.deadline_ms,
      presence: b && b.seat !== null ? this.presence(b.seat) : null,
      onSelect: (i, tile, o) => this.select(i, tile, o),
      onDiscard: (tile) => this.discardTile(tile),
      onAction: (a) => this.act(a),
      onHover: (tile) => {
        this.hover = tile;
        this.renderHintPanel();
      },
    };
  }

  tick() {
    // every visible countdown: seat clocks, the claim bar, the gate between hands
    document.querySelectorAll("[data-deadline]").forEach((n) => {
      n.textContent = t("seconds", secondsLeft(Number(n.dataset.deadline)));
    });
    const gate = this.room?.gate;
    document.querySelectorAll(".gate-line").forEach((n) => {
      n.replaceChildren(...(gate ? this.gateParts(gate) : []));
    });
    const node = this.root.querySelector(".countdown");
    if (!node) return;
    const deadline = this.prompt?.deadline_ms;
    if (!deadline) {
      node.hidden = true;
      return;
    }
    const left = Math.max(0, deadline - Date.now());
    const total = (this.prompt.phase === "claim" ? this.board.rules.claim_seconds
      : this.board.rules.turn_seconds) * 1000;
    node.hidden = false;
    node.querySelector(".secs").textContent = t("seconds", Math.ceil(left / 1000));
    node.querySelector(".bar").style.width = `${Math.min(100, (100 * left) / total)}%`;
  }

  /** "第2局 12秒后开始 · 等待：Bob" (RULES §8.7: no clock before the deal). */
  gateParts(gate) {
    const waiting = (this.room?.seats || []).filter((s) => !gate.ready.includes(s.seat))
      .map((s) => seatName(this.names, s.seat));
    return [
      h("span.gate-count", {}, t("gate_wait", gate.hand_no, secondsLeft(gate.deadline_ms))),
      waiting.length ? h("span.gate-waiting", {}, ` · ${t("gate_waiting_for", waiting.join("、"))}`) : null,
    ];
  }

  // Phones: the claim bar is fixed at the screen's foot (RULES §6.3's window must be on
  // screen); while it shows, the page keeps the own hand just above it (it covered the
  // hand's second row while the player chose a chow), after the layout of each render.
  keepHandAboveBar() {
    const bar = this.root.querySelector(".claim-bar");
    const hand = this.root.querySelector(".own-area .hand");
    if (!bar || !hand || getComputedStyle(bar).position !== "fixed") {
      document.body.style.paddingBottom = "";
      return;
    }
    // room below the page's end for the bar, so that everything can scroll above it
    const top = bar.getBoundingClientRect().top;
    document.body.style.paddingBottom = `${Math.ceil(window.innerHeight - top) + 8}px`;
    // a phone keeps your area at the screen's foot (style.css), there just above the bar:
    // scrolling here only moved the table up at every claim, its top seat off the screen
    if (getComputedStyle(hand.closest(".area-bottom")).position === "sticky") {
      document.documentElement.style.setProperty("--claim-bar-h", `${Math.ceil(window.innerHeight - top)}px`);
      return;
    }
    const over = hand.getBoundingClientRect().bottom - top + 6;
    if (over > 0) window.scrollBy(0, over);
  }

  render() {
    if (this.unknown) {
      // a finished match no longer at a table (it read "no such room"), or one dissolved
      // after standing with nobody at it: its replay
      const status = this.room?.status;
      const key = status === "over" || status === "dissolved" ? `room_${status}` : "room_unknown";
      this.root.replaceChildren(h("main.unknown-room", {},
        h("h2", {}, t(`${key}_title`)),
        h("p", {}, t(key, this.roomId, durationText(this.room?.dissolved_after || 0))),
        h("p", {}, key !== "room_unknown"
          ? [h("a.button.replay-link", { href: this.replayHref }, t("replay")), " "] : null,
        h("a.button", { href: "/" }, t("back_lobby")))));
      return;
    }
    const open = !this.board && (!this.room || this.room.status === "open");
    // A re-render (a seat taken, someone ready) must not clear or blur what a visitor is typing.
    const typing = this.root.querySelector("#seat-name");
    const focused = typing && document.activeElement === typing;
    const caret = focused ? [typing.selectionStart, typing.selectionEnd] : null;
    // nor close the 快捷语 menu a player is choosing from (it shut at the next prompt)
    const phrasesOpen = this.root.querySelector("details.phrases")?.open;
    this.root.replaceChildren(open ? this.waitingRoom(typing?.value) : this.table());
    if (phrasesOpen) this.root.querySelector("details.phrases")?.setAttribute("open", "");
    this.placeBubbles();
    if (this.toTop && this.board) {
      window.scrollTo(0, LANDSCAPE_PHONE.matches ? this.tableTop() : 0);
      this.toTop = false;
    }
    const again = focused ? this.root.querySelector("#seat-name") : null;
    if (again) {
      again.focus();
      again.setSelectionRange(caret[0], caret[1]);
    }
    this.tick();
    this.renderHintPanel();
    requestAnimationFrame(() => this.keepHandAboveBar());
  }

  /** Where the table starts on the page: a landscape phone opens scrolled to it, the table
   * filling the screen (the header a short scroll up, the toolbar in your area). */
  tableTop() {
    const table = this.root.querySelector(".table");
    return table ? Math.max(0, table.getBoundingClientRect().top + window.scrollY - 2) : 0;
  }

  statusLine() {
    // nobody holds a seat at the table (a spectator sees it): the match stands still
    const dissolveAt = this.room?.status === "running" && this.room.dissolve_ms;
    return [
      this.disconnected ? h("p.banner", { role: "alert" }, t("disconnected")) : null,
      dissolveAt ? h("p.banner.paused", { role: "status" }, t("paused_nobody",
        new Date(dissolveAt).toLocaleTimeString(getLang() === "zh" ? "zh-CN" : "en",
          { hour: "2-digit", minute: "2-digit" }))) : null,
      this.error ? h("p.error", { role: "alert" }, this.error) : null,
    ];
  }

  async loadShare() {
    if (this.share !== undefined) return;
    this.share = null;
    try {
      this.share = await api("GET", `/api/rooms/${this.roomId}/share`);
    } catch {
      this.share = null;
    }
    this.render();
  }

  /** The waiting room; `typed` is the name already in the name field (kept over re-renders). */
  waitingRoom(typed) {
    const room = this.room;
    if (!room) return h("main.waiting", {}, this.statusLine());
    this.loadShare();
    // the server builds the link from the address friends can use (--public-url, LAN)
    const link = this.share?.url || `${location.origin}/room/${this.roomId}`;
    const mySeat = this.mine?.seat;
    const seated = mySeat !== undefined && mySeat !== null;
    const isOwner = room.seats.find((s) => s.seat === mySeat)?.owner && this.token;
    const botPick = (selected) => h("select.bot-level", { "aria-label": t("bot_level") },
      BOTS.map((b) => h("option", { value: b, selected: b === selected ? true : null },
        EXPERIMENTAL_BOTS.includes(b) ? `${botName(b)}${t("experimental")}` : botName(b))));
    const seats = room.seats.map((s) => {
      const free = s.name === null && !s.bot;
      const parts = [];
      if (free) {
        if (!seated) parts.push(h("button.take-seat", { onclick: () => this.takeSeat(s.seat) }, t("join")));
        if (isOwner) {
          const pick = botPick("efficiency");
          parts.push(pick, h("button.add-bot", {
            onclick: () => this.ownerCall("bots", { seat: s.seat, bot: pick.value }),
          }, t("add_bot")));
        }
      } else if (isOwner && s.seat !== mySeat) {
        if (s.bot) {
          const pick = botPick(s.bot);
          pick.classList.add("swap-bot");
          pick.addEventListener("change", () => this.ownerCall("bots", { seat: s.seat, bot: pick.value }));
          parts.push(pick);
        }
        parts.push(h("button.remove-seat", { onclick: () => this.removeSeat(s.seat) }, t("remove")));
      }
      const me = s.seat === mySeat;
      return h("li.seat-slot", { dataset: { seat: s.seat } },
        h("b", {}, t("seat_no", s.seat + 1)), " ",
        free ? h("i", {}, t("empty")) : [seatName(this.names, s.seat), " ", ratingChip(this.names, s.seat)],
        s.owner ? ` · ${t("owner")}` : "", me ? ` · ${t("you")}` : "",
        // the owner starts the match: no ready mark, and no 准备 button
        free ? null : s.owner && !s.bot ? h("span.chip-owner", {}, t("owner_no_ready"))
          : h(`span.${s.ready ? "chip-ready" : "chip-notready"}`, {},
            s.ready ? `✓ ${t("ready_mark")}` : t("not_ready")),
        !free && !s.bot && !s.connected ? h("span.chip-offline", {}, t("offline")) : null,
        me && !s.owner ? h("button.toggle-ready", { onclick: () => this.send({ type: "ready", on: !s.ready }) },
          s.ready ? t("unprepare") : t("prepare")) : null,
        parts.length ? h("span.seat-actions", {}, parts) : null);
    });
    const copy = () => navigator.clipboard?.writeText(link).then(() => this.toast(t("copied")));
    const qr = this.share?.qr_svg
      ? h("img.qr", { alt: `${t("qr")}: ${link}`, src: `data:image/svg+xml;charset=utf-8,${encodeURIComponent(this.share.qr_svg)}` })
      : null;
    return h("main.waiting", {},
      h("h2", {}, roomTitle(room)),
      this.statusLine(),
      h("div.share-box", {},
        h("p.share", {}, `${t("share")}: `, h("input.share-link", { value: link, readonly: true,
          onfocus: (e) => e.target.select() }),
        h("button.copy-link", { onclick: copy, title: t("copy_link") }, icon("copy"), ` ${t("copy")}`)),
        qr, h("p.share-help", {}, t("share_help")),
        room.private ? h("p.private-note", {}, h("b", {}, t("private_room")), ` · ${t("private_help")}`)
          : null),
      h("p.rules-line", {}, h("b", {}, `${t("rules")}: `), rulesSummary(room.rules), " ",
        ruleLink("3", t("rules_link"))),
      seated ? null
        // signed in: the server seats them under their display name, whatever is typed
        : h("p", {}, h("label", {}, `${t("your_name")} `, h("input#seat-name", {
          value: this.account ? this.account.display_name : typed ?? savedName(), maxlength: 40,
          readonly: this.account ? true : null }))),
      h("ul.seat-list", {}, seats),
      isOwner ? h("p.ready-help", {}, t("owner_start_help"))
        : seated ? h("p.ready-help", {}, t("player_ready_help")) : null,
      h("p.buttons.waiting-actions", {},
        isOwner ? h("button.start", { onclick: () => this.ownerCall("start", {}),
          disabled: room.free_seats.length ? true : null }, t("start")) : null,
        this.token ? h("button.leave", { onclick: () => this.leave() }, t("leave")) : null,
        // every seat filled: the owner is the one who starts, not one who waits
        h("span.note", {}, room.status !== "open" ? ""
          : room.free_seats.length ? t("seats_to_fill", room.free_seats.length)
            : isOwner ? t("press_start") : t("waiting"))));
  }

  async removeSeat(seat) {
    try {
      await api("DELETE", `/api/rooms/${this.roomId}/seats/${seat}`, undefined, this.token);
      await this.refreshRoom();
    } catch (e) {
      this.error = e.text;
      this.render();
    }
  }

  table() {
    const b = this.board;
    if (!b) return h("main.table-page", {}, this.statusLine());
    const seated = b.seat !== null && b.seat !== undefined;
    const gate = this.room?.gate;
    const myReady = gate && seated && gate.ready.includes(b.seat);
    const spectators = this.room?.spectators || 0;
    const toolbar = h("div.toolbar", {},
      seated ? h("label.auto", { title: t("auto") }, h("input", { type: "checkbox",
        checked: this.autoOn || null, onchange: () => this.toggleAuto() }), ` ${t("auto_switch")}`)
        : h("span.spectating", {}, t("spectating")),
      seated ? h("button.suggest", { onclick: () => this.showSuggestion(),
        title: this.hintsAvailable ? null : t("no_hints"),
        disabled: this.prompt && this.hintsAvailable ? null : true }, t("hint")) : null,
      h("button.history-btn", { onclick: () => this.showHistory() }, t("history")),
      h("button.log-btn", { onclick: () => this.showLog() }, t("log")),
      seated ? h("details.phrases", {}, h("summary", {}, t("phrases")),
        h("div.phrase-menu", {}, PHRASES.map((_, i) => h("button.phrase", { onclick: () => this.sendPhrase(i) },
          phraseText(i))))) : null,
      spectators ? h("span.spectator-count", {}, t("spectators", spectators)) : null,
      b.over && this.finalEvent ? h("button.final-btn", { onclick: () => this.showFinal() }, t("final"))
        : null,
      // a button as its neighbours are (it was a bare link among them)
      b.over ? h("a.button.replay-btn", { href: this.replayHref }, t("replay")) : null,
      // at 320 px its icon alone (the toolbar took two rows)
      seated ? h("button.leave", { onclick: () => this.leave(), title: t("leave"), "aria-label": t("leave") },
        icon("leave"), h("span.label", {}, t("leave"))) : null);
    // a real table: you at the bottom, 下家 on the right, 对家 at the top, 上家 on the left
    const areas = { top: [], left: [], right: [], bottom: [] };
    for (let i = 0; i < b.n; i += 1) {
      const pos = positionOf(b, i);
      if (pos === "bottom" && seated) continue;
      areas[pos].push(seatPanel(b, i, this.names, { showHand: b.phase === "over",
        presence: this.presence(i) }));
    }
    // a landscape phone: the toolbar in your area's head row, at hand at the screen's foot
    // (above the table it was scrolled away with the header: 提示, 托管 and 记录 each
    // meant scrolling up, and back down to the table)
    const inOwn = seated && LANDSCAPE_PHONE.matches;
    // the hints are a seated player's (a spectator's centre had an empty box); a landscape
    // phone shows them over the table just above your hand: in the centre they were under
    // your area (kept at the screen's foot), and scrolling them out moved the table
    const hintPanel = seated ? h("div.hint-panel", { "aria-live": "polite" }) : null;
    const own = seated ? ownArea({ ...this.ctx(), tools: inOwn ? toolbar : null,
      hintPanel: inOwn ? hintPanel : null }) : areas.bottom;
    const gateBar = gate && !b.over ? h("div.gate-bar", { role: "status" }, h("div.gate-line"),
      seated && !myReady ? h("button.ready-btn", { onclick: () => this.ready() }, t("ready")) : null,
      b.handEnd ? h("button.show-settlement", { onclick: () => this.queueDialog("settlement",
        t("settlement"), () => this.settlementBody(b.handEnd), t("ready"), () => this.ready()) },
      t("settlement")) : null) : null;
    return h("main.table-page", {},
      this.statusLine(),
      inOwn ? null : toolbar,
      gateBar,
      h(`div.table.n${b.n}`, {},
        h("div.area-top", {}, areas.top),
        h("div.area-left", {}, areas.left),
        h("div.area-right", {}, areas.right),
        h("div.area-centre", {}, centreInfo(b, this.names), inOwn ? null : hintPanel,
          h("div.log", {}, this.log.slice(-3).map((x) => h("div", {}, x)))),
        h("div.area-bottom", {}, own)),
      h("p.rules-line", {}, rulesSummary(b.rules), " ", ruleLink("3", t("rules_link"))));
  }

  renderHintPanel() {
    const panel = this.root.querySelector(".hint-panel");
    if (!panel || !this.board || this.board.seat === null) return;
    const opts = tileOpts(this.board, { small: true });
    const parts = [];
    if (this.suggestion && this.prompt) {
      parts.push(h("span.suggestion", {}, `${t("suggest")}: ${describe(this.suggestion)}`));
    }
    if (this.hints && this.hints.shanten !== undefined) {
      // "ready hand": "Ready" is the button that starts the next hand (继续)
      parts.push(h("span.shanten", {}, this.hints.shanten <= 0 ? bi("听牌", "ready hand")
        : `${t("shanten")} ${this.hints.shanten}`));
    }
    const info = this.hover && this.hints?.byTile?.[this.hover];
    if (info) {
      const waits = info.waits || [];
      parts.push(h("span.hint-discard", {}, `${t("discard")} `, tileElement(this.hover, opts), " → "));
      if (waits.length) {
        parts.push(h("span.waits", {}, `${t("waits")}: `, waits.map((w) => h("span.wait", {},
          tileElement(w.tile, opts), h("small", {}, t("left", w.left))))));
      } else {
        parts.push(h("span.shanten", {}, `${t("shanten")} ${info.shanten}`,
          info.useful ? ` · ${t("useful_count", info.useful.reduce((s, w) => s + w.left, 0))}`
            : ""));
      }
    } else if (this.hover && splitHand(this.board).includes(this.hover)) {
      parts.push(h("span.hint-tile", {}, tileLabel(this.hover, getLang())));
    }
    panel.replaceChildren(...parts);
    if (this.revealHints && parts.length) {
      this.revealHints = false;
      this.scrollOutFromUnder(panel);
    }
  }

  /** A landscape phone keeps your area at the screen's foot, over the centre: a tap on a
   * tile or on 提示 filled the hint panel unseen under it. Scroll it out (the hand stays). */
  scrollOutFromUnder(panel) {
    const own = this.root.querySelector(".own-area");
    if (!own || own.contains(panel) || getComputedStyle(own.parentElement).position !== "sticky") return;
    const covered = panel.getBoundingClientRect().bottom - own.getBoundingClientRect().top + 4;
    if (covered > 0) window.scrollBy(0, covered);
  }
}

function describe(a) {
  if (a.type === "discard") return `${t("discard")} ${tileLabel(a.tile, getLang())}`;
  if (a.type === "kong") return `${t("kong")} ${tileLabel(a.tile, getLang())}`;
  if (a.type === "chow") return `${t("chow")} ${a.tiles.map((x) => tileLabel(x, getLang())).join(" ")}`;
  return t(a.type);
}
