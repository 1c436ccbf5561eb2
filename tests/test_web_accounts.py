"""Accounts in a real Chromium on a phone viewport (390×844): sign up, play a short match
against a bot under 托管, find it in "my matches" with its rating change, see the change
on the profile and the leaderboard, log out and back in.  Screenshots go to
tests/artifacts/ (git-ignored)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from test_web import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, _Server, no_horizontal_scroll

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="needs Debian's chromium at /usr/bin/chromium (apt-get install -y chromium)")

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect

PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[_Server]:
    with _Server(tmp_path_factory.mktemp("accounts-web"), bot_delay=0.0) as srv:
        yield srv


@pytest.fixture
def phone() -> Iterator[Any]:
    errors: list[str] = []
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        ctx = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
        page = ctx.new_page()
        page.set_default_timeout(15000)
        page.on("pageerror", lambda e: errors.append(str(e)))
        yield page
        ctx.close()
        browser.close()
    assert not errors, f"JavaScript errors: {errors}"


def shot(page: Any, name: str) -> None:
    Path(ARTIFACTS).mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / name), full_page=True)


def sign_up(page: Any, base: str) -> None:
    page.goto(base + "/account")
    form = page.locator("form.register")
    form.locator("#acc-username").fill("meimei")
    form.locator("#acc-display_name").fill("   ")
    form.locator("#acc-password").fill("mahjong night")
    form.locator("button.sign-up").click()
    expect(form.locator(".form-error")).to_contain_text("1 to 24")  # names are checked
    assert no_horizontal_scroll(page), "the sign-up page scrolls sideways at 390 px"
    shot(page, "accounts-signup-390.png")
    form.locator("#acc-display_name").fill("梅梅")
    form.locator("button.sign-up").click()
    expect(page.locator(".profile .display-name")).to_have_text("梅梅")
    expect(page.locator(".profile .rating")).to_have_text("1,500")
    expect(page.locator("header .account-link")).to_contain_text("梅梅")


def play_short_match(page: Any, base: str) -> str:
    """A 2-player room against the efficiency bot, played to the end under 托管."""
    page.goto(base + "/")
    # signed in: you sit under your display name
    expect(page.locator("#player-name")).to_have_value("梅梅")
    expect(page.locator("#player-name")).to_have_attribute("readonly", "")
    page.select_option("#opt-players", "2")
    page.click("button.create-room")
    page.wait_for_url("**/room/**")
    room_id = str(page.url.rsplit("/", 1)[1])
    page.locator("select.bot-level").first.select_option("efficiency")
    page.locator("button.add-bot").first.click()
    expect(page.locator("button.add-bot")).to_have_count(0)
    # the ratings sit next to the names
    expect(page.locator(".seat-slot").first).to_contain_text("梅梅")
    expect(page.locator(".seat-slot .seat-rating")).to_have_count(2)
    page.click("button.start")
    page.wait_for_selector(".hand .hand-tile")
    expect(page.locator("section.own .seat-rating.signed-in")).to_have_text("✓ ≈1,500")
    shot(page, "accounts-table-390.png")
    page.locator("label.auto input").click()
    expect(page.locator("label.auto input")).to_be_checked()
    final = page.locator("dialog.modal table.final")
    deadline = time.time() + 180
    while not final.count() and time.time() < deadline:
        if page.locator("dialog.modal .settlement").count():
            try:
                page.locator("dialog.modal .buttons button").click(timeout=2000)
            except sync_api.Error:
                pass
        page.wait_for_timeout(200)
    assert final.count(), "the match did not end under 托管"
    return room_id


def test_sign_up_play_history_rating_and_log_in_again_on_a_phone(
        server: _Server, phone: Any) -> None:
    page = phone
    sign_up(page, server.base)
    room_id = play_short_match(page, server.base)

    page.goto(server.base + "/matches")
    row = page.locator(f'.match-row[data-room="{room_id}"]')
    expect(row).to_have_count(1)
    expect(row.locator(".place")).to_contain_text("/2")
    expect(row.locator(".rating-change")).to_contain_text("1,500 →")
    expect(row.locator(".rules-line")).to_contain_text("2人")
    # its replay opens at the match's end, the final table, as the table's own links do (it
    # opened at step 1, the deal): followed at the end of this test
    expect(row.locator("a.replay-link")).to_have_attribute("href", f"/replay/{room_id}#end")
    assert no_horizontal_scroll(page), "my matches scrolls sideways at 390 px"
    shot(page, "accounts-matches-390.png")
    change = row.locator(".rating-change").inner_text()
    after = int(change.split("→")[1].split("(")[0].strip().replace(",", ""))
    # the rating follows the final places: the winner gains, the loser loses, and equal
    # final points (every hand drawn, or wins that cancel out) share first place, which
    # leaves two equal ratings where they were
    points = page.request.get(f"{server.base}/api/matches/{room_id}/record").json()["points"]
    place = int(row.locator(".place").inner_text().split()[-1].split("/")[0])
    if points[0] == points[1]:
        assert place == 1 and after == 1500
    elif place == 1:
        assert after > 1500
    else:
        assert after < 1500

    page.goto(server.base + "/account")
    expect(page.locator(".profile .rating")).to_have_text(f"{after:,}")
    expect(page.locator(".rating-point")).to_have_count(1)
    expect(page.locator('.stats [data-stat="matches"] td')).to_have_text("1")
    assert no_horizontal_scroll(page), "the profile scrolls sideways at 390 px"
    shot(page, "accounts-profile-390.png")

    page.goto(server.base + "/")
    board = page.locator(".leaderboard")
    expect(board.locator(".leader")).to_have_count(2)  # 梅梅 and the efficiency bot
    expect(board).to_contain_text("梅梅")
    expect(board).to_contain_text("效率机器人")  # the name the table uses, in its language
    assert no_horizontal_scroll(page), "the lobby with its leaderboard scrolls sideways"
    shot(page, "accounts-lobby-390.png")

    page.goto(server.base + "/account")
    page.click("button.log-out")
    page.wait_for_url(server.base + "/")
    expect(page.locator("header .sign-in")).to_be_visible()
    page.goto(server.base + "/matches")
    expect(page.locator(".match-row")).to_have_count(0)
    page.goto(server.base + "/account")
    form = page.locator("form.login")
    form.locator("#acc-username").fill("meimei")
    form.locator("#acc-password").fill("wrong password")
    form.locator("button.log-in").click()
    expect(form.locator(".form-error")).to_contain_text("wrong user name or password")
    form.locator("#acc-password").fill("mahjong night")
    form.locator("button.log-in").click()
    expect(page.locator(".profile .rating")).to_have_text(f"{after:,}")
    expect(page.locator("header .account-link")).to_contain_text("梅梅")
    shot(page, "accounts-login-390.png")
    page.goto(server.base + "/matches")
    row = page.locator(f'.match-row[data-room="{room_id}"]')
    expect(row).to_have_count(1)
    row.locator("a.replay-link").click()
    page.wait_for_url(f"**/replay/{room_id}#end")
    steps = page.locator(".step-no")
    expect(steps).to_contain_text("/")
    shown, total = steps.inner_text().split()[-3::2]
    assert shown == total, steps.inner_text()
    expect(page.locator(".final-box table.final")).to_be_in_viewport()
    shot(page, "accounts-matches-replay-390.png")


def test_a_look_alike_name_is_refused_in_the_pages_words(server: _Server, phone: Any) -> None:
    """A name that looks like a seated player's is refused in the page's language; a
    signed-in player, whose display name the server uses whatever is typed, is told
    that the owner can free the seat (not "choose another name", which cannot help)."""
    from test_server_support import post

    room = post(server.base, "/api/rooms").json()["room_id"]
    assert post(server.base, f"/api/rooms/{room}/seats", {"name": "Alice"}).status_code == 200
    page = phone
    for lang, typed, words in (
            ("zh", "ＡＬＩＣＥ", "桌上已有看起来相同的名字，请换一个名字"),
            ("en", "\u0410lice", "Someone at this table has a name that looks the same; "
                                 "choose another name")):
        page.goto(f"{server.base}/room/{room}")
        page.evaluate(f"localStorage.setItem('hzmj.lang', '{lang}')")
        page.reload()
        page.fill("#seat-name", typed)
        page.locator("button.take-seat").first.click()
        expect(page.locator("p.error")).to_have_text(words)
    assert page.evaluate("""fetch('/api/auth/register', {method: 'POST',
        headers: {'Content-Type': 'application/json'},
        body: JSON.stringify({username: 'alice2', password: 'mahjong night',
                              display_name: 'ALICE'})}).then(r => r.status)""") == 200
    for lang, words in (("en", "ask the room's owner to free that seat"),
                        ("zh", "请房主移出那个座位")):
        page.evaluate(f"localStorage.setItem('hzmj.lang', '{lang}')")
        page.goto(f"{server.base}/room/{room}")
        # the name field shows the name the server will use, and cannot be edited
        expect(page.locator("#seat-name")).to_have_value("ALICE")
        expect(page.locator("#seat-name")).to_have_attribute("readonly", "")
        page.locator("button.take-seat").first.click()
        expect(page.locator("p.error")).to_contain_text(words)
    shot(page, "accounts-display-name-taken-390.png")
