"""The games' web pages (a part of the host): which token is which game's page, whether a game is on the web, who a
signed link to one's own view is for and whether it still holds, and what each view shows.

**A page per game.** Each game's page is ``PUBLIC_URL/g/<token>``: the token is random (:data:`TOKEN_BYTES` bytes
from :mod:`secrets`), made the first time a post links to the page and stored (``web_pages``), so it says nothing of
the game's number and cannot be guessed. A game is on the web when the bot has web pages at all (``PUBLIC_URL`` or
``WEB_PORT``), its opener did not choose ``new web:false``, its server did not keep its games off the web
(``/santacruz settings server_web:false``, :meth:`Web.set_shown`), and it is not damaged; otherwise its page is not
found, alike for a token that never was (:class:`NotShown`).

**What the public page shows** is the public view (``Game.view(None)``) of one position and the seats' names:
never the seed, a hand, a face-down tile or a bird chip before the end (the engine's one door, see
``engine/view.py``). :meth:`Web.view_at` gives the public view at any position of the game's standing moves (a
replay for the slider; an undone move is no position).

**A seat's own view** is behind a signed link that the player's turn DM carries (:meth:`Web.seat_link`):
``/g/<token>/s/<seat>.<generation>.<expires>.<signature>``, the signature an HMAC-SHA256 (:mod:`hmac`, key
``WEB_SECRET``) of the token, the seat, the person's user id, how often their links were revoked and when the link
expires (:data:`LINK_DAYS` after it was made). :meth:`Web.seat_page` refuses (:class:`Forbidden`) a link whose signature
does not match (forged, or signed with another key), that expired, whose seat is no longer that person's (someone took
it over) or whose person asked to be forgotten since (forget-me revokes every link made before,
:func:`bot.host.history_store.revoke_links`). What it shows is the seat's own view (its hand, bird chips, where each
card builds now; nothing of another seat) and, in a game with hints on, the coach's advice on the seat's turn
(:meth:`Web.hint`, decided by :mod:`bot.host.hints` as for ``/santacruz hint``).

The part reads the store (any process's games, as the database has them) and the game factory; it writes only the
tokens and the servers' choice. It never imports the web server (``bot.web``), which reads through it.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from bot.host.errors import Damage, HostError, storage_refusal
from bot.host.games import Games
from bot.host.hints import HintAnswer, Hints
from bot.host.model import GameRow, MoveRow, effective_moves
from bot.host.restore import GameFactory, stored_options, stored_seats
from bot.host.settings import Settings
from bot.host.stores import GameStore
from bot.host.table import DAY
from engine import Game, IllegalMove, View

TOKEN_BYTES: Final = 18
"""Random bytes of a page's token (144 bits; 24 characters in the URL)."""
TOKEN: Final = re.compile(r"[A-Za-z0-9_-]{24}")
"""What a page's token looks like (anything else is not looked up)."""
CLAIM: Final = re.compile(r"([0-3])\.([0-9]{1,9})\.([0-9]{10,11})\.([A-Za-z0-9_-]{43})")
"""A seat link's claim: ``<seat>.<generation>.<expires>.<signature>`` (the signature in unpadded base64url)."""
LINK_DAYS: Final = 7
"""How long a link to one's own view works after it was made (each turn DM and reminder brings a new one)."""
KEPT: Final = 32
"""Games whose stored row and move log are kept in memory between requests (each read again when it changed)."""


class NotShown(Exception):
    """The page is not on the web: no such token, or the game is kept off the web (404, said alike)."""


class Forbidden(Exception):
    """A link to a seat's own view that does not hold: forged, expired or revoked (403, nothing shown)."""


@dataclass(frozen=True, slots=True)
class WebSeat:
    """A seat as the page names it."""

    name: str
    computer: bool
    """A computer seat (no person)."""
    away: bool
    """The computer plays it for its person (away, a vacation, a turn deadline run out three times)."""
    former: tuple[str, ...] = ()
    """The people who played it before someone took it over, first first."""


@dataclass(frozen=True, slots=True)
class Page:
    """A game as its public page shows it, at one version of the database: public facts only (the part keeps the
    seed and the state to itself)."""

    token: str
    game_id: int
    """For the server's caches and live updates only: the page never shows it."""
    version: int
    status: str
    """``lobby``, ``running``, ``over`` or ``abandoned``."""
    locale: str
    """The game's language (a viewer reads the page in their own)."""
    seats: tuple[WebSeat, ...]
    hints: bool
    """Players may ask the coach on their turn."""
    positions: int
    """The standing moves: the positions are 0 (the set-up) to this."""
    marks: tuple[int, ...]
    """Per position after the first, the move-log row of its last move: with the game and the position it names
    that position for ever (an undone move's number is never used again), for caching its pictures."""

    def key(self, at: int) -> tuple[int, int, int]:
        """What names position ``at`` of the game for ever (a cache key)."""
        return self.game_id, at, self.marks[at - 1] if at else 0

    @property
    def started(self) -> bool:
        """Whether the game has a board (its lobby has none)."""
        return self.status != "lobby"


