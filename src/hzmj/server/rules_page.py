"""The rule book page, ``/rules``: which book (``?lang=``, else the browser's
Accept-Language) and the page around it.  Its header is every page's (web/rules-page.js
draws it, its language button opening the other book at the same section: ``#s6.5`` is
the same in both); without scripts a plain one links home and to the other book."""

from __future__ import annotations

import re
from functools import cache

from hzmj import rulebook

_NAMES = {"en": "English", "zh": "中文"}
# each book's <html lang>, title, lobby link and the name of its contents
_PAGE = {"en": ("en", "Rules · Hangzhou Mahjong", "Lobby", "Contents"),
         "zh": ("zh-CN", "规则 · 杭州麻将", "大厅", "目录")}
_SECTION = re.compile(r'<h2 id="(s\d+)"><a class="anchor" href="#\1">(§\d+)</a>(.*?)</h2>')
_TEMPLATE = """<!doctype html>
<html lang="{html_lang}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title><link rel="icon" href="data:,">
<link rel="stylesheet" href="/static/style.css">
<link rel="stylesheet" href="/static/account.css">
<script type="module" src="/static/rules-page.js"></script></head>
<body><header id="header" class="top" data-book="{book}"><a class="home" href="/">杭州麻将</a>
<a href="/">{lobby}</a>
<a class="book-lang" href="/rules?lang={other}" hreflang="{other}" lang="{other}">{other_name}</a>
</header>
<main class="rulebook">{body}</main></body></html>"""


def base_language(tag: str) -> str:
    """A language tag's language: ``"zh-CN"``, ``"zh_TW"``, ``"ZH"`` → ``"zh"``."""
    return tag.strip().replace("_", "-").split("-", 1)[0].lower()


def book_language(accept_language: str) -> str:
    """The book an Accept-Language header prefers: the listed language of highest q among
    the books' (``zh-CN``, ``zh-TW`` and ``zh`` all read the Chinese book; the first listed
    wins a tie); English, as before there was a Chinese book, when it names neither."""
    best, best_q = "en", 0.0
    for item in accept_language.split(","):
        tag, *params = item.split(";")
        lang = base_language(tag)
        if lang not in rulebook.LANGUAGES:
            continue
        q = 1.0
        for param in params:
            name, _, value = param.strip().partition("=")
            if name == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        if q > best_q:
            best, best_q = lang, q
    return best


@cache  # one page per book: rendering the Markdown took every request (a failed call
# caches nothing, so an unknown language adds no entry)
def rules_page(lang: str) -> str:
    """The whole page of the book in ``lang``; ``UnknownLanguageError`` for another."""
    body = rulebook.to_html(lang)
    html_lang, title, lobby, contents = _PAGE[lang]
    body = _with_contents(body, contents)
    other = next(x for x in rulebook.LANGUAGES if x != lang)
    return _TEMPLATE.format(book=lang, html_lang=html_lang, title=title, lobby=lobby, other=other,
                            other_name=_NAMES[other], body=body)


def _with_contents(body: str, label: str) -> str:
    """The book with a list of its § sections before the first: the long page had none,
    and a player looking for the scoring (§9) scrolled through eight sections to find it."""
    items = "".join(f'<li><a href="#{ref}">{number}{name}</a></li>'
                    for ref, number, name in _SECTION.findall(body))
    at = body.find("<h2")
    if not items or at < 0:
        return body
    nav = f'<nav class="contents" aria-label="{label}"><h2>{label}</h2><ol>{items}</ol></nav>'
    return body[:at] + nav + body[at:]
