"""The accounts API's bodies (``docs/protocol.md``, "Accounts"): sign-up, log-in, the
signed-in player, match history, profiles and the leaderboard.  Part of
:func:`hzmj.server.protocol.protocol_schema`."""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from importlib import resources
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

Json = dict[str, object]
DELETED_PLAYER = "deleted player"
_USERNAME = re.compile(r"[a-z0-9_.-]{3,24}")


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


def username(text: str) -> str:
    """3–24 of ``a-z 0-9 _ . -``; compared without case (stored in lower case)."""
    low = text.lower()
    if not _USERNAME.fullmatch(low):
        raise ValueError("must be 3 to 24 letters a-z, digits, '_', '.' or '-'")
    return low


# letters that render as nothing although Unicode files them as letters or marks
# (Hangul fillers, braille blank, combining grapheme joiner, Mongolian selectors, Khmer
# inherent vowels), and the object replacement character (a symbol that Chromium draws
# as nothing, no width: "Alice" + U+FFFC showed as "Alice")
_BLANK = frozenset("\u034f\u115f\u1160\u2800\u3164\uffa0\u180b\u180c\u180d\u180e\u180f"
                   "\u17b4\u17b5\ufffc")
_MAX_MARKS = 2  # combining marks in a row (stacked accents hide the letters around them)


def _hidden_selector(before: str, c: str) -> bool:
    """A variation selector (a mark that renders as nothing) where it selects nothing:
    ``Alice`` + U+FE0F looks like ``Alice``.  Kept: U+FE0E/U+FE0F right after a symbol
    or a keycap's digit (emoji: ❤️, 1️⃣) and an ideographic variation selector right
    after a CJK ideograph; any other, and two in a row, are hidden characters."""
    o = ord(c)
    if o in (0xFE0E, 0xFE0F):
        return not before or not (unicodedata.category(before)[0] == "S"
                                  or before in "0123456789#*")
    if 0xE0100 <= o <= 0xE01EF:
        return not before or not unicodedata.name(before, "").startswith("CJK ")
    return 0xFE00 <= o <= 0xFE0D


# ignored when names are compared, as UTS #39's skeleton ignores default-ignorable code
# points: the variation selectors player_name lets through (after a symbol, a keycap's
# digit or a CJK ideograph) and the directional marks the confusables data wraps
# right-to-left letters in; "张三" with an ideographic variation selector reads as "张三"
_IGNORED = re.compile("[\u200e\u200f\ufe00-\ufe0f\U000e0100-\U000e01ef]")


@functools.lru_cache(maxsize=1)
def _prototypes() -> dict[str, str]:
    """Each character Unicode lists as confusable (UTS #39 ``confusables.txt``, as the
    ``confusable-homoglyphs`` package ships it) mapped to what its look-alike group reads
    as: the group's prototype when that is a sequence (``m`` reads as ``rn``), else its
    lowest code point (the groups are joined transitively: ``l``, ``I``, ``1``, Cyrillic
    ``Ӏ``, Arabic alef and Hebrew vav are one group).

    The package's JSON file is read directly: importing its module would keep its whole
    table (some 7 MB) alive in every server process for good.  About 0.1 to 0.2 s;
    :func:`warm_names` runs it before a server takes requests."""
    data = json.loads(resources.files("confusable_homoglyphs")
                      .joinpath("confusables.json").read_text("utf-8"))
    parent: dict[str, str] = {}

    def root(s: str) -> str:
        while parent.get(s, s) != s:
            s = parent[s] = parent.get(parent[s], parent[s])
        return s

    def rank(s: str) -> tuple[bool, str]:  # a sequence is the prototype (sources are one
        return len(s) == 1, s               # character each), then the lowest code point

    for source, alikes in data.items():
        for alike in alikes:
            a, b = root(_IGNORED.sub("", source)), root(_IGNORED.sub("", alike["c"]))
            if a and b and a != b:
                first, second = sorted((a, b), key=rank)
                parent[second] = first
    single = {c: root(c) for c in parent if len(c) == 1}
    # a prototype sequence reads as its characters' own prototypes
    return {c: "".join(single.get(x, x) for x in unicodedata.normalize("NFD", p))
            for c, p in single.items()}


