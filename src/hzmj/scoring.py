"""Hand multiplier and settlement (RULES §8–§10).

Two steps, as in RULES: the *hand multiplier* ``M`` (a power of two, §9) from the best
winning reading plus the winner's chain (§8.2), then the *settlement* (§10): integer
payments between seats, each with its reason, always summing to zero.

Chains are sequences of the strings ``"piao"`` (a 财神 discard, 飘) and ``"kong"`` (any
kong), oldest first, as tracked by the engine since the winner's last non-财神 discard.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from hzmj.hand import Reading, holds_caishen, natural_quads, readings
from hzmj.rules import Rules
from hzmj.shown import shown
from hzmj.tiles import NUM_KINDS, WHITE, Hand, Tile

ChainItem = Literal["piao", "kong"]
CHAIN_ITEMS: Final = ("piao", "kong")

_NUM_ZH: Final = {1: "", 2: "双", 3: "三", 4: "四", 5: "五", 6: "六", 7: "七", 8: "八"}
_COUNT_ZH: Final = {1: "一", 2: "双", 3: "三", 4: "四", 5: "五", 6: "六", 7: "七", 8: "八"}
_NUM_EN: Final = {1: "", 2: "double ", 3: "triple ", 4: "quadruple "}


def _zh(n: int) -> str:
    return _NUM_ZH.get(n, f"{n}")


def _en(n: int) -> str:
    return _NUM_EN.get(n, f"{n}× ")


# --------------------------------------------------------------------------------------
# chain (RULES §8.2)


@dataclass(frozen=True, slots=True)
class ChainStats:
    """``k`` kongs, ``p`` 财神 discards, ``t`` kongs after the last 财神 discard, and
    ``last`` item of the chain (RULES §8.2)."""

    k: int = 0
    p: int = 0
    t: int = 0
    last: ChainItem | None = None

    @classmethod
    def of(cls, chain: Sequence[str]) -> ChainStats:
        """Read a chain; ``ValueError`` for an item that is not ``piao`` or ``kong``."""
        k = p = t = 0
        for item in chain:
            if item == "kong":
                k += 1
                t += 1
            elif item == "piao":
                p += 1
                t = 0
            else:
                raise ValueError(f"chain item must be 'piao' or 'kong', got {item!r}")
        last: ChainItem | None = None
        if chain:
            last = "kong" if chain[-1] == "kong" else "piao"
        return cls(k, p, t, last)


def chain_problem(hand: Hand, win_tile: Tile, caishen: Tile, chain: Sequence[str],
                  copies: int | None = None) -> str | None:
    """Why ``chain`` cannot be the chain of a winner holding ``hand`` + ``win_tile``, or
    ``None`` when it can (RULES §8.2).

    Its kongs are the winner's own kongs, so there are no more of them than the hand's
    kong melds; its 财神 discards are 财神 tiles, so no more than there are (4 when the
    财神 is the white dragon, 3 when it is flipped, §4.5; ``copies`` says otherwise, e.g. 3
    for a flipped white dragon) less the 财神 in the hand and the winning tile.  For input
    checks (the calculator); :func:`score_hand` does not call it.
    """
    stats = ChainStats.of(chain)
    kongs = sum(m.kind.is_kong for m in hand.melds)
    if stats.k > kongs:
        return (f"the chain has {stats.k} kong(s) but the hand shows {kongs}: a chain's "
                "kongs are the winner's own (RULES §8.2)")
    held = sum(t == caishen for t in hand.concealed) + (win_tile == caishen)
    left = (copies if copies is not None else 4 if caishen == WHITE else 3) - held
    if stats.p > left:
        return (f"the chain has {stats.p} 财神 discard(s) (piao) but only {max(0, left)} "
                f"财神 tile(s) are not in the hand (RULES §4.5, §8.2)")
    return None


# --------------------------------------------------------------------------------------
# multiplier patterns (RULES §9.1), one function per row of the table


@dataclass(frozen=True, slots=True)
class Pattern:
    """A priced reading: ``multiplier`` M (power of two), names, and how it was derived."""

    multiplier: int
    zh: str
    en: str
    formula: str


def standard_plain() -> Pattern:
    """RULES §9.1 row 1: standard shape, not 爆头, no kong at the end of the chain."""
    return Pattern(1, "平胡", "plain win", "M = 1")


def gangkai(c: ChainStats) -> Pattern:
    """RULES §9.1 row 2: 杠开 — standard, not 爆头, ``t`` ≥ 1 kongs after the last 飘:
    M = 2^t."""
    return Pattern(2 ** c.t, f"{_zh(c.t)}杠开", f"{_en(c.t)}gangkai (win on kong replacement)",
                   f"M = 2^t = 2^{c.t}")


def baotou(c: ChainStats) -> Pattern:
    """RULES §9.1 row 3: 爆头 — M = 2^(1+k+p); 财飘 when the chain ends with 飘,
    杠暴 when it ends with 杠, n杠m飘 (seed style 飘杠 / 一飘双杠) when it mixes both."""
    m = 2 ** (1 + c.k + c.p)
    formula = f"M = 2^(1+k+p) = 2^(1+{c.k}+{c.p})"
    if c.k == 0 and c.p == 0:
        return Pattern(m, "爆头", "baotou (headshot)", formula)
    if c.k == 0:
        return Pattern(m, f"{_zh(c.p)}财飘", f"{_en(c.p)}caipiao (baotou after 财神 discard)", formula)
    if c.p == 0:
        return Pattern(m, f"{_zh(c.k)}杠暴", f"{_en(c.k)}gangbao (baotou on kong replacement)",
                       formula)
    if c.k == 1 and c.p == 1:
        zh = "飘杠" if c.last == "kong" else "杠飘"
    else:
        zh = f"{_COUNT_ZH.get(c.p, str(c.p))}飘{_COUNT_ZH.get(c.k, str(c.k))}杠"
    return Pattern(m, zh, f"{c.p} piao {c.k} kong baotou", formula)


def _luxury(h: int) -> str:
    return "" if h == 0 else f"{_zh(h)}豪华"


def _luxury_en(h: int) -> str:
    return "" if h == 0 else f"{_en(h)}luxury "


def qidui(h: int) -> Pattern:
    """RULES §9.1 row 4: 七对子 holding a 财神, not 爆头: M = 2^(1+h)."""
    return Pattern(2 ** (1 + h), f"{_luxury(h)}七对子", f"{_luxury_en(h)}seven pairs",
                   f"M = 2^(1+h) = 2^(1+{h})")


def qing_qidui(h: int) -> Pattern:
    """RULES §9.1 row 5: 清七对, seven pairs with no 财神 at all: M = 2^(2+h)."""
    return Pattern(2 ** (2 + h), f"{_luxury(h)}清七对", f"{_luxury_en(h)}pure seven pairs",
                   f"M = 2^(2+h) = 2^(2+{h})")


def qike(h: int, c: ChainStats) -> Pattern:
    """RULES §9.1 row 6: 七客 (seven pairs by 爆头): M = 2^(2+h+p)."""
    m = 2 ** (2 + h + c.p)
    formula = f"M = 2^(2+h+p) = 2^(2+{h}+{c.p})"
    if c.p == 0:
        return Pattern(m, f"{_luxury(h)}七客", f"{_luxury_en(h)}qike (seven pairs baotou)",
                       formula)
    return Pattern(m, f"{_luxury(h)}七对子{_zh(c.p)}财飘",
                   f"{_luxury_en(h)}seven pairs {_en(c.p)}caipiao", formula)


def price(reading: Reading, chain: ChainStats, *, h: int, with_caishen: bool) -> Pattern:
    """The multiplier of one reading (RULES §9.1). ``h`` natural quads (§9.2)."""
    if reading.shape == "seven_pairs":
        if reading.baotou:
            return qike(h, chain)
        return qidui(h) if with_caishen else qing_qidui(h)
    if reading.baotou:
        return baotou(chain)
    if chain.t >= 1:
        return gangkai(chain)
    return standard_plain()


# --------------------------------------------------------------------------------------
# scoring a hand


@dataclass(frozen=True, slots=True)
class HandScore:
    """Result of :func:`score_hand`.  ``multiplier`` is 0 when there is no win."""

    win: bool
    multiplier: int
    reading: Reading | None
    pattern: Pattern | None
    readings: tuple[Reading, ...]
    explanation: tuple[str, ...]

    @property
    def shape(self) -> str | None:
        return self.reading.shape if self.reading else None

    @property
    def baotou(self) -> bool:
        return bool(self.reading and self.reading.baotou)

    def to_dict(self) -> dict[str, Any]:
        """The calculator's JSON contract (``hzmj score --json``)."""
        return {
            "win": self.win,
            "multiplier": self.multiplier,
            "shape": self.shape,
            "baotou": self.baotou,
            "names": {"zh": self.pattern.zh if self.pattern else None,
                      "en": self.pattern.en if self.pattern else None},
            "reading": self.reading.notation() if self.reading else None,
            "readings": len(self.readings),
            "explanation": list(self.explanation),
        }


