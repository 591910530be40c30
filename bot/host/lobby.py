"""The lobby (a part of the host): opening a game in a channel, seats, starting, abandoning, a rematch.

One open game per channel (the database refuses a second, also from another process). The opener, or someone with
Manage Channels (``can_manage``), runs the lobby: computer seats, kicking, starting with 2-4 seats, abandoning.
Every change goes through ``games.change`` and ``games.write``; a lobby sets its expiry timer and owes its lobby
message when it opens (:data:`bot.host.deliveries.LOBBY_POST`), every change of the lobby (a seat, the start, its
end) owes the message's redraw (:data:`bot.host.deliveries.LOBBY_EDIT`), and the start sets the game's first idle and
deadline timers and owes the start post and everyone's hand (:func:`bot.host.deliveries.start_deliveries`).
"""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import Final

from bot.host import deadlines
from bot.host.change import Change
from bot.host.deliveries import ABANDONED_POST, abandoned_turn, lobby_edit, lobby_post, start_deliveries
from bot.host.errors import DamagedRow, HostError, storage_refusal
from bot.host.games import Games
from bot.host.idle import LOBBY_EXPIRY, idle_timer, lobby_timer
from bot.host.model import OPEN_STATUSES, NewDelivery
from bot.host.play import Play
from bot.host.reminders import Reminders
from bot.host.restore import MAX_PLAYERS, GameFactory
from bot.host.settings import AI_STRENGTHS, Settings
from bot.host.table import Options, Seat, SeatChange, StartResult, Table, TableInfo
from i18n import LOCALES, t

MIN_PLAYERS: Final = 2


def new_seed() -> int:
    """A new game's secret seed."""
    return secrets.randbits(62)


