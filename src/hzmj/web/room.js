// The room page (/room/{id}): the waiting room before the start, then the live table
// over the WebSocket (docs/protocol.md), with reconnection from the stored seat token.

import { api, forgetSeat, loadSeat, saveName, saveSeat, savedName, wsUrl } from "./api.js";
import { applyEvent, boardFromView } from "./board.js";
import { handleKey, ownArea, splitHand } from "./hand.js";
import { bi, getLang, rulesSummary, t } from "./i18n.js";
import {
  centreInfo, dialog, eventLine, finalElement, h, icon, positionOf, ratingChip, seatName, seatNames,
  seatPanel,
  settlementElement, tileOpts,
} from "./render.js";
import { tileElement, tileLabel } from "./tiles.js";

const BOTS = ["efficiency", "strong", "random"];

export class RoomPage {
  constructor(root, roomId, header) {
    this.root = root;
    this.roomId = roomId;
    this.header = header;
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
    document.addEventListener("keydown", (ev) => this.onKey(ev));
    setInterval(() => this.tick(), 200);
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
      this.error = e.message;
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
      this.ratings = (await api("GET", `/api/rooms/${this.roomId}/ratings`)).ratings;
      this.render();
    } catch {
      this.ratings = null;
    }
  }

  get names() {
    const names = seatNames(this.room);
    names.ratings = this.ratings;
    return names;
  }

  get token() {
    return this.mine?.token;
  }

  // ---------------------------------------------------------------- WebSocket

  connect() {
    const q = this.token ? `?token=${encodeURIComponent(this.token)}` : "";
    const ws = new WebSocket(wsUrl(`/ws/rooms/${this.roomId}${q}`));
    this.ws = ws;
    ws.onopen = () => {
      this.retry = 0;
      this.disconnected = false;
      this.render();
    };
    ws.onmessage = (m) => this.onMessage(JSON.parse(m.data));
    ws.onclose = (ev) => {
      if (this.ws !== ws) return;
      if (ev.code === 4401 || ev.code === 4403) {
        // the stored token is no longer valid: watch instead
        forgetSeat(this.roomId);
        this.mine = null;
      }
      this.disconnected = true;
      this.render();
      this.retry = Math.min(this.retry + 1, 5);
      setTimeout(() => this.connect(), 400 * this.retry);
    };
  }

  send(msg) {
    if (this.ws?.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(msg));
  }

  onMessage(msg) {
    switch (msg.type) {
      case "snapshot":
        if (msg.seat !== undefined && msg.seat !== null && this.mine) this.mine.seat = msg.seat;
        this.stateId = msg.state_id;
        if (msg.view) {
          this.board = boardFromView(msg.view);
          // the server follows a snapshot with a prompt when this seat has to act
          this.prompt = null;
        }
        break;
      case "event":
        this.onEvent(msg);
        break;
      case "prompt":
        this.prompt = msg;
        this.selected = null;
        this.suggestion = null;
        this.fetchHints();
        break;
      case "ack":
        if (this.prompt && this.prompt.state_id !== msg.state_id) this.prompt = null;
        break;
      case "room":
        this.room = msg.room;
        this.refreshRatings();
        break;
      case "error":
        this.toast(msg.reason);
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
    applyEvent(this.board, e);
    const line = eventLine(this.board, e, this.names);
    if (line) this.log = [...this.log.slice(-30), line];
    if (e.type === "hand_end") {
      const he = this.board.handEnd;
      this.queueDialog("settlement", t("settlement"),
        () => settlementElement(this.board, he, this.names), t("next_hand"));
    } else if (e.type === "match_end") {
      this.queueDialog("final", t("final"), () => h("div", {}, finalElement(e, this.names),
        h("p", {}, h("a", { href: `/replay/${this.roomId}` }, t("replay")))), t("back_lobby"),
      () => { location.href = "/"; });
    }
    if (e.type === "hand_start") this.hints = null;
  }

  /** Show a dialog after the open one; a newer settlement replaces an unread one. */
  queueDialog(kind, title, body, label, after) {
    if (kind === "settlement" && this.openDialog?.kind === "settlement") {
      this.openDialog.close();
      this.openDialog = null;
    }
    if (kind === "final" && this.openDialog?.kind === "settlement") {
      this.openDialog.node.querySelector(".buttons button").textContent = t("final");
    }
    this.dialogs.push({ kind, title, body, label, after });
    this.nextDialog();
  }

  nextDialog() {
    if (this.openDialog || !this.dialogs.length) return;
    const d = this.dialogs.shift();
    this.openDialog = dialog(d.title, d.body(), [[d.label, () => {
      this.openDialog = null;
      d.after?.();
      this.nextDialog();
    }]]);
    this.openDialog.kind = d.kind;
  }

  // ---------------------------------------------------------------- actions

  act(action) {
    if (!this.prompt) return;
    this.send({ type: "action", state_id: this.prompt.state_id, action });
    this.prompt = null;
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
    this.renderHintPanel();
  }

  onKey(ev) {
    if (!this.board || this.board.seat === null || this.openDialog) return;
    if (ev.target instanceof HTMLInputElement || ev.target instanceof HTMLSelectElement) return;
    if (handleKey(ev, this.ctx())) ev.preventDefault();
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
    saveName(name);
    try {
      const r = await api("POST", `/api/rooms/${this.roomId}/seats`, { name, seat });
      this.mine = { seat: r.seat, token: r.token, name };
      saveSeat(this.roomId, this.mine);
      this.ws?.close();
      this.ws = null;
      this.connect();
      await this.refreshRoom();
    } catch (e) {
      this.error = e.message;
      this.render();
    }
  }

  async ownerCall(path, body) {
    try {
      await api("POST", `/api/rooms/${this.roomId}/${path}`, body, this.token);
      await this.refreshRoom();
    } catch (e) {
      this.error = e.message;
      this.render();
    }
  }

  async leave() {
    // RULES §8.5: leaving a running match at dealer level 3 costs the escape penalty
    if (this.board && !this.board.over && !window.confirm(t("leave_confirm"))) return;
    try {
      await api("POST", `/api/rooms/${this.roomId}/leave`, {}, this.token);
    } catch (e) {
      this.toast(e.message);
    }
    forgetSeat(this.roomId);
    location.href = "/";
  }

  toast(text) {
    const node = h("div.toast", { role: "status" }, text);
    document.body.append(node);
    setTimeout(() => node.remove(), 3500);
  }

  // ---------------------------------------------------------------- rendering

  ctx() {
    return {
      board: this.board, names: this.names, actions: this.prompt?.actions || [],
      selected: this.selected, hints: this.hints,
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

  render() {
    const open = !this.board && (!this.room || this.room.status === "open");
    this.root.replaceChildren(open ? this.waitingRoom() : this.table());
    this.tick();
    this.renderHintPanel();
  }

  statusLine() {
    return [
      this.disconnected ? h("p.banner", { role: "alert" }, t("disconnected")) : null,
      this.error ? h("p.error", { role: "alert" }, this.error) : null,
    ];
  }

  waitingRoom() {
    const room = this.room;
    if (!room) return h("main.waiting", {}, this.statusLine());
    const link = `${location.origin}/room/${this.roomId}`;
    const mySeat = this.mine?.seat;
    const isOwner = room.seats.find((s) => s.seat === mySeat)?.owner && this.token;
    const seats = room.seats.map((s) => {
      const free = s.name === null && !s.bot;
      let actions = null;
      if (free) {
        const pick = h("select.bot-level", { "aria-label": t("add_bot") },
          BOTS.map((b) => h("option", { value: b }, b)));
        actions = h("span.seat-actions", {},
          mySeat === undefined || mySeat === null
            ? h("button.take-seat", { onclick: () => this.takeSeat(s.seat) }, t("join")) : null,
          isOwner ? [pick, h("button.add-bot", {
            onclick: () => this.ownerCall("bots", { seat: s.seat, bot: pick.value }),
          }, t("add_bot"))] : null);
      }
      return h("li.seat-slot", { dataset: { seat: s.seat } },
        h("b", {}, `${t("seat")} ${s.seat + 1}`), " ",
        free ? h("i", {}, t("empty")) : [seatName(this.names, s.seat), " ", ratingChip(this.names, s.seat)],
        s.owner ? ` · ${t("owner")}` : "", s.seat === mySeat ? ` · ${t("you")}` : "",
        actions);
    });
    const copy = () => navigator.clipboard?.writeText(link).then(() => this.toast(t("copied")));
    return h("main.waiting", {},
      h("h2", {}, room.name || this.roomId),
      this.statusLine(),
      h("p.share", {}, `${t("share")}: `, h("input.share-link", { value: link, readonly: true,
        onfocus: (e) => e.target.select() }),
      h("button.copy-link", { onclick: copy, title: t("copy_link") }, icon("copy"), ` ${t("copy")}`)),
      h("p.rules-line", {}, h("b", {}, `${t("rules")}: `), rulesSummary(room.rules)),
      mySeat === undefined || mySeat === null
        ? h("p", {}, h("label", {}, `${t("your_name")} `, h("input#seat-name", { value: savedName(),
          maxlength: 40 }))) : null,
      h("ul.seat-list", {}, seats),
      h("p.buttons", {},
        isOwner ? h("button.start", { onclick: () => this.ownerCall("start", {}),
          disabled: room.free_seats.length ? true : null }, t("start")) : null,
        this.token ? h("button.leave", { onclick: () => this.leave() }, t("leave")) : null,
        h("span.note", {}, room.status === "open" ? t("waiting") : "")));
  }

  table() {
    const b = this.board;
    if (!b) return h("main.table-page", {}, this.statusLine());
    const seated = b.seat !== null && b.seat !== undefined;
    const toolbar = h("div.toolbar", {},
      seated ? h("label.auto", {}, h("input", { type: "checkbox", checked: this.autoOn || null,
        onchange: () => this.toggleAuto() }), ` ${t("auto")}`) : h("span.spectating", {}, t("spectating")),
      seated ? h("button.suggest", { onclick: () => this.showSuggestion(),
        title: this.hintsAvailable ? null : t("no_hints"),
        disabled: this.prompt && this.hintsAvailable ? null : true }, t("hint")) : null,
      this.suggestion ? h("span.suggestion", {}, `${t("suggest")}: ${describe(this.suggestion)}`) : null,
      b.over ? h("a", { href: `/replay/${this.roomId}` }, t("replay")) : null,
      seated ? h("button.leave", { onclick: () => this.leave() }, t("leave")) : null);
    // a real table: you at the bottom, 下家 on the right, 对家 at the top, 上家 on the left
    const areas = { top: [], left: [], right: [], bottom: [] };
    for (let i = 0; i < b.n; i += 1) {
      const pos = positionOf(b, i);
      if (pos === "bottom" && seated) continue;
      areas[pos].push(seatPanel(b, i, this.names, { showHand: b.phase === "over" }));
    }
    const own = seated ? ownArea(this.ctx()) : areas.bottom;
    return h("main.table-page", {},
      this.statusLine(),
      toolbar,
      h(`div.table.n${b.n}`, {},
        h("div.area-top", {}, areas.top),
        h("div.area-left", {}, areas.left),
        h("div.area-right", {}, areas.right),
        h("div.area-centre", {}, centreInfo(b, this.names),
          h("div.hint-panel", { "aria-live": "polite" }),
          h("div.log", {}, this.log.slice(-3).map((x) => h("div", {}, x)))),
        h("div.area-bottom", {}, own)),
      h("p.rules-line", {}, rulesSummary(b.rules)));
  }

  renderHintPanel() {
    const panel = this.root.querySelector(".hint-panel");
    if (!panel || !this.board || this.board.seat === null) return;
    const opts = tileOpts(this.board, { small: true });
    const parts = [];
    if (this.hints && this.hints.shanten !== undefined) {
      parts.push(h("span.shanten", {}, this.hints.shanten <= 0 ? bi("听牌", "ready")
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
          info.useful ? ` · ${info.useful.reduce((s, w) => s + w.left, 0)}` : ""));
      }
    } else if (this.hover && splitHand(this.board).includes(this.hover)) {
      parts.push(h("span.hint-tile", {}, tileLabel(this.hover, getLang())));
    }
    panel.replaceChildren(...parts);
  }
}

function describe(a) {
  if (a.type === "discard") return `${t("discard")} ${tileLabel(a.tile, getLang())}`;
  if (a.type === "kong") return `${t("kong")} ${tileLabel(a.tile, getLang())}`;
  if (a.type === "chow") return `${t("chow")} ${a.tiles.map((x) => tileLabel(x, getLang())).join(" ")}`;
  return t(a.type);
}
