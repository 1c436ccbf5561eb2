"""The table's layout as a player sees it, in a real Chromium at a phone's and a laptop's
sizes (390x844, 844x390, 1280x800), in Chinese and English: what a walk through the whole
player flow found cut off, hidden, broken mid-word or left empty.

The server, the browser and the lobby helpers are tests/test_web.py's; screenshots go to
tests/artifacts/ (git-ignored).
"""

from __future__ import annotations

import time
from typing import Any

import pytest

import test_web as web
from hzmj.tiles import NUM_KINDS, tile_name, tile_name_en, tile_name_zh
from test_web import ARTIFACTS, CHROMIUM, _Server, find_seed, shot, sync_api

# tests/test_web.py's table servers (with bots, and with bots that do not pause), its
# Chromium and its fresh pages
server = web.server
fast_server = web.fast_server
browser = web.browser
page_at = web.page_at

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="needs Debian's chromium at /usr/bin/chromium (apt-get install -y chromium)")


def phone(browser: Any, width: int, height: int, lang: str = "zh") -> Any:
    """A touch screen's page (coarse pointer, as a phone's) in ``lang``."""
    ctx = browser.new_context(viewport={"width": width, "height": height}, has_touch=True,
                              is_mobile=True)
    ctx.add_init_script(f"localStorage.setItem('hzmj.lang', '{lang}')")
    page = ctx.new_page()
    page.set_default_timeout(15000)
    return page


# ------------------------------------------------------------------ words whole


# Every word of the text under ``selector`` on one line: a word the browser broke over two
# lines has two boxes.  Returns the broken words with the text they are in.
BROKEN_WORDS = """(selector) => {
  const broken = [];
  for (const node of document.querySelectorAll(selector)) {
    const walker = document.createTreeWalker(node, NodeFilter.SHOW_TEXT);
    for (let text = walker.nextNode(); text; text = walker.nextNode()) {
      for (const m of text.data.matchAll(/[A-Za-z0-9]+/g)) {
        const range = document.createRange();
        range.setStart(text, m.index);
        range.setEnd(text, m.index + m[0].length);
        const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
        if (lines.size > 1) broken.push([m[0], node.textContent]);
      }
    }
  }
  return broken;
}"""


def show_plain_win(page: Any, *, base_score: int, cap: int | None, reading: str) -> None:
    """Seat 0's self-drawn plain win (M=1, 财神 5m) in the settlement dialog, drawn by the
    page's own render.js from a hand_end like the server's (docs/protocol.md)."""
    page.evaluate("""async ([baseScore, cap, reading]) => {
      const { dialog, settlementElement } = await import('/static/render.js');
      const board = { n: 4, seat: 0, caishen: '5m', rules: { caishen_mode: 'flip',
        base_score: baseScore, cap } };
      const he = { result: 'win', winner: 0, from: null, dealer: 0, level: 1,
        caishen: '5m', payments: [], deltas: [6, -2, -2, -2], points: [6, -2, -2, -2],
        notes: [], hands: {},
        win: { tile: '9m', self_draw: true, chain: [],
          score: { multiplier: 1, names: { zh: '平胡', en: 'plain win' }, explanation: [],
            reading } } };
      dialog('settlement', settlementElement(board, he, ['Alice', 'Bob', 'Carol', 'Dan']),
        [['OK']]);
    }""", [base_score, cap, reading])


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_wild_and_a_stand_ins_captions_break_between_words(
        server: _Server, browser: Any, lang: str) -> None:
    """The settlement's winning hand captions a 财神 with the tile it played as and a white
    dragon standing in for the 财神 kind (RULES §5.1, §5.2).  On a phone the English caption
    "as 5 Characters" broke mid-word ("charac" over "ters"): it breaks between words now,
    a long word widening its tile's column, and stays inside the sheet."""
    page = phone(browser, 390, 844, lang)
    page.goto(server.base + "/")
    page.wait_for_selector("form.create button")
    show_plain_win(page, base_score=1, cap=None,
                   reading='*3m 4m 5m | 1p 2p 3p | 7s 8s 9s | 2z 2z 2z | *9m 9m')
    roles = page.locator("dialog.modal .role")
    sync_api.expect(roles).to_have_count(3)
    if lang == "en":
        sync_api.expect(roles.nth(1)).to_have_text("White Dragon as 5 Characters")
    assert page.evaluate(BROKEN_WORDS, "dialog.modal .role") == []
    # the captions stay inside the sheet: nothing scrolls sideways
    assert page.evaluate("""() => { const d = document.querySelector('dialog.modal');
      return d.scrollWidth <= d.clientWidth; }""")
    page.locator("dialog.modal .win-hand").screenshot(
        path=str(ARTIFACTS / f"layout-captions-{lang}-390.png"))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_figure_of_the_settlement_is_bold(server: _Server, browser: Any, lang: str) -> None:
    """The settlement's factors (RULES §9.1, §10.1, §10.2) showed M and D bold and 底分
    (and 封顶) plain, as a note: each line's figure is bold."""
    page = phone(browser, 390, 844, lang)
    page.goto(server.base + "/")
    page.wait_for_selector("form.create button")
    show_plain_win(page, base_score=2, cap=64,
                   reading='3m 4m 6m | 1p 2p 3p | 7s 8s 9s | 2z 2z 2z | 9m 9m')
    lines = page.locator("dialog.modal ul.factors > li")
    sync_api.expect(lines).to_have_count(3)
    bold = page.evaluate("""() => [...document.querySelectorAll('dialog.modal ul.factors > li')]
      .map((li) => [...li.querySelectorAll('b')].map((b) => [b.textContent,
        Number(getComputedStyle(b).fontWeight) >= 700]))""")
    base, cap = ("底分 (base score)", "封顶 (cap)") if lang == "en" else ("底分", "封顶")
    assert bold[2] == [[f"{base} 2", True], [f"{cap} 64", True]], bold
    assert all(weights and all(w for _, w in weights) for weights in bold), bold
    page.locator("dialog.modal ul.factors").screenshot(
        path=str(ARTIFACTS / f"layout-factors-{lang}-390.png"))
    page.context.close()


# The ink of ``text`` drawn at weights 400 and 700 in the page's own font, 16 px: the sum of
# its pixels' opacity, one a fully inked pixel.
INK = """async (text) => {
  await document.fonts.ready;
  const family = getComputedStyle(document.body).fontFamily;
  return [400, 700].map((weight) => {
    const canvas = document.createElement('canvas');
    canvas.width = 240;
    canvas.height = 40;
    const g = canvas.getContext('2d');
    g.font = `${weight} 16px ${family}`;
    g.fillText(text, 4, 28);
    const pixels = g.getImageData(0, 0, 240, 40).data;
    let ink = 0;
    for (let i = 3; i < pixels.length; i += 4) ink += pixels[i] / 255;
    return ink; });
}"""


def test_bold_chinese_is_drawn_bold(server: _Server, page_at: Any) -> None:
    """The page named its fallback Chinese font (WenQuanYi Zen Hei, one regular face), and
    Chromium draws a font named so at that face: bold Chinese (headings, 战绩, 底分 and 封顶
    beside their bold figures) showed regular, as heavy as plain text, while the bold test
    above passed on the computed weight.  Reached through sans-serif it is emboldened:
    bold Chinese has well over a tenth more ink than plain, as bold Latin has."""
    page = page_at(390, 844)
    page.goto(server.base + "/")
    page.wait_for_selector("form.create button")
    for text in ("底分封顶战绩终局", "Base score"):
        regular, bold = page.evaluate(INK, text)
        assert regular > 100 and bold > 1.15 * regular, (text, regular, bold)


