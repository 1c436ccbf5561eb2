"""Tiles, melds and the compact hand notation (RULES §1).

A tile *kind* is an ``int`` in ``0..33``:

====== ========= ==================================
kinds  notation  meaning
====== ========= ==================================
0–8    ``1m–9m`` characters (万)
9–17   ``1p–9p`` dots (筒)
18–26  ``1s–9s`` bamboo (条)
27–30  ``1z–4z`` winds 东 南 西 北 (also ``E S W N``)
31–33  ``5z–7z`` dragons 白 发 中 (also ``P F C``)
====== ========= ==================================

A *tile list* is a ``list[int]`` of kinds (order kept as given); *counts* is a
``list[int]`` of length 34 giving how many of each kind.  Physical copies are not
distinguished: the 136-tile set is four copies of each kind.

Hand strings use the tenhou-style compact notation (``123m456p789s11z``) with melds in
brackets: ``[123m]`` chow, ``[999s]`` exposed pong, ``[9999s]`` exposed kong,
``(9999s)`` concealed kong, ``{9999s}`` added kong (a pong upgraded by the owner).
In ``flip`` mode a chow may hold a white dragon standing in for the 财神 kind (RULES
§5.2); it is written ``P`` in its place: ``[4pP6p]`` with 财神 5p.  Such a meld parses
only with the 财神 known (``parse_hand(text, caishen=...)``).  :func:`parse_hand` and
:func:`format_hand` round-trip.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from hzmj.shown import clip, counted

Tile = int
"""A tile kind, ``0..33`` (see the module docstring)."""

NUM_KINDS: Final = 34
SUITS: Final = "mpsz"
WHITE: Final[Tile] = 31  # 5z, 白板
EAST: Final[Tile] = 27

_HONOR_LETTERS: Final = {"E": 27, "S": 28, "W": 29, "N": 30, "P": 31, "F": 32, "C": 33}
# simplified hanzi, and the traditional 東 and 發 (the other five are written alike)
_HONOR_HANZI: Final = {"东": 27, "南": 28, "西": 29, "北": 30, "白": 31, "发": 32, "中": 33,
                       "東": 27, "發": 32}
# every single-tile spelling :func:`tile` accepts without whitespace: compact names
# (``5m``, ``7z``), honour letters and hanzi
_ONE_TILE: Final[dict[str, int]] = {
    **{f"{k % 9 + 1}{'mpsz'[k // 9]}": k for k in range(34)},
    **_HONOR_LETTERS, **_HONOR_HANZI}
_HONOR_NAMES_ZH: Final = ("东", "南", "西", "北", "白", "发", "中")
# the English names players use, and the browser's (web/tiles.js): "1 Dot", "5 Characters",
# "7 Bamboo", "East Wind", "Red Dragon" (it said "1 dots", "5 characters", "Red")
_HONOR_NAMES_EN: Final = ("East Wind", "South Wind", "West Wind", "North Wind", "White Dragon",
                          "Green Dragon", "Red Dragon")
_SUIT_NAMES_ZH: Final = ("万", "筒", "条")
_SUIT_NAMES_EN: Final = (("Character", "Characters"), ("Dot", "Dots"), ("Bamboo", "Bamboo"))
_RANK_ZH: Final = "一二三四五六七八九"

# Unicode Mahjong Tiles block: winds U+1F000.., red U+1F004, green U+1F005, white U+1F006,
# characters U+1F007.., bamboo U+1F010.., dots U+1F019..
_GLYPH_BASE: Final = (0x1F007, 0x1F019, 0x1F010)
_HONOR_GLYPHS: Final = (0x1F000, 0x1F001, 0x1F002, 0x1F003, 0x1F006, 0x1F005, 0x1F004)


class TileParseError(ValueError):
    """A hand or tile string is malformed (RULES §1.2).

    ``position`` is the 0-based character index in ``text`` where the problem was found;
    ``reason`` says what is wrong.
    """

    def __init__(self, text: str, position: int, reason: str) -> None:
        self.text = text
        self.position = position
        self.reason = reason
        super().__init__(f"{reason} at position {position} in {_excerpt(text, position)}")


EXCERPT = 24
"""Characters of a long hand string shown on each side of an error's position."""


