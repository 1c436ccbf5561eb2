"""Fast play-outs for search: every seat plays a quick tile-efficiency policy to the end
of the hand, and the hand's settlement says what a line of play was worth.

The policy is the efficiency bot's core on the engine's own state (no views, no useful
tile counts, so a play-out costs a few milliseconds): win whenever a win is legal; keep
every 财神 unless discarding it leaves the hand 爆头-ready (财飘, RULES §9.1); discard the
tile leaving the lowest shanten, the least connected one on a tie; kong when the shanten
does not get worse; chow or pong only when the shanten drops.  It plays in a *world*
(:func:`hzmj.determinize.determinize`, or a clone of the real match for the oracle), never
in the real match, so reading hands there is fair.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from hzmj.bots import analysis as an
from hzmj.events import Action, Chow, Discard, Kong, Pong, Win
from hzmj.game import Match
from hzmj.hand import split_wilds
from hzmj.tiles import Tile


def seat_state(match: Match, seat: int) -> an.State:
    """The analysis state (counts, 财神 held, declared sets) of ``seat``'s concealed tiles."""
    st = match.seats[seat]
    counts, wilds = split_wilds(st.concealed, match.caishen)
    return an.state_of(counts, wilds, len(st.melds))


def isolation(state: an.State, nat: int) -> int:
    """How connected a kind is in the hand: tiles of its suit within two ranks (honours:
    the same kind).  Lower is a better discard."""
    counts = state[0]
    if nat >= 27:
        return 2 * counts[nat]
    base = nat - nat % 9
    lo, hi = max(base, nat - 2), min(base + 8, nat + 2)
    return sum(counts[k] for k in range(lo, hi + 1)) + counts[nat]


def best_discard(state: an.State, kinds: Sequence[Tile], caishen: Tile) -> tuple[Tile, int]:
    """The discard among ``kinds`` leaving the lowest shanten (then the least connected
    tile), and that shanten.  A 财神 goes only when it leaves the hand 爆头-ready."""
    rows: list[tuple[int, Tile, int]] = []
    for t in kinds:
        nat = an.natural(t, caishen)
        after = an.remove(state, nat)
        if nat == an.WILD:
            if len(kinds) > 1 and not an.baotou_ready(after):
                continue
            return t, an.shanten(after)  # 财飘 (RULES §9.1)
        rows.append((an.shanten(after), t, nat))
    if not rows:  # only 财神 to throw
        return kinds[0], an.shanten(an.remove(state, an.WILD))
    low = min(r[0] for r in rows)
    ties = [(isolation(state, nat), t) for s, t, nat in rows if s == low]
    return min(ties)[1], low


def after_claim(match: Match, state: an.State, claim: Pong | Chow) -> tuple[an.State, list[Tile]]:
    """The claimer's state (``state`` = its concealed tiles now) once ``claim`` of the
    tile on offer is declared, and the concealed tiles it then holds (it must discard
    one of them)."""
    t = match.claim_tile
    assert t is not None
    used = [t, t] if isinstance(claim, Pong) else list(claim.tiles)
    after = an.meld_out(state, [an.natural(x, match.caishen) for x in used])
    rest = list(match.seats[claim.seat].concealed)
    for x in used:
        rest.remove(x)
    return after, rest


def policy(match: Match, seat: int, legal: Sequence[Action]) -> Action:
    """The play-out policy's action for ``seat`` (see the module docstring)."""
    first = legal[0]
    if len(legal) == 1 or isinstance(first, Win):
        return first
    cs = match.caishen
    state = seat_state(match, seat)
    if match.phase == "claim":
        now = an.shanten(state)
        for a in legal:
            if isinstance(a, Kong):
                nat = an.natural(a.tile, cs)
                if an.shanten(an.meld_out(state, [nat] * 3)) <= now:
                    return a
            elif isinstance(a, (Pong, Chow)):
                after, rest = after_claim(match, state, a)
                if best_discard(after, sorted(set(rest)), cs)[1] < now:
                    return a
        return legal[-1]  # pass
    kinds = [a.tile for a in legal if isinstance(a, Discard)]
    discard, shanten = best_discard(state, kinds, cs)
    for a in legal:
        if isinstance(a, Kong):
            nat = an.natural(a.tile, cs)
            after = (an.remove(state, nat) if a.kind == "added"
                     else an.meld_out(state, [nat] * 4))
            if an.shanten(after) <= shanten:
                return a
    return next(a for a in legal if isinstance(a, Discard) and a.tile == discard)


Policy = Callable[[Match, int, Sequence[Action]], Action]
"""A play-out policy: ``(match, seat, legal) -> one of legal``."""


def play_out(match: Match, seat: int, done: int, own: Policy = policy) -> int:
    """Play ``match`` until it holds more than ``done`` hand results, ``seat`` with
    ``own`` and every other seat with :func:`policy`; ``seat``'s points from hand result
    ``done`` (0 for a draw)."""
    while len(match.results) == done:
        s = match.to_move()[0]
        match.apply((own if s == seat else policy)(match, s, match.legal_actions(s)))
    result = match.results[done]
    return result.settlement.deltas[seat] if result.settlement else 0