def warm_names() -> None:
    """Build the look-alike table now (:func:`_prototypes`), not at the first name a
    client sends: the server calls it, off its event loop, before it takes requests."""
    _prototypes()


def _skeleton(text: str) -> str:
    """UTS #39's skeleton over :func:`_prototypes`; besides, a dot above an ``i`` or a
    ``j`` reads as nothing (they are soft-dotted: the dot above takes the place of their
    own, so ``"Ali\u0307ce"`` shows as ``"Alice"``)."""
    table = _prototypes()
    out = "".join(table.get(c, c) for c in unicodedata.normalize("NFD", _IGNORED.sub("", text)))
    out = unicodedata.normalize("NFD", out)
    for soft in {table.get("i", "i"), table.get("j", "j")}:
        out = out.replace(soft + "\u0307", soft)
    return out


def name_keys(text: str) -> frozenset[str]:
    """What a shown name reads as: two names that share a key look alike to a player
    (``"Alice"``, ``"ALICE"``, ``"Аlice"`` with a Cyrillic ``А``, full-width
    ``"Ａｌｉｃｅ"``, ``"BiII"`` and ``"Bill"``, ``"Kim"`` and ``"Kirn"``, ``"Bill"`` with
    two Arabic alefs for ``ll``), compared after NFKC, case folding and collapsing white
    space, with look-alike characters and sequences (Unicode's confusables) made one and
    variation selectors ignored."""
    flat = " ".join(unicodedata.normalize("NFKC", text).split())
    once = _skeleton(flat)
    return frozenset({once.casefold(), _skeleton(flat.casefold()), _skeleton(once.casefold())})


def names_alike(a: str, b: str) -> bool:
    """Whether a player could take name ``a`` for name ``b`` (:func:`name_keys`)."""
    return not name_keys(a).isdisjoint(name_keys(b))


