"""The web pages over real HTTP, on both stores: nothing secret in any public answer (every answer scanned for every
secret of the game, as the DM and log secrecy tests do), a seat's link shows its own hand and nothing of another
seat's, a forged, expired or revoked link gets 403 and no secret, names escaped, the headers and the
Content-Security-Policy, no file outside the app, the limit per address, the language of the browser, a game kept
off the web, and each move on an open live stream (how soon: ``bench/bench_web.py``)."""

from __future__ import annotations

import asyncio
import html
import json
import re
import time
from html.parser import HTMLParser
from typing import Any

import aiohttp
import pytest

import bot.web.pictures
from bot.web.document import MOST_MARKS, shown_name
from bot.web.limits import Buckets
from bot.web.server import CSP, WebServer
from engine import View
from i18n import t
from render.theme import WIDTHS
from tests.helpers.http import fetch, next_event
from tests.helpers.secrets import SEED, state_secrets, variants
from tests.helpers.web import CHANNEL, GUILD, NAMES, PEOPLE, Site, hidden_cards, open_site

SEAT_KEYS = ('"you"', '"legal_moves"', '"build_sites"', '"scoring_cards"', '"bird_chips"', '"hand_scoring"')
"""Keys of a seat's own view and of the state: never in a public answer."""


class Tags(HTMLParser):
    """Every start tag of a page with its attributes, as a browser's parser reads them."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, list[tuple[str, str | None]]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.append((tag, attrs))

    @classmethod
    def of(cls, page: str) -> list[tuple[str, list[tuple[str, str | None]]]]:
        parser = cls()
        parser.feed(page)
        return parser.found


def card_secrets(cards: set[str], label: str) -> dict[str, str]:
    """A card's name in every language, and its id as a JSON string."""
    found = {f"{label} {card}": f'"{card}"' for card in cards}
    found.update({f"{label} {card} {lang}": t(f"game.scoring.{card}.name", lang) for card in cards
                  for lang in ("en", "de", "fr")})
    return found


def game_secrets(site: Site) -> dict[str, str]:
    """Every secret of the game now: the seed, the state and its secret parts (deck, hands, face-down tiles, bird
    chips), each hand's hidden cards by name and id, the keys of a seat's view, each seat's signed link."""
    game = site.host.games.tables[CHANNEL].current_game()
    assert game is not None
    found = {"seed": str(SEED), **state_secrets(game.to_json(), "now")}
    for seat, cards in hidden_cards(site).items():
        found.update(card_secrets(cards, f"seat {seat}"))
    found.update({f"key {key}": key for key in SEAT_KEYS})
    return found


def leaks(body: bytes, secrets: dict[str, str]) -> list[str]:
    text = body.decode("utf-8", "replace")
    return [name for name, secret in secrets.items()
            if any(v in text for v in {*variants(secret), html.escape(secret)})]


def spy_pictures(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int | None, bool]]:
    """The (view's seat, personal) of every board the server draws."""
    drawn: list[tuple[int | None, bool]] = []
    real = bot.web.pictures.render_picture

    def spy(view: View, locale: str, personal: bool, game_over: bool, width: int) -> bytes:
        drawn.append((view["seat"], personal))
        return real(view, locale, personal, game_over, width)

    monkeypatch.setattr(bot.web.pictures, "render_picture", spy)
    return drawn


def unlimited(site: Site) -> None:
    """No limit per address (a test reading every position at once)."""
    site.server.pages = Buckets(10_000, 10_000)
    site.server.draws = Buckets(10_000, 10_000)


async def public_answers(site: Site, http: aiohttp.ClientSession) -> list[tuple[str, int, dict[str, str], bytes]]:
    """Every answer the public page asks for, or may be asked: the page and every position's document in the three
    languages, the first live event, the script and style, a refusal; (url, status, headers, body)."""
    link = await site.link()
    urls = [link, link + "/nothing", site.origin + "/static/page.js", site.origin + "/static/page.css"]
    positions = json.loads((await fetch(http, link + "/state.json"))[2])["positions"]
    for lang in ("en", "de", "fr"):
        urls.append(f"{link}?lang={lang}")
        urls += [f"{link}/state.json?at={at}&lang={lang}" for at in range(positions + 1)]
    answers = [(url, *await fetch(http, url)) for url in urls]
    async with http.get(link + "/events") as stream:
        event = await next_event(stream.content)
        answers.append((link + "/events", stream.status, dict(stream.headers), json.dumps(event).encode()))
    return answers


