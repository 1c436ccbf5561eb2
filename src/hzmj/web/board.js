// The table as one seat sees it, rebuilt from a view (snapshot) and the events that
// follow (docs/engine-api.md).  The live table and the replay page both use it; the
// replay feeds it full events, so every hand is known there.

function player(i) {
  return {
    seat: i, points: 0, dealer: false, concealed_count: 0, melds: [], discards: [],
    chain: [], auto: false, hand: null, last_draw: null, revealed: null,
  };
}

/** An empty board for `n` players seen by `seat` (null: spectator or replay). */
export function emptyBoard(n, seat) {
  return {
    seat, n, rules: null, hand_no: 0, hands_total: null, dealer: 0, level: 1, dice: [],
    caishen: null, indicator: null, live: 0, turn: null, phase: "waiting", lock: null,
    claim: null, over: false, players: Array.from({ length: n }, (_, i) => player(i)),
    win: null, handEnd: null, matchEnd: null, last: null, history: [],
  };
}

/** Board from a server view (`m.view(seat)`). */
export function boardFromView(view) {
  const b = emptyBoard(view.players.length, view.seat);
  Object.assign(b, {
    rules: view.rules, hand_no: view.hand_no, hands_total: view.hands_total,
    dealer: view.dealer, level: view.level, dice: view.dice, caishen: view.caishen,
    indicator: view.indicator, live: view.live, turn: view.turn, phase: view.phase,
    lock: view.lock, claim: view.claim, over: view.over,
  });
  b.players = view.players.map((p, i) => ({
    ...player(i), ...p,
    melds: p.melds.map((m) => ({ ...m, tiles: m.tiles ? [...m.tiles] : null })),
    discards: p.discards.map((d) => ({ ...d })),
    hand: i === view.seat && view.hand ? [...view.hand] : null,
    last_draw: i === view.seat ? view.last_draw : null,
  }));
  return b;
}

function removeTiles(p, tiles) {
  if (!p.hand) return;
  for (const t of tiles) {
    const i = p.hand.indexOf(t);
    if (i >= 0) p.hand.splice(i, 1);
  }
}

function markClaimed(b, from, by) {
  const ds = b.players[from]?.discards;
  if (ds && ds.length) ds[ds.length - 1].claimed_by = by;
}

function takeTurn(b, seat) {
  b.turn = seat;
  b.phase = "turn";
  b.claim = null;
  b.players.forEach((p) => {
    p.last_draw = null;
  });
}

const HANDLERS = {
  match_start(b, e) {
    b.rules = e.rules;
    e.points.forEach((pts, i) => {
      b.players[i].points = pts;
    });
    b.hands_total = e.rules.match_mode === "hands" ? e.rules.hands : null;
  },
  hand_start(b, e) {
    Object.assign(b, {
      hand_no: e.hand_no, dealer: e.dealer, level: e.level, dice: e.dice, caishen: e.caishen,
      indicator: e.indicator, live: e.live, turn: e.dealer, phase: "turn", lock: null,
      claim: null, win: null, handEnd: null,
    });
    b.players = b.players.map((old, i) => ({
      ...player(i), auto: old.auto, points: e.points[i], dealer: i === e.dealer,
      concealed_count: i === e.dealer ? 14 : 13,
      hand: e.hands[i] ? [...e.hands[i]] : null,
    }));
  },
  draw(b, e) {
    takeTurn(b, e.seat);
    const p = b.players[e.seat];
    p.concealed_count += 1;
    if (e.tile && p.hand) p.hand.push(e.tile);
    p.last_draw = e.tile;
    b.live = e.live;
  },
  discard(b, e) {
    const p = b.players[e.seat];
    removeTiles(p, [e.tile]);
    p.concealed_count -= 1;
    p.last_draw = null;
    p.discards.push({ tile: e.tile, claimed_by: null });
    // RULES §8.2: the chain runs until a non-财神 discard
    p.chain = e.caishen ? [...p.chain, "piao"] : [];
    b.lock = e.lock;
    b.turn = e.seat;
    b.claim = e.caishen ? null : { tile: e.tile, from: e.seat };
    b.phase = "claim";
  },
  chow(b, e) {
    HANDLERS.pong(b, e);
  },
  pong(b, e) {
    const p = b.players[e.seat];
    const own = [...e.tiles];
    own.splice(own.indexOf(e.tile), 1);
    removeTiles(p, own);
    p.concealed_count -= own.length;
    p.melds.push({ type: e.type, tiles: [...e.tiles], from: e.from, claimed: e.tile });
    markClaimed(b, e.from, e.seat);
    takeTurn(b, e.seat);
  },
  kong(b, e) {
    const p = b.players[e.seat];
    p.chain = [...p.chain, "kong"];
    if (e.kind === "exposed") {
      removeTiles(p, [e.tile, e.tile, e.tile]);
      p.concealed_count -= 3;
      p.melds.push({ type: "exposed_kong", tiles: Array(4).fill(e.tile), from: e.from, claimed: e.tile });
      markClaimed(b, e.from, e.seat);
    } else if (e.kind === "added") {
      removeTiles(p, [e.tile]);
      p.concealed_count -= 1;
      const m = p.melds.find((x) => x.type === "pong" && x.tiles.includes(e.tile));
      if (m) {
        m.type = "added_kong";
        m.tiles.push(e.tile);
      }
    } else {
      if (e.tile) removeTiles(p, Array(4).fill(e.tile));
      p.concealed_count -= 4;
      p.melds.push({ type: "concealed_kong", tiles: e.tile ? Array(4).fill(e.tile) : null,
        from: null, claimed: null });
    }
    takeTurn(b, e.seat);
  },
  kong_shown(b, e) {
    const m = b.players[e.seat].melds.find((x) => x.type === "concealed_kong" && !x.tiles);
    if (m) m.tiles = Array(4).fill(e.tile);
  },
  win(b, e) {
    b.win = e;
  },
  hand_end(b, e) {
    b.handEnd = { ...e, win: b.win, caishen: b.caishen };
    b.history = [...b.history.filter((x) => x.hand_no !== e.hand_no), b.handEnd];
    b.phase = "over";
    b.claim = null;
    e.points.forEach((pts, i) => {
      b.players[i].points = pts;
      b.players[i].revealed = e.hands[i];
    });
  },
  escape(b, e) {
    b.players[e.seat].auto = true;
    e.points.forEach((pts, i) => {
      b.players[i].points = pts;
    });
  },
  match_end(b, e) {
    b.matchEnd = e;
    b.over = true;
    b.phase = "over";
  },
};

/** The board after each of a replay's `steps` (`{events}`), from an empty one.  The history
 * is shared, not copied: applyEvent replaces it, never changes it (a copy per step held
 * every hand's result thousands of times: a 200-hand replay hung the tab). */
export function buildBoards(steps, n) {
  const boards = [];
  let b = emptyBoard(n, null);
  for (const s of steps) {
    const { history } = b;
    b = structuredClone({ ...b, history: null });
    b.history = history;
    for (const e of s.events) applyEvent(b, e);
    boards.push(b);
  }
  return boards;
}

/** Apply one (redacted or full) event to the board in place. */
export function applyEvent(b, e) {
  const h = HANDLERS[e.type];
  if (h) h(b, e);
  b.last = e;
  b.lastAt = Date.now();
}