# ------------------------------------------------------------------ the header


# One row: every child of ``selector`` shares the row's middle band (within 12 px), and is
# inside the screen's width.  Returns [text, middle, left, right] of each.
ROW = """(selector) => [...document.querySelectorAll(selector)].map((n) => {
  const r = n.getBoundingClientRect();
  return [n.textContent.slice(0, 20), (r.top + r.bottom) / 2, r.left, r.right]; })"""


def one_row(page: Any, selector: str, width: int) -> bool:
    boxes = page.evaluate(ROW, selector)
    middles = [middle for _, middle, _, _ in boxes]
    return bool(boxes) and max(middles) - min(middles) <= 12 and all(
        left >= 0 and right <= width for *_, left, right in boxes)


@pytest.mark.parametrize("width, touch, lang", [
    (390, True, "en"), (390, False, "en"), (320, True, "en"), (320, False, "en"),
    (320, True, "zh")])
def test_the_header_and_the_toolbar_keep_to_one_row_on_a_phone(
        server: _Server, browser: Any, width: int, touch: bool, lang: str) -> None:
    """At 390 px the English header ("Hangzhou Mahjong", My matches, Sign in, Rules, the
    sound and 中文) wrapped onto a second row, and at 320 px it did in both languages; it
    keeps to one, on the lobby and at the table, every link and button whole and on screen
    ("My matches" its icon at 320 px, "English" "EN", each still named).  The English
    toolbar (Auto-play, Suggest, Scores, Log, Phrases, Leave) took two rows at 390 px: it
    reads Auto, Hint, Scores, Log, Chat, Leave, on one.  At 320 px it took two in both
    languages: 离开 is its icon there (named), and every control a finger's 40 px target;
    so is the header's icon of 我的对局 (an 18 px mark), drawn as large as the sound's."""
    ctx = browser.new_context(viewport={"width": width, "height": 844}, has_touch=touch,
                              is_mobile=touch)
    ctx.add_init_script(f"localStorage.setItem('hzmj.lang', '{lang}')")
    try:
        page = ctx.new_page()
        page.set_default_timeout(15000)
        page.goto(server.base + "/")
        page.wait_for_selector("form.create button")
        for where in ("lobby", "table"):
            if where == "table":
                web.create_room_with_bots(page, server.base, 3)
            header = page.locator("header.top")
            sync_api.expect(header.locator("a.home")).to_contain_text(
                "Mahjong" if lang == "en" else "麻将")
            assert one_row(page, "header.top a, header.top button", width), (
                where, page.evaluate(ROW, "header.top a, header.top button"))
            assert page.evaluate(BROKEN_WORDS, "header.top a:not(.home), header.top button") == []
            assert header.bounding_box()["height"] <= 56, header.bounding_box()
            # a link or button shown as its icon or short form keeps its name
            names = page.evaluate("""() => [...document.querySelectorAll(
                'header.top a, header.top button')].map((n) => n.getAttribute('aria-label')
                  || n.innerText.trim())""")
            assert ("My matches" if lang == "en" else "我的对局") in names, names
            assert ("中文" if lang == "en" else "English") in names, names
            header.screenshot(path=str(ARTIFACTS / f"layout-header-{lang}-{width}-{where}.png"))
        if lang == "en":
            sync_api.expect(page.locator(".toolbar label.auto")).to_have_text(" Auto")
        assert one_row(page, ".toolbar > *", width), page.evaluate(ROW, ".toolbar > *")
        sync_api.expect(page.locator(".toolbar button.leave")).to_have_attribute(
            "aria-label", "Leave" if lang == "en" else "离开")
        if width == 320 and touch:
            small = page.evaluate("""() => [...document.querySelectorAll(
                '.toolbar > button, .toolbar summary, header.top a:not(.home), header.top button')]
              .map((n) => [n.className || n.tagName, n.getBoundingClientRect()])
              .filter(([, r]) => r.width < 40 || r.height < 40)""")
            assert small == [], small
        # a side seat's 13 backs and ×13 ran past it at 320 px, the count under the next seat
        past = page.evaluate("""() => [...document.querySelectorAll('.table .seat .backs')]
          .map((n) => [n.textContent, n.lastElementChild.getBoundingClientRect().right,
            n.closest('.seat').getBoundingClientRect().right])
          .filter(([, right, edge]) => right > edge)""")
        assert past == [], past
        if width == 320:  # the icons one size, the list's as large as the speaker's
            icons = page.evaluate("""() => [...document.querySelectorAll(
                'header.top svg.icon, .toolbar svg.icon')].map((n) => [n.getAttribute('class'),
                Math.round(n.getBoundingClientRect().width)])""")
            assert icons and all(w == 22 for _, w in icons), icons
    finally:
        ctx.close()


HEADER = """() => [...document.querySelectorAll('header.top > *, header.top > * > *')]
  .map((n) => n.tagName.toLowerCase() + '.' + [...n.classList].join('.'))"""


@pytest.mark.parametrize("width, lang", [(390, "en"), (320, "zh"), (1280, "en")])
def test_the_rule_book_has_every_pages_header(
        server: _Server, browser: Any, width: int, lang: str) -> None:
    """The rule book's page had a plainer header of its own (杭州麻将, 大厅 and the other
    book's name): it has the lobby's, the account's links, the sound and the language
    with it, as high and on one row; its 规则 link marks the page, and the language
    button opens the other book (tests/test_web.py follows it to the same section)."""
    page = phone(browser, width, 800, lang)
    try:
        page.goto(server.base + "/")
        page.wait_for_selector("header.top .header-tools")
        lobby, lobby_box = page.evaluate(HEADER), page.locator("header.top").bounding_box()
        page.goto(server.base + f"/rules?lang={lang}")
        page.wait_for_selector("header.top .header-tools")
        assert page.evaluate(HEADER) == lobby
        assert page.locator("header.top").bounding_box()["height"] == lobby_box["height"]
        assert one_row(page, "header.top a, header.top button", width), page.evaluate(
            ROW, "header.top a, header.top button")
        here = page.locator("header.top a.rules-nav")
        sync_api.expect(here).to_have_attribute("aria-current", "page")
        sync_api.expect(here).not_to_have_attribute("target", "_blank")
        sync_api.expect(page.locator("header.top a.home")).to_contain_text(
            "Mahjong" if lang == "en" else "杭州麻将")
        page.screenshot(path=str(ARTIFACTS / f"layout-rules-header-{lang}-{width}.png"))
        page.locator("header.top button.lang").click()
        other = "zh" if lang == "en" else "en"
        page.wait_for_url(f"**/rules?lang={other}")
        page.wait_for_selector("header.top .header-tools")
        assert page.evaluate("document.documentElement.lang") == (
            "zh-CN" if other == "zh" else "en")
        sync_api.expect(page.locator("header.top button.lang")).to_have_attribute(
            "aria-label", "English" if other == "zh" else "中文")
    finally:
        page.context.close()


