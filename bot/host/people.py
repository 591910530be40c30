"""People: each person's language, own settings and open games, and forgetting them (a part of the host).

``People`` holds each user's language (of their last interaction, for the DMs they get later), stores their DM
channel's id (so that a DM after a start needs no request to find it) and holds their own settings
(time zone, quiet hours, reminders, turn DMs; ``bot.host.user_settings``), both as stored, read at start-up and, with a
shared database, again by each sweep. *Forget me* deletes a person's results and ratings and calls them "former
player" in the games that are no longer open (``bot.host.history_store.forget``), in the database and in memory.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import replace
from typing import Any, Final

from bot.host.errors import STATS_REFUSAL, HostError, storage_refusal
from bot.host.games import Games
from bot.host.history_store import Forgotten
from bot.host.model import GameRow
from bot.host.stores import GameStore
from bot.host.user_settings import (
    MAX_REMINDER_HOURS,
    OpenGame,
    UserSettings,
    in_order,
    known_time_zone,
    open_game,
    quiet_until,
)
from engine import Game
from i18n import LOCALES, t

TO_MOVE_KEPT: Final = 4096
"""Versions of games whose seat to move :class:`People` keeps (a few ints each)."""


class People:
    """Each person's language and settings, their open games, and forget-me."""

    def __init__(self, store: GameStore, games: Games, *, clock: Callable[[], float], shared: bool) -> None:
        self.store = store
        self.games = games
        self._clock = clock
        self.shared = shared
        self._user_locales: dict[int, str] = {}
        """User id -> the language of their last interaction, as stored."""
        self._user_settings: dict[int, UserSettings] = {}
        """User id -> their own settings, as stored (absent: the defaults)."""
        self._to_move: OrderedDict[tuple[int, int], int | None] = OrderedDict()
        """(game id, version) -> the seat to move in that version of a running game (every write bumps the version),
        for the :data:`TO_MOVE_KEPT` versions read last: a person's list of open games reads each game's state, and a
        game's state is read whole to say whose turn it is."""

    async def load(self) -> None:
        """Read every user's language and settings (at start-up)."""
        self._user_locales = {user: locale for user, locale in (await self.store.user_locales()).items()
                              if locale in LOCALES}
        self._user_settings = await self.store.user_settings()

    async def reload_settings(self) -> None:
        """Read people's settings again (another process may have changed them)."""
        self._user_settings = await self.store.user_settings()

    async def remember_locale(self, user_id: int, locale: str) -> bool:
        """Remember the language of the user's last interaction (``en``, ``de`` or ``fr``), for the DMs
        they get later, after a restart too. Writes to the database only when it changed; returns whether
        it did."""
        locale = str(locale).lower()
        if locale not in LOCALES:
            raise HostError("host.error.bad_locale", locale=locale, choices=", ".join(LOCALES))
        if self._user_locales.get(user_id) == locale:
            return False
        await self.store.set_user_locale(user_id, locale, now=self._clock())
        self._user_locales[user_id] = locale
        return True

    async def dm_channel(self, user_id: int) -> int | None:
        """The id of the user's DM channel with the bot as stored (by any process, before any restart), or ``None``
        if it never was."""
        return await self.store.dm_channel(user_id)

    async def remember_dm_channel(self, user_id: int, channel_id: int) -> None:
        """Store the id of the user's DM channel with the bot (Discord's id for it never changes)."""
        await self.store.set_dm_channel(user_id, channel_id)

    def locale_of(self, user_id: int) -> str | None:
        """The user's stored language, or ``None`` if the bot has not seen them interact."""
        return self._user_locales.get(user_id)

    def settings_of(self, user_id: int | None) -> UserSettings:
        """A person's own settings (the defaults for someone who never changed any, or a computer seat)."""
        return self._user_settings.get(user_id, UserSettings()) if user_id is not None else UserSettings()

    async def refresh_settings(self) -> None:
        """With a shared database: people's own settings as the database has them (another process may have
        changed someone's since the last sweep), read before ``/santacruz settings`` shows or changes them, so that
        a change keeps what the other process stored. ``host.error.storage`` if they cannot be read."""
        if not self.shared:
            return
        with storage_refusal():
            self._user_settings = await self.store.user_settings()

    def quiet_until(self, user_id: int, now: float | None = None) -> float | None:
        """The end of the person's quiet hours if ``now`` is inside them, else ``None``."""
        return quiet_until(self.settings_of(user_id), self._clock() if now is None else now)

    async def change_settings(self, user_id: int, *, time_zone: str | None = None,
                              quiet: tuple[int, int] | None = None, quiet_off: bool = False,
                              reminders: bool | None = None, reminder_hours: float | None = None,
                              turn_dms: bool | None = None) -> UserSettings:
        """Change some of a person's settings (``None``: unchanged; ``quiet``: first quiet hour and the hour they
        end, local; ``quiet_off``: no quiet hours). Their held DMs are re-timed in the same transaction: due at the
        end of the quiet hours as the new settings have them (a new time zone moves it), or now.
        Refusals: ``host.error.bad_time_zone`` (zone), ``host.error.bad_quiet_hours``,
        ``host.error.bad_reminder_hours`` (max); ``host.error.storage`` if the database refuses."""
        old = self.settings_of(user_id)
        changes: dict[str, Any] = {}
        if time_zone is not None:
            name = time_zone.strip()
            if not known_time_zone(name):
                raise HostError("host.error.bad_time_zone", zone=time_zone.strip()[:64])
            changes["time_zone"] = name
        if quiet_off:
            changes.update(quiet_from=None, quiet_to=None)
        elif quiet is not None:
            start, end = quiet
            if not (0 <= start <= 23 and 0 <= end <= 23) or start == end:
                raise HostError("host.error.bad_quiet_hours")
            changes.update(quiet_from=start, quiet_to=end)
        if reminder_hours is not None:
            if not 1 <= reminder_hours <= MAX_REMINDER_HOURS:
                raise HostError("host.error.bad_reminder_hours", max=MAX_REMINDER_HOURS)
            changes["reminder_hours"] = float(reminder_hours)
        if reminders is not None:
            changes["reminders"] = bool(reminders)
        if turn_dms is not None:
            changes["turn_dms"] = bool(turn_dms)
        new = replace(old, **changes)
        if new == old:
            return old
        now = self._clock()
        with storage_refusal():
            await self.store.set_user_settings(user_id, new, now=now, held_due_at=quiet_until(new, now) or now)
        self._user_settings[user_id] = new
        return new

    async def open_games_for(self, user_id: int) -> list[OpenGame]:
        """Every open game (lobby or running) the person sits in, read from the database (games of other bot
        processes too): theirs to move first, longest waiting first. ``host.error.storage`` if it cannot be read."""
        with storage_refusal():
            rows = await self.store.open_games_of(user_id)
        return in_order([g for row in rows if (g := open_game(row, user_id, self._seat_to_move)) is not None])

    def _seat_to_move(self, row: GameRow) -> int | None:
        """The seat to move in a running game's row, read from its state once per version of the game."""
        key = (row.id, row.version)
        if key in self._to_move:
            self._to_move.move_to_end(key)
            return self._to_move[key]
        assert row.state is not None
        seat = self._to_move[key] = Game.from_json(row.state).to_move
        while len(self._to_move) > TO_MOVE_KEPT:
            self._to_move.popitem(last=False)
        return seat

    async def games_waiting(self, user_id: int, *, besides: int | None = None) -> int:
        """How many open games (other than ``besides``) wait for the person's move; 0 if the database cannot say."""
        try:
            games = await self.open_games_for(user_id)
        except HostError:
            return 0
        return sum(1 for g in games if g.yours and g.game_id != besides)

    async def forget_me(self, user_id: int) -> Forgotten:
        """Delete the person's results, ratings and rating history, call them "former player" in finished
        games (in each game's language, their saved state too) and empty the payloads of the posts and DMs already
        sent that name them (``history_store.forget``); their moves stay. One transaction: a failure changes
        nothing."""
        former = {locale: t("bot.forget.former_player", locale) for locale in LOCALES}
        with storage_refusal(STATS_REFUSAL, "forget-me"):
            forgotten = await self.store.forget_user(user_id, former)
        for table in self.games.tables.values():
            if table.status not in ("lobby", "running"):
                for i, seat in enumerate(table.seats):
                    if seat.user_id == user_id:
                        seat.name = former[table.options.locale]
                        if table.game is not None and i < len(table.game.names):
                            table.game.names[i] = seat.name
        return forgotten