def unicode_text(text: str) -> str:
    """Text that can be written as UTF-8: lone surrogates raise ``ValueError``."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("must be valid Unicode text (no lone surrogates)") from None
    return text


def player_name(text: str, longest: int = 24) -> str:
    """A name shown to other players (display names, seat names): 1–``longest``
    characters after trimming, no control or invisible (Unicode ``C*``) characters, no
    line or paragraph separators (``Zl``, ``Zp``), no blank-looking letters, at most two
    combining marks in a row, and nothing that reads as the name that stands for deleted
    accounts (:func:`names_alike`: full-width letters, a no-break space or a Cyrillic
    look-alike do not pass).

    Raises ``ValueError`` with the reason."""
    text = unicodedata.normalize("NFC", unicode_text(text).strip())
    if not 1 <= len(text) <= longest:
        raise ValueError(f"must be 1 to {longest} characters")
    if any(unicodedata.category(c)[0] == "C" or c in _BLANK
           or _hidden_selector(text[i - 1] if i else "", c) for i, c in enumerate(text)):
        raise ValueError("must not contain control or invisible characters")
    if any(unicodedata.category(c) in ("Zl", "Zp") for c in text):  # U+2028, U+2029
        raise ValueError("must be one line (no line or paragraph separators)")
    if not any(unicodedata.category(c)[0] in "LNPS" for c in text):
        raise ValueError("must contain a visible character")
    marks = 0
    for c in text:
        marks = marks + 1 if unicodedata.category(c)[0] == "M" else 0
        if marks > _MAX_MARKS:
            raise ValueError("must not stack more than two combining marks")
    if names_alike(text, DELETED_PLAYER):
        raise ValueError(f"{DELETED_PLAYER!r} is reserved")
    return text


def password(text: str) -> str:
    if not 8 <= len(text) <= 128:
        raise ValueError("must be 8 to 128 characters")
    if "\x00" in text:
        raise ValueError("must not contain NUL characters")
    return unicode_text(text)


Username = Annotated[str, AfterValidator(username)]
DisplayName = Annotated[str, AfterValidator(player_name)]
Password = Annotated[str, AfterValidator(password)]
Text = Annotated[str, AfterValidator(unicode_text)]


class Register(_Model):
    username: Username = Field(description="for logging in; never shown to others")
    password: Password = Field(description="8–128 characters; stored as an argon2 hash")
    display_name: DisplayName = Field(description="what other players see")
    bearer: bool = Field(default=False, description="true: answer with a bearer token for "
                                                    "an API client instead of a cookie")


class Login(_Model):
    username: Text = Field(max_length=64)
    password: Text = Field(max_length=128)
    bearer: bool = False


class DeleteAccount(_Model):
    password: Text = Field(max_length=128, description="asked again before deleting")


class Account(_Model):
    id: str = Field(description="public id (profiles: /api/players/{id})")
    username: str
    display_name: str
    rating: int
    rating_sigma: int
    rated_matches: int


class Me(_Model):
    account: Account | None = Field(description="null: a guest")
    guest: bool = Field(description="this browser has a guest id (its matches are kept)")
    csrf: str | None = Field(description="send as X-CSRF-Token on every POST/DELETE made "
                                         "with the session cookie")


class SignedIn(_Model):
    account: Account
    csrf: str | None = Field(description="cookie sessions: the X-CSRF-Token value")
    token: str | None = Field(description="bearer sessions: Authorization: Bearer TOKEN")
    expires_at: float = Field(description="epoch seconds")
    claimed_matches: int = Field(description="guest matches of this browser now yours")


class Ok(_Model):
    ok: bool = True


class SeatName(_Model):
    seat: int
    name: str | None
    bot: str | None
    points: int | None
    place: int | None


class MatchSummary(_Model):
    room_id: str
    name: str
    finished_at: float = Field(description="epoch seconds: when it ended or was dissolved")
    status: Literal["over", "dissolved"] = Field(
        default="over", description="dissolved: stopped for good with nobody at the "
        "table; points and hands so far, no place, no rating")
    rules: Json
    seat: int
    place: int | None = Field(description="null for a dissolved match")
    players: int
    points: int = Field(description="final points (a dissolved match's: when it stopped)")
    delta: int = Field(description="points won or lost over the match")
    hands: int
    rating_before: int | None
    rating_after: int | None
    seats: list[SeatName]
    replay: str = Field(description="the replay page's path, at the match's end: "
                        "/replay/{room_id}#end")


class MyMatches(_Model):
    matches: list[MatchSummary] = Field(description="newest first")


class PlayerSummary(_Model):
    matches: int
    hands: int
    hands_won: int
    self_draws: int = Field(description="自摸")
    baotou: int = Field(description="爆头 wins (财飘 and 七客 included)")
    caipiao: int = Field(description="财飘 wins")
    gangkai: int = Field(description="杠开 wins")
    average_multiplier: float | None = Field(description="mean M of the won hands")
    points_per_hand: float | None
    first_places: int


class RatingPoint(_Model):
    finished_at: float
    before: int
    after: int


class Profile(_Model):
    kind: Literal["account", "bot"]
    id: str
    display_name: str
    rating: int
    rating_sigma: int
    rated_matches: int
    summary: PlayerSummary
    rating_history: list[RatingPoint] = Field(description="newest first (at most 50)")


class LeaderboardEntry(_Model):
    rank: int
    kind: Literal["account", "bot"]
    id: str = Field(description="account public id, or the bot's name")
    display_name: str
    rating: int
    rating_sigma: int
    matches: int


class Leaderboard(_Model):
    entries: list[LeaderboardEntry] = Field(description="highest rating first")


class SeatRatings(_Model):
    ratings: list[int | None] = Field(description="per seat: the account's or bot level's "
                                                   "rating; null for a guest or free seat")
    signed_in: list[bool] = Field(default_factory=list, description=(
        "per seat: taken by a signed-in account, whose display name no guest can use at "
        "this table (the page marks it, so a look-alike name elsewhere is told apart)"))


ACCOUNT_MODELS: tuple[type[BaseModel], ...] = (
    Register, Login, DeleteAccount, Me, SignedIn, Ok, MyMatches, Profile, Leaderboard,
    SeatRatings)