# ------------------------------------------------------------------ a finished room


# 12 Chinese characters, 24 Latin letters in two words and in one, and a bot's name
LONG_NAMES = ["张三李四王五赵六钱七孙八", "Bartholomew Featherstones", "效率机器人 3",
              "Maximilianalexandersmith"]


def show_final_results(page: Any, names: list[str]) -> None:
    """The final results dialog (终局, then 战绩) of an 8-hand match among ``names``, drawn
    by the page's own render.js as the table draws it (room.js, finalBody)."""
    page.evaluate("""async (names) => {
      const { dialog, finalElement, historyElement, h } = await import('/static/render.js');
      const { t } = await import('/static/i18n.js');
      const deltas = [[24, -8, -8, -8], [-2, 6, -2, -2], [0, 0, 0, 0], [-96, -32, 160, -32],
        [12, -4, -4, -4], [-4, -4, 12, -4], [-16, 48, -16, -16], [0, 0, 0, 0]];
      let points = [100, 100, 100, 100];
      const history = deltas.map((d, k) => {
        points = points.map((p, i) => p + d[i]);
        const winner = d.some((x) => x > 0) ? d.indexOf(Math.max(...d)) : null;
        return { hand_no: k + 1, result: winner === null ? 'draw' : 'win', winner,
          from: k % 2 ? (winner + 1) % 4 : null, deltas: d, points,
          win: winner === null ? null : { score: { names: { zh: '平胡', en: 'plain win' } } } };
      });
      const ranking = [0, 1, 2, 3].sort((a, b) => points[b] - points[a]);
      dialog(t('final'), h('div', {}, finalElement({ ranking, points }, names),
        h('h3', {}, t('history')), historyElement(history, names, 4)),
        [[t('replay')], [t('back_lobby')]]);
    }""", names)


# Each seat's column head in 战绩: [its title, its height, its right edge, its name's shown
# and whole heights (0, 0 without one)], one line's height, and the table's box.
SCORES = """() => {
  const wrap = document.querySelector('dialog.modal .history-wrap');
  const heads = [...wrap.querySelectorAll('thead th')].slice(-4).map((th) => {
    const name = th.querySelector('.hist-name');
    return [th.title, th.getBoundingClientRect().height, th.getBoundingClientRect().right,
            name ? name.clientHeight : 0, name ? name.scrollHeight : 0]; });
  const line = document.createElement('span');
  line.textContent = '号 Mg';
  wrap.querySelector('thead th.hist-seat').append(line);
  const lineHeight = line.getBoundingClientRect().height;
  line.remove();
  const cells = [...wrap.querySelectorAll('td.hist-cell .delta')].map((n) =>
    n.getBoundingClientRect().right);
  const sheet = document.querySelector('dialog.modal');
  return { heads, cells, lineHeight, scroll: wrap.scrollWidth - wrap.clientWidth,
           sheet: sheet.scrollWidth - sheet.clientWidth,
           right: wrap.getBoundingClientRect().right };
}"""


@pytest.mark.parametrize("width, lang", [(390, "en"), (390, "zh"), (320, "en"), (320, "zh")])
def test_the_final_scores_fit_a_phone_with_long_names(
        server: _Server, browser: Any, width: int, lang: str) -> None:
    """The final results' 战绩 (every hand's points per seat) with long names (12 Chinese
    characters, 24 Latin letters) was wider than a 390 px phone: it scrolled sideways, the
    last seat's column cut at the edge, and a name stood a character a line over 7 lines.
    It fits: each seat's head is its number and its name on two lines at most, shortened
    with "…" (the whole name its title), each hand's result a line over the seats' numbers;
    the bots' names keep their numbers ("效率机器人 2" was "效率机器…" on one line)."""
    page = phone(browser, width, 844, lang)
    try:
        page.goto(server.base + "/")
        page.wait_for_selector("form.create button")
        show_final_results(page, LONG_NAMES)
        sync_api.expect(page.locator("dialog.modal table.history tbody tr")).to_have_count(8)
        got = page.evaluate(SCORES)
        page.locator("dialog.modal h3").scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / f"layout-final-scores-{lang}-{width}.png"))
        assert got["scroll"] == 0 and got["sheet"] == 0, got  # nor the final table
        assert all(right <= got["right"] + 0.5 for right in got["cells"]), got
        seat = "seat {}" if lang == "en" else "{}号位"
        for i, (title, height, right, shown, whole) in enumerate(got["heads"]):
            assert title == f"{seat.format(i + 1)} {LONG_NAMES[i]}", got
            # the seat's number and two lines of its name, and padding (a name stood a
            # character a line)
            assert height <= 3 * got["lineHeight"] + 10 and right <= got["right"] + 0.5, got
            if i != 1:  # the one-word names shortened, the bot's whole
                assert (whole > shown) == (i != 2), got
        # a hand's result is whole, the winner's name with it
        sync_api.expect(page.locator("dialog.modal td.hist-result").first).to_contain_text(
            LONG_NAMES[0])
    finally:
        page.context.close()




def finish_a_short_match(page: Any, base: str) -> str:
    """A points match at base score 40 under 托管 (a win or two ends it): the room id once
    the final table shows."""
    room_id = web.create_room_with_bots(page, base, find_seed("win", 45, stop_at_pong=False),
                                        options={"match_mode": '"points"', "start_points": "40"},
                                        numbers={"base_score": 40})
    page.locator("label.auto input").click()
    final = page.locator("dialog.modal table.final")
    deadline = time.time() + 180
    while not final.count() and time.time() < deadline:
        buttons = page.locator("dialog.modal .buttons button")
        if buttons.count():
            try:
                buttons.last.click(timeout=2000)
            except sync_api.Error:
                pass
        page.wait_for_timeout(200)
    sync_api.expect(final).to_be_visible()
    return room_id


@pytest.mark.parametrize("width, height", [(390, 844), (1280, 800)])
def test_a_visitors_link_to_a_finished_room_opens_its_final_result(
        fast_server: _Server, page_at: Any, browser: Any, width: int, height: int) -> None:
    """A visitor opening a finished room's link (the room still in memory) saw the last
    table with every hand face down and nothing saying the match was over, and its 回放
    opened at step 1.  The link opens the replay at the match's end, the final table at
    the top of the screen; the replay's first step is a click on « away."""
    room_id = finish_a_short_match(page_at(1280, 800), fast_server.base)
    visitor = phone(browser, width, height) if width < 900 else page_at(width, height)
    visitor.goto(f"{fast_server.base}/room/{room_id}")
    visitor.wait_for_url(f"**/replay/{room_id}#end")
    steps = visitor.locator(".step-no")
    sync_api.expect(steps).to_contain_text("/")
    shown, total = steps.inner_text().split()[-3::2]
    assert shown == total, steps.inner_text()
    final = visitor.locator(".final-box table.final")
    sync_api.expect(final.locator("tbody tr")).to_have_count(4)
    sync_api.expect(final).to_be_in_viewport()
    shot(visitor, f"layout-finished-link-{width}.png")
    if width < 900:  # a finger's target: the step slider was 32 px tall
        scrub = visitor.locator("input.scrub").bounding_box()
        assert scrub is not None and scrub["height"] >= 44 and scrub["width"] >= 220, scrub
    visitor.locator(".replay-controls button.first").click()
    sync_api.expect(steps).to_contain_text(f"1 / {total}")
    sync_api.expect(visitor.locator(".final-box")).to_have_count(0)