def score_hand(
    hand: Hand,
    win_tile: Tile,
    caishen: Tile = WHITE,
    chain: Sequence[str] = (),
    rules: Rules | None = None,
    *,
    discard: bool = False,
) -> HandScore:
    """Score ``hand`` (13 tiles, kongs as 3) completed by ``win_tile`` (RULES §7, §9).

    ``chain`` is the winner's chain (§8.2); a discard win (``discard=True``) ignores it
    (§8.4: ``k = p = t = 0``).  ``rules.must_baotou_with_caishen`` keeps only 爆头
    readings for a hand holding a 财神 (§7.5).  The best reading by multiplier counts
    (§7.6).  A discard win on a 财神 is no win (§5.4, §8.4: a discarded 财神 opens no
    claim); whether the room allows discard wins at all (the option, the dealer's level
    and the seats) is the engine's to check (:func:`discard_win_allowed`).  ``ValueError``
    for a hand that does not have 13 tiles, a bad chain item, or a ``win_tile`` or
    ``caishen`` that is no tile kind (an ``int`` 0–33); ``TypeError`` for a ``hand``
    that is no :class:`Hand` or a ``chain`` given as one string.
    """
    if not isinstance(hand, Hand):  # a str had no attribute 'size'
        raise TypeError(f"hand must be a Hand (parse_hand('123m…')), got {shown(hand)}")
    if isinstance(chain, str):  # "piao" was read as the items 'p', 'i', 'a', 'o'
        raise TypeError(f"chain is a list of items such as ['piao', 'kong'], got "
                        f"{shown(chain)}")
    for name, kind in (("win_tile", win_tile), ("caishen", caishen)):
        if not isinstance(kind, int) or isinstance(kind, bool) or not 0 <= kind < NUM_KINDS:
            raise ValueError(f"{name} must be a tile kind 0–33, got {kind!r}")
    rules = rules or Rules()
    stats = ChainStats() if discard else ChainStats.of(chain)
    if discard:
        ChainStats.of(chain)  # still validate the items
        if win_tile == caishen:
            return HandScore(False, 0, None, None, (), (
                "a discard win cannot be on a 财神: a discarded 财神 opens no claim "
                "(RULES §5.4, §8.4)",))
    all_readings = readings(hand, win_tile, caishen)
    with_caishen = holds_caishen(hand, win_tile, caishen)
    h = natural_quads(hand, win_tile, caishen)
    lines: list[str] = []
    candidates = list(all_readings)
    if rules.must_baotou_with_caishen and with_caishen:
        candidates = [r for r in candidates if r.baotou]
        if all_readings and not candidates:
            lines.append("有财必拷响 (must_baotou_with_caishen): the hand holds a 财神 and has "
                         "no 爆头 reading, so it cannot win (RULES §7.5)")
    if not candidates:
        if not all_readings:
            lines.append("not a winning hand: no standard (4 sets + pair) or seven-pairs "
                         "reading (RULES §7)")
        return HandScore(False, 0, None, None, tuple(all_readings), tuple(lines))
    priced = [(price(r, stats, h=h, with_caishen=with_caishen), r) for r in candidates]
    best_pattern, best = max(priced, key=lambda pr: pr[0].multiplier)
    lines.append(f"reading ({best.shape}{', 爆头' if best.baotou else ''}): {best.notation()}")
    if discard:
        lines.append("discard win: chain ignored, k = p = t = 0 (RULES §8.4)")
    else:
        lines.append(f"chain {list(chain) or '[]'}: k={stats.k} kongs, p={stats.p} 财神 "
                     f"discards, t={stats.t} kongs after the last 飘 (RULES §8.2)")
    if best.shape == "seven_pairs":
        lines.append(f"h = {h} natural quads; {'holds' if with_caishen else 'no'} 财神 "
                     "(RULES §9.2, §7.4)")
    lines.append(f"{best_pattern.zh} ({best_pattern.en}): {best_pattern.formula} = "
                 f"{best_pattern.multiplier} (RULES §9.1)")
    if len(priced) > 1:
        lines.append(f"best of {len(priced)} readings (RULES §7.6)")
    return HandScore(True, best_pattern.multiplier, best, best_pattern, tuple(all_readings),
                     tuple(lines))


