// Tiles drawn as SVG (RULES §1): dots and bamboo as shapes, characters and honours as
// large CJK glyphs.  The 财神 gets a gold frame and a 财 badge; in flip mode a white
// dragon that stands in for the 财神 kind (RULES §5.2) gets a dashed frame and shows
// "白" over the kind it plays as.

import { getLang } from "./i18n.js";

const NS = "http://www.w3.org/2000/svg";
const RANK_ZH = "一二三四五六七八九";
const HONOR_ZH = ["東", "南", "西", "北", "", "發", "中"];
const HONOR_PLAIN_ZH = ["东", "南", "西", "北", "白", "发", "中"];
// English names as players say them: "East Wind", "Red Dragon", "1 Dot", "2 Dots",
// "5 Characters", "7 Bamboo" (it read "1 dots" and "Red")
const HONOR_EN = ["East Wind", "South Wind", "West Wind", "North Wind", "White Dragon",
  "Green Dragon", "Red Dragon"];
const SUIT_ZH = { m: "万", p: "筒", s: "条" };
const SUIT_EN = { m: ["Character", "Characters"], p: ["Dot", "Dots"], s: ["Bamboo", "Bamboo"] };
const SUIT_ORDER = { m: 0, p: 1, s: 2, z: 3 };

// Positions on a 60×80 face, for 1–9 pips.
const PIPS = {
  1: [[30, 40]],
  2: [[30, 22], [30, 58]],
  3: [[16, 18], [30, 40], [44, 62]],
  4: [[18, 22], [42, 22], [18, 58], [42, 58]],
  5: [[18, 20], [42, 20], [30, 40], [18, 60], [42, 60]],
  6: [[19, 17], [41, 17], [19, 40], [41, 40], [19, 63], [41, 63]],
  7: [[15, 14], [30, 24], [45, 34], [19, 50], [41, 50], [19, 67], [41, 67]],
  8: [[19, 13], [41, 13], [19, 31], [41, 31], [19, 49], [41, 49], [19, 67], [41, 67]],
  9: [[15, 17], [30, 17], [45, 17], [15, 40], [30, 40], [45, 40], [15, 63], [30, 63], [45, 63]],
};
const DOT_COLORS = ["#1d4fa3", "#1f7a3a", "#c0282d"];

/** Split "5m" into {rank: 5, suit: "m"}. */
export function parseTile(name) {
  return { rank: Number(name[0]), suit: name[1] };
}

const HONOR_LETTERS = { E: "1z", S: "2z", W: "3z", N: "4z", P: "5z", F: "6z", C: "7z" };

/**
 * Tile names of a RULES §1.2 notation string, order kept: "4pP6p" → ["4p", "5z", "6p"]
 * (digits share the suit letter after them; E S W N P F C are single honours, `P` being
 * a white dragon, e.g. one standing in for the 财神 kind in a chow, RULES §5.2).
 */
export function parseNotation(text) {
  const out = [];
  let ranks = [];
  for (const ch of text) {
    if (ch >= "1" && ch <= "9") ranks.push(ch);
    else if ("mpsz".includes(ch)) {
      out.push(...ranks.map((r) => r + ch));
      ranks = [];
    } else if (HONOR_LETTERS[ch]) out.push(HONOR_LETTERS[ch]);
  }
  return out;
}

/** Sort key: suit order then rank; `caishen` tiles first, white stand-ins at the 财神 kind. */
export function tileKey(name, caishen, standIn) {
  if (caishen && name === caishen) return -1;
  const shown = standIn && name === "5z" && caishen ? caishen : name;
  const { rank, suit } = parseTile(shown);
  return SUIT_ORDER[suit] * 10 + rank + (shown !== name ? 0.5 : 0);
}

export function sortTiles(tiles, caishen, standIn) {
  return [...tiles].sort((a, b) => tileKey(a, caishen, standIn) - tileKey(b, caishen, standIn));
}

/** Human name of a tile: "五万" / "5 Characters"; in the UI's language if none is given. */
export function tileLabel(name, lang = getLang()) {
  const { rank, suit } = parseTile(name);
  if (suit === "z") return lang === "zh" ? HONOR_PLAIN_ZH[rank - 1] : HONOR_EN[rank - 1];
  return lang === "zh" ? RANK_ZH[rank - 1] + SUIT_ZH[suit]
    : `${rank} ${SUIT_EN[suit][rank === 1 ? 0 : 1]}`;
}

function el(tag, attrs, text) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

function glyph(svg, text, y, size, color) {
  svg.append(el("text", {
    x: 30, y, "font-size": size, fill: color, "text-anchor": "middle",
    "dominant-baseline": "central", "font-weight": 700,
    "font-family": "'Noto Serif CJK SC','Songti SC','SimSun','WenQuanYi Zen Hei',serif",
  }, text));
}

function drawDots(svg, rank) {
  const r = rank === 1 ? 17 : rank <= 4 ? 10 : rank <= 6 ? 8.5 : 7;
  PIPS[rank].forEach(([x, y], i) => {
    const color = rank === 1 ? DOT_COLORS[2] : DOT_COLORS[(i + rank) % 3];
    svg.append(el("circle", { cx: x, cy: y, r, fill: "none", stroke: color, "stroke-width": 3 }));
    svg.append(el("circle", { cx: x, cy: y, r: r * 0.38, fill: color }));
  });
}