def _excerpt(text: str, position: int) -> str:
    """``text`` quoted, or for a long one (a pasted file, a hostile client) the part
    within ``EXCERPT`` characters of ``position``, with ``…`` where it is cut."""
    if len(text) <= 3 * EXCERPT:
        return repr(text)
    lo, hi = max(0, position - EXCERPT), min(len(text), position + EXCERPT + 1)
    return ("…" if lo else "") + repr(text[lo:hi]) + ("…" if hi < len(text) else "") + \
        f" ({len(text)} characters)"


def tile(name: str) -> Tile:
    """Parse exactly one tile, e.g. ``"5m"``, ``"7z"``, ``"P"`` or ``"白"``.

    Raises :class:`TileParseError` when ``name`` is not exactly one valid tile,
    ``TypeError`` when it is no string (a kind is already a tile: ``tile_name(5)``).
    """
    hit = _ONE_TILE.get(name)  # the names views and records carry: no scan
    if hit is not None:
        return hit
    if not isinstance(name, str):  # len(34) said "object of type 'int' has no len()"
        raise TypeError(f"a tile name is a string such as '5m', got {name!r}")
    tiles = parse_tiles(name)
    if len(tiles) != 1:
        raise TileParseError(name, 0, f"expected exactly one tile, got {len(tiles)}")
    return tiles[0]


def suit_of(t: Tile) -> int:
    """0 characters, 1 dots, 2 bamboo, 3 honours."""
    return t // 9


def rank_of(t: Tile) -> int:
    """Rank 1–9 for suited tiles; 1–7 for honours (``1z``…``7z``)."""
    return t % 9 + 1


def is_honor(t: Tile) -> bool:
    """Whether kind ``t`` (0–33) is an honour: a wind or a dragon, kinds 27–33 (RULES §1)."""
    return t >= 27


def tile_name(t: Tile) -> str:
    """Canonical compact name of one tile, e.g. ``"5m"``, ``"5z"``."""
    _check_kind(t)
    return f"{rank_of(t)}{SUITS[suit_of(t)]}"


def tile_glyph(t: Tile) -> str:
    """Unicode mahjong glyph of one tile (U+1F000 block)."""
    _check_kind(t)
    if t >= 27:
        return chr(_HONOR_GLYPHS[t - 27])
    return chr(_GLYPH_BASE[suit_of(t)] + t % 9)


def tile_name_zh(t: Tile) -> str:
    """Chinese name: ``五万``, ``东``, ``白`` …"""
    _check_kind(t)
    if t >= 27:
        return _HONOR_NAMES_ZH[t - 27]
    return _RANK_ZH[t % 9] + _SUIT_NAMES_ZH[suit_of(t)]


def tile_name_en(t: Tile) -> str:
    """English name: ``1 Character``, ``5 Characters``, ``East Wind``, ``White Dragon`` …"""
    _check_kind(t)
    if t >= 27:
        return _HONOR_NAMES_EN[t - 27]
    rank = rank_of(t)
    return f"{rank} {_SUIT_NAMES_EN[suit_of(t)][0 if rank == 1 else 1]}"


def _check_kind(t: Tile) -> None:
    if not (isinstance(t, int) and 0 <= t < NUM_KINDS):
        raise ValueError(f"not a tile kind (0..33): {t!r}")


def counts_of(tiles: Iterable[Tile]) -> list[int]:
    """Return the 34-entry count list of a tile list."""
    c = [0] * NUM_KINDS
    for t in tiles:
        c[t] += 1
    return c


def tiles_of(counts: Sequence[int]) -> list[Tile]:
    """Inverse of :func:`counts_of`: the sorted tile list of a count list."""
    return [t for t in range(NUM_KINDS) for _ in range(counts[t])]


def full_set(drop_bamboo: bool = False) -> list[Tile]:
    """All tiles in play, sorted: 136, or 100 without bamboo (缺一门, RULES §1.1, §3)."""
    tiles = _full_sets.get(drop_bamboo)
    if tiles is None:  # every hand starts from a copy (the deal's shuffle)
        kinds = [t for t in range(NUM_KINDS) if not (drop_bamboo and suit_of(t) == 2)]
        tiles = _full_sets[drop_bamboo] = tuple(t for t in kinds for _ in range(4))
    return list(tiles)


