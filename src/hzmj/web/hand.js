// The own seat's hand and action bars: select and discard tiles by mouse, touch or
// keyboard; 胡 / 杠 / 碰 / 吃 / 过 as one-click buttons, one per choice.

import { bi, getLang, pointsText, t } from "./i18n.js";
import {
  discardsElement, h, meldElement, presenceChips, ratingChip, seatBadges, seatLabels, seatName,
  tileOpts, turnChip,
} from "./render.js";
import { sortTiles, tileElement, tileLabel } from "./tiles.js";

const CLAIM_ORDER = ["win", "kong", "pong", "chow", "pass"];
const KEYS = { win: "h", kong: "g", pong: "p", chow: "c", pass: "Escape" };

/** The own hand, sorted, with the drawn tile set apart (it is also inside `hand`). */
export function splitHand(board) {
  const p = board.players[board.seat];
  const opts = tileOpts(board);
  const hand = [...(p.hand || [])];
  let drawn = null;
  if (p.last_draw && hand.includes(p.last_draw)) {
    hand.splice(hand.indexOf(p.last_draw), 1);
    drawn = p.last_draw;
  }
  const tiles = sortTiles(hand, board.caishen, opts.standIn);
  return drawn ? [...tiles, drawn] : tiles;
}

function actionLabel(a) {
  if (a.type === "kong") return `${t("kong")} · ${bi({ concealed: "暗杠", added: "补杠", exposed: "明杠" }[a.kind])}`;
  return t(a.type);
}

/**
 * Own area: info line, melds, hand tiles and the action bar.
 * ctx: {board, names, actions, selected, hints, onSelect, onDiscard, onAction, onHover,
 *   tools, hintPanel (a landscape phone's toolbar and hints, in your area)}
 */
export function ownArea(ctx) {
  const { board, names, actions } = ctx;
  const me = board.seat;
  const p = board.players[me];
  const discardable = new Set(actions.filter((a) => a.type === "discard").map((a) => a.tile));
  const tiles = splitHand(board);
  // the tile the clock would discard (RULES §8.7): the prompt's last action
  const last = actions[actions.length - 1];
  const clockTile = last?.type === "discard" ? tiles.lastIndexOf(last.tile) : -1;
  const drawnIndex = p.last_draw ? tiles.length - 1 : -1;
  const opts = tileOpts(board);
  const handRow = h("div.hand", { role: "listbox", "aria-label": "hand", tabindex: "0" },
    tiles.map((name, i) => {
      const node = tileElement(name, opts);
      node.classList.add("hand-tile");
      node.dataset.index = i;
      node.tabIndex = -1;
      if (i === drawnIndex) node.classList.add("drawn");
      if (discardable.has(name)) node.classList.add("playable");
      if (i === clockTile) node.classList.add("default");
      if (ctx.selected === i) node.classList.add("selected");
      if (ctx.hints?.byTile?.[name]?.best) node.classList.add("best");
      node.addEventListener("click", () => ctx.onSelect(i, name, { click: true }));
      node.addEventListener("dblclick", () => ctx.onDiscard(name));
      node.addEventListener("mouseenter", () => ctx.onHover(name));
      node.addEventListener("mouseleave", () => ctx.onHover(null));
      let timer = null;
      node.addEventListener("touchstart", () => {
        timer = setTimeout(() => ctx.onHover(name), 450);
      }, { passive: true });
      node.addEventListener("touchend", () => clearTimeout(timer));
      return node;
    }));
  const melds = h("div.row.melds.own-melds", {}, p.melds.map((m) => meldElement(board, m, names)));
  const active = actions.length > 0 || (board.turn === me && board.phase === "turn");
  return h(`section.own-area.seat.own${active ? ".active" : ""}`,
    { dataset: { seat: me }, "aria-label": `${seatName(names, me)} (${t("you")})` },
    h("div.seat-head", {}, h("span.seat-pos.you", {}, t("you_chip")), ...seatLabels(board, me, me),
      h("span.seat-name", {}, seatName(names, me)), ratingChip(names, me),
      h("span.points", {}, pointsText(p.points)), ...seatBadges(board, me),
      ...presenceChips(ctx.presence), turnChip(board, me), ctx.tools || null),
    discardsElement(board, me),
    h("div.countdown", { hidden: true }, h("div.bar"), h("span.secs")),
    h("div.hand-row", {}, melds, handRow),
    actionBar(ctx), ctx.hintPanel || null);
}

