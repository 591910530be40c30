"""Play for the people of a game that bot processes elsewhere hold (``ChildBot``s): what a player does next is
decided from the database, every action goes through the fake Discord.

:class:`RemoteTable` reads the game with a store of its own (``GameRow.state``, the engine's snapshot written
with each move), picks a random legal move for the seat to move, and plays it like a person would: with a slash
command in the game's channel, or with the buttons and menus of their turn DM (confirming a card that builds
nothing). It waits on conditions (the game's move count in the database, looked at again after each change of
the fake and every :data:`POLL` seconds; a DM arriving), never for a fixed time.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from bot.adapter import ids
from bot.host.store import GameRow
from engine import Game
from tests.fakediscord import FakeChannel, FakeDiscord, FakeDiscordTimeout, FakeMessage, InteractionHandle
from tests.helpers.buttons import controls_of, is_confirm, move_control_seq

T = TypeVar("T")

POLL = 0.05
"""Seconds between two looks at the database while waiting for a condition."""


async def poll(check: Callable[[], Awaitable[T | None]], *, timeout: float, description: str,
               fake: FakeDiscord | None = None) -> T:
    """The first true value of ``check()``, looked at every :data:`POLL` seconds and, with ``fake``, after each
    change of the fake too (a bot's reply or post comes right after the write the check looks for);
    ``TimeoutError`` naming ``description`` after ``timeout`` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        value = await check()
        if value:
            return value
        if loop.time() > deadline:
            headline = f"waited {timeout:.0f} s for {description}"
            raise TimeoutError(headline if fake is None else fake.diagnostics(headline))
        if fake is not None:
            await fake.wait_for_change(POLL)
        else:
            await asyncio.sleep(POLL)


def slash_for_move(move: str) -> tuple[str, dict[str, Any]]:
    """The ``/santacruz`` subcommand and options that play ``move`` (notation)."""
    verb, _, arg = move.partition(" ")
    if verb == "land":
        return "land", {"site": int(arg)}
    if verb in ("ship", "river", "road"):
        return "build", {"card": verb, **({"site": int(arg)} if arg else {})}
    if verb == "double":
        return "build", {"card": "double", "kind": arg}
    if verb == "build":
        return "build", {"site": int(arg)}
    if verb == "score":
        return "score", {"card": arg}
    return "choose", {"option": move}


def first_custom_ids(message: FakeMessage) -> list[str]:
    """The custom ids ``message`` was sent with (a turn DM's controls are taken off once the turn passed)."""
    if not message.history:
        return list(message.custom_ids)
    found: list[str] = []

    def walk(components: list[dict[str, Any]]) -> None:
        for component in components:
            if "custom_id" in component:
                found.append(str(component["custom_id"]))
            walk(component.get("components", []))

    walk(message.history[0].get("components") or [])
    return found


@dataclass
class Position:
    """The game as the database has it: its row and (once started) the engine's game."""

    row: GameRow
    game: Game | None

    @property
    def seq(self) -> int:
        """How many moves were made."""
        return len(self.game.moves) if self.game is not None else 0

    @property
    def running(self) -> bool:
        return self.row.status == "running" and self.game is not None and self.game.to_move is not None

    def to_move_user(self) -> int | None:
        """The user id of the person to move; ``None`` when the computer is to move (or nobody)."""
        if not self.running:
            return None
        assert self.game is not None and self.game.to_move is not None
        seat = self.row.seats[self.game.to_move]
        return None if seat["user_id"] is None or seat["away"] else int(seat["user_id"])


@dataclass
class RemoteTable:
    """One game in ``channel``, played by ``users`` (names known to the fake) through the fake Discord."""

    fake: FakeDiscord
    store: Any
    """A store of the test's own on the bot's database (``PostgresStore``)."""
    channel: FakeChannel
    users: list[str]
    seed: int = 1
    timeout: float = 60.0
    game_id: int = 0
    rng: random.Random = field(init=False)
    dm_clicks: list[InteractionHandle] = field(default_factory=list)
    """Every interaction made with the controls of a turn DM (or their confirmation)."""
    slash_moves: int = 0
    dm_moves: int = 0
    acts: list[str] = field(default_factory=list)
    """What each move tried was answered, newest last (shown when a wait for the game times out)."""

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)

    # -- reading ---------------------------------------------------------------------

    async def position(self) -> Position:
        row = await self.store.get_game(self.game_id)
        assert row is not None, f"game {self.game_id} vanished"
        return Position(row, Game.from_json(row.state) if row.state is not None else None)

    async def wait_seq(self, seq: int) -> Position:
        """The position once at least ``seq`` moves were made (or the game ended)."""
        async def check() -> Position | None:
            position = await self.position()
            return position if position.seq >= seq or position.row.status != "running" else None
        done = "; ".join(self.acts[-4:]) or "none"
        return await poll(check, timeout=self.timeout, fake=self.fake,
                          description=f"game {self.game_id} at move {seq} (the last moves tried: {done})")

    def turn_dm(self, user: str, seq: int) -> FakeMessage | None:
        """The user's newest DM with controls for move ``seq + 1`` of this game, else (the rest of a turn begun by
        a slash command: no turn DM follows one's own move) the user's own answer that carries them."""
        return controls_of(self.fake, self.channel, user, self.game_id, seq)

    async def wait_turn_dm(self, user: str, seq: int) -> FakeMessage:
        try:
            return await self.fake.wait_until(lambda: self.turn_dm(user, seq), timeout=self.timeout,
                                              description=f"a turn DM for {user} in game {self.game_id}")
        except FakeDiscordTimeout as exc:
            raise FakeDiscordTimeout(f"{exc}\n{await self.dms_said(user, seq)}") from None

    async def dms_said(self, user: str, seq: int) -> str:
        """Why no turn DM came, as far as the fake and the database tell: the user's last DMs (their first line and
        the positions their controls are for), the game's position and its deliveries not done."""
        lines = [f"waiting for controls of position {seq} of game {self.game_id}; {user}'s last DMs:"]
        for message in self.fake.dm_messages(user)[-6:]:
            positions = sorted({seq for cid in message.custom_ids
                                if (seq := move_control_seq(cid, self.game_id)) is not None})
            lines.append(f"  {message.id}: {message.text.splitlines()[0][:70] if message.text else ''!r} {positions}")
        position = await self.position()
        lines.append(f"game {self.game_id} in the database: {position.row.status} at move {position.seq}")
        lines.extend(f"  not done: {d.kind} seq {d.seq} user {d.user_id} due {d.due_at:.1f} attempts {d.attempts}"
                     f" {d.last_error or ''}" for d in await self.store.deliveries(self.game_id) if d.done_at is None)
        return "\n".join(lines)

    # -- acting ----------------------------------------------------------------------

    async def answer(self, handle: InteractionHandle) -> FakeMessage:
        """The interaction's visible answer (not the "thinking…" placeholder)."""
        return await handle.wait_for_message(lambda m: not m.loading, timeout=self.timeout)

    async def slash(self, command: str, options: dict[str, Any] | None = None, *, user: str) -> FakeMessage:
        handle = await self.fake.slash_command(f"santacruz {command}", options or {}, user=user, channel=self.channel)
        return await self.answer(handle)

    async def open(self, computers: int = 1, strength: str = "random", *, draft: bool = False,
                   replay: bool = False) -> None:
        """``/santacruz new`` by the first user (``draft``: players choose their building-card sets; ``replay``: the
        game-over post carries the animated replay, which no test of several processes looks at), ``join`` by the
        others, ``addbot``, ``start``; waits for the game to run."""
        await self.slash("new", {"draft": draft, "thread": False, "replay": replay}, user=self.users[0])  # no thread
        for user in self.users[1:]:
            await self.slash("join", user=user)
        for _ in range(computers):
            await self.slash("addbot", {"strength": strength}, user=self.users[0])
        await self.slash("start", user=self.users[0])

        async def started() -> GameRow | None:
            stamp = await self.store.open_game_version(self.channel.id)
            row = await self.store.get_game(stamp[0]) if stamp is not None else None
            return row if row is not None and row.status == "running" else None
        self.game_id = (await poll(started, timeout=self.timeout, description=f"a game in #{self.channel.name}",
                                   fake=self.fake)).id

    async def play_slash(self, user: str, move: str) -> None:
        """``move`` with a slash command in the channel (confirming a card that builds nothing)."""
        command, options = slash_for_move(move)
        reply = await self.slash(command, options, user=user)
        self.acts.append(f"{user}: /santacruz {command} {options} -> {reply.text!r}")
        confirm = [b for b in reply.buttons if is_confirm(b["custom_id"])]
        if confirm:
            click = await self.fake.click_button(reply, confirm[0]["custom_id"], user=user)
            self.acts.append(f"{user}: confirmed -> {(await self.answer(click)).text!r}")
        self.slash_moves += 1

    async def play_dm(self, user: str, move: str, seq: int) -> None:
        """``move`` with the controls of the user's turn DM for move ``seq + 1``."""
        message = await self.wait_turn_dm(user, seq)
        select = next((s for s in message.selects if any(o["value"] == move for o in s["options"])), None)
        if select is not None:
            click = await self.fake.select(message, select["custom_id"], [move], user=user)
        else:
            click = await self.fake.click_button(message, ids.move(self.game_id, seq, move),
                                                 user=user)
        self.dm_clicks.append(click)
        answer = await self.answer(click)  # acknowledged first, then answered on the clicked DM
        self.acts.append(f"{user}: {move!r} in a DM -> {answer.text!r}")
        confirm = [b for b in answer.buttons if is_confirm(b["custom_id"])]
        if confirm:  # a confirmation question, not the move's words
            click = await self.fake.click_button(answer, confirm[0]["custom_id"], user=user)
            self.dm_clicks.append(click)
            await click.wait_for_callback(timeout=self.timeout)
        self.dm_moves += 1

    async def step(self, via: str) -> Position:
        """One move: the person to move plays a random legal move (``via`` ``"slash"`` or ``"dm"``) and it is
        stored, or the computer's move is waited for. Returns the position after it."""
        position = await self.position()
        if not position.running:
            return position
        user_id = position.to_move_user()
        if user_id is None:
            return await self.wait_seq(position.seq + 1)
        assert position.game is not None
        move = self.rng.choice([str(m) for m in position.game.legal_moves()])
        user = self.fake.user(user_id).name
        if via == "dm":
            await self.play_dm(user, move, position.seq)
        else:
            await self.play_slash(user, move)
        return await self.wait_seq(position.seq + 1)