_full_sets: dict[bool, tuple[Tile, ...]] = {}


def format_tiles(tiles: Iterable[Tile], *, sort: bool = True) -> str:
    """Compact notation of a tile list, e.g. ``[0, 1, 2, 27]`` → ``"123m1z"``.

    With ``sort=False`` the order is kept and consecutive same-suit tiles share a suffix.
    """
    seq = sorted(tiles) if sort else list(tiles)
    out: list[str] = []
    run_suit = -1
    for t in seq:
        _check_kind(t)
        s = suit_of(t)
        if s != run_suit and run_suit >= 0:
            out.append(SUITS[run_suit])
        out.append(str(rank_of(t)))
        run_suit = s
    if run_suit >= 0:
        out.append(SUITS[run_suit])
    return "".join(out)


def _scan(whole: str, start: int, end: int) -> list[tuple[Tile, int]]:
    """Parse ``whole[start:end]`` into (tile, position) pairs (positions in ``whole``)."""
    result: list[tuple[Tile, int]] = []
    pending: list[tuple[int, int]] = []  # (rank, position)
    for i in range(start, end):
        ch = whole[i]
        pos = i
        if ch.isspace():
            continue
        if ch.isdigit() and ch.isascii():
            rank = int(ch)
            if rank == 0:
                raise TileParseError(whole, pos, "rank 0 is not a tile")
            pending.append((rank, pos))
        elif ch in SUITS:
            if not pending:
                raise TileParseError(whole, pos, f"suit letter {ch!r} without ranks before it")
            suit = SUITS.index(ch)
            for rank, rpos in pending:
                if suit == 3 and rank > 7:
                    raise TileParseError(whole, rpos, f"{rank}z is not a tile (honours are 1z–7z)")
                result.append((suit * 9 + rank - 1, rpos))
            pending = []
        elif ch in _HONOR_LETTERS or ch in _HONOR_HANZI:
            if pending:
                raise TileParseError(whole, pending[0][1], "ranks without a suit letter")
            result.append((_HONOR_LETTERS.get(ch, _HONOR_HANZI.get(ch, 0)), pos))
        else:
            raise TileParseError(whole, pos, f"unknown character {ch!r}")
    if pending:
        raise TileParseError(whole, pending[0][1], "ranks without a suit letter")
    return result


def parse_tiles(text: str, *, max_copies: int = 4) -> list[Tile]:
    """Parse a plain tile string (no melds) into a tile list, order kept.

    Accepts ``123m456p789s1122z``, the letters ``E S W N P F C`` and ``东南西北白发中``
    (traditional ``東`` and ``發`` too); whitespace is ignored.  Raises
    :class:`TileParseError` (a ``ValueError``) naming the position for an unknown character, rank 0, ``8z``/``9z``, ranks with no suit letter,
    or more than ``max_copies`` copies of one kind (RULES §1.2).
    """
    pairs = _scan(text, 0, len(text))
    _check_copies(text, pairs, max_copies)
    return [t for t, _ in pairs]


def _check_copies(text: str, pairs: Sequence[tuple[Tile, int]], max_copies: int) -> None:
    seen = [0] * NUM_KINDS
    for t, pos in pairs:
        seen[t] += 1
        if seen[t] > max_copies:
            raise TileParseError(text, pos, f"copy {seen[t]} of {tile_name(t)} (only {max_copies} exist)")


class MeldKind(StrEnum):
    """Kinds of melds (RULES §6.2–6.3)."""

    CHOW = "chow"
    PONG = "pong"
    EXPOSED_KONG = "exposed_kong"  # 明杠 on a discard
    ADDED_KONG = "added_kong"  # 补杠: own exposed pong + the fourth tile
    CONCEALED_KONG = "concealed_kong"  # 暗杠

    @property
    def is_kong(self) -> bool:
        """Whether this is one of the three kongs (RULES §6.2–6.4)."""
        return self in (MeldKind.EXPOSED_KONG, MeldKind.ADDED_KONG, MeldKind.CONCEALED_KONG)