async def test_no_public_answer_holds_a_secret(site: Site, http: aiohttp.ClientSession,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    drawn = spy_pictures(monkeypatch)
    unlimited(site)
    await site.play(24)
    secrets = game_secrets(site)
    assert sum(1 for name in secrets if name.startswith("seat ")) >= 3 * 4, "the hands hold hidden cards"
    answers = await public_answers(site, http)
    assert len(answers) > 3 * 25
    code = {name: secret for name, secret in secrets.items() if not name.startswith("key ")}
    for url, status, _, body in answers:  # the script itself names the keys it reads: its own check is the rest
        assert status in (200, 404), url
        assert leaks(body, code if "/static/" in url else secrets) == [], url
    doc = json.loads(answers[-2][3])
    for at in (0, 5, doc["positions"]):  # the boards: drawn from the public view only
        src = json.loads((await fetch(http, f"{await site.link()}/state.json?at={at}"))[2])["board"]["src"]
        status, headers, png = await fetch(http, site.origin + src)
        assert status == 200 and headers["Content-Type"] == "image/png" and png.startswith(b"\x89PNG")
    assert drawn and all(seat is None and not personal for seat, personal in drawn)


async def test_a_seat_link_shows_its_own_hand_and_nothing_of_another_seat(
        site: Site, http: aiohttp.ClientSession, monkeypatch: pytest.MonkeyPatch) -> None:
    drawn = spy_pictures(monkeypatch)
    await site.play(9)
    hidden = hidden_cards(site)
    game = site.host.games.tables[CHANNEL].current_game()
    assert game is not None
    for seat, user in enumerate(PEOPLE):
        link = await site.seat_link(user)
        status, headers, page = await fetch(http, link)
        assert status == 200 and "no-store" in headers["Cache-Control"]
        doc = json.loads((await fetch(http, link + "/state.json"))[2])
        you = doc["you"]
        hand = game.view(seat)["you"]["scoring_cards"]
        assert [c["name"] for c in you["scoring"]] == [t(f"game.scoring.{c}.name", "en") for c in hand]
        chips = game.view(seat)["you"]["bird_chips"]
        assert you["chips"] == (t("web.you.no_chips", "en") if not chips else you["chips"])
        others = {card for other, cards in hidden.items() if other != seat for card in cards}
        secrets = {k: v for k, v in card_secrets(others, "other").items() if not k.endswith('"')}
        assert leaks(page, secrets) == [] and leaks(json.dumps(doc, ensure_ascii=False).encode(), secrets) == []
        status, _, png = await fetch(http, site.origin + you["board"]["src"])
        assert status == 200 and png.startswith(b"\x89PNG")
    assert {seat for seat, personal in drawn if personal} == {0, 1, 2}  # each from its own seat's view


async def test_a_forged_expired_revoked_or_taken_over_link_gets_403_and_no_secret(
        tmp_path: Any, http: aiohttp.ClientSession) -> None:
    from bot.host.store import Store

    now = [time.time()]
    store = await Store.open(tmp_path / "web.db")
    site = await open_site(store)
    site.host.web._clock = lambda: now[0]  # the links' clock, moved by the test
    try:
        await site.start()
        await site.play(4)
        secrets = game_secrets(site)
        good = await site.seat_link(PEOPLE[1])
        base, claim = good.rsplit("/", 1)
        seat, generation, expires, signature = claim.split(".")
        forged = [
            f"{base}/{seat}.{generation}.{expires}.{signature[:-2]}AA",  # another signature
            f"{base}/{int(seat) ^ 1}.{generation}.{expires}.{signature}",  # another seat, the same signature
            f"{base}/{seat}.{generation}.{int(expires) + 86400}.{signature}",  # a later end
            f"{base}/{seat}.{int(generation) + 1}.{expires}.{signature}",
            f"{base}/{seat}.{generation}.{expires}",
            f"{base}/{seat}.{generation}.{expires}.{signature}x",
            good.replace(good.split("/g/")[1].split("/")[0], "A" * 24),  # another page
        ]
        for url in forged:
            for suffix in ("", "/state.json", "/board.png?m=4&lang=en"):
                status, headers, body = await fetch(http, url + suffix)
                assert status in (403, 404) and leaks(body, secrets) == [], url + suffix
                assert headers["Content-Security-Policy"] == CSP
            assert (await fetch(http, url))[0] == 403
        status, _, body = await fetch(http, base + "/" + claim)
        assert status == 200
        now[0] += 8 * 86400  # the link ran out
        status, _, body = await fetch(http, good)
        assert status == 403 and t("web.error.forbidden.text", "en") in body.decode() and leaks(body, secrets) == []
        now[0] -= 8 * 86400
        await site.host.people.forget_me(PEOPLE[1])  # forget-me revokes every link made before
        assert (await fetch(http, good))[0] == 403
        fresh = await site.seat_link(PEOPLE[1])
        assert (await fetch(http, fresh))[0] == 200
        await site.host.play.away(CHANNEL, PEOPLE[1])  # the seat is taken over: its person's link no longer works
        await site.host.takeover.offer(CHANNEL, 999, "Eve")
        await site.host.takeover.confirm(CHANNEL, PEOPLE[0], int(seat), 999)
        assert (await fetch(http, fresh))[0] == 403
        assert (await fetch(http, await site.seat_link(999)))[0] == 200
        assert await site.host.web.seat_link(site.game_id, PEOPLE[1]) is None  # no seat, no link
    finally:
        await site.server.stop()
        await store.close()


async def test_names_are_escaped_and_isolated(sqlite_site: Site, http: aiohttp.ClientSession) -> None:
    await sqlite_site.play(12)
    link = await sqlite_site.link()
    page = (await fetch(http, link))[2].decode()
    for raw in ("<script>alert", "<img src=x", "<@123>"):  # as text only: escaped in HTML, in JSON as \u003c
        assert raw not in page, raw
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    tags = Tags.of(page)
    scripts = [dict(attrs) for tag, attrs in tags if tag == "script"]
    assert scripts and all("src" in a or a.get("type") == "application/json" for a in scripts), scripts
    attributes = {name for _, attrs in tags for name, _ in attrs}
    assert "style" not in attributes and not [name for name in attributes if name.startswith("on")], attributes
    assert [tag for tag, _ in tags if tag == "img"] == ["img"], "the board alone"
    doc = json.loads((await fetch(http, link + "/state.json"))[2])
    names = [p["name"] for p in doc["players"]]
    assert names == [shown_name(NAMES[user]) for user in PEOPLE]
    assert "\u2069" not in names[2] and "\u202e" in names[1], "isolates go, an override stays inside its isolate"
    marks = max(len(run) for run in re.findall("[\u0300-\u036f]+", names[2]))
    assert marks == MOST_MARKS
    said = [item["text"] for item in doc["log"] if "text" in item]
    assert said and all(text.count("\u2068") == text.count("\u2069") >= 1 for text in said)
    for text in said:  # a name inside a sentence stands in its own isolate
        for name in names:
            if name in text:
                assert f"\u2068{name}\u2069" in text


async def test_every_answer_carries_the_headers_and_no_file_outside_the_app_is_served(
        sqlite_site: Site, http: aiohttp.ClientSession) -> None:
    await sqlite_site.play(3)
    link, origin = await sqlite_site.link(), sqlite_site.origin
    seat = await sqlite_site.seat_link(PEOPLE[0])
    for url in (link, link + "/state.json", seat, seat + "/state.json", origin + "/static/page.js", origin + "/",
                origin + "/metrics", origin + "/healthz", link + "/board/0.png?m=0&lang=en"):
        status, headers, _ = await fetch(http, url)
        assert headers["Content-Security-Policy"] == CSP, url
        assert headers["X-Content-Type-Options"] == "nosniff" and headers["Referrer-Policy"] == "no-referrer"
        assert headers["X-Frame-Options"] == "DENY"
    assert "no-store" in (await fetch(http, seat))[1]["Cache-Control"]
    for path in ("/metrics", "/healthz", "/readyz", "/static/../server.py", "/static/%2e%2e/server.py",
                 "/static/..%2fserver.py", "/static/templates/page.html", "/static/page.js/../../server.py",
                 "/g/../../bot/web/server.py", "/static/%2e%2e%2f%2e%2e%2fpyproject.toml", "/bot/web/server.py",
                 "/static//etc/passwd", "/static/page.js%00.png"):
        status, _, body = await fetch(http, origin + path)
        assert status == 404, path
        assert b"import" not in body and b"root:" not in body and b"[project]" not in body, path
    status, headers, body = await fetch(http, origin + "/static/page.js")
    assert status == 200 and headers["Content-Type"].startswith("text/javascript") and b"textContent" in body


async def test_one_address_over_its_limit_is_answered_429_and_others_are_not(
        sqlite_site: Site, http: aiohttp.ClientSession) -> None:
    link = await sqlite_site.link()
    statuses = [(await fetch(http, link + "/state.json", headers={"X-Forwarded-For": "203.0.113.7"}))[0]
                for _ in range(90)]
    assert statuses[0] == 200 and 429 in statuses
    status, headers, body = await fetch(http, link + "/state.json", headers={"X-Forwarded-For": "203.0.113.7"})
    assert status == 429 and int(headers["Retry-After"]) >= 1 and json.loads(body)["error"]
    assert (await fetch(http, link + "/state.json", headers={"X-Forwarded-For": "203.0.113.8"}))[0] == 200


async def test_the_page_speaks_the_browser_s_language(sqlite_site: Site, http: aiohttp.ClientSession) -> None:
    await sqlite_site.play(2)
    link = await sqlite_site.link()
    for asked, lang in (("de-DE,de;q=0.9,en;q=0.8", "de"), ("es, fr;q=0.9, de;q=0.8", "fr"), ("es", "en"),
                        ("", "en"), ("en;q=0.1, de;q=0.5", "de"), ("*", "en")):
        status, headers, body = await fetch(http, link, headers={"Accept-Language": asked})
        assert status == 200 and f'<html lang="{lang}">' in body.decode(), asked
        assert t("web.players.title", lang) in body.decode()
        assert headers["Vary"] == "Accept-Language"
    doc = json.loads((await fetch(http, link + "/state.json?lang=fr"))[2])
    assert doc["lang"] == "fr" and doc["position"] == t("web.replay.position", "fr", at=2, count=2)


async def test_every_position_has_its_document_and_board(sqlite_site: Site, http: aiohttp.ClientSession) -> None:
    made = await sqlite_site.play(6)
    link = await sqlite_site.link()
    for at in range(made + 1):
        doc = json.loads((await fetch(http, f"{link}/state.json?at={at}"))[2])
        assert (doc["at"], doc["positions"]) == (at, made)
        assert [item["n"] > at for item in doc["log"] if "n" in item].count(True) == made - at
        status, headers, _ = await fetch(http, sqlite_site.origin + doc["board"]["src"])
        assert status == 200 and "immutable" in headers["Cache-Control"]
    assert (await fetch(http, f"{link}/board/2.png?m=99&lang=en"))[0] == 404  # not that position's mark
    assert (await fetch(http, f"{link}/board/{made + 1}.png?m={made + 1}&lang=en"))[0] == 404


async def test_a_lobby_shows_its_seats_and_a_game_kept_off_the_web_has_no_page(
        sqlite_site: Site, http: aiohttp.ClientSession) -> None:
    host = sqlite_site.host
    lobby = await host.lobby.open(11, GUILD, PEOPLE[0], "Ada")
    link = await host.web.link(lobby.game_id)
    assert link is not None
    doc = json.loads((await fetch(http, link + "/state.json"))[2])
    assert doc["board"] is None and doc["turn"] == t("web.status.lobby", "en") and doc["players"][0]["name"] == "Ada"
    assert (await fetch(http, link))[0] == 200
    off = await host.lobby.open(12, GUILD, PEOPLE[1], "Bo", web=False)
    assert await host.web.link(off.game_id) is None
    playing = await sqlite_site.link()
    await host.web.set_shown(GUILD, False)  # the server keeps its games off the web: at once
    assert await host.web.link(sqlite_site.game_id) is None
    for url in (playing, playing + "/state.json", link):
        assert (await fetch(http, url))[0] == 404
    assert (await fetch(http, playing + "/s/0.0.9999999999." + "A" * 43))[0] == 403  # no seat link either
    await host.web.set_shown(GUILD, True)
    assert (await fetch(http, playing))[0] == 200


async def test_a_move_shows_on_an_open_stream(site: Site, http: aiohttp.ClientSession) -> None:
    """Each move's event arrives on the open stream (how soon is ``bench/bench_web.py``'s: no timed test)."""
    await site.play(1)
    link = await site.link()
    async with http.get(link + "/events") as stream:
        assert stream.headers["Content-Type"] == "text/event-stream"
        kind, data = await next_event(stream.content)
        assert kind == "version"
        before = json.loads(data)
        delays = []
        for _ in range(3):
            await asyncio.sleep(0.3)
            moved = time.monotonic()
            await site.play(1)
            kind, data = await next_event(stream.content, timeout=30.0)
            delays.append(time.monotonic() - moved)
            assert kind == "version" and json.loads(data)["version"] > before["version"]
            before = json.loads(data)
        assert json.loads(data)["positions"] == 4
    print(f"live delay ({type(site.store).__name__}): {', '.join(f'{d * 1000:.0f} ms' for d in delays)}")


async def test_the_coach_answers_a_seat_on_its_turn_in_a_game_with_hints(tmp_path: Any,
                                                                         http: aiohttp.ClientSession) -> None:
    from bot.host.store import Store

    store = await Store.open(tmp_path / "web.db")
    site = await open_site(store)
    try:
        await site.start(hints=True)
        await site.play(2)
        info = site.host.games.info(CHANNEL)
        assert info is not None and info.to_move is not None
        mover = info.seats[info.to_move].user_id
        waiting = next(user for user in PEOPLE if user != mover)
        assert mover is not None
        link = await site.seat_link(mover)
        coach = json.loads((await fetch(http, link + "/state.json"))[2])["you"]["coach"]
        assert coach["ask"] == t("web.coach.ask", "en") and coach["url"].endswith("/hint.json")
        status, headers, body = await fetch(http, site.origin + coach["url"], method="POST")
        assert status == 200 and "no-store" in headers["Cache-Control"]
        lines = json.loads(body)["lines"]
        assert lines[0].startswith(t("coach.title", "en", player="\u2068", round=1).split("\u2068")[0])
        other = await site.seat_link(waiting)
        coach = json.loads((await fetch(http, other + "/state.json"))[2])["you"]["coach"]
        assert coach == {"text": t("web.coach.later", "en"), "ask": None, "url": None}
        status, _, body = await fetch(http, other + "/hint.json", method="POST")  # asked anyway: the host refuses
        assert status == 409 and json.loads(body)["error"].startswith(t("host.error.hint_not_your_turn", "en",
                                                                        name="").split(":")[0])
        assert (await fetch(http, other[:-3] + "AAA/hint.json", method="POST"))[0] == 403
    finally:
        await site.server.stop()
        await store.close()


async def test_a_game_without_hints_says_so_and_the_boards_are_full_width(sqlite_site: Site,
                                                                          http: aiohttp.ClientSession) -> None:
    await sqlite_site.play(1)
    info = sqlite_site.host.games.info(CHANNEL)
    assert info is not None and info.to_move is not None
    link = await sqlite_site.seat_link(info.seats[info.to_move].user_id)  # type: ignore[arg-type]
    coach = json.loads((await fetch(http, link + "/state.json"))[2])["you"]["coach"]
    assert coach == {"text": t("web.coach.off", "en"), "ask": None, "url": None}
    status, _, body = await fetch(http, link + "/hint.json", method="POST")
    assert status == 409 and json.loads(body)["error"] == t("host.error.hints_off", "en")
    assert WebServer(lambda: None, sqlite_site.settings).pictures.width == WIDTHS[1] == 2400
    page = (await fetch(http, await sqlite_site.link()))[2].decode()
    image = dict(next(attrs for tag, attrs in Tags.of(page) if tag == "meta" and ("property", "og:image") in attrs))
    doc = json.loads((await fetch(http, await sqlite_site.link() + "/state.json"))[2])
    assert image["content"] == sqlite_site.origin + doc["board"]["src"]  # a pasted link unfolds with the board now
