"""The efficiency bot: lowest shanten, most useful tiles left unseen, Hangzhou-aware.

Per decision (its view only, RULES §13):

* **win** whenever a win is legal, except when 财飘 pays more (below);
* **财飘** (RULES §9.1): with a win available, or not, it discards a 财神 only when the 13
  tiles left are still 爆头-ready (any next draw wins as 财飘, M = 2^(1+k+p)) and the
  expected gain, ``P(next own draw comes) × M_piao − (1 − P) × 1``, beats the win now;
* otherwise it **keeps every 财神** (a discarded 财神 helps nobody and costs a wildcard);
* **discards** the tile leaving the lowest shanten, then the most useful draws weighted
  by unseen copies (at shanten 0 each winning draw is weighted by its multiplier, so a
  爆头-ready hand, which wins on every draw at M=2, is preferred), then the tile that
  cannot feed a third 摊 to a player who already took two from it (RULES §10.4: 承包 would
  make it pay for everyone);
* **claims** a chow, pong or exposed kong only when it lowers the shanten, or keeps it and
  gives more useful tiles; a win on a discard is always taken;
* **declares kongs** when the shanten does not get worse (a kong gives a replacement draw
  and a chance of 杠开).

The locks and claim limits need no code: the engine only offers legal actions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from hzmj.bots import analysis as an
from hzmj.bots.base import Candidate, ExplainingBot, top_with
from hzmj.bots.seat import SeatInfo, read_seat, remove_tiles
from hzmj.events import Action, Chow, Discard, Kong, Pass, Pong, Win
from hzmj.hand import split_wilds
from hzmj.scoring import discard_win_allowed, score_hand, tan_limit
from hzmj.shown import counted
from hzmj.tiles import Hand, Meld, MeldKind, Tile, format_tiles

OTHER_WIN_PER_DRAW = 0.05
"""Rough chance that one opponent's draw ends the hand (a self-drawn win)."""

FEED_PENALTY = 4.0
"""Useful-tile equivalent of the risk of feeding a third 摊 (RULES §10.4)."""

DANGER_PENALTY = 30.0
"""Useful-tile equivalent of a sure discard win at the dealer's level 3 (RULES §8.4):
well below one step of shanten, so a safer discard is taken only when it costs little."""

SHANTEN_WEIGHT = 1000.0
"""Candidate values: ``-SHANTEN_WEIGHT × shanten + weighted useful tiles``."""

TOP = 5
WIN_VALUE = 1e6
"""Candidate value of a win (plus its M), above any discard."""


@dataclass(frozen=True, slots=True)
class HandValue:
    """A 13-tile state's shanten, its useful draws weighted by unseen copies (times the
    multiplier at shanten 0) and the raw count of those copies."""

    shanten: int
    weighted: float
    tiles: int

    @property
    def score(self) -> float:
        """Ranking score: useful tiles (weighted) less ``SHANTEN_WEIGHT`` a shanten."""
        return -SHANTEN_WEIGHT * self.shanten + self.weighted

    def describe(self) -> str:
        """``"shanten 1, 12 useful tiles unseen"``: the hint's words."""
        what = "winning" if self.shanten == 0 else "useful"
        return f"shanten {self.shanten}, {counted(self.tiles, what + ' tile')} unseen"


def value_of(state: an.State, info: SeatInfo) -> HandValue:
    """Shanten and useful tiles of a 13-tile state, as the seat sees the table."""
    s = an.shanten(state)
    if s < 0:
        return HandValue(s, 0.0, 0)
    weighted = 0.0
    tiles = 0
    must = info.rules.must_baotou_with_caishen
    for d in an.useful(state):
        left = info.unseen[an.physical(d, info.caishen)]
        if not left:
            continue
        tiles += left
        weighted += left * (an.win_multiplier(state, d, must) if s == 0 else 1)
    return HandValue(s, weighted, tiles)