def test_the_final_results_replay_opens_at_the_matchs_end(
        fast_server: _Server, page_at: Any) -> None:
    """The final results' 回放 opened the replay at step 1, the deal (the finished room's
    link opens it at the end): it opens at the match's end, the final table on screen
    (tests/test_web.py finds 回放 on the final table shown again, by 终局, too)."""
    page = page_at(390, 844)
    room_id = finish_a_short_match(page, fast_server.base)
    page.locator("dialog.modal .buttons button", has_text="回放").click()
    page.wait_for_url(f"**/replay/{room_id}#end")
    steps = page.locator(".step-no")
    sync_api.expect(steps).to_contain_text("/")
    shown, total = steps.inner_text().split()[-3::2]
    assert shown == total, steps.inner_text()
    sync_api.expect(page.locator(".final-box table.final")).to_be_in_viewport()


# The hint panel's box, whether it is what the screen shows at its middle, the hand's top
# and the page's scroll, in one frame.
HINTS_PLACE = """() => {
  const panel = document.querySelector('.hint-panel');
  const hand = document.querySelector('.own-area .hand');
  if (!panel || !hand || !panel.childElementCount) return null;
  const p = panel.getBoundingClientRect();
  const hit = document.elementFromPoint((p.left + p.right) / 2, (p.top + p.bottom) / 2);
  return { top: p.top, bottom: p.bottom, left: p.left, right: p.right,
    seen: Boolean(hit && panel.contains(hit)), clipped: panel.scrollHeight - panel.clientHeight,
    hand: hand.getBoundingClientRect().top, scroll: scrollY };
}"""


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_landscape_phones_hints_show_above_the_hand_and_move_nothing(
        server: _Server, browser: Any, lang: str) -> None:
    """844×390: the hint panel was in the centre, under your area (kept at the screen's
    foot) unless the page was scrolled to the table's end, and showing it scrolled the
    page under the finger.  It shows just above your hand, whole and on top, and the page
    and the hand stay put."""
    page = phone(browser, 844, 390, lang)
    try:
        web.create_room_with_bots(page, server.base, 3, numbers={"turn_seconds": 90})
        page.wait_for_selector(".hand-tile.playable", timeout=60000)
        page.evaluate("window.scrollTo(0, 0)")  # the header in view, the centre under you
        page.wait_for_function("scrollY === 0")
        before = page.evaluate("() => [scrollY, document.querySelector('.own-area .hand')"
                               ".getBoundingClientRect().top]")
        for press in ("button.suggest", ".hand .hand-tile >> nth=2"):
            page.locator(press).click()
            page.wait_for_function(HINTS_PLACE, timeout=5000)
            page.wait_for_timeout(100)  # a scroll to reveal it came in the next frame
            got = page.evaluate(HINTS_PLACE)
            assert [got["scroll"], got["hand"]] == before, (press, got, before)
            assert got["seen"] and got["clipped"] <= 1, (press, got)
            assert 0 <= got["top"] and got["bottom"] <= got["hand"], (press, got)
            assert 0 <= got["left"] and got["right"] <= 844, (press, got)
        page.screenshot(path=str(ARTIFACTS / f"layout-landscape-hints-{lang}.png"))
    finally:
        page.context.close()


@pytest.fixture(scope="module")
def finished_room(fast_server: _Server, browser: Any) -> str:
    """A short match played to its end once for this file's replay tests: its room id."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        page = ctx.new_page()
        page.set_default_timeout(15000)
        return finish_a_short_match(page, fast_server.base)
    finally:
        ctx.close()


@pytest.mark.parametrize("width, lang", [(390, "en"), (390, "zh"), (320, "en"), (320, "zh")])
def test_the_replays_step_buttons_keep_to_one_row_on_a_phone(
        fast_server: _Server, browser: Any, finished_room: str, width: int, lang: str) -> None:
    """The English step buttons (« ◀ ▶ Autoplay step 12 / 80 ▶ ») took two rows at 390 px
    (the Chinese at 320 px),
    the table pushed down under the sticky pair: they keep to one, "▶ Play" (播放), and at 320 px
    the numbers without the word; every button a finger's 40 px."""
    page = phone(browser, width, 844, lang)
    try:
        page.goto(f"{fast_server.base}/replay/{finished_room}")
        sync_api.expect(page.locator(".step-no")).to_contain_text("1 /")
        assert one_row(page, ".replay-controls > *", width), page.evaluate(
            ROW, ".replay-controls > *")
        sync_api.expect(page.locator(".replay-controls button.play")).to_have_text(
            "▶ Play" if lang == "en" else "▶ 播放")
        sizes = page.evaluate("""() => [...document.querySelectorAll('.replay-controls button')]
          .map((n) => n.getBoundingClientRect()).map((r) => [r.width, r.height])""")
        assert all(w >= 40 and h >= 40 for w, h in sizes), sizes
        page.locator(".replay-controls button.play").click()
        play = page.locator(".replay-controls button.play")
        sync_api.expect(play).to_have_attribute("aria-pressed", "true")
        # its pause is drawn ("⏸" was a box where no font has it)
        sync_api.expect(play.locator("svg.icon-pause")).to_have_count(1)
        assert "⏸" not in play.inner_text()
        assert one_row(page, ".replay-controls > *", width), page.evaluate(
            ROW, ".replay-controls > *")
        page.locator(".replay-controls").screenshot(
            path=str(ARTIFACTS / f"layout-replay-controls-{lang}-{width}.png"))
    finally:
        page.context.close()


# ------------------------------------------------------------------ the table's size


