"""A host's web pages as the tests drive them: :class:`Site`, a host with a game of three people whose names are
hostile and its web server on 127.0.0.1 (its boards drawn 800 pixels wide, in a thread: quicker than the full width,
the same code), and what a test reads of its game (the cards only one seat knows of). Everything a person does goes
through the host, as the bot's commands do; the tests read the pages over real HTTP (:mod:`tests.helpers.http`)."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Final

from bot.host.hints import Coach
from bot.host.host import Host
from bot.host.settings import Settings
from bot.web.server import WebServer
from tests.helpers.driver import coach_by_playouts
from tests.helpers.http import free_port
from tests.helpers.names import HOSTILE_NAMES
from tests.helpers.secrets import DISTINCT_CARDS, SEED

CHANNEL: Final = 10
GUILD: Final = 5
PEOPLE: Final = (100, 101, 102)
NAMES: Final = {
    100: "<script>alert(1)</script> & \"Ada\" <img src=x onerror=alert(2)>",
    101: "@everyone <@123> \u202eevil Bo",
    102: "Z" + "".join(chr(0x336 + i) for i in range(12)) + "o\u2069\u202e " + HOSTILE_NAMES["mallory"],
}
"""The players' names, as hostile as the tests' others: HTML, mentions, a right-to-left override (and a stray end of
an isolate), a dozen combining marks on one letter, Discord markdown with a masked link."""
SECRET: Final = "a-web-secret-of-forty-characters-or-more-0123"
WIDTH: Final = 800


@dataclass
class Site:
    """A host with one game and its web server."""

    host: Host
    store: Any
    server: WebServer
    settings: Settings
    rng: random.Random = field(default_factory=lambda: random.Random(7))

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.server.port}"

    @property
    def game_id(self) -> int:
        info = self.host.games.info(CHANNEL)
        assert info is not None
        return int(info.game_id)

    async def start(self, *, hints: bool = False) -> None:
        """The lobby of the three people (``hints``: they may ask the coach), started."""
        await self.host.lobby.open(CHANNEL, GUILD, PEOPLE[0], NAMES[PEOPLE[0]], hints=hints)
        for user in PEOPLE[1:]:
            await self.host.lobby.join(CHANNEL, user, NAMES[user])
        await self.host.lobby.start(CHANNEL, PEOPLE[0])

    async def play(self, count: int) -> int:
        """``count`` moves of whoever is to move (fewer when the game ends); how many were made."""
        made = 0
        for _ in range(count):
            info = self.host.games.info(CHANNEL)
            if info is None or info.status != "running" or info.to_move is None:
                break
            user = info.seats[info.to_move].user_id
            assert user is not None
            await self.host.play.move(CHANNEL, user, self.rng.choice(self.host.play.legal_moves(CHANNEL, user)))
            made += 1
        return made

    async def link(self) -> str:
        found = await self.host.web.link(self.game_id)
        assert found is not None and found.startswith(self.origin + "/g/")
        return found

    async def seat_link(self, user_id: int) -> str:
        found = await self.host.web.seat_link(self.game_id, user_id)
        assert found is not None
        return found


async def open_site(store: Any, *, coach: Coach = coach_by_playouts) -> Site:
    """A host on ``store`` (a new seed: :data:`SEED`; the coach thinking a fixed number of playouts) and its web
    server, listening."""
    port = free_port()
    chosen = Settings(web_port=port, web_secret=SECRET)
    host = Host(store, chosen, new_seed=lambda: SEED, coach=coach)
    server = WebServer(lambda: host.web, chosen, picture_width=WIDTH)
    await server.start()
    return Site(host, store, server, chosen)


def hidden_cards(site: Site) -> dict[int, set[str]]:
    """Seat -> the distinctive scoring cards only it knows of now (in its hand, never played or shown)."""
    table = site.host.games.tables[CHANNEL]
    game = table.current_game()
    assert game is not None
    public = game.view(None)
    shown = {c for p in public["players"] for c in p["played_scoring_cards"]}
    shown |= {c for pile in public.get("piles") or [] for c in pile["scoring_cards"]}
    return {seat: {c for c in game.view(seat)["you"]["scoring_cards"] if c in DISTINCT_CARDS and c not in shown}
            for seat in range(len(PEOPLE))}
