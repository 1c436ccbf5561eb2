// Drawing a board: seat panels, the centre, the settlement dialog and the final table.
// Shared by the live table (table.js) and the replay page (replay.js).

import { bi, getLang, levelName, t } from "./i18n.js";
import { parseNotation, sortTiles, tileElement, tileLabel } from "./tiles.js";

/** Create an element: h("div#id.a.b", {attrs}, ...children). */
export function h(spec, attrs = {}, ...children) {
  const [head, ...classes] = spec.split(".");
  const [tag, id] = head.split("#");
  const node = document.createElement(tag || "div");
  if (id) node.id = id;
  if (classes.length) node.className = classes.join(" ");
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (k === "dataset") Object.assign(node.dataset, v);
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

const SVG_NS = "http://www.w3.org/2000/svg";
const ICONS = {
  // padlock (抓打圈 badge) and two stacked sheets (copy), drawn so no font is needed
  lock: [["rect", { x: 4, y: 10, width: 16, height: 11, rx: 2, fill: "currentColor" }],
    ["path", { d: "M8 10V7a4 4 0 0 1 8 0v3", fill: "none", stroke: "currentColor", "stroke-width": 2.4 }]],
  copy: [["rect", { x: 8, y: 8, width: 12, height: 13, rx: 2, fill: "none", stroke: "currentColor", "stroke-width": 2 }],
    ["path", { d: "M5 16H4V4h11v1", fill: "none", stroke: "currentColor", "stroke-width": 2 }]],
};

/** A small inline SVG icon (1em square, takes the text colour). */
export function icon(name) {
  const svg = document.createElementNS(SVG_NS, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("class", `icon icon-${name}`);
  svg.setAttribute("aria-hidden", "true");
  for (const [tag, attrs] of ICONS[name]) {
    const node = document.createElementNS(SVG_NS, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    svg.append(node);
  }
  return svg;
}

/** Tile options for a board: the 财神 and whether white dragons stand in for it. */
export function tileOpts(board, extra = {}) {
  const standIn = board.rules?.caishen_mode !== "white" && board.caishen !== "5z";
  return { caishen: board.caishen, standIn, lang: getLang(), ...extra };
}

/** Display names of a room's seats; repeated names (bots) get their seat number. */
export function seatNames(room) {
  const raw = (room?.seats || []).map((s) => s.name || s.bot);
  return raw.map((n, i) => (n && raw.filter((x) => x === n).length > 1 ? `${n} ${i + 1}` : n));
}

export function seatName(names, i) {
  return names?.[i] || `${t("seat")} ${i + 1}`;
}

/** A rating as shown everywhere: "1,580" ("–" when there is none). */
export function ratingText(r) {
  return r === null || r === undefined ? "–" : r.toLocaleString("en");
}

/** The seat's rating (account or bot level) next to its name, when the room has one. */
export function ratingChip(names, i) {
  const r = names?.ratings?.[i];
  return r === null || r === undefined ? null
    : h("span.seat-rating", { title: bi("等级分", "rating") }, `≈${ratingText(r)}`);
}

const MELD_ZH = {
  chow: "吃", pong: "碰", exposed_kong: "明杠", added_kong: "补杠", concealed_kong: "暗杠",
};

export function meldElement(board, m, names) {
  const opts = tileOpts(board, { small: true });
  const tiles = m.tiles ? m.tiles.map((x) => tileElement(x, opts))
    : Array.from({ length: 4 }, () => tileElement(null, { small: true }));
  if (m.type === "concealed_kong" && m.tiles) {
    tiles[0] = tileElement(null, { small: true });
    tiles[3] = tileElement(null, { small: true });
  }
  const from = m.from !== null && m.from !== undefined ? ` ← ${seatName(names, m.from)}` : "";
  return h("span.meld", { title: `${MELD_ZH[m.type] || m.type}${from}`, dataset: { type: m.type } },
    tiles);
}

function levelBadge(board, p) {
  if (!p.dealer) return null;
  return h("span.badge-dealer", { title: t("dealer") }, `${t("dealer")} · ${levelName(board.level)}`);
}

/** The status badges of a seat: dealer, 财飘 chain, lock, 托管. */
export function seatBadges(board, i) {
  const p = board.players[i];
  const piao = p.chain.filter((x) => x === "piao").length;
  const kongs = p.chain.filter((x) => x === "kong").length;
  return [
    levelBadge(board, p),
    piao ? h("span.badge-piao", { title: t("piao") }, `${bi("财飘", "wild discarded")}${piao > 1 ? ` ×${piao}` : ""}`) : null,
    kongs ? h("span.badge-kong", {}, `${bi("杠", "kong")}${kongs > 1 ? ` ×${kongs}` : ""}`) : null,
    board.lock === i ? h("span.badge-lock", { title: t("locked_by", "") }, icon("lock"), ` ${bi("抓打圈", "lock")}`) : null,
    p.auto ? h("span.badge-auto", {}, t("auto")) : null,
  ];
}

export function discardsElement(board, i) {
  const opts = tileOpts(board, { small: true });
  const p = board.players[i];
  const lastIdx = board.claim && board.claim.from === i ? p.discards.length - 1 : -1;
  return h("div.discards", { dataset: { seat: i } }, p.discards.map((d, k) => {
    const node = tileElement(d.tile, { ...opts, claimed: d.claimed_by !== null });
    if (d.claimed_by !== null) node.title += ` → ${d.claimed_by + 1}`;
    if (k === lastIdx) node.classList.add("latest");
    return node;
  }));
}

const WINDS = [["东", "E"], ["南", "S"], ["西", "W"], ["北", "N"]];

/** Where seat i sits for `viewer`: "next" (下家), "opposite" (对家), "prev" (上家) or null. */
export function relativeOf(board, i, viewer) {
  if (viewer === null || viewer === undefined || i === viewer) return null;
  const rel = (i - viewer + board.n) % board.n;
  if (board.n === 2) return "opposite";
  if (rel === 1) return "next";
  return rel === board.n - 1 ? "prev" : "opposite";
}

/** Chips naming a seat: relative position, seat wind (东 = dealer) and seat number. */
export function seatLabels(board, i, viewer) {
  const rel = relativeOf(board, i, viewer);
  const wind = WINDS[((i - board.dealer) % board.n + board.n) % board.n];
  return [
    rel ? h("span.seat-pos", { dataset: { rel } }, t(`rel_${rel}`)) : null,
    h("span.seat-wind", { title: `${t("seat_wind")} · ${t("seat_no", i + 1)}` },
      getLang() === "zh" ? wind[0] : `${wind[1]} ${wind[0]}`),
    h("span.seat-no", {}, t("seat_no", i + 1)),
  ];
}

/** Whose move it is, as a chip on that seat. */
export function turnChip(board, i) {
  if (board.phase === "over") return null;
  if (board.phase === "turn" && board.turn === i) return h("span.turn-chip", {}, t("to_play"));
  return null;
}

/** Panel of one opponent (or any seat in the replay); `viewer` decides 下家/对家/上家. */
export function seatPanel(board, i, names, { showHand = false, viewer = board.seat } = {}) {
  const p = board.players[i];
  const active = board.turn === i && board.phase === "turn";
  const head = h("div.seat-head", {},
    ...seatLabels(board, i, viewer),
    h("span.seat-name", {}, seatName(names, i)), ratingChip(names, i),
    h("span.points", {}, `${p.points} ${t("points")}`),
    ...seatBadges(board, i),
    h("span.count", { title: t("concealed") }, `${t("concealed")} ${p.concealed_count}`),
    turnChip(board, i));
  const parts = [head];
  const hand = showHand && (p.hand || p.revealed?.concealed);
  if (hand) {
    const opts = tileOpts(board, { small: true });
    parts.push(h("div.row.open-hand", {}, sortTiles(hand, board.caishen, opts.standIn)
      .map((x) => tileElement(x, opts))));
  }
  parts.push(h("div.row.melds", {}, p.melds.map((m) => meldElement(board, m, names))));
  parts.push(discardsElement(board, i));
  return h(`section.seat${active ? ".active" : ""}`,
    { dataset: { seat: i }, "aria-label": seatName(names, i) }, parts);
}

/** Position class of seat i around the viewer (bottom = viewer, 下家 on the right). */
export function positionOf(board, i) {
  const rel = relativeOf(board, i, board.seat ?? 0);
  return { next: "right", opposite: "top", prev: "left" }[rel] || "bottom";
}

/** The centre: hand number, 财神 indicator, live wall, whose turn. */
export function centreInfo(board, names) {
  const opts = tileOpts(board, { small: true });
  const hand = board.hands_total ? `${t("hand_no", board.hand_no)}${t("of_total", board.hands_total)}`
    : t("hand_no", board.hand_no);
  let status = "";
  if (board.phase === "claim" && board.claim) {
    status = t("claim_window", seatName(names, board.claim.from));
  } else if (board.turn !== null && board.phase === "turn") {
    status = board.turn === board.seat ? t("your_turn") : t("turn_of", seatName(names, board.turn));
  }
  return h("div.centre-info", {},
    h("span.hand-no", {}, hand),
    h("span.caishen-box", { title: t("caishen") }, `${bi("财神", "wild")} `,
      board.caishen ? tileElement(board.caishen, opts) : "—",
      board.indicator ? h("span.indicator", {}, ` ${t("indicator")} `, tileElement(board.indicator,
        { small: true, lang: getLang() })) : null),
    h("span.live", {}, `${t("live")} `, h("b.live-count", {}, String(board.live))),
    board.lock !== null && board.lock !== undefined
      ? h("span.lock-note", {}, t("locked_by", seatName(names, board.lock))) : null,
    h("span.status", {}, status),
  );
}

/** Tiles of a meld in notation ("[567p]", "(2222p)", "[4pP6p]": 白 standing in, §5.2). */
export function meldTiles(notation) {
  return parseNotation(notation.slice(1, -1));
}

function handTiles(board, hand) {
  if (!hand) return null;
  const opts = tileOpts(board, { small: true });
  const concealed = sortTiles(hand.concealed, board.caishen, opts.standIn).map((x) => tileElement(x, opts));
  return h("span.reveal", {}, concealed, hand.melds.map((m) => h("span.meld", { title: m },
    meldTiles(m).map((x) => tileElement(x, opts)))));
}

/** The settlement of a hand (hand_end event with the win event attached as `.win`). */
export function settlementElement(current, he, names) {
  const board = { ...current, caishen: he.caishen ?? current.caishen };
  const win = he.win;
  const parts = [];
  if (he.result === "draw") {
    parts.push(h("p.result", {}, t("draw_game")));
  } else {
    const sc = win?.score;
    const how = win?.self_draw ? t("self_draw") : t("on_discard", seatName(names, he.from));
    parts.push(h("p.result", {}, t("winner", seatName(names, he.winner)), " · ", how, " ",
      win ? tileElement(win.tile, tileOpts(board, { small: true })) : null));
    if (sc) {
      parts.push(h("p.patterns", {}, h("b.pattern-zh", { lang: "zh" }, sc.names.zh),
        getLang() === "en" ? ` (${sc.names.en})` : ""));
      const factor = 2 ** Math.min(3, he.level);
      parts.push(h("p.factors", {},
        h("span.mult", {}, `${t("multiplier")} M = ${sc.multiplier}`), " · ",
        h("span.dfactor", {}, `${t("dealer_factor")} ×${factor} (${levelName(he.level)})`)));
      if (sc.reading) parts.push(h("p.reading", {}, `${t("reading")}: ${sc.reading}`));
      if (sc.explanation?.length) {
        parts.push(h("details.explain", {}, h("summary", {}, "…"),
          h("ul", {}, sc.explanation.map((x) => h("li", {}, x)))));
      }
    }
  }
  const rows = he.payments.map((p) => h("tr.payment", {},
    h("td", {}, t("pays", seatName(names, p.from), seatName(names, p.to))),
    h("td.amount", {}, String(p.amount)),
    h("td", {}, bi(p.reason_zh, p.reason_en)),
    h("td.detail", {}, p.detail)));
  parts.push(h("h3", {}, t("payments")));
  parts.push(rows.length ? h("table.payments", {}, h("tbody", {}, rows)) : h("p", {}, t("no_payments")));
  if (he.notes?.length) parts.push(h("p.notes", {}, he.notes.join("; ")));
  parts.push(h("table.deltas", {}, h("tbody", {}, he.deltas.map((d, i) => h("tr", {},
    h("td", {}, seatName(names, i), i === he.dealer ? ` (${t("dealer")})` : ""),
    h("td.delta", {}, d > 0 ? `+${d}` : String(d)),
    h("td", {}, `${he.points[i]} ${t("points")}`),
    h("td.hand", {}, handTiles(board, he.hands?.[i])))))));
  return h("div.settlement", {}, parts);
}

export function finalElement(me, names) {
  return h("table.final", {},
    h("thead", {}, h("tr", {}, h("th", {}, t("rank")), h("th", {}, t("seat")), h("th", {}, t("total")))),
    h("tbody", {}, me.ranking.map((s, r) => h("tr", {},
      h("td", {}, String(r + 1)), h("td", {}, seatName(names, s)), h("td", {}, String(me.points[s]))))));
}

/** A modal dialog; returns {close}. */
export function dialog(title, body, buttons) {
  const node = h("dialog.modal", { "aria-label": title },
    h("h2", {}, title), body,
    h("div.buttons", {}, buttons.map(([label, fn]) => h("button", {
      onclick: () => {
        node.close();
        node.remove();
        fn?.();
      },
    }, label))));
  document.body.append(node);
  node.showModal();
  return { node, close: () => { node.close(); node.remove(); } };
}

/** One line describing an event, for the log. */
export function eventLine(board, e, names) {
  const who = (i) => seatName(names, i);
  const lang = getLang();
  switch (e.type) {
    case "hand_start": return `${t("hand_no", e.hand_no)} · ${t("dealer")} ${who(e.dealer)}`;
    case "draw": return null;
    case "discard": return `${who(e.seat)} ${t("discard")} ${tileLabel(e.tile, lang)}`;
    case "chow": case "pong": return `${who(e.seat)} ${t(e.type)} ${tileLabel(e.tile, lang)}`;
    case "kong": return `${who(e.seat)} ${t(`${e.kind}_kong`)}${e.tile ? ` ${tileLabel(e.tile, lang)}` : ""}`;
    case "win": return `${who(e.seat)} ${t("win")} ${e.score?.names?.zh || ""}`;
    case "hand_end": return e.result === "draw" ? t("draw_game") : null;
    case "escape": return t("escape", who(e.seat));
    case "match_end": return t("final");
    default: return null;
  }
}