@dataclass(frozen=True, slots=True)
class Meld:
    """A declared set. ``tiles`` is sorted (3 tiles, 4 for a kong).

    ``source`` is the seat whose discard was claimed (``None`` for a concealed kong or when
    unknown); ``claimed`` the claimed tile kind (``None`` likewise).  ``tiles`` are the
    kinds *played*; ``physical`` the tiles really used when they differ (a white dragon
    standing in for the 财神 kind in a chow, RULES §5.2), else ``None``.
    """

    kind: MeldKind
    tiles: tuple[Tile, ...]
    source: int | None = None
    claimed: Tile | None = None
    physical: tuple[Tile, ...] | None = None

    @property
    def physical_tiles(self) -> tuple[Tile, ...]:
        """The physical tiles of the meld (for counting and display)."""
        return self.physical if self.physical is not None else self.tiles

    @classmethod
    def of(cls, kind: MeldKind, physical: Sequence[Tile], caishen: Tile,
           source: int | None = None, claimed: Tile | None = None) -> Meld:
        """The meld of ``kind`` made of the ``physical`` tiles with ``caishen`` the 财神 kind.

        In a chow a white dragon plays as the 财神 kind (``flip`` mode, RULES §5.2): ``tiles``
        are then the kinds played and ``physical`` the real tiles in the same order.  A pong
        or kong keeps its tiles (of white dragons, it is kept as white dragons).  Raises
        ``ValueError`` if a 财神 tile is in the meld (RULES §5.3) or the tiles make no
        ``kind``.
        """
        if caishen in physical:
            raise ValueError(f"a 财神 ({tile_name(caishen)}) cannot be part of a meld "
                             "(RULES §5.3)")
        if kind is not MeldKind.CHOW or caishen == WHITE or WHITE not in physical:
            return cls(kind, tuple(sorted(physical)), source, claimed)
        order = sorted(physical, key=lambda t: caishen if t == WHITE else t)
        played = tuple(caishen if t == WHITE else t for t in order)
        return cls(kind, played, source, claimed, tuple(order))

    def __post_init__(self) -> None:
        ts = self.tiles
        if list(ts) != sorted(ts):
            raise ValueError(f"meld tiles must be sorted: {ts}")
        if self.kind is MeldKind.CHOW:
            ok = (
                len(ts) == 3
                and not is_honor(ts[0])
                and suit_of(ts[0]) == suit_of(ts[2])
                and ts[1] == ts[0] + 1
                and ts[2] == ts[0] + 2
            )
        elif self.kind is MeldKind.PONG:
            ok = len(ts) == 3 and ts[0] == ts[2]
        else:
            ok = len(ts) == 4 and ts[0] == ts[3]
        if not ok:
            raise ValueError(f"{format_tiles(ts)} is not a valid "
                             f"{self.kind.value.replace('_', ' ')}")

    @property
    def is_kong(self) -> bool:
        """Whether the meld is a kong of any kind (four tiles, counted as a set of 3)."""
        return self.kind.is_kong

    @property
    def is_concealed(self) -> bool:
        """Whether the meld is a concealed kong (暗杠, shown face down, RULES §6.7)."""
        return self.kind is MeldKind.CONCEALED_KONG

    def notation(self) -> str:
        """``[…]``, ``(…)`` or ``{…}`` around the physical tiles, a white dragon standing
        in written ``P`` in the place it plays (``[4pP6p]``, RULES §1.2, §5.2)."""
        body = format_tiles(self.tiles) if self.physical is None else "".join(
            "P" if t == WHITE else format_tiles(run, sort=False)
            for t, run in _runs(self.physical))
        if self.kind is MeldKind.CONCEALED_KONG:
            return f"({body})"
        if self.kind is MeldKind.ADDED_KONG:
            return f"{{{body}}}"
        return f"[{body}]"


@dataclass(frozen=True, slots=True)
class Hand:
    """A player's hand: ``concealed`` tiles (order kept) and declared ``melds``."""

    concealed: tuple[Tile, ...]
    melds: tuple[Meld, ...] = ()

    @property
    def size(self) -> int:
        """Tile count with each kong counted as 3 (13 before a draw, 14 after, RULES §7)."""
        return len(self.concealed) + 3 * len(self.melds)

    def all_tiles(self) -> list[Tile]:
        """Concealed tiles followed by every meld tile (kongs with 4)."""
        out = list(self.concealed)
        for m in self.melds:
            out.extend(m.physical_tiles)
        return out


