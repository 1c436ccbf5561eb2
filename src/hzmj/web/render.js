// Drawing a board: seat panels, the centre, the settlement dialog and the final table.
// Shared by the live table (table.js) and the replay page (replay.js).

import { bi, botName, getLang, levelName, pointsText, t } from "./i18n.js";
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
  // a speaker with sound waves, and one struck through (the 🔊/🔇 emoji were a box where
  // no emoji font is installed)
  sound: [["path", { d: "M3 9h4l5-4v14l-5-4H3z", fill: "currentColor" }],
    ["path", { d: "M15.5 8.5a5 5 0 0 1 0 7M18.5 5.5a9 9 0 0 1 0 13", fill: "none", stroke: "currentColor", "stroke-width": 2, "stroke-linecap": "round" }]],
  // a list (my matches), for a header too narrow for the words
  matches: [["path", { d: "M9 6h12M9 12h12M9 18h12", fill: "none", stroke: "currentColor", "stroke-width": 2.2, "stroke-linecap": "round" }],
    ["path", { d: "M4 6h.01M4 12h.01M4 18h.01", fill: "none", stroke: "currentColor", "stroke-width": 3.2, "stroke-linecap": "round" }]],
  // two bars (暂停): "⏸" was a box where no font has it
  pause: [["path", { d: "M7 5h3.5v14H7zM13.5 5H17v14h-3.5z", fill: "currentColor" }]],
  // a door and an arrow out of it (离开), for a toolbar too narrow for the word
  leave: [["path", { d: "M10 4H5v16h5", fill: "none", stroke: "currentColor", "stroke-width": 2.2, "stroke-linejoin": "round" }],
    ["path", { d: "M14 8l4 4-4 4M18 12H9", fill: "none", stroke: "currentColor", "stroke-width": 2.2, "stroke-linecap": "round", "stroke-linejoin": "round" }]],
  mute: [["path", { d: "M3 9h4l5-4v14l-5-4H3z", fill: "currentColor" }],
    ["path", { d: "M16 9l6 6M22 9l-6 6", fill: "none", stroke: "currentColor", "stroke-width": 2, "stroke-linecap": "round" }]],
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

/** The header's link home, the game's name: in English "Hangzhou" and "Mahjong" apart, so
 * that a phone can set the city small over the game (the name wrapped the header onto a
 * second row at 390 px). */
export function homeLink() {
  const words = t("title").split(" ");
  return h("a.home", { href: "/" }, words.length === 2
    ? [h("span.home-place", {}, words[0]), " ", h("span.home-game", {}, words[1])] : t("title"));
}

/** Tile options for a board: the 财神 and whether white dragons stand in for it. */
export function tileOpts(board, extra = {}) {
  const standIn = board.rules?.caishen_mode !== "white" && board.caishen !== "5z";
  return { caishen: board.caishen, standIn, lang: getLang(), ...extra };
}

/** Display names of a room's seats (bots in the UI's language); repeated names get
 * their seat number. */
export function seatNames(room) {
  const raw = (room?.seats || []).map((s) => (s.bot ? botName(s.bot) : s.name));
  return raw.map((n, i) => (n && raw.filter((x) => x === n).length > 1 ? `${n} ${i + 1}` : n));
}

/** A room's name; rooms created without one get a name in the UI's language. */
export function roomTitle(room) {
  if (room.name) return room.name;
  const owner = room.seats?.find((x) => x.owner);
  return t("default_room", owner?.name || room.room_id);
}

/** "Bob" as shown everywhere a seat is named; seats are numbered from 1 (号位). */
export function seatName(names, i) {
  return names?.[i] || t("seat_no", i + 1);
}

/** "2号位 Bob": the seat number (from 1) with the name, where payments are read. */
export function seatLabel(names, i) {
  const name = names?.[i];
  return name ? `${t("seat_no", i + 1)} ${name}` : t("seat_no", i + 1);
}

/** The rule book in the UI's language (docs/rules.md, docs/rules.zh.md), at a section if
 * given: "/rules?lang=zh#s6.5". */
export function rulesHref(number) {
  return `/rules?lang=${getLang() === "zh" ? "zh" : "en"}${number ? `#s${number}` : ""}`;
}

