"""The project's rule book: its § sections as text and as HTML, in English
(``docs/rules.md``) or Chinese (``docs/rules.zh.md``).

Code, tests, the command line and the browser cite rules as ``§6.5``; every such number
is a heading of both books, in the same order (a test checks it).  ``hzmj rules 6.5
[--lang zh]`` prints a section, and the table server shows a whole book at
``/rules?lang=zh`` with an anchor ``#s6.5`` per section.
"""

from __future__ import annotations

import html
import re
from functools import cache
from pathlib import Path

from hzmj.shown import clip

_HEADING = re.compile(r"^(#{2,3}) §(\d+(?:\.\d+)?) (.*)$", re.MULTILINE)
_HERE = Path(__file__).resolve().parent
# a wheel carries the books inside the package; a checkout keeps them in docs/
_FOLDERS = (_HERE, _HERE.parents[1] / "docs")
_FILES = {"en": "rules.md", "zh": "rules.zh.md"}
LANGUAGES = tuple(_FILES)


class UnknownSectionError(ValueError):
    """A § number the rule book has no heading for."""


class UnknownLanguageError(ValueError):
    """A language the rule book is not written in."""


def _file(lang: str) -> str:
    try:
        return _FILES[lang]
    except KeyError:
        raise UnknownLanguageError(f"no rule book in language {clip(repr(lang), 20)} "
                                   f"(languages: {', '.join(LANGUAGES)})") from None


@cache  # only books that exist are cached: a failed call caches nothing
def text(lang: str = "en") -> str:
    """The rule book's Markdown in ``lang`` (``"en"``, ``"zh"``); ``UnknownLanguageError``
    for another language, ``FileNotFoundError`` if the book was not installed."""
    name = _file(lang)
    for folder in _FOLDERS:
        if (folder / name).is_file():
            return (folder / name).read_text(encoding="utf-8")
    raise FileNotFoundError(f"docs/{name} is not installed with hzmj")


def sections(lang: str = "en") -> dict[str, str]:
    """Every § number (``"6"``, ``"6.5"``) and its heading title in ``lang``."""
    return {m.group(2): m.group(3) for m in _HEADING.finditer(text(lang))}


def section(number: str, lang: str = "en") -> str:
    """The Markdown of one section (``"6.5"``, or ``"6"`` with its subsections), heading
    included.  ``UnknownSectionError`` names the sections there are."""
    number = number.strip().lstrip("§")
    book = text(lang)
    found = [m for m in _HEADING.finditer(book)]
    for i, m in enumerate(found):
        if m.group(2) != number:
            continue
        level = len(m.group(1))
        end = next((n.start() for n in found[i + 1:] if len(n.group(1)) <= level), len(book))
        return book[m.start():end].strip() + "\n"
    top = ", ".join(k for k in sections(lang) if "." not in k)
    raise UnknownSectionError(f"no section §{clip(number, 20)} in the rule book (sections: {top})")


def anchor(number: str) -> str:
    """The HTML id of a section, the same in every language: ``s6.5``."""
    return f"s{number}"


def to_html(lang: str = "en") -> str:
    """The rule book in ``lang`` as an HTML fragment with an ``id`` on every § heading."""
    from markdown_it import MarkdownIt

    body = MarkdownIt("commonmark").enable("table").render(text(lang))

    def with_id(m: re.Match[str]) -> str:
        tag, number, rest = m.group(1), m.group(2), m.group(3)
        ref = html.escape(anchor(number))
        return (f'<{tag} id="{ref}"><a class="anchor" href="#{ref}">§{number}</a>'
                f"{rest}</{tag}>")

    return re.sub(r"<(h[23])>§(\d+(?:\.\d+)?)(.*?)</\1>", with_id, body)
