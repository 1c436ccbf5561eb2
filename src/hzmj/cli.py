"""The ``hzmj`` command line: a calculator over the core (RULES §7, §9, §10).

One Typer ``app``, one function per command.  Commands added later (``serve``,
``simulate``, ``replay``, ``arena``, ``play``) reuse the small helpers here:
:func:`fail` for bad input, :func:`parse_rules` for ``--rule KEY=VALUE``,
:func:`parse_tile_arg`, :func:`print_json` and the shared option types
(:data:`RuleOpt`, :data:`JsonOpt`).

Bad input never shows a traceback: it exits with code 2 and one line on stderr,
``error: <what is wrong>``; Typer's own usage errors are reported the same way.
"""

from __future__ import annotations

import inspect
import json
import socket
import sys
from collections.abc import Callable, Sequence
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any, NoReturn, TypeVar

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

from hzmj import hand as hand_analysis
from hzmj.narration import KONG_KINDS
from hzmj.rules import Rules, RulesError
from hzmj.scoring import (
    CHAIN_ITEMS,
    REASON_NAMES,
    HandScore,
    Settlement,
    chain_problem,
    score_hand,
    settle,
)
from hzmj.shown import counted, shown
from hzmj.tiles import (
    WHITE,
    Hand,
    Tile,
    TileParseError,
    counts_of,
    format_hand,
    parse_hand,
    tile,
    tile_glyph,
    tile_name,
    tile_name_en,
    tile_name_zh,
)

if TYPE_CHECKING:
    from hzmj.game import Match
    from hzmj.record import Step

USAGE_EXIT: int = 2


class InputError(typer.TyperException):
    """Bad input on the command line: exit code 2, one line on stderr."""

    exit_code = USAGE_EXIT


class _PlainOption(TyperOption):
    """An option whose help shows its metavar (``--win TILE``) and a flag's nothing:
    Typer 0.29 prints its own type on every option, ``<bool>`` even on a flag, which
    takes no value, and ``<str>`` where a metavar would say what the value is."""

    def display_type_rich(self, ctx: Any) -> str | None:
        return None if self.is_flag else super().display_type_rich(ctx)


class _PlainArgument(TyperArgument):
    """An argument whose help shows its metavar alone, ``HAND`` (not ``HAND <str>``),
    and in the usage line ``HAND`` when required and ``[§N.N]`` when not (Typer 0.29
    writes ``{HAND}``)."""

    def display_type_rich(self, ctx: Any) -> str | None:
        return None

    def get_usage_pieces(self, ctx: Any) -> list[str]:
        name = self.display_name_raw
        return [name if self.required else f"[{name}]"]


_PLAIN: dict[type, type] = {TyperOption: _PlainOption, TyperArgument: _PlainArgument}


def _plain(params: list[Any]) -> list[Any]:
    """``params`` shown in help as :class:`_PlainOption` and :class:`_PlainArgument` do
    (``--help`` included, which Typer makes only when a command is run)."""
    for param in params:
        param.__class__ = _PLAIN.get(type(param), type(param))
    return params


def _paragraphs(text: str | None) -> str | None:
    """A docstring's paragraphs each made one line: Typer reflows the first paragraph of a
    command's help but keeps the source's line breaks in the others."""
    if text is None:
        return None
    return "\n\n".join(" ".join(p.split()) for p in inspect.cleandoc(text).split("\n\n"))


class _Command(TyperCommand):
    """Every ``hzmj`` command: its help as :func:`_plain` and :func:`_paragraphs` show
    it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.help = _paragraphs(self.help)

    def get_params(self, ctx: Any) -> list[Any]:
        return _plain(super().get_params(ctx))


class _Group(TyperGroup):
    """``hzmj`` and ``hzmj node``: their help as :func:`_plain` shows it."""

    def get_params(self, ctx: Any) -> list[Any]:
        return _plain(super().get_params(ctx))


class _App(typer.Typer):
    """A Typer app whose commands are :class:`_Command`."""

    def command(self, *args: Any, **kwargs: Any) -> Any:
        return super().command(*args, **{"cls": _Command, **kwargs})


class _OneLineErrors(_Group):
    """Report every usage or input error as ``error: …`` on one line (exit code 2)."""

    def main(self, args: Sequence[str] | None = None, prog_name: str | None = None,
             complete_var: str | None = None, standalone_mode: bool = True,
             windows_expand_args: bool = True, **extra: Any) -> Any:
        argv = _bare_ray(list(sys.argv[1:] if args is None else args))

        def run() -> Any:
            return super(_OneLineErrors, self).main(argv, prog_name, complete_var, False,
                                                    windows_expand_args, **extra)

        if not standalone_mode:
            return run()
        try:
            code = run()
        except typer.TyperException as exc:  # Typer's usage errors and InputError
            typer.echo(f"error: {_one_line(_plain_words(exc))}{_help_hint(exc)}", err=True)
            sys.exit(exc.exit_code)
        except typer.Abort:
            typer.echo("Aborted!", err=True)
            sys.exit(1)
        sys.exit(code if isinstance(code, int) else 0)


def _bare_ray(args: list[str]) -> list[str]:
    """``--ray`` takes an optional address: alone (last, or before another option) it
    means a local Ray cluster (Click options cannot make their value optional)."""
    out = []
    for i, a in enumerate(args):
        out.append(a)
        if a == "--ray" and (i + 1 == len(args) or args[i + 1].startswith("-")):
            out.append("local")
    return out


def _plain_words(exc: typer.TyperException) -> str:
    """Typer's message, or for a value pydantic refused (Typer converts with it) the
    option and what it wants: ``--hands: expected a whole number, got 'x'``, not "Invalid
    value for '--hands': Input should be a valid integer, unable to parse string as an
    integer"."""
    from pydantic import ValidationError

    cause, param = exc.__cause__, getattr(exc, "param", None)
    if not isinstance(cause, ValidationError) or param is None or not cause.errors():
        return exc.format_message()
    error = cause.errors()[0]
    bound = error.get("ctx", {})
    wants = {"int_parsing": "a whole number", "int_from_float": "a whole number",
             "float_parsing": "a number",
             "greater_than_equal": f"at least {bound.get('ge')}",
             "less_than_equal": f"at most {bound.get('le')}"}.get(error["type"])
    name = param.opts[0] if getattr(param, "opts", None) and param.param_type_name == "option" \
        else (param.metavar or param.name or "").upper()
    if wants is None:  # a choice (--log-level): pydantic's words, without its prefix
        return f"{name}: {error['msg'].removeprefix('Value error, ')}"
    return f"{name}: expected {wants}, got {shown(error.get('input'))}"


