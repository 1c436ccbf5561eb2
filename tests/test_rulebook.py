"""The project's rule book (docs/rules.md): every § cited anywhere resolves to it, the CLI
prints sections, the server shows it at /rules with an anchor per section."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hzmj import rulebook
from hzmj.cli import app

ROOT = Path(__file__).resolve().parents[1]
CITATION = re.compile(r"§(\d+(?:\.\d+)?)")
SHARED = Path("/work/shared/RULES.md")


def cited() -> dict[str, set[str]]:
    """Every § number cited in src/ and tests/, with the files that cite it."""
    found: dict[str, set[str]] = {}
    for folder in ("src", "tests"):
        for path in (ROOT / folder).rglob("*"):
            if path.suffix not in (".py", ".js", ".html", ".css", ".md") or "artifacts" in path.parts:
                continue
            for number in CITATION.findall(path.read_text(encoding="utf-8")):
                found.setdefault(number, set()).add(str(path.relative_to(ROOT)))
    return found


def test_every_cited_section_is_a_heading_of_the_rule_book() -> None:
    headings = set(rulebook.sections())
    citations = cited()
    assert len(citations) > 40  # the scan really reads the code
    missing = {n: sorted(files) for n, files in citations.items() if n not in headings}
    assert not missing, f"§ cited but not in docs/rules.md: {missing}"


def test_the_rule_book_keeps_the_numbering_of_the_shared_rule_text() -> None:
    """The same § numbers as RULES.md: its sections and numbered paragraphs."""
    headings = set(rulebook.sections())
    for n in range(1, 16):
        assert str(n) in headings
    # numbered paragraphs of the sections code cites most
    for number in ("4.5", "5.5", "6.5", "6.7", "7.3", "8.5", "8.7", "9.2", "10.4", "10.6",
                   "11.3", "12.2", "14.11"):
        assert number in headings
    if SHARED.is_file():  # where the team's shared text is at hand, compare every paragraph
        text = SHARED.read_text(encoding="utf-8")
        for sec in re.finditer(r"^## (\d+)\. .*?(?=^## |\Z)", text, re.M | re.S):
            for par in re.findall(r"^(\d+)\. ", sec.group(0), re.M):
                assert f"{sec.group(1)}.{par}" in headings, f"§{sec.group(1)}.{par}"


def test_section_text_and_unknown_sections() -> None:
    text = rulebook.section("§5.2")
    assert text.startswith("### §5.2 ") and "白板" in text and "§5.3" not in text
    whole = rulebook.section("5")
    assert "§5.1" in whole and "§5.5" in whole and "§6.1" not in whole
    with pytest.raises(rulebook.UnknownSectionError, match=r"no section .99 "):
        rulebook.section("99")


def test_html_has_an_anchor_per_section() -> None:
    page = rulebook.to_html()
    for number in rulebook.sections():
        assert f'id="s{number}"' in page
    assert "<table>" in page  # the room options and the multiplier tables


def test_cli_prints_a_section_and_lists_them() -> None:
    runner = CliRunner()
    out = runner.invoke(app, ["rules", "6.5"])
    assert out.exit_code == 0 and "三摊承包" in out.output and out.output.startswith("### §6.5")
    listing = runner.invoke(app, ["rules"]).output
    assert "§10.4" in listing and "§15 Worked examples" in listing
    bad = runner.invoke(app, ["rules", "42.1"])
    assert bad.exit_code == 2