def _runs(tiles: Sequence[Tile]) -> list[tuple[Tile, list[Tile]]]:
    """Split ``tiles`` at each white dragon: (white, []) or (first tile, run without one)."""
    out: list[tuple[Tile, list[Tile]]] = []
    for t in tiles:
        if t != WHITE and out and out[-1][0] != WHITE:
            out[-1][1].append(t)
        else:
            out.append((t, [] if t == WHITE else [t]))
    return out


_BRACKETS: Final = {"[": "]", "(": ")", "{": "}"}


def _meld_from(text: str, pos: int, opener: str, tiles: list[Tile], caishen: Tile | None) -> Meld:
    ts = tuple(sorted(tiles))
    if len(ts) not in (3, 4):  # was "99999s is not a valid chow"
        raise TileParseError(text, pos, f"not a valid meld: {clip(format_tiles(ts), 2 * EXCERPT)}"
                                        f" is {counted(len(ts), 'tile')}; a meld is 3 (chow, "
                                        "pong) or 4 (kong)")
    if opener == "(":
        kind = MeldKind.CONCEALED_KONG
    elif opener == "{":
        kind = MeldKind.ADDED_KONG
    elif len(ts) == 4:
        kind = MeldKind.EXPOSED_KONG
    elif len(ts) == 3 and ts[0] == ts[2]:
        kind = MeldKind.PONG
    else:
        kind = MeldKind.CHOW
    try:
        return Meld(kind, ts) if caishen is None else Meld.of(kind, tiles, caishen)
    except ValueError as exc:
        hint = (" (a white dragon stands in for the 财神 kind only when the 财神 is given)"
                if caishen is None and WHITE in ts and kind is MeldKind.CHOW else "")
        raise TileParseError(text, pos, f"not a valid meld: {clip(str(exc), 2 * EXCERPT)}{hint}"
                             ) from None


def parse_hand(text: str, caishen: Tile | None = None) -> Hand:
    """Parse a hand string with optional melds, e.g. ``"123m456m789p2z[9999s]"``.

    ``[…]`` is an exposed chow, pong or kong, ``(…)`` a concealed kong, ``{…}`` an added
    kong.  With ``caishen`` (the 财神 kind) given, melds follow RULES §5.2–5.3: a chow may
    hold a white dragon standing in (``[4pP6p]`` with 财神 5p, see :meth:`Meld.of`) and
    no meld may hold a 财神.  Raises :class:`TileParseError` for malformed notation, an
    invalid meld (e.g. ``[124m]``), an unclosed bracket, or a fifth copy of a kind
    counted over the whole hand; ``ValueError`` for a ``caishen`` that is no tile kind
    (an ``int`` 0–33), ``TypeError`` for a ``text`` that is no string.
    """
    if not isinstance(text, str):
        raise TypeError(f"a hand is a string such as '123m456p', got {text!r}")
    if caishen is not None:
        _check_kind(caishen)  # 99 or "5m" was taken, and no meld checked against it
    concealed: list[tuple[Tile, int]] = []
    melds: list[Meld] = []
    all_pairs: list[tuple[Tile, int]] = []
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if ch in _BRACKETS:
            close = text.find(_BRACKETS[ch], i + 1)
            if close < 0:
                raise TileParseError(text, i, f"unclosed {ch!r}")
            inner = _scan(text, i + 1, close)
            if not inner:
                raise TileParseError(text, i, "empty meld")
            melds.append(_meld_from(text, i, ch, [t for t, _ in inner], caishen))
            all_pairs.extend(inner)
            i = close + 1
            continue
        if ch in "])}":
            raise TileParseError(text, i, f"unmatched {ch!r}")
        j = i
        while j < n and text[j] not in _BRACKETS and text[j] not in "])}":
            j += 1
        part = _scan(text, i, j)
        concealed.extend(part)
        all_pairs.extend(part)
        i = j
    _check_copies(text, all_pairs, 4)
    return Hand(tuple(t for t, _ in concealed), tuple(melds))


def format_hand(hand: Hand, *, sort: bool = True) -> str:
    """Inverse of :func:`parse_hand`: concealed tiles (sorted by default), then melds."""
    return format_tiles(hand.concealed, sort=sort) + "".join(m.notation() for m in hand.melds)