def hand_state(info: SeatInfo, concealed: Sequence[Tile] | None = None,
               extra_melds: int = 0) -> an.State:
    """The seat's :data:`analysis.State` (its concealed tiles, or ``concealed``), with
    ``extra_melds`` more declared sets (a claim being valued)."""
    counts, wilds = split_wilds(info.concealed if concealed is None else concealed,
                                info.caishen)
    return an.state_of(counts, wilds, info.melds + extra_melds)


def own_hand(info: SeatInfo, concealed: Sequence[Tile]) -> Hand:
    """A :class:`Hand` for scoring: the real tiles of the melds do not change M, only
    their number (RULES §9.1), so any valid meld stands in for each."""
    return Hand(tuple(concealed), (Meld(MeldKind.PONG, (0, 0, 0)),) * info.melds)


def current_win_multiplier(info: SeatInfo) -> int:
    """M of the self-drawn win on offer now (RULES §9; the dealer's dealt hand may take
    any tile as the winning one, §4.7)."""
    winners = [info.last_draw] if info.last_draw is not None else sorted(set(info.concealed))
    best = 0
    for w in winners:
        rest = remove_tiles(info.concealed, [w])
        sc = score_hand(own_hand(info, rest), w, info.caishen, info.chain, info.rules)
        best = max(best, sc.multiplier)
    return best


def reach_probability(info: SeatInfo) -> float:
    """Chance that the seat's next own draw comes: the live wall lasts a go-around and no
    opponent self-draws first (under the 财神 lock they can only self-draw, RULES §5.5)."""
    if info.live < info.players:
        return 0.0
    return float((1 - OTHER_WIN_PER_DRAW) ** (info.players - 1))


def piao_value(info: SeatInfo) -> float | None:
    """Expected value of discarding a 财神 for 财飘 now (RULES §9.1), or ``None`` when the
    hand would not stay 爆头-ready (RULES §7.3) or holds no 财神."""
    if info.caishen not in info.concealed:
        return None
    state = hand_state(info, remove_tiles(info.concealed, [info.caishen]))
    if not an.baotou_ready(state):
        return None
    kongs = info.chain.count("kong")
    piao = info.chain.count("piao") + 1
    p = reach_probability(info)
    return p * (1 << (1 + kongs + piao)) - (1 - p)


def third_tan_takers(info: SeatInfo) -> list[int]:
    """Seats holding two 摊 from this seat that may take a third (RULES §6.5: not between
    non-dealers while the dealer is at level 2 or 3, nor without the contract rule)."""
    return [taker for (taker, giver), n in info.tan.items()
            if giver == info.seat and n == 2
            and tan_limit(info.rules, taker=taker, giver=giver, dealer=info.dealer,
                          level=info.level) is None]


def feeds_third_tan(info: SeatInfo, t: Tile) -> bool:
    """Whether discarding ``t`` could give some player a third 摊 from this seat, making
    this seat liable for the whole payment if that player wins (RULES §6.5, §10.4)."""
    if not info.rules.three_tan_contract or t == info.caishen:
        return False
    for taker in third_tan_takers(info):
        if info.unseen[t] >= 2 and info.rules.pong_counts_as_tan:
            return True
        nat = an.natural(t, info.caishen)
        if taker == (info.seat + 1) % info.players and 0 <= nat < 27:
            return True
    return False


