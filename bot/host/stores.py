"""The store behind the host: a few small interfaces, one per area, together :class:`GameStore`; two
implementations, chosen by the settings.

``bot.host.store.Store`` keeps everything in one SQLite file (``DATABASE_PATH``), the embedded default;
``bot.host.postgres_store.PostgresStore`` keeps it in PostgreSQL (``DATABASE_URL``). Both run the same SQL
(:class:`bot.host.sql.SqlStore`, each query written once) on the same schema (:mod:`bot.host.schema`), so
they have the same semantics, method for method (the shared store tests run against each): the move log is
append-only with primary key ``(game_id, seq)``, an interaction id is stored once, a change and the deliveries it
owes are one transaction, at most one open game per channel, a game row decoded by one function
(:func:`bot.host.sql.decode_game_row`: damaged seats or options are a ``DamagedRow``, quarantined by the
host), and a write that waits ``BUSY_TIMEOUT`` for another's lock fails as ``StorageFailed``. mypy checks that
both implement the interface (:func:`_both_implement`).

The areas: :class:`GameRows` (games, their versions, quarantine), :class:`MoveLog`, :class:`TimerRows` (timers and
leases), :class:`DeliveryRows` (deliveries), :class:`ArchiveRows` (finished games, players' history),
:class:`PeopleRows` (languages, settings, held DMs, a person's open games), :class:`WebRows` (the
games' web pages: tokens, servers that keep theirs off the web, revoked links, notices of changed games).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from bot.host.change import Change
from bot.host.history_store import Forgotten, TurnSpeed
from bot.host.model import DamagedGame, DeliveryRow, GameRow, MoveRow, NewDelivery, NewTimer, TimerRow
from bot.host.postgres_store import PostgresStore
from bot.host.ratings import Leaderboard, Rating
from bot.host.settings import Settings
from bot.host.store import Store
from bot.host.user_settings import UserSettings


class GameRows(Protocol):
    """Games: created, changed by one :class:`bot.host.change.Change` at a time (written whole or refused), read
    by id, channel or status; quarantine of damaged ones."""

    @property
    def shared(self) -> bool:
        """Whether several processes may use the database at once (then the host takes leases)."""

    async def close(self) -> None: ...

    async def schema_version(self) -> int: ...

    async def figures(self, now: float) -> dict[str, Any]: ...

    async def insert_game(self, *, channel_id: int, guild_id: int | None, opener_id: int,
                          seats: list[dict[str, Any]], options: dict[str, Any], seed: int, status: str,
                          locale: str, now: float, timers: Sequence[NewTimer] = (), parent_id: int | None = None,
                          deliveries: Sequence[NewDelivery] = (), waits_for: str | None = None) -> int: ...

    async def apply(self, game_id: int, change: Change, *, now: float,
                    expect_version: int | None = None) -> int | None: ...

    async def apply_all(self, changes: Sequence[tuple[int, Change, int | None]], *, now: float
                        ) -> list[int | None]: ...

    async def get_game(self, game_id: int) -> GameRow | None: ...

    async def game_with_moves(self, game_id: int) -> tuple[GameRow, list[MoveRow]] | None: ...

    async def open_games(self) -> list[GameRow]: ...

    async def latest_game(self, channel_id: int) -> GameRow | None: ...

    async def open_games_in(self, parent_id: int) -> list[GameRow]: ...

    async def finished_games_in(self, parent_id: int, user_id: int | None = None) -> list[GameRow]: ...

    async def game_version(self, game_id: int) -> int | None: ...

    async def open_game_version(self, channel_id: int) -> tuple[int, int] | None: ...

    async def owing_work(self, deadline_kind: str) -> list[tuple[int, int, str | None]]: ...

    async def computer_turns(self) -> list[int]: ...

    async def open_game_guilds(self) -> list[int]: ...

    async def open_channels_of(self, guild_id: int) -> list[int]: ...

    async def mark_damaged(self, game_id: int, *, reason: str, detail: str, now: float) -> bool: ...

    async def damaged_untold(self) -> list[DamagedGame]: ...

    async def mark_damage_told(self, game_id: int, *, now: float) -> None: ...


class MoveLog(Protocol):
    """The append-only move log (a move is written by :meth:`GameRows.apply`, with its game's new state)."""

    async def append_moves(self, moves: Sequence[MoveRow]) -> None: ...

    async def moves(self, game_id: int) -> list[MoveRow]: ...

    async def move_by_interaction(self, interaction_id: int) -> MoveRow | None: ...


class TimerRows(Protocol):
    """Timers (each run once by one process) and leases (work one process holds at a time)."""

    async def timers(self, game_id: int) -> list[TimerRow]: ...

    async def pending_timer_kinds(self, game_ids: Sequence[int]) -> dict[int, set[str]]: ...

    async def due_timers(self, now: float, kinds: Sequence[str]) -> list[TimerRow]: ...

    async def claim_timers(self, now: float, *, owner: str, lease: float, limit: int = 100,
                           kinds: Sequence[str] | None = None) -> list[TimerRow]: ...

    async def take_lease(self, name: str, owner: str, *, now: float, seconds: float) -> bool: ...

    async def release_lease(self, name: str, owner: str) -> None: ...

    async def lease_holder(self, name: str) -> str | None: ...

    async def release_all(self, owner: str, *, keep: str | None = None) -> int: ...

    async def listen_released(self, callback: Callable[[], None]) -> None: ...


class DeliveryRows(Protocol):
    """The posts and DMs each change owes, until sent (or given up)."""

    async def pending_deliveries(self, channel_id: int | None = None) -> list[DeliveryRow]: ...

    async def deliveries(self, game_id: int) -> list[DeliveryRow]: ...

    async def dms_after(self, game_id: int, user_id: int, after_id: int, kinds: Sequence[str]) -> list[DeliveryRow]: ...

    async def last_post(self, game_id: int) -> tuple[int, DeliveryRow] | None: ...

    async def sent_message(self, game_id: int, kind: str) -> tuple[int, DeliveryRow] | None: ...

    async def mark_delivered(self, delivery_id: int, *, now: float, error: str | None = None,
                             over_message_id: int | None = None, post_id: int | None = None,
                             edited_id: int | None = None, closed: Sequence[int] = ()) -> None: ...

    async def open_messages(self, game_id: int, user_id: int | None) -> list[tuple[int, int]]: ...

    async def close_channel(self, channel_id: int, *, now: float, reason: str,
                            told: tuple[str, dict[str, Any]] | None = None, redrawn: str | None = None
                            ) -> dict[int, int]: ...

    async def deliveries_due(self, now: float) -> int: ...

    async def retry_delivery(self, delivery_id: int, *, due_at: float, error: str) -> None: ...


class ArchiveRows(Protocol):
    """Finished games and players' history: results, ratings, leaderboards, forgetting."""

    async def finished_games(self, guild_id: int | None, *, limit: int = 10) -> list[GameRow]: ...

    async def over_message_ids(self, game_ids: Sequence[int]) -> dict[int, int]: ...

    async def player_history(self, guild_id: int, user_id: int) -> tuple[list[dict[str, Any]], dict[str, Rating],
                                                                          dict[str, list[float]]]: ...

    async def leaderboard(self, guild_id: int, by: str, page: int, user_id: int) -> Leaderboard: ...

    async def turn_speed(self, guild_id: int | None, user_id: int) -> TurnSpeed: ...

    async def forget_user(self, user_id: int, former_player: dict[str, str]) -> Forgotten: ...


class PeopleRows(Protocol):
    """Each person's language, DM channel and settings, their held DMs and their open games."""

    async def set_user_locale(self, user_id: int, locale: str, *, now: float) -> None: ...

    async def user_locales(self) -> dict[int, str]: ...

    async def dm_channel(self, user_id: int) -> int | None: ...

    async def set_dm_channel(self, user_id: int, channel_id: int) -> None: ...

    async def user_settings(self) -> dict[int, UserSettings]: ...

    async def set_user_settings(self, user_id: int, settings: UserSettings, *, now: float,
                                held_due_at: float) -> int: ...

    async def hold_deliveries(self, holds: Sequence[tuple[int, dict[str, Any]]], *, due_at: float) -> None: ...

    async def held_deliveries(self, user_id: int) -> list[DeliveryRow]: ...

    async def open_games_of(self, user_id: int) -> list[GameRow]: ...


class WebRows(Protocol):
    """What the web pages read and write: tokens, the servers' choice, revocations, and the versions of games."""

    async def web_token(self, game_id: int, token: str, *, now: float) -> str: ...

    async def web_game(self, token: str) -> int | None: ...

    async def set_web_shown(self, guild_id: int, shown: bool, *, now: float) -> None: ...

    async def web_shown(self, guild_id: int) -> bool: ...

    async def link_generation(self, user_id: int) -> int: ...

    async def game_versions(self, game_ids: Sequence[int]) -> dict[int, int]: ...

    async def listen_games(self, callback: Callable[[int], None]) -> bool: ...


class GameStore(GameRows, MoveLog, TimerRows, DeliveryRows, ArchiveRows, PeopleRows, WebRows, Protocol):
    """What the host reads and writes; every write is one transaction, and a refused write changes nothing."""


async def open_store(settings: Settings) -> GameStore:
    """The store the settings name: PostgreSQL when ``DATABASE_URL`` is set, else the SQLite file."""
    if settings.database_url:
        return await PostgresStore.open(settings.database_url, busy_timeout=settings.busy_timeout)
    return await Store.open(settings.database_path, busy_timeout=settings.busy_timeout)


def _both_implement(sqlite: Store, postgres: PostgresStore) -> tuple[GameStore, GameStore]:
    """Never called: mypy checks here that each store has every method of :class:`GameStore`."""
    return sqlite, postgres
