"""The project's rule book, ``docs/rules.md``: its § sections as text and as HTML.

Code, tests, the command line and the browser cite rules as ``§6.5``; every such number
is a heading of the rule book (a test checks it).  ``hzmj rules 6.5`` prints a section,
and the table server shows the whole book at ``/rules`` with an anchor ``#s6.5`` per
section.
"""

from __future__ import annotations

import html
import re
from functools import lru_cache
from pathlib import Path

from hzmj.shown import clip

_HEADING = re.compile(r"^(#{2,3}) §(\d+(?:\.\d+)?) (.*)$", re.MULTILINE)
_HERE = Path(__file__).resolve().parent
# a wheel carries the book inside the package; a checkout keeps it in docs/
_PLACES = (_HERE / "rules.md", _HERE.parents[1] / "docs" / "rules.md")


class UnknownSectionError(ValueError):
    """A § number the rule book has no heading for."""


@lru_cache(maxsize=1)
def text() -> str:
    """The rule book's Markdown; ``FileNotFoundError`` if it was not installed."""
    for path in _PLACES:
        if path.is_file():
            return path.read_text(encoding="utf-8")
    raise FileNotFoundError("docs/rules.md is not installed with hzmj")


def sections() -> dict[str, str]:
    """Every § number (``"6"``, ``"6.5"``) and its heading title."""
    return {m.group(2): m.group(3) for m in _HEADING.finditer(text())}


def section(number: str) -> str:
    """The Markdown of one section (``"6.5"``, or ``"6"`` with its subsections), heading
    included.  ``UnknownSectionError`` names the sections there are."""
    number = number.strip().lstrip("§")
    book = text()
    found = [m for m in _HEADING.finditer(book)]
    for i, m in enumerate(found):
        if m.group(2) != number:
            continue
        level = len(m.group(1))
        end = next((n.start() for n in found[i + 1:] if len(n.group(1)) <= level), len(book))
        return book[m.start():end].strip() + "\n"
    top = ", ".join(k for k in sections() if "." not in k)
    raise UnknownSectionError(f"no section §{clip(number, 20)} in the rule book (sections: {top})")


def anchor(number: str) -> str:
    """The HTML id of a section: ``s6.5``."""
    return f"s{number}"


def to_html() -> str:
    """The rule book as an HTML fragment with an ``id`` on every § heading."""
    from markdown_it import MarkdownIt

    body = MarkdownIt("commonmark").enable("table").render(text())

    def with_id(m: re.Match[str]) -> str:
        tag, number, rest = m.group(1), m.group(2), m.group(3)
        ref = html.escape(anchor(number))
        return (f'<{tag} id="{ref}"><a class="anchor" href="#{ref}">§{number}</a>'
                f"{rest}</{tag}>")

    return re.sub(r"<(h[23])>§(\d+(?:\.\d+)?)(.*?)</\1>", with_id, body)