def discard_danger(info: SeatInfo, t: Tile) -> float:
    """A rough chance (0…1) that discarding ``t`` is won on at the dealer's level 3
    (RULES §8.4): the discarder then pays the whole ``T`` at dealer factor 8 (§10.5).

    Per seat allowed to win on this discard: how ready it looks (its declared sets, how
    long the hand has run) times how likely ``t`` is among its waits (less for a kind it
    threw away itself, an honour nobody can pair any more, or a terminal).  0 without the
    option, below level 3, for a 财神 (never won on, §5.4) or under another's lock.
    """
    if not info.rules.discard_win or info.level != 3 or t == info.caishen:
        return 0.0
    nat = an.natural(t, info.caishen)
    danger = 0.0
    for o in range(info.players):
        if o == info.seat or not discard_win_allowed(info.rules, winner=o, discarder=info.seat,
                                                     dealer=info.dealer, level=info.level):
            continue
        if info.lock is not None and info.lock not in (o, info.seat):
            continue  # RULES §5.5: the lock binds o; our discard keeps it
        shown = info.shown[o] if info.shown else 0
        turns = len(info.discarded[o]) if info.discarded else 0
        ready = min(0.9, 0.05 + 0.15 * shown + 0.03 * turns)
        if info.discarded and t in info.discarded[o]:
            fit = 0.3
        elif nat >= 27:
            fit = 0.2 if info.unseen[t] <= 1 else 0.6
        elif nat % 9 in (0, 8):
            fit = 0.7
        else:
            fit = 1.0
        danger = max(danger, ready * fit)
    return danger


class RankedDiscard(NamedTuple):
    """One discard as :func:`rank_discards` sees it: the hand ``value`` after it (``None``
    when not computed), its ``shanten``, whether it ``feeds`` a third 摊 and its
    :func:`discard_danger`."""

    tile: Tile
    value: HandValue | None
    shanten: int
    feeds: bool
    danger: float

    @property
    def score(self) -> float:
        """The efficiency ranking's score: useful tiles less the risks' penalties."""
        base = self.value.score if self.value is not None else -SHANTEN_WEIGHT * self.shanten
        return base - FEED_PENALTY * self.feeds - DANGER_PENALTY * self.danger

    def describe(self) -> str:
        """The hint's words for this discard, with its risks."""
        text = self.value.describe() if self.value is not None else f"shanten {self.shanten}"
        if self.feeds:
            text += "; could feed a third 摊"
        if self.danger >= 0.05:
            text += f"; level-3 discard-win danger {self.danger:.2f}"
        return text


def rank_discards(info: SeatInfo, concealed: Sequence[Tile], kinds: Sequence[Tile],
                  extra_melds: int = 0, full: bool = False) -> list[RankedDiscard]:
    """Rank discarding each of ``kinds`` from ``concealed`` (14 tiles counting melds),
    best first.  Only the discards with the lowest shanten get a full
    :class:`HandValue` (the others ``None``) unless ``full``.  A 财神 is only considered
    when it leaves the hand 爆头-ready (财飘) or is the only choice (摸打 under the lock,
    RULES §5.5).
    """
    state = hand_state(info, concealed, extra_melds)
    keep_caishen = len(kinds) > 1
    rows: list[tuple[Tile, int, an.State]] = []
    for t in kinds:
        after = an.remove(state, an.natural(t, info.caishen))
        if t == info.caishen and keep_caishen and not an.baotou_ready(after):
            continue
        rows.append((t, an.shanten(after), after))
    if not rows:  # only 财神 left to throw
        rows = [(t, an.shanten(an.remove(state, an.WILD)), an.remove(state, an.WILD))
                for t in kinds]
    best = min(s for _, s, _ in rows)
    # the useful draws of every discard to be valued, together (shared work, cached)
    an.useful_after(state, [an.natural(t, info.caishen) for t, s, _ in rows
                            if (full or s == best) and s >= 0])
    ranked = [RankedDiscard(t, value_of(after, info) if (full or s == best) else None, s,
                            feeds_third_tan(info, t), discard_danger(info, t))
              for t, s, after in rows]
    # a 财神 is only thrown for 财飘 (decided before), so never prefer it on a tie
    ranked.sort(key=lambda r: (-r.score, int(r.tile == info.caishen), -r.tile))
    return ranked


def _discard_candidates(info: SeatInfo, legal: Sequence[Action]) -> tuple[list[Candidate], int]:
    """Ranked discards and the lowest shanten any of them leaves."""
    kinds = [a.tile for a in legal if isinstance(a, Discard)]
    ranked = rank_discards(info, info.concealed, kinds)
    out = [Candidate(Discard(info.seat, r.tile), r.score, r.describe()) for r in ranked]
    return out, min(r.shanten for r in ranked)