def _one_line(message: str) -> str:
    return " ".join(message.split())


def _help_hint(exc: typer.TyperException) -> str:
    path = getattr(getattr(exc, "ctx", None), "command_path", None)
    return f" (see '{path} --help')" if path else ""


app = _App(
    name="hzmj",
    cls=_OneLineErrors,
    help="Hangzhou Mahjong (杭州麻将): hand calculator, table server, bots, arenas, "
         "records and AI review. § numbers refer to the rule book: `hzmj rules 6.5` "
         "(docs/rules.md; in Chinese: `hzmj rules 6.5 --lang zh`).",
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback(invoke_without_command=True)
def _root(ctx: typer.Context) -> None:
    if ctx.invoked_subcommand is None:
        typer.echo(ctx.get_help())


# --------------------------------------------------------------------------------------
# shared helpers (reused by every command)

RuleOpt = Annotated[
    list[str] | None,
    typer.Option("--rule", metavar="KEY=VALUE",
                 help="Room option of RULES §3, e.g. cap=64 (repeatable)."),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]
RayOpt = Annotated[str | None, typer.Option(
    "--ray", metavar="[ADDRESS]", help="Play on a Ray cluster: alone, a local one; or an "
    "address (auto, ray://HEAD:10001). Needs the extra hzmj\\[cluster].")]
MAX_HANDS = 1_000_000
"""The most ``--hands`` of simulate and arena: a day of play or more; an arena plans every
match before the first, so a larger count only fills the memory."""
MAX_MULTIPLIER = 2 ** 8
"""The largest hand multiplier M (RULES §9.1): 2^(1+k+p) with the 4 kongs a hand can hold
and 3 财神 discards (the 4th 财神 is the 爆头 pair's; flip mode has 3 in all), or
2^(2+h+p) for 七客 with 3 natural quads and 3 财神 discards."""
CaishenOpt = Annotated[
    str,
    typer.Option("--caishen", metavar="TILE",
                 help="财神 kind: 5z = white-dragon mode, anything else = flip mode."),
]


def fail(message: str) -> NoReturn:
    """Stop with exit code 2 and ``error: message`` on stderr."""
    raise InputError(message)


def parse_rules(items: Sequence[str] | None, *, players: int | None = None,
                bots: bool = False) -> Rules:
    """Rules from ``--rule KEY=VALUE`` items; ``players`` overrides the rules' own, or,
    with ``bots`` (the count of ``--bots``, which seats one bot each), must match them."""
    if bots and players not in (2, 3, 4):
        fail(f"--bots lists {counted(players or 0, 'bot')}: a table seats 2, 3 or 4 (one bot per seat)")
    if players is not None and players not in (2, 3, 4):  # RULES §2.1
        fail(f"--players: a table seats 2, 3 or 4 players, got {players} (RULES §2.1)")
    try:
        # --players goes in first so that rules depending on it (缺一门) validate with it
        base = Rules() if players is None else Rules(players=players)
        rules = Rules.from_assignments(items or (), base=base)
    except RulesError as exc:
        fail(f"rule {exc}")
    if bots and rules.players != players:
        fail(f"--rule players={rules.players} but --bots lists {counted(players or 0, 'bot')} (one per "
             "seat)")
    try:
        return rules if players is None else rules.replace(players=players)
    except RulesError as exc:
        fail(f"rule {exc}")


def parse_tile_arg(option: str, text: str) -> Tile:
    """One tile given to ``option`` (e.g. ``--win 1z``)."""
    try:
        return tile(text)
    except TileParseError as exc:
        fail(f"{option}: {exc}")


def parse_hand_arg(text: str, sizes: Sequence[int], caishen: Tile,
                   extra: Sequence[Tile] = (), rules: Rules | None = None,
                   copies: int | None = None) -> Hand:
    """A hand (RULES §1.2) with one of ``sizes`` tiles (kongs as 3), checked with the
    ``extra`` tiles (the winning tile) against RULES §1.1, §4.5 and §5.3 (``copies``: the
    财神 tiles in play, 3 in flip mode, 4 in white mode unless said), and against 缺一门
    (no bamboo, §3) when ``rules`` drop bamboo."""
    try:
        hand = parse_hand(text, caishen)  # RULES §5.2–5.3 for the melds
    except TileParseError as exc:
        fail(str(exc))
    if hand.size not in sizes:
        wanted = " or ".join(str(s) for s in sizes)
        fail(f"HAND must have {wanted} tiles (kongs counted as 3), got {hand.size} "
             f"in {text!r}")
    counts = counts_of(hand.all_tiles() + list(extra))
    if rules is not None and rules.drop_bamboo and any(counts[18:27]):
        fail("drop_bamboo (缺一门) removes every bamboo tile, but the hand holds some "
             "(RULES §3)")
    for kind, n in enumerate(counts):
        if n > 4:
            fail(f"{n} copies of {tile_name(kind)} with the winning tile (only 4 exist)")
    if (copies if copies is not None else 4 if caishen == WHITE else 3) < counts[caishen]:
        fail(f"only 3 财神 ({tile_name(caishen)}) are in play in flip mode: the indicator "
             "is the fourth (RULES §4.5)")
    return hand


def parse_seat(option: str, text: str) -> int:
    try:
        return int(text)
    except ValueError:
        fail(f"{option}: expected a seat number, got {shown(text)}")


def read_record_file(path: str) -> Any:
    """A game record file's JSON; exit 2 with one line when it cannot be read."""
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except (OSError, ValueError, RecursionError) as exc:  # JSONDecodeError, not UTF-8
        fail(f"cannot read {path}: {_file_problem(exc)}")


def _file_problem(exc: Exception) -> str:
    """What is wrong with a file, in a few words rather than Python's ("[Errno 21] Is a
    directory: 'x'", "'utf-8' codec can't decode byte 0xff in position 0: …")."""
    if isinstance(exc, IsADirectoryError):
        return "it is a directory, not a file"
    if isinstance(exc, FileNotFoundError):
        return "no such file"
    if isinstance(exc, PermissionError):
        return "permission denied"
    if isinstance(exc, UnicodeDecodeError):
        return (f"not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at position "
                f"{exc.start}): a record is JSON")
    if isinstance(exc, json.JSONDecodeError) and not exc.doc.strip():
        return "the file is empty"
    if isinstance(exc, json.JSONDecodeError):
        return f"not JSON: {exc}"
    # Python's own words for a 5,000-digit number advise sys.set_int_max_str_digits
    return "a number in it has too many digits" if "int_max_str_digits" in str(exc) else str(exc)


def print_json(data: Any) -> None:
    typer.echo(json.dumps(data, ensure_ascii=False))


def tiles_text(tiles: Sequence[Tile]) -> str:
    """Glyphs next to notation: ``🀇1m 🀈2m``."""
    return " ".join(f"{tile_glyph(t)}{tile_name(t)}" for t in tiles)


def hand_text(hand: Hand) -> str:
    melds = " ".join(f"{tiles_text(m.physical_tiles)} {m.notation()}" for m in hand.melds)
    return f"{tiles_text(sorted(hand.concealed))}  {melds}".rstrip()


def _console() -> Console:
    # made per call so that output goes to the current sys.stdout (CliRunner swaps it)
    return Console(highlight=False)


def _caishen_text(caishen: Tile, flipped_white: bool = False) -> str:
    mode = ("flip mode (翻财神), the indicator a white dragon: the other 3 are the 财神, "
            "nothing stands in" if flipped_white
            else "white-dragon mode (白板财神)" if caishen == WHITE
            else "flip mode (翻财神), 白 stands in for it")
    return f"{tiles_text([caishen])} {tile_name_zh(caishen)} — {mode}"


# --------------------------------------------------------------------------------------
# hzmj score


@app.command()
def score(
    hand: Annotated[str, typer.Argument(
        metavar="HAND", help="13 tiles before the win, melds in brackets.")],
    win: Annotated[str, typer.Option("--win", metavar="TILE", help="The winning tile.")],
    caishen: CaishenOpt = "5z",
    chain: Annotated[list[str] | None, typer.Option(
        "--chain", metavar="ITEMS", help="Chain since the last non-财神 discard, oldest "
        "first, e.g. piao,kong; repeated options add to it (RULES §8.2).")] = None,
    discard: Annotated[bool, typer.Option("--discard",
                                          help="A discard win: the chain is ignored "
                                               "(RULES §8.4).")] = False,
    rule: RuleOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Score a winning hand: multiplier M and its explanation (RULES §7, §9)."""
    rules = parse_rules(rule)
    cs = parse_tile_arg("--caishen", caishen)
    if rules.caishen_mode == "white" and cs != WHITE:  # --caishen decides the mode (§4.5)
        fail(f"--caishen {tile_name(cs)} is flip mode (翻财神), but --rule caishen_mode=white "
             "makes the white dragons the 财神: drop one of them (RULES §4.5)")
    # RULES §4.5: flip mode whose indicator is itself a white dragon: the three other
    # white dragons are the 财神 (scored as in white mode, but only 3 exist)
    flipped_white = cs == WHITE and any(
        item.partition("=")[0].strip() == "caishen_mode" for item in rule or ()
    ) and rules.caishen_mode == "flip"
    copies = 3 if cs != WHITE or flipped_white else 4
    win_tile = parse_tile_arg("--win", win)
    parsed = parse_hand_arg(hand, (13,), cs, [win_tile], rules, copies)
    items = [c.strip() for part in chain or () for c in part.split(",") if c.strip()]
    for item in items:
        if item not in CHAIN_ITEMS:
            fail(f"--chain: item must be piao or kong, got {shown(item)}")
    if discard and not rules.discard_win:
        fail("--discard needs --rule discard_win=true: otherwise only self-drawn wins "
             "count (RULES §3, §8.4)")
    if discard and win_tile == cs:
        fail("a discard win cannot be on a 财神 (RULES §8.4)")
    problem = None if discard else chain_problem(parsed, win_tile, cs, items, copies)
    if problem:
        fail(f"--chain: {problem}")
    result = score_hand(parsed, win_tile, cs, items, rules, discard=discard)
    if as_json:
        print_json({"hand": format_hand(parsed), "win_tile": tile_name(win_tile),
                    "caishen": tile_name(cs), **result.to_dict()})
        return
    _show_score(parsed, win_tile, cs, result, flipped_white)


def _show_score(hand: Hand, win_tile: Tile, caishen: Tile, result: HandScore,
                flipped_white: bool = False) -> None:
    out = _console()
    table = Table(show_header=False, box=None)
    table.add_row("hand", Text(f"{hand_text(hand)}   ({format_hand(hand)})"))
    table.add_row("winning tile", Text(f"{tiles_text([win_tile])} {tile_name_zh(win_tile)} "
                                       f"{tile_name_en(win_tile)}"))
    table.add_row("财神", Text(_caishen_text(caishen, flipped_white)))
    if result.pattern:
        table.add_row("result", Text(f"{result.pattern.zh}  {result.pattern.en}  "
                                     f"M = {result.multiplier}", style="bold green"))
    else:
        table.add_row("result", Text("no win (不胡)", style="bold red"))
    out.print(table)
    _bullets(out, result.explanation)


def _bullets(out: Console, lines: Sequence[str]) -> None:
    """``  • line`` each, a line too long for the terminal continued under its text (not
    under the bullet)."""
    grid = Table.grid(padding=(0, 1))
    grid.add_column(no_wrap=True)
    grid.add_column()
    for line in lines:
        grid.add_row("  •", Text(line))
    out.print(grid)


# --------------------------------------------------------------------------------------
# hzmj settle


def parse_tan(items: Sequence[str]) -> dict[tuple[int, int], int]:
    """``--tan TAKER:GIVER:COUNT`` items (RULES §6.5); repeated pairs add up."""
    tan: dict[tuple[int, int], int] = {}
    for item in items:
        parts = item.split(":")
        if len(parts) != 3 or not all(p.isascii() and p.isdigit() and len(p) <= 3
                                      for p in parts):
            fail(f"--tan: expected TAKER:GIVER:COUNT (e.g. 1:0:3), got {shown(item)}")
        taker, giver, count = (int(p) for p in parts)
        if taker == giver:
            fail(f"--tan: seat {taker} cannot take 摊 from itself, got {shown(item)}")
        tan[(taker, giver)] = tan.get((taker, giver), 0) + count
        taken = sum(n for (t, _), n in tan.items() if t == taker)
        if taken > 4:  # a hand has at most four sets, each taken once (RULES §6.5, §7.1)
            fail(f"--tan: seat {taker} would have taken {taken} 摊; a hand holds at most 4 sets")
    return tan


@app.command(name="settle")
def settle_command(
    winner: Annotated[int, typer.Option("--winner", metavar="SEAT", help="Winning seat.")],
    multiplier: Annotated[int, typer.Option("--multiplier", metavar="M",
                                            help="Hand multiplier M (RULES §9).")],
    players: Annotated[int | None, typer.Option("--players", metavar="N",
                                                help="Seats (overrides --rule players).")] = None,
    dealer: Annotated[int, typer.Option("--dealer", metavar="SEAT")] = 0,
    level: Annotated[int, typer.Option("--level", metavar="L",
                                       help="Dealer level 1–3 (RULES §10.1, §11).")] = 1,
    discarder: Annotated[int | None, typer.Option("--discarder", metavar="SEAT",
                                                  help="Discard win (RULES §10.5).")] = None,
    tan: Annotated[list[str] | None, typer.Option(
        "--tan", metavar="TAKER:GIVER:COUNT",
        help="摊 taken this hand, e.g. 1:0:3 (repeatable, RULES §6.5).")] = None,
    piao_feeder: Annotated[list[str] | None, typer.Option(
        "--piao-feeder", metavar="SEAT",
        help="Seat fed the winner after a 财神 discard (后半场承包, repeatable).")] = None,
    rule: RuleOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Settle a won hand: who pays whom and why (RULES §10)."""
    rules = parse_rules(rule, players=players)
    if multiplier > MAX_MULTIPLIER:
        fail(f"--multiplier: no hand scores more than M = {MAX_MULTIPLIER} (RULES §9: "
             f"爆头 with 4 kongs and 3 财神 discards in the chain, or 三豪华七客 with 3), "
             f"got {shown(multiplier)}")
    feeders = [parse_seat("--piao-feeder", s) for s in piao_feeder or ()]
    try:
        result = settle(rules, winner=winner, multiplier=multiplier, dealer=dealer,
                        level=level, discarder=discarder, tan=parse_tan(tan or ()),
                        piao_feeders=feeders)
    except ValueError as exc:
        fail(str(exc))
    if as_json:
        print_json({"players": rules.players, "winner": winner, "dealer": dealer,
                    "level": level, "multiplier": multiplier, **result.to_dict()})
        return
    _show_settlement(result)


def _show_settlement(result: Settlement) -> None:
    out = _console()
    payments = Table(title="payments")
    for col in ("from", "to", "amount", "reason", "detail"):
        payments.add_column(col, justify="right" if col == "amount" else "left")
    for p in result.payments:
        zh, en = REASON_NAMES[p.reason]
        payments.add_row(str(p.payer), str(p.payee), str(p.amount), f"{zh} {en}",
                         Text(p.detail))
    out.print(payments)
    deltas = Table(title="points")
    for seat in range(len(result.deltas)):
        deltas.add_column(f"seat {seat}", justify="right")
    deltas.add_row(*(f"{d:+d}" for d in result.deltas))
    out.print(deltas)
    _bullets(out, result.notes)


# --------------------------------------------------------------------------------------
# hzmj waits


def _wait_list(waits: Sequence[hand_analysis.Wait]) -> list[dict[str, object]]:
    return [w.to_dict() for w in waits]


def _discard_entry(hand: Hand, option: hand_analysis.DiscardOption,
                   caishen: Tile, visible: Sequence[int]) -> dict[str, Any]:
    concealed = list(hand.concealed)
    concealed.remove(option.discard)
    rest = Hand(tuple(concealed), hand.melds)
    ready = option.shanten == 0
    return {
        "discard": tile_name(option.discard),
        "shanten": option.shanten,
        "baotou_ready": ready and hand_analysis.is_baotou_ready(rest, caishen),
        "waits": (_wait_list(hand_analysis.waits_after_discard(hand, option.discard, caishen,
                                                               visible)) if ready else []),
        "useful": _wait_list(option.useful),
        "useful_left": option.useful_count,
    }


def waits_report(hand: Hand, caishen: Tile) -> dict[str, Any]:
    """The ``hzmj waits --json`` object of a 13- or 14-tile hand.

    In flip mode the face-up indicator is one copy of the 财神 kind that cannot be drawn
    (RULES §4.5), so it counts as visible in ``left``."""
    visible = [0] * len(counts_of(()))
    if caishen != WHITE:
        visible[caishen] = 1
    base: dict[str, Any] = {"hand": format_hand(hand), "caishen": tile_name(caishen),
                            "tiles": hand.size,
                            "shanten": hand_analysis.shanten(hand, caishen)}
    if hand.size == 13:
        return {**base, "baotou_ready": hand_analysis.is_baotou_ready(hand, caishen),
                "waits": _wait_list(hand_analysis.waits(hand, caishen, visible))}
    discards = [_discard_entry(hand, o, caishen, visible)
                for o in hand_analysis.discard_options(hand, caishen, visible)]
    return {**base, "win": base["shanten"] == -1,
            "baotou_ready": any(d["baotou_ready"] for d in discards),
            "discards": discards}


@app.command(name="waits")
def waits_command(
    hand: Annotated[str, typer.Argument(
        metavar="HAND", help="13 tiles (waits) or 14 (best discards).")],
    caishen: CaishenOpt = "5z",
    as_json: JsonOpt = False,
) -> None:
    """Shanten, 爆头-readiness and waits of a hand; per discard for 14 tiles (RULES §7)."""
    cs = parse_tile_arg("--caishen", caishen)
    parsed = parse_hand_arg(hand, (13, 14), cs)
    report = waits_report(parsed, cs)
    if as_json:
        print_json(report)
        return
    out = _console()
    out.print(Text(f"hand  {hand_text(parsed)}   ({report['hand']})"))
    out.print(Text(f"财神  {_caishen_text(cs)}"))
    out.print(Text(f"shanten (向听) {report['shanten']}"
                   + ("  — complete (和了)" if report["shanten"] == -1 else "")))
    if parsed.size == 13:
        _show_waits(out, report)
        return
    table = Table(title="discards, best first")
    for col in ("discard", "shanten", "爆头-ready", "useful tiles", "left"):
        table.add_column(col)
    for d in report["discards"]:
        kind = tile(d["discard"])
        useful = " ".join(tile_glyph(tile(w["tile"])) + w["tile"] for w in d["useful"])
        table.add_row(tiles_text([kind]), str(d["shanten"]), "yes" if d["baotou_ready"] else "",
                      Text(useful), str(d["useful_left"]))
    out.print(table)


def _show_waits(out: Console, report: dict[str, Any]) -> None:
    if report["baotou_ready"]:
        out.print(Text("爆头-ready: wins on any tile by 爆头 (RULES §7.3)", style="bold"))
    if not report["waits"]:
        out.print(Text("not ready (未听牌)"))
        return
    table = Table(title="waits (听牌)")
    for col in ("tile", "中文", "English", "left"):
        table.add_column(col)
    for w in report["waits"]:
        kind = tile(w["tile"])
        table.add_row(tiles_text([kind]), tile_name_zh(kind), tile_name_en(kind), str(w["left"]))
    out.print(table)


# --------------------------------------------------------------------------------------
# hzmj simulate / hzmj replay (the game engine)


@app.command(name="simulate")
def simulate_command(
    hands: Annotated[int, typer.Option("--hands", metavar="N", min=1, max=MAX_HANDS,
                                       help="Hands to play.")] = 100,
    seed: Annotated[int, typer.Option("--seed", metavar="N", help="Master seed.")] = 0,
    players: Annotated[int | None, typer.Option("--players", metavar="N", help="2, 3 or 4.")] = None,
    bot: Annotated[str, typer.Option("--bot", metavar="NAMES", help="Bot name for every seat, or a "
                                     "comma-separated list, one per seat.")] = "random",
    rule: RuleOpt = None,
    as_json: JsonOpt = False,
    ray: RayOpt = None,
) -> None:
    """Bots play N hands; print statistics and a digest of every record (RULES §4–§12)."""
    from hzmj.simulate import simulate

    rules = parse_rules(rule, players=players)
    names = [b.strip() for b in bot.split(",")] if "," in bot else [bot.strip()] * rules.players
    make = _bot_factory(names, rules.players)
    show_progress = not as_json and sys.stdout.isatty()
    if show_progress:
        from rich.progress import Progress

        with Progress(console=_console()) as progress:
            task = progress.add_task("simulating", total=hands)
            stats = _on_cluster(lambda: simulate(
                rules, hands, seed, names, make, ray=ray,
                progress=lambda n: progress.update(task, completed=n)))
    else:
        stats = _on_cluster(lambda: simulate(rules, hands, seed, names, make, ray=ray))
    data = stats.to_dict()
    if as_json:
        print_json(data)
        return
    out = _console()
    table = Table(title=f"{counted(data['hands'], 'hand')}, seed {seed}, bots {','.join(names)}")
    table.add_column("statistic")
    table.add_column("value")
    mean = data["mean_multiplier"]
    for label, value in (
            ("hands", str(data["hands"])), ("matches", str(data["matches"])),
            ("wins", str(data["wins"])), ("draws (荒庄)", str(data["draws"])),
            ("mean M of a win", "–" if mean is None else f"{mean:.2f}"),
            ("points", ", ".join(f"seat {i} {p:+d}" for i, p in enumerate(data["points"]))),
            ("zero sum", "yes" if data["zero_sum"] else "NO: points were made or lost"),
            ("speed", f"{data['hands_per_s']:,.1f} hands a second")):
        table.add_row(label, value)
    out.print(table)
    # whole, on a line of its own: a digest is for comparing runs (equal arguments, equal
    # digest), and the table cut it to fit
    out.print(f"digest of every record: {data['digest']}", soft_wrap=True)
    if data["wins_by_name"]:
        wins = Table(title="wins by pattern")
        wins.add_column("pattern")
        wins.add_column("wins")
        for name, count in data["wins_by_name"].items():
            wins.add_row(name, str(count))
        out.print(wins)


T = TypeVar("T")


def _on_cluster(run: Callable[[], T]) -> T:
    """``run()``, with a missing Ray or an unreachable cluster as a one-line error."""
    from hzmj.cluster import ClusterError

    try:
        return run()
    except ClusterError as exc:
        fail(str(exc))


def _bot_factory(names: Sequence[str], players: int, fair: bool = False,
                 option: str = "--bot") -> Any:
    """The bot registry's ``make_bot``, once every name is known to it (``fair``: and
    keeps to its seat's view)."""
    from hzmj.bots.registry import make_bot

    if len(names) != players:
        fail(f"{option} lists {counted(len(names), 'bot')} for {counted(players, 'seat')}")
    if not all(names):  # "random,,random" or a trailing comma: "unknown bot ''"
        fail(f"{option}: a bot name is missing in {shown(','.join(names))}")
    for name in names:
        try:
            make_bot(name, 0, fair=fair)
        except ValueError as exc:
            fail(str(exc))
    return make_bot


@app.command(name="replay")
def replay_command(
    record_path: Annotated[str, typer.Argument(metavar="RECORD.json",
                                               help="A game record (JSON).")],
    verify_flag: Annotated[bool, typer.Option("--verify", help="Replay and compare; exit 1 "
                                              "on any difference.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print each event as one JSON "
                                          "object a line, for tools.")] = False,
) -> None:
    """Print a recorded match event by event: the deal, every move, each hand's result
    and its explanation.

    --verify also checks every figure the record stores and, for a server's record, that
    the seed opens the commitment published at the start."""
    from hzmj.record import RecordError, replay_steps, verify

    record = read_record_file(record_path)
    try:
        match, steps = replay_steps(record)
        problems = verify(record, match) if verify_flag else []
    except RecordError as exc:
        fail(f"{record_path}: {exc}")
    if as_json:
        for step in steps:
            for event in step.events:
                print_json(event.to_json())
    else:
        _show_replay(steps, match)
    if problems:
        for p in problems:
            typer.echo(f"DIFFERENCE: {p}", err=True)
        raise typer.Exit(1)
    if verify_flag and not as_json:
        out = _console()
        out.print(Text(f"verified: {counted(len(match.actions), 'action')} replayed "
                       "identically"))
        if "commitment" in record:
            out.print(Text(f"fair: SHA-256 of the seed and salt is the commitment "
                           f"{record['commitment']} published at the start"), soft_wrap=True)


MADE_BY_WORDS: dict[str, str] = {"bot": "托管: the bot played it",
                                 "clock": "超时: the clock's default"}
"""A server record's ``made_by`` (a move its seat's player did not choose), in words."""


def _show_replay(steps: Sequence[Step], match: Match) -> None:
    """``hzmj replay`` as text: one line an event (:mod:`hzmj.narration`), a move the bot
    or the clock made for its player marked, and where an unfinished record stops."""
    from hzmj.narration import Narrator

    out = _console()
    narrator = Narrator()
    for step in steps:
        lines = [line for event in step.events for line in narrator.lines(event.to_json())]
        if step.by is not None:  # the move's own line is its first, but a pass has none
            if step.action is not None and step.action.type == "pass":
                lines.insert(0, f"seat {step.action.seat} passes")
            lines[0] += f"  [dim]({MADE_BY_WORDS[step.by]})[/]"
        for line in lines:
            out.print(line, soft_wrap=True)
    if not match.over:
        out.print(f"\nthe record stops after {counted(len(match.actions), 'action')}, in "
                  f"hand {match.hand_no}: the match is not over", soft_wrap=True)


@app.command(name="review")
def review_command(
    record_path: Annotated[str, typer.Argument(metavar="RECORD.json",
                                               help="A game record (JSON).")],
    seat_text: Annotated[str, typer.Option("--seat", metavar="SEAT",
                                           help="The seat to review (0 = first).")],
    bot: Annotated[str, typer.Option("--bot", metavar="NAME", help="The reviewing bot (expert, expert:MS, "
                                     "expert@N, strong, efficiency).")] = "expert",
    as_json: JsonOpt = False,
) -> None:
    """AI review: each decision of one seat, from its view only, against the bot's best."""
    from hzmj.record import RecordError, replay_steps
    from hzmj.review import review

    record = read_record_file(record_path)
    try:
        match, steps = replay_steps(record)
    except RecordError as exc:
        fail(f"{record_path}: {exc}")
    seat = _review_seat(seat_text, match.n, {a.seat for a in match.actions})
    try:
        report = review(record, seat, bot, replayed=(match, steps))
    except (RecordError, ValueError) as exc:
        fail(str(exc))
    if as_json:
        print_json(report)
        return
    _show_review(report, _ReviewWords(record, match))


def _review_seat(text: str, players: int, moved: set[int]) -> int:
    """``--seat`` of ``hzmj review``: a seat of the record's table that made a move."""
    from hzmj.review import seat_list

    number = text.strip()
    if not (number.isascii() and number.isdigit() and len(number) <= 3):
        fail(f"--seat: expected a seat number ({seat_list(range(players), 'or')} at this "
             f"record's table), got {shown(text)}")
    if int(number) >= players:
        fail(f"--seat {int(number)}: this record's table has {players} seats, "
             f"{seat_list(range(players), 'and')}")
    if int(number) not in moved:
        fail(f"--seat {int(number)}: that seat made no move in this record"
             + (f"; review seat {seat_list(sorted(moved), 'or')}" if moved else
                " (nor did any other): nothing to review"))
    return int(number)


class _ReviewWords:
    """A decision's moves in a player's words: the tile with its Chinese name, 财神 marked
    (the kind of that hand, RULES §4.5), and the discard a claim or a pass answers."""

    def __init__(self, record: Any, match: Any) -> None:
        self.caishen = {int(e.data["hand_no"]): tile(e.data["caishen"]) for e in match.log
                        if e.type == "hand_start"}
        self.on_offer: list[str | None] = []  # the last discard before each action
        last = None
        for action in record["actions"]:
            self.on_offer.append(last)
            last = action["tile"] if action["type"] == "discard" else last

    def tile(self, name: str, hand_no: int) -> str:
        kind = tile(name)
        mark = " 财神" if self.caishen.get(hand_no) == kind else ""
        return f"{name} {tile_name_zh(kind)}{mark}"

    def action(self, a: dict[str, Any], index: int, hand_no: int) -> str:
        kind, offer = a["type"], self.on_offer[index]
        if kind == "discard":
            return f"discard {self.tile(a['tile'], hand_no)}"
        if kind == "kong":
            return f"kong {self.tile(a['tile'], hand_no)} ({KONG_KINDS[a['kind']]})"
        if kind == "chow" and offer is not None:
            run = sorted([*a["tiles"], offer], key=tile)
            return f"chow {offer} ({' '.join(run)})"
        if kind in ("pong", "pass") and offer is not None:
            return f"{kind} {self.tile(offer, hand_no)}"
        return {"win": "win (胡)", "pass": "pass (过)"}.get(kind, str(kind))


def _show_review(report: dict[str, Any], words: _ReviewWords) -> None:
    """``hzmj review`` as text: each decision with the bot's values, then the summary."""
    from rich.cells import cell_len

    out = _console()
    bot, unit = report["bot"], report["unit"]
    out.print(Text(f"seat {report['seat']} reviewed by {bot}; values and losses in "
                   f"{unit}", style="bold"))
    decisions = report["decisions"]
    if not decisions:
        out.print(Text("no decision with a choice to review: every move of this seat was "
                       "forced or made for it"))
    else:
        table = Table()
        table.add_column("#", justify="right")
        table.add_column("hand", justify="right")
        table.add_column("move played")
        table.add_column("loss", justify="right")
        table.add_column("values, its choice first")
        for d in decisions:
            at, hand_no = d["index"], d["hand_no"]
            moves = [words.action(c["action"], at, hand_no) for c in d["top"]]
            values = [f"{c['value']:+.2f}" for c in d["top"]]
            width, digits = max(cell_len(m) for m in moves), max(len(v) for v in values)
            lines = [f"{m}{' ' * (width - cell_len(m))} {v:>{digits}}"
                     + (" ◀" if c["action"] == d["played"] else "")
                     for m, v, c in zip(moves, values, d["top"], strict=True)]
            loss = "✓" if d["agree"] else "?" if d["loss"] is None else f"{d['loss']:.2f}"
            table.add_row(str(at), str(hand_no), words.action(d["played"], at, hand_no),
                          loss, Text("\n".join(lines)))
        out.print(table)
        unvalued = ("; ?: a move it did not value" if any(d["loss"] is None for d in decisions)
                    else "")
        out.print(Text(f"#: the move's number in the record; ◀: the move played; ✓: it is "
                       f"{bot}'s choice or valued as high; loss: how much less {bot} values "
                       f"it than its choice{unvalued}", style="dim"))
    agreed = sum(d["agree"] for d in decisions)
    out.print(Text(
        f"{counted(report['reviewed'], 'decision')} in "
        f"{counted(report['hands_reviewed'], 'hand')}" + (
            f"; agreed with {bot} on {agreed} ({report['agreement']:.0%}); loss "
            f"{report['loss_total']:.2f} in total, {report['loss_per_hand']:.2f} a hand over "
            f"the {counted(report['hands_played'], 'hand')} seat {report['seat']} played"
            if decisions else "")))
    made_for = [f"{n} by {who}" for n, who in ((report["skipped"]["bot"], "the bot (托管)"),
                                               (report["skipped"]["clock"],
                                                "the clock (timeout)")) if n]
    if made_for:
        out.print(Text(f"not reviewed, made for seat {report['seat']}: {', '.join(made_for)}"))
    if report["costliest"]:
        out.print(Text("costliest decisions:"))
    for d in report["costliest"]:
        at, hand_no = d["index"], d["hand_no"]
        out.print(Text(f"  #{at}, hand {hand_no}: {words.action(d['played'], at, hand_no)}"
                       f" instead of {words.action(d['best'], at, hand_no)}, loss "
                       f"{d['loss']:.2f}"))


# --------------------------------------------------------------------------------------
# hzmj serve


class LogLevel(StrEnum):
    """The server's log levels (uvicorn's)."""

    critical = "critical"
    error = "error"
    warning = "warning"
    info = "info"
    debug = "debug"
    trace = "trace"


@app.command(name="serve")
def serve_command(
    host: Annotated[str, typer.Option("--host", metavar="HOST", help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", metavar="PORT", min=1, max=65535,
                                      help="TCP port.")] = 8000,
    db: Annotated[str | None, typer.Option("--db", metavar="URL",
                                           help="SQLite file, or a database URL: "
                                                "postgresql://HOST/DB (user:pw@ before "
                                                "HOST); default HZMJ_DB, else ./hzmj.db.")
                ] = None,
    log_level: Annotated[LogLevel, typer.Option(
        "--log-level", metavar="LEVEL", case_sensitive=False,
        help=f"How much the server logs: {', '.join(LogLevel)}.")] = LogLevel.info,
    redis: Annotated[str | None, typer.Option(
        "--redis", metavar="URL", help="Run as one node of a cluster sharing this Redis "
        "(redis://host:6379/0) and the --db PostgreSQL; see docs/scaling.md.")] = None,
    node_url: Annotated[str | None, typer.Option(
        "--node-url", metavar="URL", help="Where the other nodes reach this one "
        "(default http://HOST:PORT).")] = None,
    node_id: Annotated[str | None, typer.Option(
        "--node-id", metavar="ID", help="This node's name in the cluster (default: host name + random).")]
    = None,
    public_url: Annotated[str | None, typer.Option(
        "--public-url", metavar="URL",
        help="The address friends use (share links, QR code), e.g. "
             "https://mj.example.org behind a TLS proxy.")] = None,
    forwarded_allow_ips: Annotated[str | None, typer.Option(
        "--forwarded-allow-ips", metavar="IPS",
        help="Proxies whose X-Forwarded-Proto/-For headers are trusted (default "
             "HZMJ_FORWARDED_ALLOW_IPS, else 127.0.0.1); name them ('*' trusts any "
             "client's own header: the per-address limits then count whatever address "
             "it names; '' trusts none).")]
    = None,
) -> None:
    """Run the table server: rooms, bots and real-time play over WebSocket.

    --host 0.0.0.0 lets friends on your network join (README: play with friends)."""
    from hzmj.server.app import serve

    if (node_url or node_id) and not redis:
        fail("--node-url and --node-id need --redis")
    from hzmj.server.config import web_address

    if not host.strip():
        fail("--host: an interface name or address (127.0.0.1, 0.0.0.0, ::)")
    try:  # before the database is opened and the address printed
        socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (socket.gaierror, UnicodeError) as exc:
        fail(f"--host: cannot listen on {shown(host)}: {exc}")
    for option, url in (("--public-url", public_url), ("--node-url", node_url)):
        if url is not None and not web_address(url):
            fail(f"{option}: an http:// or https:// address with a host, got {shown(url)}")
    serve(host, port, db, log_level.value, public_url, forwarded_allow_ips, redis, node_url, node_id)


# --------------------------------------------------------------------------------------
# hzmj node list / hzmj node drain (a cluster of servers)

node_app = _App(cls=_Group, help="Nodes of a cluster of table servers (docs/scaling.md).")
app.add_typer(node_app, name="node")


@node_app.callback(invoke_without_command=True)
def _node_root(ctx: typer.Context) -> None:
    if ctx.invoked_subcommand is None:  # `hzmj node` alone: its help, like `hzmj` alone
        typer.echo(ctx.get_help())
RedisOpt = Annotated[str, typer.Option("--redis", metavar="URL",
                                       help="The cluster's Redis.")]


def _cluster_call(job: Any) -> Any:
    """Run a cluster coroutine; a Redis that cannot be reached is bad input (exit 2)."""
    import asyncio

    from redis.exceptions import RedisError

    try:
        return asyncio.run(job)
    except (RedisError, OSError, ValueError) as exc:
        fail(f"Redis: {exc}")


@node_app.command(name="list")
def node_list_command(redis: RedisOpt = "redis://127.0.0.1:6379/0", json_out: JsonOpt = False
                      ) -> None:
    """The live nodes: id, URL, rooms held, draining or not."""
    from hzmj.server.cluster import list_nodes

    nodes = _cluster_call(list_nodes(redis))
    if json_out:
        print_json([{"id": n.id, "url": n.url, "rooms": n.rooms, "draining": n.draining}
                    for n in nodes])
        return
    table = Table("node", "url", "rooms", "draining")
    for n in nodes:
        table.add_row(n.id, n.url, str(n.rooms), "yes" if n.draining else "")
    Console().print(table)


@node_app.command(name="drain")
def node_drain_command(
    node: Annotated[str, typer.Argument(metavar="NODE",
                                          help="The node's id (hzmj node list).")],
    redis: RedisOpt = "redis://127.0.0.1:6379/0",
    timeout: Annotated[float, typer.Option("--timeout", metavar="SECONDS", min=0,
                                           help="Seconds to wait for the rooms to move.")]
    = 60.0,
) -> None:
    """Make a node hand every room to the other nodes and take no new ones; returns once
    it holds none, when it can be stopped."""
    from hzmj.server.cluster import drain_node

    try:
        moved = _cluster_call(drain_node(redis, node, timeout))
    except LookupError as exc:
        fail(str(exc))
    except TimeoutError as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise typer.Exit(1) from None
    print(f"node {node} drained: {counted(moved, 'room')} moved; it can be stopped now")


# --------------------------------------------------------------------------------------
# hzmj rules


@app.command(name="rules")
def rules_command(
    section: Annotated[str | None, typer.Argument(
        metavar="§N.N", help="A section such as 6.5 or §9; none: the list of sections.")]
    = None,
    lang: Annotated[str, typer.Option(
        "--lang", metavar="LANG", help="The book's language: en (docs/rules.md) or zh (docs/rules.zh.md).")]
    = "en",
) -> None:
    """Read the rule book (docs/rules.md; --lang zh: docs/rules.zh.md).

    The browser shows the same book at /rules."""
    from hzmj import rulebook

    try:
        if section is None or not section.strip():  # "" too: the list of sections
            for number, title in rulebook.sections(lang).items():
                typer.echo(f"{'  ' if '.' in number else ''}§{number} {title}")
        else:
            typer.echo(rulebook.section(section, lang))
    except (rulebook.UnknownSectionError, rulebook.UnknownLanguageError) as exc:
        fail(str(exc))


# --------------------------------------------------------------------------------------
# hzmj arena / hzmj play (bots)


@app.command(name="arena")
def arena_command(
    bots: Annotated[str, typer.Option("--bots", metavar="NAMES", help="Comma-separated bot names, one per "
                                      "seat; strong:MS sets the strong bot's budget.")]
    = "strong,efficiency,efficiency,efficiency",
    hands: Annotated[int, typer.Option("--hands", metavar="N", min=1, max=MAX_HANDS,
                                       help="Hands per rotation, played as whole matches "
                                       "(of 8 hands unless --rule says otherwise).")] = 64,
    seed: Annotated[int, typer.Option("--seed", metavar="N", help="Arena seed.")] = 0,
    duplicate: Annotated[bool, typer.Option("--duplicate", help="Replay every deal with "
                                            "the bots rotated over the seats, in their "
                                            "order and reversed.")] = False,
    workers: Annotated[int, typer.Option("--workers", metavar="N", min=1, help="Processes.")] = 2,
    rate: Annotated[bool, typer.Option("--rate", help="Update the bots' ratings in the "
                                       "server's database from these matches.")] = False,
    db: Annotated[str, typer.Option("--db", metavar="PATH|URL", help="The server's database for --rate: a "
                                    "file (SQLite) or a postgresql:// URL.")] = "./hzmj.db",
    rule: RuleOpt = None,
    as_json: JsonOpt = False,
    ray: RayOpt = None,
) -> None:
    """Bots play each other: points per hand with 95% CI, win rate, mean M, p-values.

    With --rate, the bots' ratings (the lobby's leaderboard) are updated."""
    from rich.progress import Progress

    from hzmj.arena import GameResult, arena, print_report
    from hzmj.bots.registry import sees_all

    names = [b.strip() for b in bots.split(",")]
    _bot_factory([n.partition(":")[0] for n in names], len(names),
                 option="--bots")  # checks the names
    if rate and any(sees_all(n) for n in names):
        fail("--rate: the oracle sees every tile and has no place on the leaderboard "
             "(measurement only, docs/bots.md)")
    rules = parse_rules(rule, players=len(names), bots=True)
    with Progress(console=Console(stderr=True), transient=True,
                  disable=as_json or not sys.stderr.isatty()) as progress:
        task = progress.add_task("arena", total=None)

        def advance(done: int, total: int) -> None:
            progress.update(task, completed=done, total=total)

        played: list[GameResult] = []
        try:
            report = _on_cluster(lambda: arena(names, rules, hands, seed,
                                               duplicate=duplicate, workers=workers,
                                               progress=advance, on_results=played.extend,
                                               ray=ray))
        except ValueError as exc:
            fail(str(exc))
    if rate:
        report["ratings"] = _rate_bots(played, db)
    if as_json:
        print_json(report)
    else:
        print_report(report, _console())


def _rate_bots(played: Sequence[Any], db: str) -> dict[str, dict[str, int]]:
    """Ratings of the arena's bots after its matches, stored in the server's database."""
    import asyncio

    from hzmj.server.config import database_url
    from hzmj.server.ratings import rate_matches

    matches = [([s.name for s in g.seats], [sum(s.hand_points) for s in g.seats])
               for g in played]
    try:
        rated = asyncio.run(rate_matches(database_url(db), matches))
    except Exception as exc:  # a database that cannot be opened or written
        fail(f"cannot store the ratings in {db}: {exc}")
    return {subject.partition(":")[2]: {"rating": r.shown, "sigma": round(r.sigma),
                                        "matches": r.matches}
            for subject, r in sorted(rated.items(), key=lambda kv: -kv[1].mu)}


@app.command(name="play")
def play_command(
    seat: Annotated[int, typer.Option("--seat", metavar="SEAT", help="Your seat (0 = first).")] = 0,
    seed: Annotated[int, typer.Option("--seed", metavar="N", help="Match seed.")] = 0,
    bot: Annotated[str, typer.Option("--bot", metavar="NAME", help="Bot for the other seats.")]
    = "efficiency",
    rule: RuleOpt = None,
    record: Annotated[str | None, typer.Option(
        "--record", metavar="PATH", help="Write the match's record (JSON) here when it ends "
        "or you quit: for hzmj replay and hzmj review.")] = None,
) -> None:
    """Play a whole match against bots in the terminal (h = hints, q = quit)."""
    from pathlib import Path

    from hzmj.bots.registry import sees_all
    from hzmj.terminal import TerminalTable

    if sees_all(bot):
        fail(f"{bot} sees every tile: it never plays at a table with a human (RULES §13)")
    _bot_factory([bot], 1, fair=True)  # checks the name and its budget or sample count
    rules = parse_rules(rule)
    if not 0 <= seat < rules.players:
        from hzmj.review import seat_list

        fail(f"--seat {seat}: the table has {rules.players} seats, "
             f"{seat_list(range(rules.players), 'and')}")
    if record is not None and not Path(record).resolve().parent.is_dir():
        fail(f"--record: no directory for {record}")  # said before the match, not after
    if record is not None and Path(record).is_dir():
        fail(f"--record: {record} is a directory: name a file, e.g. "
             f"{Path(record) / 'match.json'}")
    table = TerminalTable(rules, seed, seat, sys.stdin, sys.stdout, bot=bot)
    code = table.run()
    if record is not None:
        try:
            Path(record).write_text(json.dumps(table.match.record(), ensure_ascii=False),
                                    encoding="utf-8")
        except OSError as exc:
            fail(f"--record: cannot write {record}: {exc}")
        typer.echo(f"record written to {record}: hzmj replay {record} --verify; "
                   f"hzmj review {record} --seat {seat}")
    raise typer.Exit(code)


def main() -> None:
    """Console-script entry point (``hzmj``)."""
    app()
