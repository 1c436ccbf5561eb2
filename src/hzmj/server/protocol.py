"""Every message of the table server as a pydantic model (``docs/protocol.md``).

The HTTP bodies, the WebSocket messages in both directions, and
:func:`protocol_schema`, the JSON Schema written to ``docs/protocol.schema.json``.
Actions and events keep the engine's own JSON forms (:mod:`hzmj.events`); the server
never builds them itself.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, TypeAdapter

from hzmj.server.account_protocol import ACCOUNT_MODELS, player_name

Json = dict[str, Any]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _Request(BaseModel):
    """What a client sends: strict types (no float, bool or string where an int is
    meant, no int where a bool is), unknown fields refused, every number bounded."""

    model_config = ConfigDict(extra="forbid", strict=True)


MAX_STATE_ID = 2**31 - 1


def _text(text: str) -> str:
    # PostgreSQL's text columns cannot hold NUL (SQLite's can): refuse it on every database;
    # a lone surrogate is no character at all and cannot be stored or sent as UTF-8
    if "\x00" in text:
        raise ValueError("must not contain NUL characters")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("must be valid Unicode (no lone surrogates)") from None
    return text


def _int64(seed: int | None) -> int | None:
    # the seed is stored in a BIGINT column
    if seed is not None and not -(2**63) <= seed < 2**63:
        raise ValueError("must fit in a signed 64-bit integer")
    return seed


def _room_name(text: str) -> str:
    """A room's name is shown in the lobby like a player's: no control, bidirectional or
    invisible characters (RLO turned names around); "" lets the page name the room."""
    text = _text(text).strip()
    return player_name(text, 60) if text else ""


RoomName = Annotated[str, AfterValidator(_room_name)]
SeatName = Annotated[str, AfterValidator(lambda text: player_name(text, 40))]
Seat = Annotated[int, Field(ge=0, le=3)]


# --------------------------------------------------------------------------------------
# HTTP


class Health(_Model):
    ok: bool = Field(description="false while degraded")
    status: Literal["ok", "degraded"]
    problems: list[str] = Field(description="why it is degraded; empty when ok")
    rooms: int = Field(description="live rooms in memory")
    max_rooms: int
    bot_workers: int = Field(description="bot worker processes (0: bots run inline)")
    bot_worker_restarts: int = Field(description="worker pools respawned since the start")
    quarantined: int = Field(description="stored rooms that could not be rebuilt")


class CreateRoom(_Request):
    rules: Json = Field(default_factory=dict, description="RULES §3 options; missing = default")
    name: RoomName = Field(default="", max_length=60)
    seed: Annotated[int | None, AfterValidator(_int64)] = Field(
        default=None, description="fixes the deal, only for a table of bots (tests, "
                                  "replays); a room where a human sits gets a server seed")
    private: bool = Field(default=False, description="not listed in the lobby: only who "
                                                     "has the room's link joins or watches")


class RoomCreated(_Model):
    room_id: str


class SeatInfo(_Model):
    seat: int
    name: str | None = Field(description="null: free seat")
    bot: str | None = Field(description="the bot's name for a bot seat")
    connected: bool
    auto: bool = Field(description="played by a bot now: 托管, left, or away")
    left: bool = Field(description="the player escaped (RULES §8.5)")
    owner: bool
    ready: bool = Field(default=False, description="marked ready: in the waiting room, or "
                                                   "at the gate between hands (bots: always)")


class GateInfo(_Model):
    """The pause between two hands: no clock runs until every seat is ready or the
    countdown ends."""

    hand_no: int = Field(description="the hand about to be dealt")
    deadline_ms: int = Field(description="epoch ms when the next hand starts anyway")
    ready: list[int] = Field(description="seats ready (bots and seats played by a bot at once)")


class RoomInfo(_Model):
    room_id: str
    name: str
    status: Literal["open", "running", "over", "expired", "dissolved"]
    rules: Json
    seats: list[SeatInfo]
    free_seats: list[int]
    state_id: int | None = Field(description="the match's public step, once started")
    hand_no: int | None
    commitment: str | None = Field(
        default=None, description="SHA-256 of the seed and salt, published at the start")
    seed: int | None = Field(default=None, description="revealed once the match is over")
    salt: str | None = Field(default=None, description="revealed once the match is over")
    gate: GateInfo | None = Field(default=None, description="set between two hands")
    spectators: int = Field(default=0, description="connected spectators")
    private: bool = Field(default=False, description="not listed in the lobby (GET "
                                                     "/api/rooms): joined and watched by link")
    dissolve_ms: int | None = Field(
        default=None, description="set while the running match is paused (no seat token "
        "has a connection): epoch ms when the room is dissolved unless a seat connects")
    dissolved_after: int | None = Field(
        default=None, description="a dissolved room: the seconds it stood paused with "
        "nobody at the table before it was dissolved (unattended_limit)")


class RoomList(_Model):
    rooms: list[RoomInfo]


class JoinRoom(_Request):
    name: SeatName = Field(min_length=1, max_length=40, description="a signed-in player "
                           "sits under their display name instead")
    seat: Seat | None = None


class Joined(_Model):
    seat: int
    token: str = Field(description="keep it secret: it acts for this seat (Bearer header, "
                                   "WebSocket subprotocol)")


class AddBot(_Request):
    seat: Seat
    bot: str = Field(default="efficiency", max_length=32)


class BotAdded(_Model):
    seat: int
    bot: str


class Started(_Model):
    ok: bool = True
    state_id: int


class Left(_Model):
    ok: bool = True
    escaped: bool = Field(description="true: the match was running and the escape rule applied")


class TileLeft(_Model):
    tile: str
    left: int = Field(description="copies the seat cannot see (RULES §13)")


class DiscardHint(_Model):
    tile: str = Field(description="a legal discard")
    shanten: int = Field(description="the hand's shanten after it (0: ready)")
    waits: list[TileLeft] = Field(description="winning tiles after it, when ready")
    useful: list[TileLeft] = Field(description="draws that would lower the shanten")


class HintCandidate(_Model):
    action: Json
    value: float = Field(description="the bot's own score; higher is better")
    detail: str


class Hints(_Model):
    shanten: int = Field(description="of the hand as it is (−1: complete)")
    waits: list[TileLeft] = Field(description="with 13 tiles: the winning tiles")
    discards: list[DiscardHint] = Field(description="with 14 tiles: each legal discard, "
                                                    "the suggested one first")
    suggestion: Json | None = Field(description="the strongest bot's choice within the hint "
                                                "budget; null when the seat has nothing to do")
    candidates: list[HintCandidate] = Field(description="its top choices, best first")


class ReplayStep(_Model):
    action: Json | None = Field(description="null for step 0, the deal")
    events: list[Json] = Field(description="full (unredacted) events of this step")
    by: Literal["bot", "clock"] | None = Field(
        default=None, description="who chose the action instead of its seat's player (the "
        "record's made_by): the server's bot (托管, away, left) or the clock (a timeout); "
        "null: the seat itself, or not known")


class Replay(_Model):
    rules: Json
    players: list[str | None] = Field(description="the seats' names")
    steps: list[ReplayStep]
    seed: int
    seed_text: str = Field(description="the seed in decimal digits: a JavaScript client's "
                                       "JSON numbers are doubles, exact only below 2^53, "
                                       "and the commitment hashes these digits")
    salt: str | None = Field(description="with the seed, opens the commitment")
    commitment: str | None = Field(description="published at the start (RoomInfo)")
    hands: int = Field(default=0, description="hands the match had")
    hands_replayed: int = Field(default=0, description="hands the steps cover: the first "
                                "ones, at most 200 (a points match may last thousands)")


class Share(_Model):
    url: str = Field(description="the room's link for friends (--public-url, else the "
                                 "address the visitor used)")
    qr_svg: str = Field(description="a QR code of url, as an SVG document")


class ReviewDecision(_Model):
    index: int = Field(description="the action's place in the record (0 = its first "
                                   "action): replay step `index` shows the position "
                                   "before it")
    hand_no: int
    played: Json = Field(description="the action the seat took")
    best: Json = Field(description="the reviewing bot's first choice")
    agree: bool
    loss: float | None = Field(description="the bot's value of best minus that of played "
                                           "(0 when they agree; null: played not valued)")
    # agree: played is the bot's choice, or a move it values at least as high
    top: list[HintCandidate] = Field(description="the bot's best choices, and the move played")


class ReviewSkipped(_Model):
    bot: int = Field(description="made by the server's bot: 托管, away, or after leaving")
    clock: int = Field(description="made by the clock: the default on a timeout (RULES §8.7)")


class Review(_Model):
    seat: int
    bot: str
    unit: str = Field(description="what the values measure")
    hands: int
    hands_reviewed: int = Field(description="hands whose decisions are reviewed: all, or "
                                            "the server's first 16 (a points match may "
                                            "last hundreds)")
    hands_played: int = Field(description="reviewed hands where the player made a move "
                                          "itself (not all left to 托管 or the clock)")
    reviewed: int = Field(description="decisions with a choice")
    skipped: ReviewSkipped = Field(description="decisions with a choice the seat's player "
                                               "did not make, not reviewed")
    agreement: float | None = Field(description="share of decisions where played = best")
    loss_total: float
    loss_per_hand: float = Field(description="loss_total over hands_played")
    decisions: list[ReviewDecision]
    costliest: list[ReviewDecision] = Field(description="the five largest losses")


class ErrorBody(_Model):
    detail: str = Field(description="in English")
    option: str | None = Field(default=None, description="the room option at fault")
    code: str | None = Field(default=None, description="a stable key a client may translate")


# --------------------------------------------------------------------------------------
# WebSocket, server → client


class SnapshotMsg(_Model):
    type: Literal["snapshot"] = "snapshot"
    state_id: int
    seat: int | None = Field(description="your seat; null for a spectator")
    view: Json | None = Field(description="hzmj view(seat); null before the match starts")
    history: list[Json] = Field(default_factory=list, description="the 战绩: every finished "
                                "hand's hand_end event, with its win event as `win` (or null)")
    hand_events: list[Json] = Field(default_factory=list, description="the shown hand's "
                                    "events so far, from its hand_start, each "
                                    "Event.for_seat(your seat) as event messages carried "
                                    "them: the table's log after a reload or reconnect")


class EventMsg(_Model):
    type: Literal["event"] = "event"
    state_id: int = Field(description="the match state after the action that caused it")
    seq: int = Field(description="the event's index in the match log")
    event: Json = Field(description="Event.for_seat(your seat): already redacted")


class PromptMsg(_Model):
    type: Literal["prompt"] = "prompt"
    state_id: int = Field(description="echo it in your action")
    phase: Literal["turn", "claim"]
    actions: list[Json] = Field(description="the legal actions; the last is the default")
    deadline_ms: int = Field(description="epoch ms when the default is applied for you")


class AckMsg(_Model):
    type: Literal["ack"] = "ack"
    state_id: int = Field(description="your action was applied; this is the new state")


class RoomMsg(_Model):
    type: Literal["room"] = "room"
    room: RoomInfo


class ErrorMsg(_Model):
    type: Literal["error"] = "error"
    reason: str = Field(description="in English")
    code: str | None = Field(default=None, description="a stable key a client may translate "
                                                       "(docs/protocol.md lists them)")


class ClockMsg(_Model):
    type: Literal["clock"] = "clock"
    seat: int | None = Field(description="the seat in turn; null in a claim window (who may "
                                         "claim is not told, RULES §13)")
    phase: Literal["turn", "claim"]
    deadline_ms: int = Field(description="epoch ms when the clock acts")


class PhraseMsg(_Model):
    type: Literal["phrase"] = "phrase"
    seat: int
    phrase: int = Field(description="index into the client's list of quick phrases (快捷语)")


ServerMessage = Annotated[
    SnapshotMsg | EventMsg | PromptMsg | AckMsg | RoomMsg | ErrorMsg | ClockMsg | PhraseMsg,
    Field(discriminator="type"),
]

# --------------------------------------------------------------------------------------
# WebSocket, client → server


class ActionRequest(_Request):
    type: Literal["action"] = "action"
    state_id: int = Field(ge=0, le=MAX_STATE_ID)
    action: Json = Field(description="one of the prompted actions; its seat may be omitted")


class SnapshotRequest(_Request):
    type: Literal["snapshot"] = "snapshot"


class AutoRequest(_Request):
    type: Literal["auto"] = "auto"
    on: bool = Field(description="托管: let the bot play this seat")


class ReadyRequest(_Request):
    type: Literal["ready"] = "ready"
    on: bool = Field(default=True, description="ready (继续 / 准备) or not (waiting room only)")


PHRASES = 8  # quick phrases (快捷语) the client knows


class PhraseRequest(_Request):
    type: Literal["phrase"] = "phrase"
    phrase: int = Field(ge=0, lt=PHRASES, description="index of a quick phrase (快捷语)")


AnyClientMessage = (ActionRequest | SnapshotRequest | AutoRequest | ReadyRequest
                    | PhraseRequest)
ClientMessage = Annotated[AnyClientMessage, Field(discriminator="type")]
client_message: TypeAdapter[AnyClientMessage] = TypeAdapter(ClientMessage)


def protocol_schema() -> Json:
    """JSON Schema of every message (``docs/protocol.schema.json``)."""
    models: tuple[type[BaseModel], ...] = (
        Health, CreateRoom, RoomCreated, RoomInfo, RoomList, JoinRoom, Joined, AddBot, BotAdded,
        Started, Left, Hints, Replay, Review, Share, ErrorBody, *ACCOUNT_MODELS)
    http = {m.__name__: m for m in models}

    defs: dict[str, Any] = {}
    for name, model in http.items():
        schema = model.model_json_schema(ref_template="#/$defs/{model}")
        defs.update(schema.pop("$defs", {}))
        defs[name] = schema
    for name, adapter in (("ServerMessage", TypeAdapter(ServerMessage)),
                          ("ClientMessage", client_message)):
        schema = adapter.json_schema(ref_template="#/$defs/{model}")
        defs.update(schema.pop("$defs", {}))
        defs[name] = schema
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "hzmj table server protocol",
        "$defs": dict(sorted(defs.items())),
    }


if __name__ == "__main__":  # python -m hzmj.server.protocol > docs/protocol.schema.json
    import json

    print(json.dumps(protocol_schema(), indent=2, ensure_ascii=False))
