"""The archive (a part of the host): finished games and the players' history, read from the database.

A finished game's public facts (:class:`bot.host.table.PastGame`), its seed-free record for the export and the
animated replay (``santacruz replay FILE`` reads it), and per server each player's statistics and ratings and the
leaderboards. Results and ratings are written with a game's final move (``Change.results``); nothing here writes.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from bot.host.errors import STATS_REFUSAL, HostError, storage_refusal
from bot.host.history_store import TurnSpeed
from bot.host.model import GameRow, effective_moves
from bot.host.ratings import BOARDS, POOLS, Leaderboard, PlayerStats, player_stats
from bot.host.restore import GameFactory
from bot.host.stores import GameStore
from bot.host.table import PastGame
from engine import Game
from engine.history import score_breakdown

USUAL_TURNS: Final = 3
"""Timed turns a person needs in a server before the lobby, ``games`` and the game-over post say how fast they
usually move there: fewer say too little (one slow evening is not a habit)."""

RECORD_FORMAT: Final = "santacruz-game"
"""The ``format`` of an exported game record (``santacruz replay FILE`` reads it)."""


class Archive:
    """Finished games and players' history; see the module docstring."""

    def __init__(self, store: GameStore, *, factory: GameFactory) -> None:
        self.store = store
        self._factory = factory

    async def history(self, guild_id: int | None, limit: int = 10) -> list[PastGame]:
        """The server's last ``limit`` finished games, newest first."""
        rows = await self.store.finished_games(guild_id, limit=limit)
        links = await self.store.over_message_ids([r.id for r in rows])
        return [await self._past_game(row, links.get(row.id)) for row in rows]

    async def past_game(self, guild_id: int | None, game_id: int) -> PastGame:
        """One finished game of the server, with its final public view."""
        row = await self._finished(guild_id, game_id)
        links = await self.store.over_message_ids([row.id])
        return await self._past_game(row, links.get(row.id), with_view=True)

    async def game_record(self, guild_id: int | None, channel_id: int, game_id: int | None = None) -> dict[str, Any]:
        """The export of a finished game of the server (without ``game_id``: the channel's last game): names,
        options, the dealt set-up without the seed, and the moves. A game not over is refused: its secrets stay."""
        if game_id is None:
            last = await self.store.latest_game(channel_id)
            if last is None:
                raise HostError("bot.export.nothing")
            game_id = last.id
        row = await self.store.get_game(game_id)
        if row is None or row.guild_id != guild_id:
            raise HostError("bot.history.no_such_game", id=game_id)
        if row.status != "over":
            raise HostError("bot.export.not_finished", id=game_id)
        return await self._record(row)

    async def replay_record(self, game_id: int) -> dict[str, Any]:
        """A finished game's record (see :meth:`game_record`), for its animated replay."""
        row = await self.store.get_game(game_id)
        if row is None or row.status != "over":
            raise HostError("bot.export.not_finished", id=game_id)
        return await self._record(row)

    async def _finished(self, guild_id: int | None, game_id: int) -> GameRow:
        row = await self.store.get_game(game_id)
        if row is None or row.guild_id != guild_id or row.status != "over":
            raise HostError("bot.history.no_such_game", id=game_id)
        return row

    async def _final_game(self, row: GameRow) -> Game:
        """A finished game's final state: its snapshot, or replayed from its moves."""
        if row.state is not None:
            return Game.from_json(row.state)
        game = self._factory([s["name"] for s in row.seats], row.seed, bool(row.options.get("draft")))
        for move in effective_moves(await self.store.moves(row.id)):
            game.apply(move.move)
        return game

    async def _past_game(self, row: GameRow, over_message_id: int | None, *, with_view: bool = False) -> PastGame:
        game = await self._final_game(row)
        view = game.view(None)
        return PastGame(
            game_id=row.id, channel_id=row.channel_id, guild_id=row.guild_id,
            finished_at=row.last_move_at if row.last_move_at is not None else row.updated_at,
            names=tuple(s["name"] for s in row.seats), computers=tuple(s["user_id"] is None for s in row.seats),
            scores=tuple(p["score"] for p in view["players"]), ranking=tuple(game.ranking()),
            locale=str(row.options.get("locale", "en")), over_message_id=over_message_id,
            view=view if with_view else None, breakdown=tuple(score_breakdown(game)) if with_view else ())

    async def _record(self, row: GameRow) -> dict[str, Any]:
        """The seed-free record of a finished game (never call it for one that is not over)."""
        assert row.status == "over"
        names = [s["name"] for s in row.seats]
        setup = self._factory(names, row.seed, bool(row.options.get("draft"))).setup_record()
        moves = effective_moves(await self.store.moves(row.id))
        final = await self._final_game(row)
        return {
            "format": RECORD_FORMAT, "version": 1, "game_id": row.id, "names": names,
            "seats": [{"name": s["name"], "computer": s["user_id"] is None, "strength": s.get("strength")}
                      for s in row.seats],
            "options": {k: v for k, v in row.options.items() if k in ("draft", "locale", "replay")},
            "started_at": row.created_at, "finished_at": row.last_move_at,
            "setup": setup, "moves": [{"seat": m.seat, "move": m.move, "at": m.created_at} for m in moves],
            "scores": [p["score"] for p in final.view(None)["players"]], "ranking": final.ranking()}

    async def stats(self, guild_id: int, user_id: int) -> PlayerStats | None:
        """A person's statistics and ratings in a server; ``None`` when they have finished no game there."""
        with storage_refusal(STATS_REFUSAL, "reading the stats of a player"):
            results, ratings, history = await self.store.player_history(guild_id, user_id)
        line = next((history[pool] for pool in POOLS if history.get(pool)), [])
        return player_stats(user_id, results, ratings, line)

    async def turn_speed(self, guild_id: int | None, user_id: int) -> TurnSpeed:
        """How fast a person ends their turns in a server: the median and the 90th percentile of the turns they
        ended themselves (:mod:`bot.host.turn_times`)."""
        with storage_refusal(STATS_REFUSAL, "reading the turn times of a player"):
            return await self.store.turn_speed(guild_id, user_id)

    async def usual_speeds(self, guild_id: int | None, user_ids: Iterable[int]) -> dict[int, float]:
        """How fast each of ``user_ids`` usually ends a turn in a server: the median of their timed turns, in
        seconds, for those with at least :data:`USUAL_TURNS` of them (the others are left out). A line beside a
        lobby or a post, never worth refusing it: empty, with a warning, when the database cannot say."""
        speeds: dict[int, float] = {}
        try:
            with storage_refusal(STATS_REFUSAL, "reading the turn times of the players of a game"):
                for user_id in dict.fromkeys(user_ids):
                    speed = await self.store.turn_speed(guild_id, user_id)
                    if speed.turns >= USUAL_TURNS and speed.median is not None:
                        speeds[user_id] = speed.median
        except HostError:
            return {}
        return speeds

    async def leaderboard(self, guild_id: int, user_id: int, by: str = "rating", page: int = 0) -> Leaderboard:
        """One page of a server's leaderboard by ``rating``, ``wins`` or ``games``, with the caller's own row."""
        if by not in BOARDS:
            raise HostError("bot.leaderboard.bad_by", by=by, choices=", ".join(BOARDS))
        with storage_refusal(STATS_REFUSAL, "reading a leaderboard"):
            return await self.store.leaderboard(guild_id, by, page, user_id)
