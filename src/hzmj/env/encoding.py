"""Fixed-size encodings of actions and per-seat views for learning agents.

Actions map to ``ACTION_SIZE`` = 74 indices:

=========  ==============================================================
index      action
=========  ==============================================================
0–33       discard a tile of that kind
34         win (self-draw, or on the open discard)
35–68      kong of kind ``index − 35`` (concealed, added or exposed: at most
           one kind of kong per tile is ever legal at once)
69         pong
70–72      chow with the claimed tile lowest, middle or highest in the run
73         pass
=========  ==============================================================

Observations are ``float32`` arrays of shape ``OBS_SHAPE`` = (14, 34) of what one seat
may see (RULES §13), seats relative to the observer (row offset 0 = self).
:func:`encode_match` reads them straight from the engine state (the environments use it);
:func:`encode_view` builds the same array from a ``Match.view(seat)`` dict (for clients
that only hold views).  The rows:

* 0 own concealed counts; 1 own drawn tile; 2 财神 kind; 3 flipped indicator;
* 4–7 discards of self, 下家, 对家, 上家; 8–11 their visible meld tiles;
* 12 the open discard during a claim window;
* 13 scalars: [0] live tiles / 100, [1] dealer level / 3, [2–5] dealer (relative),
  [6–9] 财神-lock holder (relative), [10] own turn, [11] claim window,
  [12] own 飘 count in chain, [13] own kongs in chain, [14] players / 4.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

import numpy as np
import numpy.typing as npt

from hzmj.events import Action, Chow, Discard, Kong, Pass, Pong, Win
from hzmj.hand import plays_as
from hzmj.tiles import NUM_KINDS, Tile, tile

if TYPE_CHECKING:
    from hzmj.game import Match

ACTION_SIZE: Final = 74
OBS_SHAPE: Final = (14, NUM_KINDS)
_WIN: Final = 34
_KONG: Final = 35
_PONG: Final = 69
_CHOW: Final = 70
_PASS: Final = 73


def action_index(action: Action, caishen: int, claimed: int | None) -> int:
    """The index of an engine action (see the module table).  ``claimed`` is the open
    discard's kind (needed for chows).  ``ValueError`` for an action with no index."""
    if isinstance(action, Discard):
        return action.tile
    if isinstance(action, Win):
        return _WIN
    if isinstance(action, Kong):
        return _KONG + action.tile
    if isinstance(action, Pong):
        return _PONG
    if isinstance(action, Pass):
        return _PASS
    if isinstance(action, Chow):
        if claimed is None:
            raise ValueError("a chow needs the claimed tile")
        kinds = [plays_as(t, caishen) for t in (*action.tiles, claimed)]
        nat = [k for k in kinds if k is not None]
        return _CHOW + (nat[-1] - min(nat))
    raise ValueError(f"{action.type} has no action index")


def legal_index_map(legal: Sequence[Action], view: dict[str, Any]) -> dict[int, Action]:
    """Index → legal action for one decision, reading the 财神 and the claim from a view."""
    claim = view.get("claim")
    return index_map(legal, tile(view["caishen"]), tile(claim["tile"]) if claim else None)


def index_map(legal: Sequence[Action], caishen: Tile, claimed: Tile | None) -> dict[int, Action]:
    """Index → legal action for one decision (``claimed``: the open discard, if any)."""
    out: dict[int, Action] = {}
    for a in legal:  # discards are most of them: their index is their tile
        out[a.tile if type(a) is Discard else action_index(a, caishen, claimed)] = a
    return out


def match_index_map(match: Match, seat: int) -> dict[int, Action]:
    """Index → legal action of ``seat`` now, read from the engine state."""
    claimed = match.claim_tile if match.phase == "claim" else None
    return index_map(match.legal_actions(seat), match.caishen, claimed)


def action_mask(index_map: dict[int, Action]) -> npt.NDArray[np.int8]:
    """The ``int8`` mask (length ``ACTION_SIZE``) of the indices of ``index_map``."""
    buf = bytearray(ACTION_SIZE)
    for i in index_map:
        buf[i] = 1
    return np.frombuffer(buf, dtype=np.int8)


def action_masks(index_maps: Sequence[dict[int, Action]]) -> npt.NDArray[np.int8]:
    """:func:`action_mask` of every map, stacked: shape ``(len(index_maps), ACTION_SIZE)``."""
    buf = bytearray(ACTION_SIZE * len(index_maps))  # item sets in Python beat a fancy index
    for row, index_map in enumerate(index_maps):
        base = row * ACTION_SIZE
        for i in index_map:
            buf[base + i] = 1
    return np.frombuffer(buf, dtype=np.int8).reshape(len(index_maps), ACTION_SIZE)