function groupClaims(actions) {
  const groups = new Map();
  for (const a of actions) {
    if (a.type === "discard") continue;
    if (!groups.has(a.type)) groups.set(a.type, []);
    groups.get(a.type).push(a);
  }
  return CLAIM_ORDER.filter((k) => groups.has(k)).map((k) => [k, groups.get(k)]);
}

/** Buttons for every non-discard action: several chows or kongs get one button each. */
function actionBar(ctx) {
  const { board, actions } = ctx;
  const groups = groupClaims(actions);
  if (!groups.length) {
    // nothing to claim: on the own turn, say how to discard; otherwise nothing at all
    return actions.length ? h("p.turn-help", {}, t("your_turn_help")) : null;
  }
  const opts = tileOpts(board, { small: true });
  const buttons = [];
  for (const [type, list] of groups) {
    for (const a of list) {
      // every claim names its tile; a chow shows the run it makes (RULES §6.3)
      const claimed = board.claim?.tile;
      const tiles = type === "chow" ? [...a.tiles, claimed].filter(Boolean)
        : type === "kong" ? [a.tile] : type === "pass" ? [] : [claimed].filter(Boolean);
      buttons.push(h(`button.claim.claim-${type}`, {
        onclick: () => ctx.onAction(a),
        title: list.length === 1 ? `${actionLabel(a)} [${KEYS[type]}]` : actionLabel(a),
        dataset: { action: type },
      }, h("span.claim-label", {}, type === "kong" && list.length > 1 ? actionLabel(a) : t(type)),
      tiles.length
        ? h("span.claim-tiles", {}, markTaken(sortTiles(tiles, board.caishen, opts.standIn)
          .map((x) => tileElement(x, opts)), type === "kong" ? null : claimed)) : null));
    }
  }
  // the discard being claimed, large, with whose it is and the window's clock (RULES §6.3)
  const claim = board.claim && actions.some((a) => a.type === "pass")
    ? h("div.claim-offer", {},
      tileElement(board.claim.tile, { ...tileOpts(board), large: true }),
      h("span.claim-text", {}, t("claim_on", seatName(ctx.names, board.claim.from),
        tileLabel(board.claim.tile, getLang()))),
      ctx.deadline ? h("span.claim-clock", { dataset: { deadline: ctx.deadline } }) : null)
    : null;
  return h("div.claim-bar", { role: "toolbar" }, claim, h("div.claim-buttons", {}, buttons));
}

/** Mark the first tile of `nodes` that is the claimed discard `claimed` (null: none). */
function markTaken(nodes, claimed) {
  const taken = claimed && nodes.find((n) => n.dataset.tile === claimed);
  if (taken) taken.classList.add("taken");
  return nodes;
}

/** Keyboard: arrows move, Enter / Space discard, 1–9 and 0 pick a tile, h g p c Esc claim. */
export function handleKey(ev, ctx) {
  const { actions } = ctx;
  const tiles = splitHand(ctx.board);
  const groups = new Map(groupClaims(actions));
  const claimKey = Object.entries(KEYS).find(([, k]) => k === ev.key);
  if (claimKey && groups.has(claimKey[0]) && groups.get(claimKey[0]).length >= 1) {
    ctx.onAction(groups.get(claimKey[0])[0]);
    return true;
  }
  if (!actions.some((a) => a.type === "discard")) return false;
  let sel = ctx.selected ?? tiles.length - 1;
  if (ev.key === "ArrowLeft") sel = Math.max(0, sel - 1);
  else if (ev.key === "ArrowRight") sel = Math.min(tiles.length - 1, sel + 1);
  else if (ev.key === "Enter" || ev.key === " ") {
    if (ctx.selected !== null && tiles[ctx.selected]) ctx.onDiscard(tiles[ctx.selected]);
    return true;
  } else if (/^[0-9]$/.test(ev.key)) {
    const i = ev.key === "0" ? 9 : Number(ev.key) - 1;
    if (!tiles[i]) return false;
    ctx.onSelect(i, tiles[i], { click: true });
    return true;
  } else return false;
  ctx.onSelect(sel, tiles[sel], { click: false });
  return true;
}