/** A finished match's replay at its end, the final table (at step 1, the deal, it showed
 * nothing of the result): the server's "my matches" links are the same
 * (hzmj.server.history.replay_path). */
export function replayHref(roomId) {
  return `/replay/${encodeURIComponent(roomId)}#end`;
}

/** A link to a paragraph of the rule book: "§6.5". */
export function ruleLink(number, label) {
  return h("a.rule-ref", { href: rulesHref(number), target: "_blank", rel: "noopener",
    title: t("rule_ref", `§${number}`) }, label || `§${number}`);
}

/** Text with every "§N.N" turned into a link into the rule book. */
export function linkRules(text) {
  const parts = String(text).split(/(§\d+(?:\.\d+)?)/);
  return parts.map((x, i) => (i % 2 ? ruleLink(x.slice(1)) : x)).filter((x) => x !== "");
}

/** A rating as shown everywhere: "1,580" ("–" when there is none). */
export function ratingText(r) {
  return r === null || r === undefined ? "–" : r.toLocaleString("en");
}

/** The seat's rating (account or bot level) next to its name, when the room has one; a
 * signed-in account's is marked ✓ (no guest can take that name at this table, so a
 * look-alike guest elsewhere shows no mark). */
export function ratingChip(names, i) {
  const r = names?.ratings?.[i];
  if (r === null || r === undefined) return null;
  if (names?.signedIn?.[i]) {
    return h("span.seat-rating.signed-in", { title: bi("已登录账号 · 等级分", "signed-in account · rating") },
      `✓ ≈${ratingText(r)}`);
  }
  return h("span.seat-rating", { title: bi("等级分", "rating") }, `≈${ratingText(r)}`);
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
    // the discard just made drops in (once: later re-renders do not replay it)
    if (k === p.discards.length - 1 && board.last?.type === "discard" && board.last.seat === i
      && Date.now() - (board.lastAt || 0) < 250) node.classList.add("fresh");
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

/**
 * Presence chips of a seat from the room info (RULES §8.5, §8.7): offline, 托管, escaped,
 * ready (between hands), and its running clock.  `presence` = {seat: SeatInfo, ready,
 * clock: epoch ms or null}.
 */
export function presenceChips(presence) {
  if (!presence?.seat) return [];
  const s = presence.seat;
  const chips = [];
  if (s.left) chips.push(h("span.chip-left", {}, t("left_seat")));
  else if (!s.bot && !s.connected) chips.push(h("span.chip-offline", {}, t("offline")));
  if (s.auto && !s.left && !s.bot) chips.push(h("span.chip-auto", {}, t("auto")));
  if (presence.ready !== undefined && presence.ready !== null) {
    chips.push(presence.ready ? h("span.chip-ready", {}, `✓ ${t("ready_mark")}`)
      : h("span.chip-notready", {}, t("not_ready")));
  }
  if (presence.clock) chips.push(h("span.seat-clock", { dataset: { deadline: presence.clock } }));
  return chips;
}

/** An opponent's concealed tiles as backs, with their count. */
function backsElement(count) {
  return h("div.backs", { title: `${t("concealed")} ${count}` },
    Array.from({ length: count }, () => tileElement(null, { small: true })),
    h("span.backs-count", {}, `×${count}`));
}

/** Panel of one opponent (or any seat in the replay); `viewer` decides 下家/对家/上家. */
export function seatPanel(board, i, names, { showHand = false, viewer = board.seat,
  presence = null } = {}) {
  const p = board.players[i];
  const active = board.turn === i && board.phase === "turn";
  const head = h("div.seat-head", {},
    ...seatLabels(board, i, viewer),
    h("span.seat-name", {}, seatName(names, i)), ratingChip(names, i),
    h("span.points", {}, pointsText(p.points)),
    ...seatBadges(board, i),
    ...presenceChips(presence),
    turnChip(board, i));
  const parts = [head];
  const hand = showHand && (p.hand || p.revealed?.concealed);
  const opts = tileOpts(board, { small: true });
  if (hand) {
    parts.push(h("div.row.open-hand", {}, sortTiles(hand, board.caishen, opts.standIn)
      .map((x) => tileElement(x, opts))));
  } else if (board.phase !== "waiting") {
    parts.push(backsElement(p.concealed_count));
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

/**
 * One tile of the winning reading, as a picture with its role (RULES §5.1, §5.2): a 财神
 * shows the tile it played as ("当五万"); in flip mode a plain tile of the 财神 kind can
 * only be a white dragon standing in, drawn as one and captioned as a stand-in.
 */
function readingTile(board, text, isWin) {
  const opts = tileOpts(board);
  const wild = text.startsWith("*");
  const kind = wild ? text.slice(1) : text;
  const lang = getLang();
  let node;
  let caption = null;
  if (wild) {
    node = tileElement(board.caishen, opts);
    caption = h("small.role.role-wild", {}, t("plays_as", tileLabel(kind, lang)));
  } else if (opts.standIn && kind === board.caishen) {
    node = tileElement("5z", opts);
    caption = h("small.role.role-standin", {}, t("standin_note", tileLabel(kind, lang)));
  } else {
    node = tileElement(kind, opts);
  }
  if (isWin) node.classList.add("winning");
  return h("span.rtile", {}, node, caption);
}

/** The winning hand as tile pictures grouped by set (the scored reading, RULES §7). */
function winningHand(board, win) {
  const reading = win?.score?.reading;
  if (!reading) return null;
  let winMarked = false;
  const groups = reading.split(" | ").map((g) => h("span.rgroup", {}, g.split(" ").map((x) => {
    const plain = x.replace("*", "");
    const isWin = !winMarked && (x === win.tile || (plain === win.tile && !x.startsWith("*")));
    if (isWin) winMarked = true;
    return readingTile(board, x, isWin);
  })));
  return h("div.win-hand", { "aria-label": t("winning_hand") }, groups);
}

/** Pattern name in the UI's language (Chinese terms stay Chinese). */
function patternName(names) {
  if (!names?.zh) return "";
  return getLang() === "zh" ? names.zh : `${names.en} (${names.zh})`;
}

/** Each factor of M and of the dealer factor, one per line (RULES §8.2, §9.1, §10.1). */
function factorLines(board, he, win, rules) {
  const sc = win.score;
  const formula = (sc.explanation || []).map((x) => x.match(/: (M = [^(]*?) = \d+ \(RULES/))
    .find(Boolean)?.[1];
  const chain = win.chain || [];
  const piao = chain.filter((x) => x === "piao").length;
  const kongs = chain.filter((x) => x === "kong").length;
  const level = Math.min(3, he.level);
  const lines = [
    h("li.m-line", {}, h("b", {}, `${t("m_line")} = ${sc.multiplier}`), " · ",
      patternName(sc.names), formula && formula !== `M = ${sc.multiplier}` ? ` · ${formula}` : "",
      " ", ruleLink("9.1")),
  ];
  if (sc.baotou) lines.push(h("li.baotou-line", {}, t("baotou_line"), " ", ruleLink("7.3")));
  if (win.self_draw && chain.length) {
    lines.push(h("li.chain-line", {}, `${t("chain_line")}: `,
      chain.map((x) => (x === "piao" ? bi("飘", "wild discarded") : bi("杠", "kong"))).join(" → "),
      ` (k=${kongs}, p=${piao})`, " ", ruleLink("8.2")));
  }
  if (!win.self_draw) lines.push(h("li", {}, bi("放铳", "discard win"), ": k = p = t = 0 ", ruleLink("8.4")));
  lines.push(h("li.dfactor", {}, h("b", {}, `${t("factor_line")} D = 2^${level} = ×${2 ** level}`),
    ` (${levelName(he.level)})`, " ", ruleLink("10.1")));
  // its figures bold as M's and D's (底分 read as a note under them)
  lines.push(h("li.base-line", {}, h("b", {}, `${bi("底分", "base score")} ${rules?.base_score ?? 1}`),
    rules?.cap ? [" · ", h("b", {}, `${bi("封顶", "cap")} ${rules.cap}`)] : "", " ", ruleLink("10.2")));
  return h("ul.factors", {}, lines);
}

// How a payment came about, read from its reason and amount (the rule itself lives in
// hzmj.scoring; the browser only labels its result, RULES §10.2–§10.5).
const OF_T = { chengbao: "T", houbanchang_chengbao: "T", discard_win: "T", fan_chengbao: "2T" };

function paymentWhy(p, multiplier, rules) {
  if (OF_T[p.reason]) return OF_T[p.reason];
  if (p.reason !== "share" || !multiplier) return null;
  const base = rules?.base_score ?? 1;
  if (rules?.cap && p.amount === rules.cap * base) return `${bi("封顶", "cap")} ${rules.cap} × ${base}`;
  const f = p.amount / base / multiplier;
  return t("share_formula", f === 1 ? "1" : `${bi("庄", "dealer")} ×${f}`, multiplier, base);
}

/** The settlement of a hand (hand_end event with the win event attached as `.win`). */
export function settlementElement(current, he, names) {
  const board = { ...current, caishen: he.caishen ?? current.caishen };
  const rules = current.rules;
  const win = he.win;
  const parts = [];
  if (he.result === "draw") {
    parts.push(h("p.result", {}, t("draw_game"), " ", ruleLink("8.6")));
  } else {
    const how = win?.self_draw ? t("self_drawn", seatLabel(names, he.winner))
      : t("won_on", seatLabel(names, he.winner), seatLabel(names, he.from));
    parts.push(h("p.result", {}, h("b", {}, how)));
    if (win?.score) {
      parts.push(h("p.patterns", {}, h("b.pattern-name", {}, patternName(win.score.names)),
        ` · M = ${win.score.multiplier}`));
      parts.push(winningHand(board, win));
      parts.push(factorLines(board, he, win, rules));
    }
  }
  const multiplier = win?.score?.multiplier;
  const byPayer = new Map();
  for (const p of he.payments) {
    if (!byPayer.has(p.from)) byPayer.set(p.from, []);
    byPayer.get(p.from).push(p);
  }
  const rows = [...byPayer.entries()].map(([from, list]) => h("li.payer", { dataset: { seat: from } },
    h("b", {}, seatLabel(names, from)), ` → ${seatLabel(names, list[0].to)}: `,
    h("b.amount", {}, pointsText(list.reduce((a, p) => a + p.amount, 0))),
    h("ul", {}, list.map((p) => {
      const why = paymentWhy(p, multiplier, rules);
      return h("li.payment", {}, `${p.amount} · `, bi(p.reason_zh, p.reason_en), " ",
        why ? h("span.why", {}, `= ${why}`) : null);
    }))));
  parts.push(h("h3", {}, t("payments"), " ", ruleLink("10")));
  parts.push(rows.length ? h("ul.payments", {}, rows) : h("p", {}, t("no_payments")));
  const tLine = he.notes?.find((x) => x.startsWith("T = "));
  if (tLine) parts.push(h("p.notes.t-line", {}, tLine, " ", ruleLink("10.2")));
  if (he.notes?.length) {
    parts.push(h("details.notes", {}, h("summary", {}, t("reading")),
      h("ul", {}, [...he.notes.filter((x) => x !== tLine), ...(win?.score?.explanation || [])]
        .map((x) => h("li", {}, linkRules(x))))));
  }
  // each seat's change and total, its hand on a row of its own (room on a phone)
  parts.push(h("table.deltas", {}, h("tbody", {}, he.deltas.flatMap((d, i) => [h("tr", {},
    h("td", {}, seatLabel(names, i), i === he.dealer ? ` (${t("dealer")})` : ""),
    h("td.delta", { dataset: { sign: Math.sign(d) } }, d > 0 ? `+${d}` : String(d)),
    h("td.total", {}, pointsText(he.points[i]))),
    // not "hand-row" / "hand": the own area's flex rows, which broke the table's rows
    i === he.winner ? null : h("tr.reveal-row", {}, h("td.reveal-cell", { colspan: 3 },
      handTiles(board, he.hands?.[i])))]))));
  return h("div.settlement", {}, parts);
}

/** 战绩: one row per finished hand — result, each seat's change and running total.  Each
 * seat's column is headed by its number and its name on two lines at most, shortened with
 * "…" (the whole name its title): long names pushed the last seat's column past a phone's edge.  In a
 * narrow box (a phone) each hand's result is a line of its own, over the seats' numbers
 * (style.css, `.history-wrap`). */
export function historyElement(history, names, n) {
  if (!history?.length) return h("p.history-empty", {}, t("history_empty"));
  const head = h("tr", {}, h("th.hist-no", {}, t("hand_col")), h("th.hist-result", {}, t("result_col")),
    Array.from({ length: n }, (_, i) => h("th.hist-seat", { title: seatLabel(names, i) },
      h("span.hist-seat-no", {}, t("seat_no", i + 1)),
      names?.[i] ? h("span.hist-name", {}, names[i]) : null)));
  const total = t("running_total");
  const rows = history.map((he) => {
    let result = t("draw_game");
    if (he.result === "win") {
      const name = patternName(he.win?.score?.names);
      result = he.from === null || he.from === undefined
        ? `${t("self_drawn", seatLabel(names, he.winner))} ${name}`
        : `${t("won_on", seatLabel(names, he.winner), seatLabel(names, he.from))} ${name}`;
    }
    return h("tr", {}, h("td.hist-no", {}, String(he.hand_no)),
      // the hand's number is in its own column, and on the result's line where that
      // column is not shown
      h("td.hist-result", {}, h("span.hist-result-no", {}, `${t("hand_no", he.hand_no)} · `), result),
      he.deltas.map((d, i) => h("td.hist-cell", {
        title: `${d > 0 ? `+${d}` : d} · ${total} ${he.points[i]}`,
      },
      h("span.delta", { dataset: { sign: Math.sign(d) } }, d > 0 ? `+${d}` : String(d)),
      h("small.running", {}, h("span.running-label", {}, `${total} `), String(he.points[i])))));
  });
  return h("div.history-wrap", {}, h("table.history", {},
    h("caption.history-help", {}, t("history_cell_help")),
    h("thead", {}, head), h("tbody", {}, rows)));
}

export function finalElement(me, names) {
  return h("table.final", {},
    h("thead", {}, h("tr", {}, h("th", {}, t("rank")), h("th", {}, t("seat")), h("th", {}, t("total")))),
    h("tbody", {}, me.ranking.map((s, r) => h("tr", {},
      h("td", {}, String(r + 1)), h("td", {}, seatLabel(names, s)), h("td", {}, String(me.points[s]))))));
}

/** A modal dialog; returns {close}. */
export function dialog(title, body, buttons, onDismiss = null) {
  const node = h("dialog.modal", { "aria-label": title },
    h("h2", {}, title), body,
    h("div.buttons", {}, buttons.map(([label, fn]) => h("button", {
      onclick: () => {
        node.close();
        node.remove();
        fn?.();
      },
    }, label))));
  // Esc closes it as no button does: gone from the page too, and whoever waits told (a
  // settlement closed by Esc stayed the open one, and the keyboard played no more tiles)
  node.addEventListener("cancel", () => {
    node.remove();
    onDismiss?.();
  });
  document.body.append(node);
  node.showModal();
  return { node, close: () => { node.close(); node.remove(); } };
}

/** One line describing an event, for the log. */
export function eventLine(board, e, names) {
  const who = (i) => seatLabel(names, i);
  const lang = getLang();
  switch (e.type) {
    case "hand_start": return `${t("hand_no", e.hand_no)} · ${t("dealer")} ${who(e.dealer)}`;
    case "draw": return null;
    case "discard": return `${who(e.seat)} ${t("log_discard")} ${tileLabel(e.tile, lang)}`;
    case "chow": case "pong": return `${who(e.seat)} ${t(`log_${e.type}`)} ${tileLabel(e.tile, lang)}`;
    case "kong": return `${who(e.seat)} ${t(`${e.kind}_kong`)}${e.tile ? ` ${tileLabel(e.tile, lang)}` : ""}`;
    case "win": return `${who(e.seat)} ${t(e.self_draw ? "log_self_draw" : "log_win")} ${e.score?.names?.zh || ""}`;
    case "hand_end": return e.result === "draw" ? t("draw_game") : null;
    case "escape": return t("escape", who(e.seat));
    case "match_end": return t("final");
    default: return null;
  }
}