def play_to_wall(page: Any, live: int, seconds: float = 120) -> None:
    """Play seat 0 by its default moves (pass a claim, discard the drawn tile) until the
    live wall is down to ``live`` tiles."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        count = page.locator(".live-count")
        try:
            if count.count() and int(count.inner_text()) <= live:
                return
            if page.locator(".claim-pass").count():
                page.locator(".claim-pass").first.click(timeout=2000)
            elif not web.discard_drawn(page):
                page.wait_for_timeout(60)
        except (sync_api.Error, ValueError):
            pass  # the table re-rendered under the click; look again
    raise AssertionError(f"the wall did not come down to {live}; {web.diagnosis(page)}")


# Every other seat's head, melds and discards that is not wholly on the screen, or whose
# middle is under something else (your area kept at the screen's foot): [what, top, bottom,
# what covers it].
HIDDEN = """() => {
  const out = [];
  const parts = '.table .seat:not(.own) .seat-head, .table .seat:not(.own) .melds .tile, '
    + '.table .seat:not(.own) .discards .tile';
  for (const n of document.querySelectorAll(parts)) {
    const r = n.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    const seen = r.top >= 0 && r.bottom <= innerHeight && hit && (n === hit || n.contains(hit));
    if (!seen) out.push([n.className, Math.round(r.top), Math.round(r.bottom),
                         hit ? String(hit.className.baseVal ?? hit.className) : null]);
  }
  return out;
}"""


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_landscape_phone_shows_every_other_seats_discards(
        fast_server: _Server, browser: Any, lang: str) -> None:
    """At 844x390 your area stays at the screen's foot, and it left 190 px for the other
    three seats: late in a hand their discards were always partly under it.  The table
    now fits the screen's height and the page opens scrolled to it: every other seat's
    head, melds and discards are on screen and uncovered, your hand whole below them.
    Seed 1's first hand is played to the wall's end (a draw), the most discards there are."""
    ctx = browser.new_context(viewport={"width": 844, "height": 390}, has_touch=True,
                              is_mobile=True, reduced_motion="reduce")
    ctx.add_init_script(f"localStorage.setItem('hzmj.lang', '{lang}')")
    try:
        page = ctx.new_page()
        page.set_default_timeout(15000)
        web.create_room_with_bots(page, fast_server.base, 1)
        page.wait_for_selector(".hand-tile.playable")
        assert page.evaluate(HIDDEN) == []
        play_to_wall(page, 8)
        page.wait_for_timeout(300)
        shot(page, f"layout-landscape-late-{lang}.png")
        assert page.locator(".table .seat:not(.own) .discards .tile").count() >= 30
        assert page.evaluate(HIDDEN) == []
        hand = page.evaluate("""() => [...document.querySelectorAll('.own .hand-tile')]
          .map((n) => { const r = n.getBoundingClientRect(); return [r.top, r.bottom, r.width]; })""")
        assert all(top >= 0 and bottom <= 390 and w >= 40 for top, bottom, w in hand), hand
        # a reload in the middle of the hand opens the same way
        page.reload()
        page.wait_for_selector(".hand .hand-tile")
        page.wait_for_timeout(300)
        assert page.evaluate(HIDDEN) == []
    finally:
        ctx.close()


HAND = """() => [...document.querySelectorAll('.own .hand-tile')].map((n) => {
  const r = n.getBoundingClientRect();
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return [r.top >= 0 && r.bottom <= innerHeight && !!hit && n.contains(hit), r.width]; })"""


def test_a_portrait_phone_keeps_the_hand_on_screen_late_in_a_hand(
        fast_server: _Server, browser: Any) -> None:
    """Late in a hand the other seats' discards grow the page past a phone's screen (375x667
    here; 390x844 in a hand with more melds), and your hand went below the fold: at every turn it had to be scrolled for (a glance
    at the top seat's discards, and it was gone again).  Your area keeps to the screen's
    foot, the other seats scrolling under it, and scrolled down to the end nothing of
    theirs is under it."""
    page = phone(browser, 375, 667)
    try:
        web.create_room_with_bots(page, fast_server.base, 1)
        play_to_wall(page, 8)
        page.wait_for_timeout(300)
        # the table runs past the screen's foot: your area, its last row, would be below it
        page.evaluate("window.scrollTo(0, 0)")
        assert page.evaluate("document.querySelector('.table').getBoundingClientRect().bottom"
                             ) > 667 + 60
        for where in ("0", "document.documentElement.scrollHeight"):
            page.evaluate(f"window.scrollTo(0, {where})")
            page.wait_for_timeout(200)
            hand = page.evaluate(HAND)
            assert len(hand) >= 13 and all(seen and w >= 40 for seen, w in hand), (where, hand)
        shot(page, "layout-portrait-late-end.png")
        covered = [x for x in page.evaluate(HIDDEN) if x[1] >= 0]
        assert covered == [], covered
        page.evaluate("window.scrollTo(0, 0)")
        shot(page, "layout-portrait-late-top.png")
    finally:
        page.context.close()


def test_a_laptop_table_fills_the_window_with_larger_tiles(
        fast_server: _Server, page_at: Any) -> None:
    """At 1280x800 the table used the top 640 px and left the rest empty, its tiles 50 px
    wide.  It fills the window's height now: your area ends near the window's foot, your
    tiles are larger, and so are the discards."""
    page = page_at(1280, 800)
    web.create_room_with_bots(page, fast_server.base, 3)
    page.wait_for_selector(".hand-tile.playable")
    own = page.locator(".own-area").bounding_box()
    assert own is not None and 740 <= own["y"] + own["height"] <= 800, own
    tiles = web.widths(page, ".own .hand .hand-tile", 60)
    assert tiles and min(tiles) >= 60, tiles
    discards = web.widths(page, ".discards .tile", 28)
    assert discards and min(discards) >= 28, discards
    # and it still fits: nothing below the window but the rules' line
    assert page.evaluate("document.documentElement.scrollHeight") <= 800 + 40
    shot(page, "layout-laptop-1280.png")


def test_the_waiting_rooms_chips_stay_whole_in_english_on_a_phone(
        server: _Server, browser: Any) -> None:
    """The owner's chip "the owner needs no ready mark" broke over two lines at 390 px, half
    a pill on each; every chip (ready, not ready, offline, the owner's) is one piece."""
    page = phone(browser, 390, 844, "en")
    try:
        page.goto(server.base + "/")
        page.fill("#player-name", "Alice")
        page.click("button.create-room")
        page.wait_for_url("**/room/**")
        page.locator("button.add-bot").first.click()
        sync_api.expect(page.locator(".seat-slot .chip-ready")).to_have_count(1)
        chips = page.evaluate("""() => [...document.querySelectorAll('[class^="chip-"]')]
          .map((n) => [n.textContent, n.getClientRects().length])""")
        assert any(text == "the owner needs no ready mark" for text, _ in chips), chips
        assert all(lines == 1 for _, lines in chips), chips
        assert web.no_horizontal_scroll(page)
        shot(page, "layout-waiting-room-en-390.png")
    finally:
        page.context.close()


def test_a_laptops_claim_bar_stays_in_the_window(server: _Server, page_at: Any) -> None:
    """With the table filling a 1280x800 window, the claim bar under your hand (the
    offered tile large, whose it is, the clock, then the buttons on a row below) ran past
    the window's foot: Pong and Pass were out of sight for the claim window.  The bar is one
    row and keeps to the window's foot; your hand stays whole above it."""
    page = page_at(1280, 800)
    web.create_room_with_bots(page, server.base, find_seed("pong", 12, stop_at_pong=True),
                              numbers={"claim_seconds": 20, "turn_seconds": 90})
    web.play_until(page, ".claim-pong", 120, keyboard=False, app=server.app)
    page.evaluate("window.scrollTo(0, 0)")  # as the window is, unscrolled
    for button in (".claim-pong", ".claim-pass"):
        sync_api.expect(page.locator(button)).to_be_in_viewport(ratio=1)
    edges = page.wait_for_function("""() => {
      const tiles = [...document.querySelectorAll('.own .hand .hand-tile')];
      const bar = document.querySelector('.claim-bar:not(.empty)');
      if (!tiles.length || !bar) return null;
      return [Math.max(...tiles.map((n) => n.getBoundingClientRect().bottom)),
              bar.getBoundingClientRect().top, bar.getBoundingClientRect().height];
    }""").json_value()
    hand_bottom, bar_top, bar_height = edges
    assert hand_bottom <= bar_top + 1 and hand_bottom <= 800, edges
    assert bar_height <= 90, edges  # one row
    shot(page, "layout-laptop-claim.png")


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_phones_header_links_and_the_settlements_reading_are_40px(
        server: _Server, browser: Any, lang: str) -> None:
    """On a touch screen 登录 and 规则 were 26 and 29 px wide, the game's name home 24 px
    tall, and the settlement's 牌型 (Reading), which opens the scoring's every step, 18 px
    tall: each is at least 40 px both ways (the § links inside its lines stay text)."""
    page = phone(browser, 390, 844, lang)
    page.goto(server.base + "/")
    page.wait_for_selector("form.create button")
    header = page.evaluate(web.SIZES, "header.top a")
    assert len(header) >= 4 and min(min(w, hgt) for _, w, hgt in header) >= 40, header
    page.evaluate("""async () => {
      const { dialog, settlementElement } = await import('/static/render.js');
      const board = { n: 4, seat: 0, caishen: '5m', rules: { caishen_mode: 'flip' } };
      const he = { result: 'draw', dealer: 0, level: 1, payments: [], deltas: [0, 0, 0, 0],
        points: [0, 0, 0, 0], notes: ['the wall is exhausted (§8.6)'], hands: {} };
      dialog('settlement', settlementElement(board, he, ['A', 'B', 'C', 'D']), [['OK']]);
    }""")
    reading = page.evaluate(web.SIZES, "dialog.modal details.notes summary")
    assert len(reading) == 1 and reading[0][2] >= 40, reading
    # made 40 px tall (a flex box), 牌型 and the lobby's 高级 lost their disclosure triangle:
    # words that did not look like they open anything.  Each shows ▸, and ▾ once open.
    mark = """(selector) => {
      const s = document.querySelector(selector);
      return getComputedStyle(s).display === 'list-item' ? getComputedStyle(s, '::marker').content
        : getComputedStyle(s, '::before').content; }"""
    summary = "dialog.modal details.notes summary"
    assert page.evaluate(mark, summary) == '"▸"'
    page.locator(summary).click()
    assert page.evaluate(mark, summary) == '"▾"'
    page.keyboard.press("Escape")
    assert page.evaluate(mark, "details.advanced summary") == '"▸"'


@pytest.mark.parametrize("width, height", [(844, 390), (390, 844)])
def test_between_hands_ready_stays_on_a_phones_screen(
        server: _Server, browser: Any, width: int, height: int) -> None:
    """A hand over and its settlement closed (Esc, or to look at the table), 继续 and the
    next hand's countdown are in the bar over the table: a landscape phone, which opens
    scrolled to the table, had that bar above the screen's top, and the table sat still
    with nothing saying why.  The bar keeps to the screen's top."""
    page = phone(browser, width, height)
    try:
        web.create_room_with_bots(page, server.base, find_seed("win", 80, stop_at_pong=False))
        web.play_until(page, "dialog.modal .settlement", 120, keyboard=False, app=server.app)
        page.keyboard.press("Escape")
        sync_api.expect(page.locator("dialog.modal")).to_have_count(0)
        # as a player left it: looking at the table
        page.evaluate("document.querySelector('.table').scrollIntoView()")
        sync_api.expect(page.locator(".gate-bar .ready-btn")).to_be_in_viewport(ratio=1)
        sync_api.expect(page.locator(".gate-bar .gate-count")).to_be_in_viewport(ratio=1)
        shot(page, f"layout-gate-{width}.png")
        page.locator(".gate-bar .ready-btn").click()
        page.wait_for_selector(".hand .hand-tile")
    finally:
        page.context.close()


def test_a_ready_hand_is_not_the_ready_button_in_english(server: _Server, page_at: Any) -> None:
    """The English hint panel called a hand one tile from winning (听牌) "ready", the word
    on the button that starts the next hand (继续): it says "ready hand"."""
    page = page_at(1280, 800)
    page.add_init_script("localStorage.setItem('hzmj.lang', 'en')")
    page.route("**/api/rooms/*/hints", lambda route: route.fulfill(
        json={"shanten": 0, "discards": [], "suggestion": None}))
    web.create_room_with_bots(page, server.base, 3)
    sync_api.expect(page.locator(".hint-panel .shanten")).to_have_text("听牌 (ready hand)")


def test_a_landscape_phones_toolbar_is_in_your_area(server: _Server, browser: Any) -> None:
    """At 844x390 the toolbar sat above the table with the header, scrolled away: 提示,
    托管, 战绩 and 记录 each meant scrolling up (the table then half under your area) and
    back.  It is in your area's head row: on screen with the table, 40 px targets, and
    using it leaves the table where it is; its phrases open upwards, on screen."""
    page = phone(browser, 844, 390)
    try:
        web.create_room_with_bots(page, server.base, find_seed("win", 80, stop_at_pong=False))
        page.wait_for_selector(".hand-tile.playable")
        tools = (".own-area .toolbar > label.auto, .own-area .toolbar > button, "
                 ".own-area .toolbar > details > summary")
        sizes = page.evaluate(web.SIZES, tools)
        assert len(sizes) == 6 and min(hgt for _, _, hgt in sizes) >= 40, sizes
        for i in range(6):
            sync_api.expect(page.locator(tools).nth(i)).to_be_in_viewport(ratio=1)
        assert page.evaluate(HIDDEN) == []
        scrolled = page.evaluate("scrollY")
        page.locator(".own-area button.suggest").click()
        sync_api.expect(page.locator(".hint-panel .suggestion")).to_be_in_viewport()
        page.locator(".own-area button.log-btn").click()
        page.locator("dialog.modal .buttons button").click()
        page.locator(".own-area details.phrases summary").click()
        menu = page.locator(".own-area .phrase-menu")
        sync_api.expect(menu).to_be_in_viewport(ratio=1)
        shot(page, "layout-landscape-phrases.png")
        page.locator(".own-area details.phrases summary").click()
        assert page.evaluate("scrollY") == scrolled
        assert page.evaluate(HIDDEN) == []
        shot(page, "layout-landscape-toolbar.png")
    finally:
        page.context.close()


# A claim's banner (a pong by seat 2, named ``name``) as the table shows it: its box, and
# the other seats' heads, concealed counts, melds and discards under it.
CLAIM_BANNER = """async (name) => {
  const { eventFeedback } = await import('/static/feedback.js');
  eventFeedback({}, { type: 'pong', seat: 1, tile: '5p' }, () => name, 0);
  const b = document.querySelector('.fx-banner').getBoundingClientRect();
  const under = (r) => r.left < b.right && r.right > b.left && r.top < b.bottom && r.bottom > b.top;
  const parts = ['.seat-head', '.backs-count', '.melds .tile', '.discards']
    .map((p) => `.table .seat:not(.own) ${p}`).join(', ');
  const node = document.querySelector('.fx-banner');
  return { box: [b.left, b.top, b.right, b.bottom].map(Math.round),
    overflow: node.scrollWidth - node.clientWidth,
    under: [...document.querySelectorAll(parts)].filter((n) => under(n.getBoundingClientRect()))
      .map((n) => `${n.className} of seat ${n.closest('.seat').dataset.seat}`) };
}"""


@pytest.mark.parametrize("width, height, lang", [(390, 844, "en"), (390, 844, "zh"),
                                                 (844, 390, "en")])
def test_a_claims_banner_covers_no_other_seat(
        server: _Server, browser: Any, width: int, height: int, lang: str) -> None:
    """A claim's banner ("Bob 碰 (Pong)!", 1.3 s) stood at 38% of the screen: on a portrait
    phone that is the side seats' row, and it covered their discards, their concealed
    count (×13) and the meld it announced.  It stands over the table's centre (the hand's
    number, the 财神 and the wall), on every phone's screen clear of the other seats, and a
    long name breaks inside it (it ran past a phone's edge)."""
    page = phone(browser, width, height, lang)
    try:
        web.create_room_with_bots(page, server.base, 3, numbers={"turn_seconds": 90})
        page.wait_for_selector(".hand-tile.playable", timeout=60000)
        for name in ("Bob", "效率机器人 2", "Maximilianalexandersmith"):
            got = page.evaluate(CLAIM_BANNER, name)
            assert got["under"] == [], (name, got)
            # on screen, its words inside it (a long name ran past a phone's edge)
            assert got["box"][0] >= 0 and got["box"][2] <= width and got["overflow"] <= 0, got
            centre = page.locator(".table .centre-info").bounding_box()
            assert centre is not None
            middle = centre["y"] + centre["height"] / 2
            assert abs((got["box"][1] + got["box"][3]) / 2 - middle) <= 1, (got, centre)
        page.wait_for_timeout(300)  # the banner in, whole
        page.screenshot(path=str(ARTIFACTS / f"layout-claim-banner-{lang}-{width}.png"))
    finally:
        page.context.close()


def test_a_dropped_network_is_said_on_a_phones_screen(server: _Server, browser: Any) -> None:
    """"Disconnected, reconnecting…" showed at the page's top, above the toolbar: a phone
    scrolled down its table (to the centre, to the hand) saw the table freeze with nothing
    said.  The banner keeps to the screen's top until the network is back."""
    page = phone(browser, 375, 667)
    try:
        web.create_room_with_bots(page, server.base, 3)
        page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
        page.wait_for_function("scrollY > 40")
        page.context.set_offline(True)
        sync_api.expect(page.locator("p.banner")).to_be_in_viewport(ratio=1, timeout=3000)
        shot(page, "layout-phone-offline.png")
        page.context.set_offline(False)
        sync_api.expect(page.locator("p.banner")).to_have_count(0, timeout=10000)
    finally:
        page.context.close()


def test_a_phrase_bubble_stays_while_the_table_moves(server: _Server, page_at: Any) -> None:
    """A phrase (快捷语) showed in a bubble on its seat, and the next move redrew the table
    and took the bubble away, often before it could be read (and before the check in
    tests/test_web.py's phrase test could see it: that test failed now and then).  The
    bubble stays its few seconds however the table moves."""
    page = page_at(1280, 800)
    web.create_room_with_bots(page, server.base, 3, numbers={"turn_seconds": 90})
    page.wait_for_selector(".hand-tile.playable", timeout=60000)
    page.click("details.phrases summary")
    page.locator("button.phrase").nth(1).click()
    bubble = page.locator(".own-area .phrase-bubble")
    sync_api.expect(bubble).to_contain_text("Alice: 好牌！")
    # the table redrawn under it, move after move
    page.evaluate("document.querySelector('.table').dataset.old = '1'")
    assert web.discard_drawn(page)
    page.wait_for_selector(".table:not([data-old])", state="attached")
    sync_api.expect(bubble).to_contain_text("Alice: 好牌！", timeout=500)
    for _ in range(2):  # and redrawn in English and back
        page.evaluate("document.querySelector('.table').dataset.old = '1'")
        page.locator("button.lang").click()
        page.wait_for_selector(".table:not([data-old])", state="attached")
        sync_api.expect(bubble).to_contain_text("Alice: 好牌！", timeout=500)
    sync_api.expect(bubble).to_have_count(0, timeout=6000)


def test_a_spectator_sees_no_empty_hint_box(server: _Server, page_at: Any) -> None:
    """The centre's hint panel is a seated player's (waits, shanten, the suggestion); a
    spectator's table showed it as an empty box under the wall's count."""
    owner = page_at(1280, 800)
    room_id = web.create_room_with_bots(owner, server.base, 3)
    sync_api.expect(owner.locator(".area-centre .hint-panel")).to_have_count(1)
    watcher = page_at(1280, 800)
    watcher.goto(f"{server.base}/room/{room_id}")
    sync_api.expect(watcher.locator(".toolbar .spectating")).to_be_visible()
    sync_api.expect(watcher.locator(".area-centre .centre-info")).to_be_visible()
    sync_api.expect(watcher.locator(".area-centre .hint-panel")).to_have_count(0)


@pytest.mark.parametrize("width, height", [(844, 390), (1280, 800), (390, 844)])
def test_the_games_name_keeps_its_space(server: _Server, browser: Any, width: int,
                                        height: int) -> None:
    """On a touch screen wider than a portrait phone the header read "HangzhouMahjong":
    the name's two words are apart (side by side, or the city set over the game)."""
    page = phone(browser, width, height, "en")
    try:
        for path in ("/", "/replay/none"):
            page.goto(server.base + path)
            place = page.locator("header .home .home-place")
            game = page.locator("header .home .home-game")
            sync_api.expect(game).to_have_text("Mahjong")
            a, b = place.bounding_box(), game.bounding_box()
            assert a is not None and b is not None
            side_by_side = abs(a["y"] - b["y"]) < 4
            assert (b["x"] - (a["x"] + a["width"]) >= 3) if side_by_side else b["y"] > a["y"], (
                path, a, b)
    finally:
        page.context.close()


# ------------------------------------------------------------------ the lobby


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_lobbys_refresh_is_a_button_like_the_others(
        server: _Server, browser: Any, lang: str) -> None:
    """刷新 (Refresh) sat inside the rooms' heading and took its font: 1.5 em, bold, a
    heading rather than a button.  It is drawn as 创建 (Create) is."""
    page = phone(browser, 390, 844, lang)
    try:
        page.goto(server.base + "/")
        fonts = page.wait_for_function("""() => {
          const [a, b] = ['button.refresh', 'button.create-room']
            .map((s) => document.querySelector(s));
          if (!a || !b) return null;
          const font = (n) => [getComputedStyle(n).fontSize, getComputedStyle(n).fontFamily];
          return [font(a), font(b), getComputedStyle(a).fontWeight,
                  a.closest('h2') === null];
        }""").json_value()
        refresh, create, weight, outside_heading = fonts
        assert refresh == create, fonts
        assert weight == "400" and outside_heading, fonts
    finally:
        page.context.close()


# ------------------------------------------------------------------ words


def test_the_english_ui_names_tiles_as_players_do(server: _Server, page_at: Any) -> None:
    """English named tiles "1 dots", "5 characters", "Red" and "East": a tile is "1 Dot",
    "2 Dots", "5 Characters", "7 Bamboo", "East Wind", "Red Dragon" wherever the English UI
    names one (the log, a tile's label, a stand-in's); a tile drawn with no language
    given (the deal's banner) is named in the UI's."""
    page = page_at(390, 844)
    page.goto(server.base + "/")
    page.wait_for_selector("form.create button")
    got = page.evaluate("""async () => {
      const { setLang } = await import('/static/i18n.js');
      const { tileElement, tileLabel } = await import('/static/tiles.js');
      const { eventLine } = await import('/static/render.js');
      setLang('en');
      const kinds = ['1p', '2p', '1m', '5m', '1s', '7s', '1z', '4z', '5z', '6z', '7z'];
      const label = (n) => n.getAttribute('aria-label');
      return {
        names: kinds.map((k) => tileLabel(k)),
        unlabelled: label(tileElement('7z', { small: true })),
        standIn: label(tileElement('5z', { caishen: '5m', standIn: true })),
        wild: label(tileElement('2p', { caishen: '2p' })),
        log: eventLine({ n: 2 }, { type: 'discard', seat: 0, tile: '1p' }, ['Alice', 'Bob']),
      };
    }""")
    assert got == {
        "names": ["1 Dot", "2 Dots", "1 Character", "5 Characters", "1 Bamboo", "7 Bamboo",
                  "East Wind", "North Wind", "White Dragon", "Green Dragon", "Red Dragon"],
        "unlabelled": "Red Dragon",
        "standIn": "White Dragon = 5 Characters",
        "wild": "2 Dots (wild)",
        "log": "seat 1 Alice discards 1 Dot",
    }


def test_the_browser_and_python_name_every_tile_alike(server: _Server, page_at: Any) -> None:
    """Python said "5 characters", "1 dots", "East" and "Red" (the command line's score and
    waits) where the page says "5 Characters", "1 Dot", "East Wind" and "Red Dragon": the
    two name each of the 34 kinds the same, in English and in Chinese."""
    page = page_at(390, 844)
    page.goto(server.base + "/")
    page.wait_for_selector("form.create button")
    kinds = [tile_name(k) for k in range(NUM_KINDS)]
    got = page.evaluate("""async (kinds) => {
      const { tileLabel } = await import('/static/tiles.js');
      return [kinds.map((k) => tileLabel(k, 'en')), kinds.map((k) => tileLabel(k, 'zh'))];
    }""", kinds)
    assert got == [[tile_name_en(k) for k in range(NUM_KINDS)],
                   [tile_name_zh(k) for k in range(NUM_KINDS)]]
    assert got[0][:5] == ["1 Character", "2 Characters", "3 Characters", "4 Characters",
                          "5 Characters"]


@pytest.mark.parametrize("width, height, lang", [(844, 390, "zh"), (390, 844, "en")])
def test_the_waiting_rooms_start_is_on_screen(
        server: _Server, browser: Any, width: int, height: int, lang: str) -> None:
    """On a landscape phone the owner's 开始 (Start) was below the fold, under the link, its
    QR code and the seats (in English on a portrait phone too): it keeps to the screen's
    foot with 离开, wherever the page is scrolled, and at the page's end covers nothing."""
    page = phone(browser, width, height, lang)
    try:
        page.goto(server.base + "/")
        page.fill("#player-name", "Alice")
        page.click("button.create-room")
        page.wait_for_url("**/room/**")
        for left in (2, 1, 0):
            page.locator("button.add-bot").first.click()
            sync_api.expect(page.locator("button.add-bot")).to_have_count(left)
        start = page.locator("button.start")
        sync_api.expect(start).to_be_enabled()
        for where in ("0", "document.documentElement.scrollHeight"):
            page.evaluate(f"window.scrollTo(0, {where})")
            sync_api.expect(start).to_be_in_viewport(ratio=1)
            sync_api.expect(page.locator(".waiting-actions button.leave")).to_be_in_viewport(
                ratio=1)
        # scrolled to the end, the last seat's buttons are above the bar, not under it
        last = page.evaluate("""() => {
          const r = [...document.querySelectorAll('.seat-slot')].pop().getBoundingClientRect();
          return [r.bottom, document.querySelector('.waiting-actions').getBoundingClientRect().top];
        }""")
        assert last[0] <= last[1] + 1, last
        page.evaluate("window.scrollTo(0, 0)")
        shot(page, f"layout-waiting-start-{lang}-{width}.png")
    finally:
        page.context.close()


# Every text node under ``selector`` on one line: [text, lines] of those that are not.
SPLIT_TEXT = """(selector) => {
  const out = [];
  for (const node of document.querySelectorAll(selector)) {
    const walker = document.createTreeWalker(node, NodeFilter.SHOW_TEXT);
    for (let text = walker.nextNode(); text; text = walker.nextNode()) {
      if (!text.data.trim()) continue;
      const range = document.createRange();
      range.selectNodeContents(text);
      const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
      if (lines.size > 1) out.push([text.data, lines.size]);
    }
  }
  return out;
}"""


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_deals_banner_is_as_wide_as_its_lines_on_a_phone(
        server: _Server, browser: Any, lang: str) -> None:
    """The deal's banner (第2局, the dice, the flip and the 财神) stood at the screen's
    middle and so shrank to half its width: at 390 px "= 8" went under the dice and 财神
    broke into 财 and 神 on two lines.  Each of its lines is whole, the banner on screen."""
    page = phone(browser, 390, 844, lang)
    try:
        page.goto(server.base + "/")
        page.wait_for_selector("form.create button")
        page.evaluate("""async () => {
          const { eventFeedback } = await import('/static/feedback.js');
          eventFeedback({}, { type: 'hand_start', hand_no: 2, dice: [3, 5], indicator: '8p',
            caishen: '9p' }, (i) => `seat ${i + 1}`, 0);
        }""")
        banner = page.locator(".fx-banner.fx-deal")
        sync_api.expect(banner).to_be_visible()
        assert page.evaluate(SPLIT_TEXT, ".fx-banner > div") == []
        # a line that wraps keeps each tile beside its word (English put the 财神 (wild)
        # tile on the next line, under the flipped one): [word's middle, tile's top, bottom]
        pairs = page.evaluate("""() => [...document.querySelectorAll('.fx-flip > span')]
          .map((n) => { const range = document.createRange();
            range.selectNodeContents(n.firstChild);
            const word = range.getBoundingClientRect();
            const tile = n.querySelector('.tile').getBoundingClientRect();
            return [(word.top + word.bottom) / 2, tile.top, tile.bottom]; })""")
        assert len(pairs) == 2 and all(top <= mid <= bottom for mid, top, bottom in pairs), pairs
        box = banner.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, box
    finally:
        page.context.close()


@pytest.mark.parametrize("path", ["/", "/replay/no-such-room", "/account", "/matches"])
def test_every_page_has_the_same_header(server: _Server, page_at: Any, path: str) -> None:
    """The replay's header had no 我的对局 (My matches) or 登录 (Sign in), the account pages'
    neither 规则 (Rules) nor the sound, and their language button no short form for a
    320 px phone: every page's header has the same parts."""
    page = page_at(1280, 800)
    page.goto(server.base + path)
    parts = ["a.home", "a.my-matches-link", "a.account-link", "a.rules-nav", "button.mute",
             "button.lang .label-short"]
    for part in parts:
        sync_api.expect(page.locator(f"header.top {part}")).to_have_count(1)
    # the account links keep to the right, beside the tools (account.css on every page)
    page.wait_for_function("""() => {
      const nav = document.querySelector('header.top .account-nav').getBoundingClientRect();
      const tools = document.querySelector('header.top .header-tools').getBoundingClientRect();
      return nav.left > 640 && tools.left - nav.right < 30; }""", timeout=5000)
