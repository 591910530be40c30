"""Hints (a part of the host): the coach's advice for the person to move, in a table that has hints on.

:meth:`Hints.hint` decides everything about ``/santacruz hint`` and the *Hint* button of a turn DM, in this order:
the channel has a running game (of the button's game, at the button's position), the asker sits at it, the table
has hints on (``new hints:true``), no vacation pause holds it, the computer does not play the asker's seat, and it
is the asker's turn. Only then the coach (:func:`engine.ai.coach.advise`) thinks about the asker's own seat view,
``table.game.view(seat)``, and nothing else, in the worker pool the computer players think in (never on the event
loop), for ``HINT_SECONDS``. Nothing is written: the game, its move log and its version stay as they were, and the
answer is for the asker alone.

The advice for one position is thought about once: asking again at the same position (or asking twice at once)
gets the same advice without thinking again. A game that moved on while the coach thought is refused as an
outdated question (``host.error.stale``): the advice would be about a position that is gone.

Refusals (``HostError.key``): ``host.error.no_game``, ``not_running``, ``game_over``, ``stale``, ``not_seated``,
``hints_off``, ``paused``, ``you_are_away``, ``on_vacation``, ``hint_not_your_turn`` (name), ``hint_failed`` (the
coach could not think: a broken worker pool, an error; logged).
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from bot.host import metrics
from bot.host.errors import HostError
from bot.host.games import OUTDATED, Games
from bot.host.play import Play
from bot.host.settings import Settings
from bot.host.table import Table
from bot.host.workers import PoolBroken, WorkerPool
from engine import View
from engine.ai.coach import Advice, CoachError, advise

log = logging.getLogger(__name__)

REMEMBERED: Final = 256
"""Positions whose advice is kept (one per game at most: the latest position asked about)."""
_SEED_STEP: Final = 104_729
"""Spreads the coach's seeds over a game's positions (a prime other than the computers')."""


@dataclass(frozen=True, slots=True)
class HintAnswer:
    """The coach's advice for the asker's seat at one position (for the asker alone: it comes from their view)."""

    game_id: int
    channel_id: int
    seq: int
    """The position (move-log length) the advice is about."""
    seat: int
    names: tuple[str, ...]
    """The seats' names, to word the advice with."""
    advice: Advice


def coach(view: View, seed: int, budget: float) -> Advice:
    """The coach's advice on one seat's view, thinking ``budget`` seconds (runs in a worker: a module-level function,
    picklable)."""
    return advise(view, seed=seed, budget=budget)


Coach = Callable[[View, int, float], Advice]
"""What thinks about a hint: ``(view, seed, HINT_SECONDS) -> Advice``, run in the worker pool (so picklable);
:func:`coach` by default. A test may give one that counts playouts instead of seconds, so that its games do not
depend on the machine's speed."""


class Hints:
    """``/santacruz hint``: who may ask, and the coach's answer; see the module docstring."""

    def __init__(self, games: Games, play: Play, settings: Settings, workers: WorkerPool, *,
                 coach: Coach = coach) -> None:
        self.coach = coach
        self.games = games
        self.play = play
        self.settings = settings
        self.workers = workers
        self._asked: OrderedDict[int, tuple[int, int, asyncio.Future[Advice]]] = OrderedDict()
        """Game id -> (seq, seat, the advice being thought about or thought) of the latest position asked about."""

    async def hint(self, channel_id: int, user_id: int, *, game_id: int | None = None,
                   expected_seq: int | None = None) -> HintAnswer:
        """The coach's advice for the user's seat, if they may ask now (see the module docstring). ``game_id`` and
        ``expected_seq`` (a *Hint* button's) refuse a click on an outdated turn DM."""
        table, seat = self._asker(channel_id, user_id, game_id, expected_seq)
        game, seq = table.playing, table.seq
        with self.games.memory.pinned(channel_id):  # held while the coach thinks
            advice = await self._advice(table, seat, seq)
        current = self.games.tables.get(channel_id)
        if current is not table or table.game is not game or table.seq != seq:
            raise HostError(OUTDATED)  # the game moved while the coach thought
        return HintAnswer(game_id=table.id, channel_id=channel_id, seq=seq, seat=seat, names=tuple(table.names),
                          advice=advice)

    def _asker(self, channel_id: int, user_id: int, game_id: int | None, expected_seq: int | None) -> tuple[Table, int]:
        """The running table and the asker's seat, or the refusal that says why they may not ask now."""
        table, seat = self.games.seat_at(channel_id, user_id, game_id, expected_seq)
        if not table.options.hints:
            raise HostError("host.error.hints_off")
        self.play.check_not_paused(table)
        self.games.check_turn(table, seat, "host.error.hint_not_your_turn")
        return table, seat

    async def _advice(self, table: Table, seat: int, seq: int) -> Advice:
        """The advice for ``seat`` at position ``seq``: thought about once, in the worker pool."""
        known = self._asked.get(table.id)
        if known is not None and known[:2] == (seq, seat) and not (known[2].done() and known[2].exception()):
            return await asyncio.shield(known[2])
        view = table.playing.view(seat)  # the asker's own view: the coach never knows what they may not know
        seed = (table.seed + _SEED_STEP * seq) % (1 << 62)
        task = asyncio.ensure_future(self._think(table.id, view, seed))
        self._asked[table.id] = (seq, seat, task)
        self._asked.move_to_end(table.id)
        while len(self._asked) > REMEMBERED:
            self._asked.popitem(last=False)
        return await asyncio.shield(task)

    async def _think(self, game_id: int, view: View, seed: int) -> Advice:
        try:
            with metrics.HINT_SECONDS.time():
                return await self.workers.run(self.coach, view, seed, self.settings.hint_seconds,
                                              what=f"a hint in game {game_id}")
        except PoolBroken as exc:
            log.warning("%s; no hint for game %d", exc, game_id)
        except CoachError as exc:  # the checks above rule these out: a bug to log
            log.error("the coach refused a hint in game %d: %s", game_id, exc.code)
        except Exception:
            log.exception("the coach failed in game %d", game_id)
        raise HostError("host.error.hint_failed")