@dataclass(frozen=True, slots=True)
class SeatPage:
    """A link to one seat's own view that holds: the page, the seat, whose it is, until when the link works."""

    page: Page
    seat: int
    user_id: int
    expires: int
    claim: str
    """The link's own claim (its last part), for the addresses of the seat's page."""


@dataclass(frozen=True, slots=True)
class _Stored:
    """A game's row and standing moves at one version."""

    row: GameRow
    moves: tuple[MoveRow, ...]
    page: Page


class Web:
    """The games' web pages: see the module docstring."""

    def __init__(self, store: GameStore, games: Games, settings: Settings, hints: Hints, *,
                 clock: Callable[[], float], factory: GameFactory) -> None:
        self.store = store
        self.games = games
        self.settings = settings
        self.hints = hints
        self._clock = clock
        self._factory = factory
        self._tokens: dict[int, str] = {}
        """Game id -> its page's token (a token never changes)."""
        self._games_of: dict[str, int] = {}
        """Token -> its game."""
        self._stored: OrderedDict[int, _Stored] = OrderedDict()

    @property
    def enabled(self) -> bool:
        """Whether the bot has web pages at all (``PUBLIC_URL`` or ``WEB_PORT`` is set)."""
        return bool(self.settings.web_url)

    # ------------------------------------------------------------------ links (for the posts and DMs)

    async def link(self, game_id: int) -> str | None:
        """The address of the game's page, made the first time it is asked for; ``None`` when the game is not on
        the web (module docstring). Raises ``host.error.storage`` when the database cannot be read."""
        if not self.enabled:
            return None
        with storage_refusal(doing="linking a game's web page"):
            row = await self.store.get_game(game_id)
            if row is None or not await self._shown(row):
                return None
            token = self._tokens.get(game_id)
            if token is None:
                token = await self.store.web_token(game_id, secrets.token_urlsafe(TOKEN_BYTES), now=self._clock())
                self._tokens[game_id], self._games_of[token] = token, game_id
        return f"{self.settings.web_url}/g/{token}"

    async def seat_link(self, game_id: int, user_id: int) -> str | None:
        """The signed address of the user's own view in the game (:data:`LINK_DAYS` valid); ``None`` without
        ``WEB_SECRET``, when the game is not on the web or the user has no seat in it."""
        if not self.settings.web_secret:
            return None
        page = await self.link(game_id)
        if page is None:
            return None
        with storage_refusal(doing="signing a link to a player's view"):
            row = await self.store.get_game(game_id)
            generation = await self.store.link_generation(user_id)
        seat = next((i for i, s in enumerate(row.seats) if s.get("user_id") == user_id), None) if row else None
        if seat is None:
            return None
        token = page.rsplit("/", 1)[1]
        expires = int(self._clock() + LINK_DAYS * DAY)
        return f"{page}/s/{seat}.{generation}.{expires}.{self._signature(token, seat, user_id, generation, expires)}"

    def _signature(self, token: str, seat: int, user_id: int, generation: int, expires: int) -> str:
        said = f"santacruz seat link\n{token}\n{seat}\n{user_id}\n{generation}\n{expires}".encode()
        digest = hmac.new(self.settings.web_secret.encode(), said, hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()

    # ------------------------------------------------------------------ the servers' choice

    async def set_shown(self, guild_id: int, shown: bool) -> None:
        """Keep the server's games off the web (``False``), or let them be on it again; pages already open stop
        (or start) showing them at once. Raises ``host.error.storage``."""
        with storage_refusal(doing="keeping a server's games off the web"):
            await self.store.set_web_shown(guild_id, shown, now=self._clock())

    async def shown(self, guild_id: int) -> bool:
        """Whether the server lets its games be on the web. Raises ``host.error.storage``."""
        with storage_refusal(doing="reading a server's web setting"):
            return await self.store.web_shown(guild_id)

    # ------------------------------------------------------------------ what the pages show

    async def page(self, token: str) -> Page:
        """The game whose page ``token`` is, as the database has it now; :class:`NotShown` when there is none or
        it is not on the web. A database that cannot be read raises ``StorageFailed``."""
        return (await self._page(token)).page

    async def _page(self, token: str) -> _Stored:
        if not self.enabled or not TOKEN.fullmatch(token):
            raise NotShown
        game_id = self._games_of.get(token)
        if game_id is None:
            game_id = await self.store.web_game(token)
            if game_id is None:
                raise NotShown
            self._games_of[token], self._tokens[game_id] = game_id, token
        stored = await self._read(game_id, token)
        if stored is None or not await self._shown(stored.row):
            raise NotShown
        return stored

    async def seat_page(self, token: str, claim: str) -> SeatPage:
        """The seat whose own view the signed ``claim`` of the page ``token`` shows, if the link holds: else
        :class:`Forbidden` (forged, expired, revoked, the seat someone else's now, the game off the web)."""
        try:
            stored = await self._page(token)
        except NotShown:
            raise Forbidden from None
        parts = CLAIM.fullmatch(claim) if self.settings.web_secret else None
        if parts is None:
            raise Forbidden
        seat, generation, expires = (int(parts.group(i)) for i in (1, 2, 3))
        seats = stored.row.seats
        user_id = seats[seat].get("user_id") if seat < len(seats) else None
        if expires < self._clock() or not isinstance(user_id, int):
            raise Forbidden
        if generation != await self.store.link_generation(user_id):
            raise Forbidden
        if not hmac.compare_digest(parts.group(4), self._signature(token, seat, user_id, generation, expires)):
            raise Forbidden
        return SeatPage(stored.page, seat, user_id, expires, claim)

    async def view_at(self, page: Page, at: int | None = None) -> View | None:
        """The public view of the game at position ``at`` (``None``: the latest); ``None`` for a lobby."""
        return await self._view(page, None, page.positions if at is None else at)

    async def seat_view(self, seat: SeatPage) -> View | None:
        """The seat's own view now (its cards, bird chips, legal moves); ``None`` for a lobby."""
        return await self._view(seat.page, seat.seat, seat.page.positions)

    async def _view(self, page: Page, seat: int | None, at: int) -> View | None:
        """The view of ``seat`` (``None``: everyone's) at position ``at`` of the page's game, if that position is still
        the page's (an undo since may have taken it away); else ``None``."""
        if not page.started or not 0 <= at <= page.positions:
            return None
        stored = await self._read(page.game_id, page.token)
        if stored is None or at > stored.page.positions or stored.page.key(at) != page.key(at):
            return None
        return _game_at(stored, at, self._factory).view(seat)

    async def hint(self, seat: SeatPage) -> HintAnswer:
        """The coach's advice for the seat now, if its person may ask (:meth:`bot.host.hints.Hints.hint` decides,
        with its refusals)."""
        await self.games.refresh.game(seat.page.game_id)
        table = self.games.of_game(seat.page.game_id)
        if table is None:
            raise HostError("host.error.no_game")
        return await self.hints.hint(table.channel_id, seat.user_id, game_id=seat.page.game_id)

    # ------------------------------------------------------------------ live

    async def versions(self, game_ids: Sequence[int]) -> dict[int, int]:
        """Each game's version in the database now (raises ``StorageFailed``)."""
        return await self.store.game_versions(game_ids)

    async def listen(self, callback: Callable[[int], None]) -> bool:
        """Tell ``callback`` of every change to a game, by any process; ``False`` where the database cannot (SQLite:
        poll :meth:`versions`)."""
        return await self.store.listen_games(callback)

    # ------------------------------------------------------------------ reading the games

    async def _shown(self, row: GameRow) -> bool:
        """Whether the game of ``row`` is on the web (see the module docstring)."""
        if not self.enabled or row.status not in ("lobby", "running", "over", "abandoned"):
            return False
        try:
            if not stored_options(row.options).web:
                return False
        except Damage:
            return False
        return row.guild_id is None or await self.store.web_shown(row.guild_id)

    async def _read(self, game_id: int, token: str) -> _Stored | None:
        """The game's row and standing moves as the database has them now (read again only when its version
        changed); ``None`` when it cannot be shown (gone, or its rows cannot be read)."""
        kept = self._stored.get(game_id)
        if kept is not None:
            versions = await self.store.game_versions([game_id])
            if versions.get(game_id) == kept.row.version:
                self._stored.move_to_end(game_id)
                return kept
        found = await self.store.game_with_moves(game_id)
        if found is None:
            return None
        row, log = found
        try:
            seats = stored_seats(row.seats)
            standing = tuple(effective_moves(log))
        except (Damage, ValueError):
            return None
        page = Page(token=token, game_id=game_id, version=row.version, status=row.status, locale=row.locale,
                    seats=tuple(WebSeat(s.name, s.is_computer, s.computer_plays and not s.is_computer,
                                        tuple(str(f["name"]) for f in s.former)) for s in seats),
                    hints=bool(row.options.get("hints")), positions=len(standing),
                    marks=tuple(m.seq for m in standing))
        kept = _Stored(row, standing, page)
        self._stored[game_id] = kept
        while len(self._stored) > KEPT:
            self._stored.popitem(last=False)
        return kept


def _game_at(stored: _Stored, at: int, factory: GameFactory) -> Game:
    """The game at position ``at``: the stored snapshot for the latest when it agrees with the moves, else a replay
    from the deal (the seed stays here)."""
    row, moves = stored.row, stored.moves
    names = [str(s["name"]) for s in row.seats]
    if at == len(moves) and row.state is not None:
        try:
            game = Game.from_json(row.state)
            if [m for _, m in game.moves] == [m.move for m in moves]:
                return game
        except (ValueError, KeyError, TypeError):
            pass
    game = factory(names, row.seed, bool(row.options.get("draft")))
    for move in moves[:at]:
        try:
            game.apply(move.move)
        except IllegalMove:  # a log the host would quarantine: the position before it is what can be shown
            break
    return game