class Lobby:
    """Lobbies and the start, abandonment and rematch of a channel's game; see the module docstring."""

    def __init__(self, games: Games, play: Play, reminders: Reminders, settings: Settings, *,
                 clock: Callable[[], float], factory: GameFactory, new_seed: Callable[[], int] = new_seed) -> None:
        self.games = games
        self.play = play
        self.reminders = reminders
        self.settings = settings
        self._clock = clock
        self._factory = factory
        self._new_seed = new_seed

    @asynccontextmanager
    async def _opener_lobby(self, channel_id: int, user_id: int, can_manage: bool, *,
                            running_too: bool = False) -> AsyncIterator[Table]:
        """The channel's lobby (``running_too``: or its running game), under its lock, when the user runs it (its
        opener, or Manage Channels)."""
        async with self.games.change(channel_id):
            table = self.games.open_table(channel_id) if running_too else self.games.lobby(channel_id)
            self.games.check_opener(table, user_id, can_manage)
            yield table

    async def _seated(self, table: Table, seats: list[Seat], change: Change | None = None) -> TableInfo:
        """Write the lobby's new ``seats`` (with ``change``) and its message's redraw, and the lobby after it."""
        change = change or Change()
        await self.games.write(table, replace(change, deliveries=[lobby_edit(table.seq), *change.deliveries]),
                               seats=seats)
        return table.info()

    async def open(self, channel_id: int, guild_id: int | None, user_id: int, name: str, *,
                   draft: bool = False, locale: str | None = None, computers: int = 0,
                   strength: str | None = None, replay: bool = True, deadline_hours: int = 0,
                   hints: bool = False, parent_id: int | None = None, web: bool = True,
                   lobby_message: tuple[int, int] | None = None) -> TableInfo:
        """Open a lobby in the channel with the opener seated and ``computers`` computer seats; ``deadline_hours``
        (one of :data:`bot.host.deadlines.DEADLINE_HOURS`, 0: none) is each person's turn deadline; ``hints``:
        players may ask the coach on their turn (``bot.host.hints``), and the game is not rated; ``parent_id``: the
        channel is a thread of that channel, opened for this game (commands there find it, :meth:`games_in`);
        ``web``: the game has a web page (``bot.host.web``); ``lobby_message``: (channel, message) posted already that
        becomes the lobby message (the message that starts the game's thread), else the lobby message is posted in the
        channel."""
        locale = (locale or self.settings.default_locale).lower()
        if locale not in LOCALES:
            raise HostError("host.error.bad_locale", locale=locale, choices=", ".join(LOCALES))
        strength = self._strength(strength)
        if not 0 <= computers < MAX_PLAYERS:
            raise HostError("host.error.too_many_players", max=MAX_PLAYERS)
        if deadline_hours not in deadlines.DEADLINE_HOURS:
            raise HostError("host.error.bad_deadline", hours=deadline_hours,
                            choices=", ".join(str(h) for h in deadlines.DEADLINE_HOURS))
        options = Options(draft=bool(draft), locale=locale, reminder_hours=self.settings.reminder_hours,
                          away_hours=self.settings.away_hours, replay=bool(replay), deadline_hours=deadline_hours,
                          hints=bool(hints), web=bool(web))
        seats = [Seat(user_id, name)]
        for _ in range(computers):
            seats.append(self._computer_seat(seats, strength, locale))
        async with self.games.change(channel_id):
            return await self._create(channel_id, guild_id, user_id, seats, options, parent_id, lobby_message)

    async def _create(self, channel_id: int, guild_id: int | None, opener_id: int, seats: list[Seat],
                      options: Options, parent_id: int | None, lobby_message: tuple[int, int] | None = None
                      ) -> TableInfo:
        self.games.check_free(channel_id)
        now = self._clock()
        table = Table(id=0, channel_id=channel_id, guild_id=guild_id, opener_id=opener_id, seats=seats,
                      options=options, seed=self._new_seed(), status="lobby", created_at=now, parent_id=parent_id)
        return await self.games.create(table, [lobby_timer(self.settings, now)], [lobby_post(lobby_message)])

    async def games_in(self, parent_id: int, user_id: int | None = None) -> list[TableInfo]:
        """The open games in the threads of channel ``parent_id`` (as the database has them, so also those another
        process holds), oldest first; with ``user_id``, those the user sits in. A command typed in the channel acts
        on the user's one game there, or names the threads when they sit in several."""
        with storage_refusal(doing="reading the games of a channel's threads"):
            rows = await self.games.store.open_games_in(parent_id)
        games = [self.games.info(row.channel_id) or await self.games.refresh.channel(row.channel_id) for row in rows]
        return [g for g in games if g is not None and (user_id is None or any(s.user_id == user_id for s in g.seats))]

    async def game_here(self, channel_id: int, user_id: int) -> int:
        """The channel whose game a command typed in ``channel_id`` by ``user_id`` acts on: the channel's own open
        game; else the one open game in the channel's threads that the user sits in (the user need not go to its
        thread). Sitting in several of them: ``host.error.which_game`` (``channels``: their threads, to name
        them). Sitting in none while the threads hold games, and the channel without a game of its own:
        ``host.error.no_game_here`` (``channels``: where the games are). Otherwise the channel itself (its last
        game, or none: the command then says so as before)."""
        table = self.games.tables.get(channel_id)
        if table is not None and table.status in OPEN_STATUSES:
            return channel_id
        games = await self.games_in(channel_id)
        mine = [g.channel_id for g in games if any(s.user_id == user_id for s in g.seats)]
        if len(mine) == 1:
            return mine[0]
        if mine:
            raise HostError("host.error.which_game", channels=tuple(mine))
        if games and table is None:
            raise HostError("host.error.no_game_here", channels=tuple(g.channel_id for g in games))
        return channel_id

    async def join(self, channel_id: int, user_id: int, name: str) -> TableInfo:
        async with self.games.change(channel_id):
            table = self.games.lobby(channel_id)
            if table.seat_of(user_id) is not None:
                raise HostError("host.error.already_seated")
            if len(table.seats) >= MAX_PLAYERS:
                raise HostError(lobby_full(table.seats), max=MAX_PLAYERS)
            return await self._seated(table, [*table.seats, Seat(user_id, name)])

    async def leave(self, channel_id: int, user_id: int) -> TableInfo:
        """Leave a lobby. The opener's role passes to the next person; with nobody left the lobby closes."""
        async with self.games.change(channel_id):
            table = self.games.open_table(channel_id)
            if table.status != "lobby":
                raise HostError("host.error.leave_running")
            seat = self.games.seated(table, user_id)
            seats = [s for i, s in enumerate(table.seats) if i != seat]
            people = [s.user_id for s in seats if s.user_id is not None]
            status = "lobby" if people else "abandoned"
            opener_id = people[0] if people and user_id == table.opener_id else table.opener_id
            return await self._seated(table, seats, Change({"status": status, "opener_id": opener_id}))

    async def add_computer(self, channel_id: int, user_id: int, strength: str | None = None, *,
                           can_manage: bool = False) -> TableInfo:
        async with self._opener_lobby(channel_id, user_id, can_manage) as table:
            strength = self._strength(strength)
            if len(table.seats) >= MAX_PLAYERS:
                raise HostError(lobby_full(table.seats), max=MAX_PLAYERS)
            seat = self._computer_seat(table.seats, strength, table.options.locale)
            return await self._seated(table, [*table.seats, seat])

    async def remove_computer(self, channel_id: int, user_id: int, *, can_manage: bool = False) -> TableInfo:
        """Remove the last computer seat."""
        async with self._opener_lobby(channel_id, user_id, can_manage) as table:
            computers = [i for i, s in enumerate(table.seats) if s.is_computer]
            if not computers:
                raise HostError("host.error.no_computer")
            return await self._seated(table, [s for i, s in enumerate(table.seats) if i != computers[-1]])

    async def start(self, channel_id: int, user_id: int, *, can_manage: bool = False) -> StartResult:
        async with self._opener_lobby(channel_id, user_id, can_manage) as table:
            if len(table.seats) < MIN_PLAYERS:
                raise HostError("host.error.too_few_players", min=MIN_PLAYERS)
            game = self._factory(table.names, table.seed, table.options.draft)
            now = self._clock()
            reminder, reminders = self.reminders.timers(table, game, 0, now)
            to_move = game.to_move
            assert to_move is not None
            seat = table.seats[to_move]
            started = replace(table, game=game, status="running", last_move_at=now, next_reminder_at=reminder)
            result = StartResult(
                info=started.info(), view=game.view(None), to_move=to_move,
                to_move_user_id=None if seat.computer_plays else seat.user_id,
                computer_to_move=seat.computer_plays,
                dm_user_ids=tuple(s.user_id for s in table.seats if s.user_id is not None))
            await self.games.write(table, Change(
                {"status": "running", "last_move_at": now, "next_reminder_at": reminder},
                deliveries=[lobby_edit(table.seq), *start_deliveries(result)], cancel_timers=[LOBBY_EXPIRY],
                timers=[idle_timer(self.settings, now),
                        *deadlines.turn_timers(table.options, table.seats, game, 0, now), *reminders]),
                now=now, seats=table.seats, game=game)
            return result

    async def abandon(self, channel_id: int, user_id: int, *, can_manage: bool = False,
                      name: str | None = None) -> TableInfo:
        """End the channel's lobby or running game without a result (opener or Manage Channels); the
        channel is told that ``name`` (default: the user's seat name) abandoned it."""
        async with self._opener_lobby(channel_id, user_id, can_manage, running_too=True) as table:
            if name is None:
                seat = table.seat_of(user_id)
                name = table.seats[seat].name if seat is not None else ""
            notice = NewDelivery(ABANDONED_POST, table.seq, payload={"name": name, "locale": table.options.locale})
            redrawn = [lobby_edit(table.seq)] if table.status == "lobby" else []
            await self.games.write(table, Change({"status": "abandoned", "next_reminder_at": None},
                                                 deliveries=[*redrawn, notice, *abandoned_turn(table)]))
            return table.info()

    async def rematch(self, channel_id: int, user_id: int, *, can_manage: bool = False) -> TableInfo:
        """A new lobby with the finished game's players seated (computers keep their strength). Typed in a channel
        whose games are in threads of their own (none in the channel itself): ``host.error.rematch_in_thread``
        naming the thread of the user's last finished game there (``channels``), where its rematch opens."""
        async with self.games.change(channel_id):
            self.games.check_free(channel_id)
            try:
                with storage_refusal():
                    last = await self.games.store.latest_game(channel_id)
            except DamagedRow:  # the last game was quarantined: it did not end normally
                raise HostError("host.error.not_over") from None
            if last is None:
                raise await self._no_rematch_here(channel_id, user_id, can_manage)
            if last.status != "over":
                raise HostError("host.error.not_over")
            seats = [Seat(s["user_id"], s["name"], strength=s["strength"]) for s in last.seats]
            seated = any(s.user_id == user_id for s in seats)
            if not seated and not can_manage:
                raise HostError("host.error.not_seated")
            opener = user_id if seated else last.opener_id
            return await self._create(channel_id, last.guild_id, opener, seats, Options.from_dict(last.options),
                                      last.parent_id)

    async def _no_rematch_here(self, parent_id: int, user_id: int, can_manage: bool) -> HostError:
        """The refusal of a rematch typed in a channel without a game of its own: the thread of the user's last
        finished game in its threads (anyone's for ``can_manage``), or that there is none."""
        try:
            with storage_refusal():
                finished = await self.games.store.finished_games_in(parent_id, None if can_manage else user_id)
        except DamagedRow:  # one of them cannot be read: the threads are not looked through
            finished = []
        mine = [g for g in finished if can_manage or any(s["user_id"] == user_id for s in g.seats)]
        if mine:
            return HostError("host.error.rematch_in_thread", channels=(mine[0].channel_id,))
        return HostError("host.error.no_previous_game")

    async def kick(self, channel_id: int, user_id: int, target_user_id: int, target_name: str, *,
                   can_manage: bool = False) -> TableInfo | SeatChange:
        """What ``/kick`` means, decided here: in a lobby the opener (or Manage Channels) removes a player
        (never themselves: they leave); in a running game the seat of a player who has been to move for the
        time limit goes to the computer (:meth:`hand_over`). ``target_name`` words the refusal when the target
        has no seat. Returns the lobby after the removal, or the seat change."""
        table = self.games.tables.get(channel_id)
        if table is not None and table.status in OPEN_STATUSES and table.seat_of(target_user_id) is None:
            raise HostError("host.error.not_a_player", name=target_name)
        if table is not None and table.status == "lobby":
            self.games.check_opener(table, user_id, can_manage)
            if target_user_id == user_id:
                raise HostError("host.error.kick_self")
            return await self.leave(channel_id, target_user_id)
        return await self.play.hand_over(channel_id, user_id, target_user_id, can_manage=can_manage)

    def may_abandon(self, channel_id: int, user_id: int, *, can_manage: bool = False) -> TableInfo:
        """The channel's open game if the user may abandon it (its opener, or Manage Channels); else a refusal.
        Asked before the confirm button is shown; :meth:`abandon` checks again when it is pressed."""
        table = self.games.open_table(channel_id)
        self.games.check_opener(table, user_id, can_manage)
        return table.info()

    def _strength(self, strength: str | None) -> str:
        strength = (strength or self.settings.ai_strength).lower()
        if strength not in AI_STRENGTHS:
            raise HostError("host.error.bad_strength", strength=strength, choices=", ".join(AI_STRENGTHS))
        return strength

    @staticmethod
    def _computer_seat(seats: list[Seat], strength: str, locale: str) -> Seat:
        taken = {s.name for s in seats}
        number = 1 + sum(s.is_computer for s in seats)
        while t("host.computer_name", locale, number=number) in taken:
            number += 1
        return Seat(None, t("host.computer_name", locale, number=number), strength=strength)


def lobby_full(seats: Sequence[Seat]) -> str:
    """The refusal of a full lobby: it suggests removing a computer seat only when there is one."""
    return "host.error.lobby_full_computers" if any(s.is_computer for s in seats) else "host.error.lobby_full"