def _kong_state(info: SeatInfo, kong: Kong) -> an.State:
    nat = an.natural(kong.tile, info.caishen)
    state = hand_state(info)
    if kong.kind == "added":
        return an.remove(state, nat)
    return an.meld_out(state, [nat] * 4)


def turn_candidates(info: SeatInfo, legal: Sequence[Action]) -> list[Candidate]:
    """Ranked candidates on the seat's own turn (14 tiles counting melds)."""
    out, lowest = _discard_candidates(info, legal)
    for a in legal:
        if isinstance(a, Kong):
            v = value_of(_kong_state(info, a), info)
            if v.shanten <= lowest and out:  # no worse: take the replacement draw (杠开)
                out.insert(0, Candidate(a, out[0].value + 0.5, f"kong keeps {v.describe()}"))
            else:
                out.append(Candidate(a, v.score, f"kong: {v.describe()}"))
    win_m = current_win_multiplier(info) if Win(info.seat) in legal else 0
    piao = piao_value(info)
    if piao is not None and Discard(info.seat, info.caishen) in legal:
        cand = Candidate(Discard(info.seat, info.caishen), WIN_VALUE + piao,
                         f"财飘: expected M {piao:.2f} vs win now M={win_m}")
        out = [c for c in out if c.action != cand.action]
        out.insert(0 if piao > win_m else len(out), cand)
    if win_m:
        win = Candidate(Win(info.seat), WIN_VALUE + win_m, f"win, M={win_m}")
        out.insert(1 if out and out[0].value > win.value else 0, win)
    return out


def claim_candidates(info: SeatInfo, legal: Sequence[Action]) -> list[Candidate]:
    """Ranked candidates in a claim window (RULES §6.3): 13 tiles counting melds."""
    assert info.claim_tile is not None
    t = info.claim_tile
    nat = an.natural(t, info.caishen)
    base = value_of(hand_state(info), info)
    out: list[Candidate] = []
    for a in legal:
        if isinstance(a, Win):
            out.append(Candidate(a, WIN_VALUE, "win on the discard"))
        elif isinstance(a, Kong):
            v = value_of(an.meld_out(hand_state(info), [nat] * 3), info)
            # the replacement draw makes up for the tile: claim when no worse
            bonus = 0.5 if v.shanten <= base.shanten else 0.0
            out.append(Candidate(a, max(v.score, base.score) + bonus if bonus else v.score,
                                 f"exposed kong: {v.describe()}"))
        elif isinstance(a, (Pong, Chow)):
            rest = remove_tiles(info.concealed, [t, t] if isinstance(a, Pong) else a.tiles)
            ranked = rank_discards(info, rest, sorted(set(rest)), extra_melds=1)
            d, after = ranked[0].tile, ranked[0].value
            assert after is not None
            label = "pong" if isinstance(a, Pong) else f"chow with {format_tiles(a.tiles)}"
            better = after.shanten < base.shanten or (after.shanten == base.shanten
                                                     and after.weighted > base.weighted)
            out.append(Candidate(a, max(after.score, base.score) + 0.5 if better
                                 else after.score,
                                 f"{label}, then discard {format_tiles([d])}: "
                                 f"{after.describe()}"))
    pass_action = next(a for a in legal if isinstance(a, Pass))
    out.append(Candidate(pass_action, base.score, f"pass: {base.describe()}"))
    out.sort(key=lambda c: -c.value)
    return out


class EfficiencyBot(ExplainingBot):
    """Greedy tile efficiency with the Hangzhou specifics (see the module docstring)."""

    name = "efficiency"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed  # decisions are deterministic; kept for the common bot signature

    def explain(self, view: dict[str, Any], legal: Sequence[Action],
                include: Action | None = None) -> list[Candidate]:
        info = read_seat(view)
        if view["phase"] == "claim":
            ranked = claim_candidates(info, legal)
        else:
            ranked = turn_candidates(info, legal)
        return top_with(ranked, TOP, include)