# --------------------------------------------------------------------------------------
# settlement (RULES §10)

PaymentReason = Literal["share", "chengbao", "fan_chengbao", "houbanchang_chengbao",
                        "discard_win", "escape"]

REASON_NAMES: Final[Mapping[str, tuple[str, str]]] = {
    "share": ("自摸", "self-draw share"),
    "chengbao": ("承包", "contract: winner took 3+ 摊 from payer"),
    "fan_chengbao": ("反承包", "reverse contract: payer took 3+ 摊 from winner"),
    "houbanchang_chengbao": ("后半场承包", "late contract: fed the winner after a 财神 discard"),
    "discard_win": ("放铳", "discard win"),
    "escape": ("逃跑", "escape penalty"),
}


@dataclass(frozen=True, slots=True)
class Payment:
    """``amount`` points from seat ``payer`` to seat ``payee`` for ``reason``;
    ``detail`` shows the arithmetic (dealer factor, cap, base score)."""

    payer: int
    payee: int
    amount: int
    reason: PaymentReason
    detail: str

    def to_dict(self) -> dict[str, Any]:
        zh, en = REASON_NAMES[self.reason]
        return {"from": self.payer, "to": self.payee, "amount": self.amount,
                "reason": self.reason, "reason_zh": zh, "reason_en": en, "detail": self.detail}