def encode_view(view: dict[str, Any]) -> npt.NDArray[np.float32]:
    """The observation array of a seat's view (see the module docstring)."""
    obs = np.zeros(OBS_SHAPE, dtype=np.float32)
    seat = int(view["seat"])
    players = view["players"]
    n = len(players)
    for name in view["hand"] or ():
        obs[0, tile(name)] += 1
    if view.get("last_draw"):
        obs[1, tile(view["last_draw"])] = 1
    obs[2, tile(view["caishen"])] = 1
    if view.get("indicator"):
        obs[3, tile(view["indicator"])] = 1
    for p in players:
        rel = (p["seat"] - seat) % n
        for d in p["discards"]:
            obs[4 + rel, tile(d["tile"])] += 1
        for m in p["melds"]:
            for name in m["tiles"] or ():
                obs[8 + rel, tile(name)] += 1
    if view.get("claim"):
        obs[12, tile(view["claim"]["tile"])] = 1
    s = obs[13]
    s[0] = view["live"] / 100
    s[1] = view["level"] / 3
    s[2 + (view["dealer"] - seat) % n] = 1
    if view.get("lock") is not None:
        s[6 + (view["lock"] - seat) % n] = 1
    s[10] = float(view["phase"] == "turn" and view["turn"] == seat)
    s[11] = float(view["phase"] == "claim")
    chain = players[seat]["chain"]
    s[12] = chain.count("piao")
    s[13] = chain.count("kong")
    s[14] = n / 4
    return obs


_ROW: Final = NUM_KINDS
_OBS_SIZE: Final = OBS_SHAPE[0] * _ROW
_SCALARS: Final = 13 * _ROW  # flat index of row 13
_SCALED: Final = [_SCALARS, _SCALARS + 1, _SCALARS + 14]  # where _scaled's values go


def encode_match(match: Match, seat: int) -> npt.NDArray[np.float32]:
    """The observation array of ``seat`` read from the engine state: equal to
    ``encode_view(match.view(seat))`` (tests/test_env_state.py proves it on over 100k
    observations) without building the view.  Reads only what the seat may see (RULES
    §13): its own concealed tiles and draw, every discard, the melds others have shown."""
    idx = _counted(match, seat)
    flat = np.fromiter(idx, dtype=np.intp, count=len(idx))  # much faster than from a list
    obs = np.bincount(flat, minlength=_OBS_SIZE).astype(np.float32)
    live, level, players = _scaled(match)
    obs[_SCALARS] = live  # three item sets: a third of one fancy-index assignment
    obs[_SCALARS + 1] = level
    obs[_SCALARS + 14] = players
    return obs.reshape(OBS_SHAPE)


def encode_matches(matches: Sequence[Match], seats: Sequence[int]) -> npt.NDArray[np.float32]:
    """:func:`encode_match` of ``(matches[i], seats[i])`` for every ``i``, stacked: shape
    ``(len(matches), *OBS_SHAPE)``, built with a handful of numpy calls for the batch."""
    counted = [_counted(m, s) for m, s in zip(matches, seats, strict=True)]
    sizes = [len(c) for c in counted]
    flat = np.fromiter(itertools.chain.from_iterable(counted), dtype=np.intp, count=sum(sizes))
    flat += np.repeat(np.arange(len(matches), dtype=np.intp) * _OBS_SIZE, sizes)
    obs = np.bincount(flat, minlength=len(matches) * _OBS_SIZE).astype(np.float32)
    obs = obs.reshape(len(matches), _OBS_SIZE)
    obs[:, _SCALED] = [_scaled(m) for m in matches]
    return obs.reshape(len(matches), *OBS_SHAPE)


def _scaled(match: Match) -> tuple[float, float, float]:
    """Row 13's fractional scalars: live tiles / 100, dealer level / 3, players / 4."""
    return match.live_count / 100, match.level / 3, match.n / 4


def _counted(match: Match, seat: int) -> list[int]:
    """Flat indices into one observation of everything it counts (a kind seen twice is
    listed twice), including the 0/1 and count scalars of row 13."""
    n = match.n
    seats = match.seats
    me = seats[seat]
    idx = list(me.concealed)
    over = match.over
    in_turn = not over and match.phase == "turn"
    if in_turn and match.turn == seat and match.last_draw is not None:
        idx.append(_ROW + match.last_draw)
    idx.append(2 * _ROW + match.caishen)
    if match.indicator is not None:
        idx.append(3 * _ROW + match.indicator)
    for i, st in enumerate(seats):
        rel = (i - seat) % n
        base = (4 + rel) * _ROW
        idx += [base + t for t, _ in st.discards]
        base = (8 + rel) * _ROW
        hidden = st.hidden_kongs if i != seat else ()
        for k, m in enumerate(st.melds):
            if k not in hidden:
                idx += [base + t for t in m.physical_tiles]
    in_claim = not over and match.phase == "claim"
    if in_claim and match.claim_tile is not None:
        idx.append(12 * _ROW + match.claim_tile)
    idx.append(_SCALARS + 2 + (match.dealer - seat) % n)
    if match.lock is not None:
        idx.append(_SCALARS + 6 + (match.lock - seat) % n)
    if in_turn and match.turn == seat:
        idx.append(_SCALARS + 10)
    if in_claim:
        idx.append(_SCALARS + 11)
    for step in me.chain:
        if step == "piao":
            idx.append(_SCALARS + 12)
        elif step == "kong":
            idx.append(_SCALARS + 13)
    return idx
