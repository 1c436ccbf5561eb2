"""The examples of README.md, docs/cli.md and docs/rl.md run as written and print what
the docs say they print (a reader copies them first).  The simulate example's digest
also holds every event's wording: a record's ``events_digest`` covers the events' full
JSON, score explanations included, so a changed word fails every stored record's
``hzmj replay --verify``."""

from __future__ import annotations

import doctest
import json
import re
import shlex
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import hzmj.env.vector
from hzmj.cli import app

ROOT = Path(__file__).resolve().parents[1]
ELIDED = ("...", "…")
UNTIMED = {"hands_per_s"}  # a speed, different on every run
runner = CliRunner()


def blocks(doc: str, language: str) -> list[str]:
    """The fenced code blocks of ``doc`` in ``language``."""
    text = (ROOT / doc).read_text(encoding="utf-8")
    return re.findall(rf"^```{language}\n(.*?)^```", text, flags=re.S | re.M)


def commands(doc: str) -> list[tuple[str, str]]:
    """Each ``hzmj`` command of the ``sh`` blocks of ``doc`` (``$ hzmj …`` or ``uv run hzmj
    …``, one line) with the output the doc shows under it ("" for none)."""
    found = []
    for block in blocks(doc, "sh"):
        lines = block.splitlines()
        for i, line in enumerate(lines):
            command = re.sub(r"^(\$ |uv run )", "", line)
            if command == line or not command.startswith("hzmj "):
                continue
            shown = []
            for after in lines[i + 1:]:
                if after.startswith(("$ ", "uv run ")):
                    break
                shown.append(after)
            found.append((command, "\n".join(shown)))
    return found


def like(doc: Any, got: Any, where: str = "") -> None:
    """``got`` is what ``doc`` shows, where ``"..."`` stands for anything, a string ending
    in an elision for any string it begins, and a list ending in one for any longer list."""
    if isinstance(doc, str) and doc.endswith(ELIDED):
        stem = doc.rstrip(".…")
        assert isinstance(got, str) and got.startswith(stem), (where, doc, got)
    elif isinstance(doc, dict):
        assert isinstance(got, dict) and doc.keys() == got.keys(), (where, doc, got)
        for key, value in doc.items():
            if key not in UNTIMED:
                like(value, got[key], f"{where}.{key}")
    elif isinstance(doc, list) and doc and doc[-1] in ELIDED:
        assert isinstance(got, list) and len(got) >= len(doc) - 1, (where, doc, got)
        for i, value in enumerate(doc[:-1]):
            like(value, got[i], f"{where}[{i}]")
    elif isinstance(doc, list):
        assert isinstance(got, list) and len(got) == len(doc), (where, doc, got)
        for i, value in enumerate(doc):
            like(value, got[i], f"{where}[{i}]")
    else:
        assert type(doc) is type(got) and doc == got, (where, doc, got)


CALCULATOR = [c for c in commands("docs/cli.md") + commands("README.md")
              if c[0].split()[1] in ("score", "settle", "waits", "rules", "simulate")]


def test_the_docs_show_calculator_commands() -> None:
    assert len(CALCULATOR) >= 12


@pytest.mark.parametrize(("command", "shown"), CALCULATOR,
                         ids=[c.partition("#")[0].strip() for c, _ in CALCULATOR])
def test_a_documented_command_prints_what_the_docs_show(command: str, shown: str) -> None:
    argv, _, comment = command.partition("#")
    result = runner.invoke(app, shlex.split(argv)[1:])
    if shown.startswith("error: "):
        assert result.exit_code == 2 and result.stderr == shown + "\n"
        return
    assert result.exit_code == 0, result.stderr
    if shown:  # JSON, with bare ... for elided items
        like(json.loads(re.sub(r"(?<![\"\w.])\.\.\.(?![\"\w])", '"..."', shown)),
             json.loads(result.stdout))
    elif comment.strip().startswith("["):  # README: `… --json  # [-8, 12, -2, -2]`
        assert json.loads(result.stdout)["deltas"] == json.loads(comment)


@pytest.mark.parametrize(("doc", "index"), [("README.md", 0), ("docs/rl.md", 0),
                                            ("docs/rl.md", 1)])
def test_a_documented_python_example_runs(doc: str, index: int,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    exec(compile(blocks(doc, "python")[index], doc, "exec"), {})
    if doc == "README.md":  # the hand the seat holds after its discard, then its events
        hand, events = capsys.readouterr().out.split(" [{", 1)
        assert len(json.loads(hand.replace("'", '"'))) == 13 and "'type': 'discard'" in events


def test_the_vector_env_docstring_example_runs() -> None:
    result = doctest.testmod(hzmj.env.vector, verbose=False)
    assert result.attempted == 7 and result.failed == 0


def test_the_replay_docs_show_what_hzmj_replay_prints(tmp_path: Path) -> None:
    """docs/cli.md's excerpt of ``hzmj replay``: the record it names, replayed; ``...``
    stands for the lines left out."""
    from hzmj.bots.registry import make_bot
    from hzmj.game import Match
    from hzmj.rules import Rules
    from hzmj.simulate import play_match

    match = Match(Rules(), seed=11)
    play_match(match, [make_bot("efficiency", s) for s in range(4)])
    path = tmp_path / "record.json"
    path.write_text(json.dumps(match.record()), encoding="utf-8")
    result = runner.invoke(app, ["replay", str(path)])
    assert result.exit_code == 0, result.stderr
    printed = result.stdout.splitlines()
    (excerpt,) = blocks("docs/cli.md", "text")
    at = 0
    for part in re.split(r"\n *\.\.\.\n", excerpt):
        lines = part.strip("\n").splitlines()
        found = [i for i in range(at, len(printed)) if printed[i:i + len(lines)] == lines]
        assert found, (lines, printed[at:at + len(lines) + 40])
        at = found[0] + len(lines)