@dataclass(frozen=True, slots=True)
class Settlement:
    """Per-seat ``deltas`` (points, seat 0 first; they sum to 0) and itemised payments."""

    deltas: tuple[int, ...]
    payments: tuple[Payment, ...]
    notes: tuple[str, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        return {"deltas": list(self.deltas), "payments": [p.to_dict() for p in self.payments],
                "notes": list(self.notes)}

    @classmethod
    def of(cls, players: int, payments: Iterable[Payment],
           notes: Iterable[str] = ()) -> Settlement:
        deltas = [0] * players
        pays = tuple(payments)
        for p in pays:
            deltas[p.payer] -= p.amount
            deltas[p.payee] += p.amount
        return cls(tuple(deltas), pays, tuple(notes))


def dealer_factor(level: int) -> int:
    """``D = 2^L`` for dealer level 1–3 (RULES §10.1); ``ValueError`` otherwise."""
    if not _whole(level) or level not in (1, 2, 3):  # 1.0 and True are in (1, 2, 3)
        raise ValueError(f"dealer level must be 1, 2 or 3, got {level}")
    return 1 << level


def pair_factor(level: int, *, winner: int, payer: int, dealer: int) -> int:
    """The factor ``f`` of one winner–payer pair (RULES §10.1): ``D = 2^level`` when the
    dealer is the winner or the payer, else 1.  ``ValueError`` for a level outside 1–3."""
    d = dealer_factor(level)
    return d if dealer in (winner, payer) else 1


def share(rules: Rules, multiplier: int, *, winner: int, payer: int, dealer: int,
          level: int) -> tuple[int, str]:
    """``share(X) = min(f × M, cap) × base_score`` (RULES §10.1–10.2) and its arithmetic."""
    f = pair_factor(level, winner=winner, payer=payer, dealer=dealer)
    raw = f * multiplier
    capped = min(raw, rules.cap) if rules.cap is not None else raw
    text = f"M={multiplier} × dealer factor {f}"
    if capped != raw:
        text += f" = {raw}, capped at {rules.cap}"
    text += f" × base {rules.base_score}"
    return capped * rules.base_score, text


TAN_LIMIT: Final = 2  # RULES §6.5


def tan_limit(rules: Rules, *, taker: int, giver: int, dealer: int, level: int) -> int | None:
    """RULES §6.5: the most 摊 ``taker`` may take from ``giver`` in one hand, or ``None``
    when there is no limit (3 or more then create a contract, §10.4)."""
    if not rules.three_tan_contract:
        return TAN_LIMIT
    if level >= 2 and dealer not in (taker, giver):
        # two non-dealers while the dealer is at level 2 or 3; the count is per ordered
        # pair (taker from giver), each direction capped on its own (RULES §14.11)
        return TAN_LIMIT
    return None


def discard_win_allowed(rules: Rules, *, winner: int, discarder: int, dealer: int,
                        level: int) -> bool:
    """RULES §8.4: discard wins need the option, dealer level 3, and are only between
    the dealer and a non-dealer."""
    return rules.discard_win and level == 3 and (winner == dealer) != (discarder == dealer)


def _whole(value: object) -> bool:
    """Whether ``value`` is an ``int`` and no ``bool`` (Python holds 1.0 == 1 == True)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _check_seat(name: str, seat: int | None, players: int) -> None:
    if seat is not None and not (_whole(seat) and 0 <= seat < players):
        raise ValueError(f"{name} must be a seat 0..{players - 1}, got {seat!r}")


def settle(
    rules: Rules,
    *,
    winner: int,
    multiplier: int,
    dealer: int,
    level: int,
    discarder: int | None = None,
    tan: Mapping[tuple[int, int], int] | None = None,
    piao_feeders: Iterable[int] = (),
) -> Settlement:
    """Settle a won hand (RULES §10). Seats are ``0..rules.players-1``.

    ``tan[(taker, giver)]`` counts 摊 that ``taker`` took from ``giver`` this hand (§6.5);
    ``piao_feeders`` are seats whose discard the winner claimed after the first 财神
    discard of its chain (后半场承包, §10.4); ``discarder`` is set for a discard win
    (§10.5).  ``ValueError`` for a bad seat, level or multiplier, a 摊 count over the
    limit of §6.5, a discard win that §8.4 does not allow, or piao feeders that cannot be
    (the winner itself; any on a discard win, whose chain §8.4 empties).
    """
    n = rules.players
    for name, seat in (("winner", winner), ("dealer", dealer), ("discarder", discarder)):
        _check_seat(name, seat, n)
    if discarder == winner:
        raise ValueError("the discarder cannot be the winner")
    dealer_factor(level)
    if discarder is not None and not discard_win_allowed(rules, winner=winner,
                                                         discarder=discarder, dealer=dealer,
                                                         level=level):
        raise ValueError("a discard win needs discard_win=true, dealer level 3 and the "
                         "dealer as winner or discarder (RULES §8.4)")
    if not _whole(multiplier) or multiplier < 1 or multiplier & (multiplier - 1):
        raise ValueError(f"multiplier must be a power of two ≥ 1, got {multiplier!r}")
    tan = dict(tan or {})
    for (a, b), count in tan.items():
        _check_seat("tan taker", a, n)
        _check_seat("tan giver", b, n)
        if a == b or not _whole(count) or count < 0:  # 2.5 and nan were taken
            raise ValueError(f"bad 摊 entry {a}:{b}:{count!r}")
        limit = tan_limit(rules, taker=a, giver=b, dealer=dealer, level=level)
        if limit is not None and count > limit:
            raise ValueError(f"seat {a} cannot have taken {count} 摊 from seat {b}: at most "
                             f"{limit} here (RULES §6.5)")
    feeders = set(piao_feeders)
    for s in feeders:
        _check_seat("piao feeder", s, n)
    if winner in feeders:
        raise ValueError(f"the winner (seat {winner}) cannot be its own piao feeder (RULES §10.4)")
    if feeders and discarder is not None:  # §8.4: a discard win's chain is empty (p = 0)
        raise ValueError("no 后半场承包 on a discard win: its chain is empty (RULES §8.4, §10.4)")
    others = [x for x in range(n) if x != winner]
    shares = {x: share(rules, multiplier, winner=winner, payer=x, dealer=dealer, level=level)
              for x in others}
    total = sum(v for v, _ in shares.values())
    t_text = (f"T = {' + '.join(str(shares[x][0]) for x in others)} = {total}"
              if len(others) > 1 else f"T = {total}")
    payments: list[Payment] = []
    notes = [t_text]
    if rules.three_tan_contract:  # RULES §10.4
        for x in others:
            if tan.get((winner, x), 0) >= 3:
                payments.append(Payment(x, winner, total, "chengbao",
                                        f"seat {winner} took {tan[(winner, x)]} 摊 from seat {x}: "
                                        f"pays T ({t_text})"))
            if tan.get((x, winner), 0) >= 3:
                payments.append(Payment(x, winner, 2 * total, "fan_chengbao",
                                        f"seat {x} took {tan[(x, winner)]} 摊 from seat "
                                        f"{winner}: pays 2T ({t_text})"))
            if x in feeders:
                payments.append(Payment(x, winner, total, "houbanchang_chengbao",
                                        f"seat {winner} claimed seat {x}'s discard after a 财神 "
                                        f"discard: pays T ({t_text})"))
        liable = [p.payer for p in payments]
        if any(liable.count(x) > 1 for x in liable):
            notes.append("挑扁担: a seat liable under several contracts pays each (RULES §10.4)")
    if discarder is not None:  # RULES §10.5
        payments.insert(0, Payment(discarder, winner, total, "discard_win",
                                   f"seat {discarder} discarded the winning tile: pays T ({t_text})"))
    elif not payments:  # RULES §10.3: plain self-draw
        payments = [Payment(x, winner, shares[x][0], "share", shares[x][1]) for x in others]
    else:
        notes.append("a contract applies: players who are not liable pay nothing (RULES §10.4)")
    return Settlement.of(n, payments, notes)


ESCAPE_MULTIPLIER: Final = 4  # RULES §8.5 / §14.8: priced as 财飘


def escape_penalty(rules: Rules, *, escaper: int, dealer: int, level: int) -> Settlement:
    """RULES §8.5: while the dealer is at level 3, the escaping seat pays every other seat
    the share it would pay if that seat had won by self-draw with M = 4 (财飘); at lower
    levels nobody pays (the seat is simply played by a bot)."""
    _check_seat("escaper", escaper, rules.players)
    _check_seat("dealer", dealer, rules.players)
    dealer_factor(level)
    if level < 3:
        return Settlement.of(rules.players, (), ("no escape penalty below dealer level 3 "
                                                  "(RULES §8.5)",))
    payments = []
    for x in range(rules.players):
        if x == escaper:
            continue
        amount, text = share(rules, ESCAPE_MULTIPLIER, winner=x, payer=escaper, dealer=dealer,
                             level=level)
        payments.append(Payment(escaper, x, amount, "escape", f"escape, priced as 财飘: {text}"))
    return Settlement.of(rules.players, payments)