function drawBamboo(svg, rank) {
  if (rank === 1) {
    svg.append(el("rect", { x: 22, y: 10, width: 16, height: 60, rx: 7, fill: "#1f7a3a" }));
    svg.append(el("circle", { cx: 30, cy: 24, r: 6, fill: "#c0282d" }));
    svg.append(el("line", { x1: 22, y1: 46, x2: 38, y2: 46, stroke: "#fff", "stroke-width": 2 }));
    return;
  }
  const h = rank <= 3 ? 28 : rank <= 6 ? 20 : 16;
  PIPS[rank].forEach(([x, y], i) => {
    const red = (rank === 5 && i === 2) || (rank === 7 && i === 0) || (rank === 9 && i % 3 === 1);
    const color = red ? "#c0282d" : "#1f7a3a";
    svg.append(el("rect", { x: x - 4, y: y - h / 2, width: 8, height: h, rx: 3.5, fill: color }));
    svg.append(el("line", { x1: x - 4, y1: y, x2: x + 4, y2: y, stroke: "#fff", "stroke-width": 1.5 }));
  });
}

const SUIT_FACE = { m: ["萬", "#c0282d"], p: ["筒", "#1d4fa3"], s: ["條", "#1f7a3a"] };

/**
 * A white dragon standing in for the 财神 kind (RULES §5.2): the white dragon's blue
 * frame, a blue band reading 白, and the kind it plays as written large below ("五/萬",
 * "東"), all inside the face so it still reads at phone width.
 */
function drawStandIn(svg, kind) {
  svg.append(el("rect", { x: 4, y: 4, width: 52, height: 72, rx: 5, fill: "none",
    stroke: "#1d4fa3", "stroke-width": 3.5 }));
  svg.append(el("path", { d: "M4 9a5 5 0 0 1 5-5h42a5 5 0 0 1 5 5v12H4z", fill: "#1d4fa3" }));
  svg.append(el("text", { x: 30, y: 13.5, "font-size": 14, fill: "#fff", "text-anchor": "middle",
    "dominant-baseline": "central", "font-weight": 700,
    "font-family": "'Noto Sans CJK SC','WenQuanYi Zen Hei',sans-serif" }, "白"));
  const { rank, suit } = parseTile(kind);
  if (suit === "z") {
    const color = rank === 6 ? "#1f7a3a" : rank === 7 ? "#c0282d" : "#111";
    glyph(svg, HONOR_ZH[rank - 1], 49, 32, color);
    return;
  }
  const [ch, color] = SUIT_FACE[suit];
  glyph(svg, RANK_ZH[rank - 1], 36, 24, "#111");
  glyph(svg, ch, 61, 24, color);
}

function drawFace(svg, name) {
  const { rank, suit } = parseTile(name);
  if (suit === "p") drawDots(svg, rank);
  else if (suit === "s") drawBamboo(svg, rank);
  else if (suit === "m") {
    glyph(svg, RANK_ZH[rank - 1], 24, 30, "#111");
    glyph(svg, "萬", 58, 30, "#c0282d");
  } else if (rank === 5) {
    svg.append(el("rect", { x: 12, y: 12, width: 36, height: 56, rx: 3, fill: "none",
      stroke: "#1d4fa3", "stroke-width": 4 }));
  } else {
    const color = rank === 6 ? "#1f7a3a" : rank === 7 ? "#c0282d" : "#111";
    glyph(svg, HONOR_ZH[rank - 1], 40, 40, color);
  }
  if (suit !== "z") {
    svg.append(el("text", { x: 4, y: 11, "font-size": 11, fill: "#555", "font-family": "sans-serif",
      "font-weight": 700 }, String(rank)));
  }
}

/**
 * A tile element.  opts: {caishen, standIn, small, back, claimed, lang}.
 * `caishen` is the 财神 kind name; `standIn` true when white dragons play as it (flip mode).
 */
export function tileElement(name, opts = {}) {
  const box = document.createElement("span");
  box.className = "tile" + (opts.small ? " small" : "") + (opts.large ? " large" : "");
  const svg = el("svg", { viewBox: "0 0 60 80", "aria-hidden": "true" });
  if (!name || opts.back) {
    box.classList.add("back");
    svg.append(el("rect", { x: 1, y: 1, width: 58, height: 78, rx: 7, fill: "#2a7a62",
      stroke: "#1b5141", "stroke-width": 2 }));
    box.append(svg);
    box.setAttribute("aria-label", "?");
    return box;
  }
  svg.append(el("rect", { x: 1, y: 1, width: 58, height: 78, rx: 7, fill: "#fbf8ef",
    stroke: "#8c8676", "stroke-width": 2 }));
  const standIn = Boolean(opts.standIn && opts.caishen && name === "5z" && opts.caishen !== "5z");
  if (standIn) drawStandIn(svg, opts.caishen);
  else drawFace(svg, name);
  box.append(svg);
  box.dataset.tile = name;
  const lang = opts.lang || getLang();
  let label = tileLabel(name, lang);
  if (opts.caishen && name === opts.caishen) {
    box.classList.add("caishen");
    const badge = document.createElement("span");
    badge.className = "badge cs";
    badge.textContent = "财";
    box.append(badge);
    label += lang === "zh" ? "（财神）" : " (wild)";
  } else if (standIn) {
    box.classList.add("standin");
    box.dataset.standsFor = opts.caishen;
    label = lang === "zh" ? `白板=${tileLabel(opts.caishen, "zh")}`
      : `White Dragon = ${tileLabel(opts.caishen, "en")}`;
  }
  if (opts.claimed) box.classList.add("claimed");
  box.title = label;
  box.setAttribute("aria-label", label);
  return box;
}
