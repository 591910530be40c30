"""The bot as the adapter tests drive it: :class:`Driver` runs the real bot against the fake Discord and plays for
the seated people through interactions (slash commands, DM buttons and menus), reading the host only to decide what
a person does next (like a person looking at the board); and what many tests look for in the fake's messages (the
board posts, a position's post, its Undo button) and do to the bot (run its due timers, give it a clock to move)."""

from __future__ import annotations

import asyncio
import random
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any, TypeVar

from bot.adapter import ids
from bot.adapter.client import SantaCruzBot, create_bot
from bot.adapter.delivery import Backoff
from bot.adapter.emojis import PREFIX
from bot.host.hints import Coach
from bot.host.settings import Settings
from bot.host.workers import WorkerPool
from engine import View
from engine.ai.coach import Advice, advise
from render.emoji import EMOJI_ICONS
from tests.fakediscord import BotRunner, FakeChannel, FakeDiscord, FakeMessage, InteractionHandle
from tests.fakediscord.remote import slash_for_move
from tests.helpers.buttons import controls_of, game_button_seq, is_confirm, is_game_button, move_control_seq
from tests.helpers.clock import Clock

T = TypeVar("T")
"""What a search of :meth:`Driver.play_until` answers."""

TIMEOUT = 60.0
"""Generous: the machine may be slow and busy."""
CAPTURED = ("discord", "bot")
"""Loggers whose ERROR records fail a test: discord.py's and the bot's own."""
PARKED = Backoff(first=1000.0, limit=1000.0)
"""A failed delivery waits (beyond the test) until the bot starts again."""


def board_posts(fake: FakeDiscord, channel: Any = None) -> list[FakeMessage]:
    """The bot's messages in a channel that carry a board picture (the start and one per move)."""
    return [m for m in fake.messages(channel, ephemeral=False)
            if m.author_id == fake.bot_user.id and any(a.filename == "board.png" for a in m.attachments)]


def post_of(fake: FakeDiscord, channel: Any, game_id: int, seq: int) -> FakeMessage:
    """The channel's one post of position ``seq`` (it carries *My cards* of that position)."""
    posts = [m for m in fake.messages(channel, ephemeral=False) if ids.game(game_id, "hand", seq) in m.custom_ids]
    assert len(posts) == 1, f"posts of position {seq}: {len(posts)} " + repr(
        [(m.custom_ids, m.text[:80]) for m in fake.messages(channel, ephemeral=False)])
    return posts[0]


def turn_dms(fake: FakeDiscord, user: str, game_id: int, seq: int) -> list[FakeMessage]:
    """The user's DMs that carry the move controls of position ``seq`` of the game."""
    return [m for m in fake.dm_messages(user) if any(move_control_seq(c, game_id) == seq for c in m.custom_ids)]


def has_undo(message: FakeMessage, game_id: int) -> bool:
    """Whether a post carries *Undo* (:func:`bot.adapter.ids.game` ``undo`` at a position)."""
    return any(game_button_seq(i, game_id, "undo") is not None for i in message.custom_ids)


def lobby_messages(fake: FakeDiscord, channel: Any = "games") -> list[FakeMessage]:
    """The bot's lobby messages in a channel (each with its Join button)."""
    return [m for m in fake.messages(channel, ephemeral=False)
            if m.author_id == fake.bot_user.id and any(is_game_button(i, "join") for i in m.custom_ids)]


async def open_in_thread(driver: Driver, user: str, channel: str = "games",
                         **options: Any) -> tuple[FakeMessage, FakeChannel, str]:
    """``/santacruz new`` by ``user`` in ``channel`` (a thread by default): the lobby message in the channel, the
    game's thread (it shares the message's id), and the opener's answer."""
    await driver.delivered()  # the lobby messages owed before are out
    before = {m.id for m in lobby_messages(driver.fake, channel)}
    answer = await driver.answer(await driver.fake.slash_command("santacruz new", options, user=user,
                                                                channel=channel))
    lobby = await driver.fake.wait_until(
        lambda: next((m for m in lobby_messages(driver.fake, channel) if m.id not in before), None),
        timeout=TIMEOUT, description="the lobby message in the channel")
    return lobby, driver.fake.channel(lobby.id), answer.text


async def undoable_move(driver: Driver) -> tuple[str, int, int, FakeMessage]:
    """A three-player drafted game whose first player chose a set (it reveals nothing: it may be taken back), posted:
    ``(mover, game id, position, its post)``."""
    await driver.open_game(["alice", "bob", "carol"], draft=True)
    await driver.settle()
    mover = driver.to_move_user()
    assert mover is not None
    game = driver.info().game_id
    await driver.play_slash(mover, "set A")
    await driver.settle()
    return mover, game, driver.info().seq, board_posts(driver.fake, driver.channel)[-1]


def turns_ended(view: Any) -> int:
    """How many turns the moves of a (public) ``view`` ended, each owing one channel post: every move but a double
    move's card and builds that its next build continues, or the last move while its double move goes on."""
    log = view["log"]
    ended = 0
    for i in range(len(log)):
        if i + 1 < len(log):
            ended += not str(log[i + 1]["move"]).startswith("build")
        else:
            ended += view["pending"] is None
    return ended


HINT_PLAYOUTS = 120
"""The coach's playouts in tests that ask for hints (:func:`coach_by_playouts`)."""


def coach_by_playouts(view: View, seed: int, budget: float) -> Advice:
    """The real coach thinking :data:`HINT_PLAYOUTS` playouts instead of ``HINT_SECONDS``: a game that follows its
    hints is the same game on a fast or a busy machine."""
    return advise(view, seed=seed, budget=None, iterations=HINT_PLAYOUTS)


class Driver:
    """Runs the bot against the fake and plays for the seated users through interactions."""

    def __init__(self, fake: FakeDiscord, settings: Settings, *, channel: Any = None, seed: int = 1,
                 clock: Callable[[], float] | None = None, coach: Coach | None = None, gate: Gate | None = None,
                 render: WorkerPool | None = None, emojis_before: bool = True) -> None:
        self.fake = fake
        self.emojis_before = emojis_before
        """The application has the bot's emojis before it starts (else the bot uploads them)."""
        self.coach = coach
        """What thinks about hints (the host's :func:`bot.host.hints.coach` if ``None``)."""
        self.gate = gate
        """The computer player, thinking until the test lets it go (the host's own if ``None``)."""
        self.render = render
        """Where the bot draws its pictures (threads if ``None``)."""
        self.seed = seed
        """The seed of the next game opened (the host's seeds are random otherwise)."""
        self.settings = settings
        self.channel = fake.channel(channel)
        self.runner: BotRunner | None = None
        self.rng = random.Random(1234)
        self.clock: Callable[[], float] | None = clock
        """The host's clock from the next (re)start on: a test's own, which it moves; ``None``: real time."""

    # -- bot life cycle ----------------------------------------------------------------

    @property
    def bot(self) -> SantaCruzBot:
        assert self.runner is not None
        bot = self.runner.bot
        assert isinstance(bot, SantaCruzBot)
        return bot

    @property
    def host(self) -> Any:
        assert self.bot.host is not None
        return self.bot.host

    async def start(self, *, look: bool = True) -> SantaCruzBot:
        """Start the bot, on an application that has its emojis from an earlier start (as almost every start of a
        bot in use does) unless ``emojis_before`` is off; with ``look``, read the channel's game as a command in the
        channel would (:meth:`look`)."""
        for icon in EMOJI_ICONS if self.emojis_before else ():
            if not self.fake.application_emojis.named(PREFIX + icon):
                self.fake.application_emojis.add(PREFIX + icon)
        chosen = {"clock": self.clock, "coach": self.coach, "chooser": self.gate}  # the host's own where None
        host_options: dict[str, Any] = {"new_seed": self._next_seed,
                                        **{name: part for name, part in chosen.items() if part is not None}}
        bot = create_bot(self.settings, host_options=host_options, render_executor=self.render)
        self.runner = BotRunner(bot, self.fake, ready_timeout=TIMEOUT, capture_loggers=CAPTURED)
        await self.runner.start()
        if look:
            await self.look()
        return bot

    async def look(self) -> None:
        """Read the channel's game as a command in the channel would (a started bot loads a game when something
        touches it), for the driver's readings (:meth:`info`). A change under way (a start's post left from before,
        say, which holds the channel) is waited for: a command would go on with the copy it has and check again in
        the change itself, but a reading at once may find no copy yet on a busy machine."""
        await self.host.refresh.channel(self.channel.id, wait=TIMEOUT)

    def _next_seed(self) -> int:
        self.seed += 1
        return self.seed - 1

    async def stop(self, *, check_errors: bool = True) -> None:
        if self.runner is not None:
            runner, self.runner = self.runner, None
            await runner.stop()
            if check_errors:
                runner.assert_no_errors()

    def assert_no_errors(self) -> None:
        """Fail if the running bot logged an error so far."""
        assert self.runner is not None, "the bot is not running"
        self.runner.assert_no_errors()

    async def restart(self) -> SantaCruzBot:
        await self.stop()
        return await self.start()

    @property
    def cog(self) -> Any:
        """The bot's cog (its publisher, its background tasks)."""
        return self.bot.get_cog("SantaCruz")

    # -- reading the game ----------------------------------------------------------------

    def info(self) -> Any:
        return self.host.games.info(self.channel.id)

    def user_at(self, seat: int) -> str:
        info = self.info()
        user_id = info.seats[seat].user_id
        return self.fake.user(user_id).name

    def to_move_user(self) -> str | None:
        info = self.info()
        if info is None or info.to_move is None:
            return None
        seat = info.seats[info.to_move]
        if seat.user_id is None or seat.away or seat.vacation == "computer":
            return None
        return str(self.fake.user(seat.user_id).name)

    async def wait_posts(self, count: int) -> list[FakeMessage]:
        """Wait until the channel has ``count`` board posts."""
        return await self.fake.wait_until(
            lambda: (p := board_posts(self.fake, self.channel)) and len(p) >= count and p,
            timeout=TIMEOUT, description=f"{count} board posts", poll=0.5)

    async def wait_seq(self, seq: int) -> None:
        await self.fake.wait_until(lambda: self.info() is not None and self.info().seq >= seq, timeout=TIMEOUT,
                                   description=f"seq {seq}", poll=0.1)

    async def delivered(self) -> None:
        """Wait until the outboxes are done: every post and edit owed so far is out (the lobby message's redraw)."""
        cog: Any = self.bot.get_cog("SantaCruz")
        await self.fake.wait_until(lambda: not cog.publisher.pending(), timeout=TIMEOUT,
                                   description="the outboxes to deliver", poll=0.05)

    async def settle(self) -> None:
        """Wait until every stored move of the game is posted and the computers are done."""
        def done() -> bool:
            info = self.info()
            if info is None:
                return False
            cog = self.cog
            sending = cog.publisher.pending()  # the same signals the bot's shutdown waits for
            thinking = [task for task in cog.background.computers.values() if not task.done()]
            if sending or thinking:
                return False
            seat = info.seats[info.to_move] if info.to_move is not None else None
            return seat is None or not (seat.is_computer or seat.away or seat.vacation == "computer")
        await self.fake.wait_until(done, timeout=TIMEOUT, description="the bot to settle", poll=0.05)

    # -- acting ------------------------------------------------------------------------

    async def slash(self, command: str, options: dict[str, Any] | None = None, *, user: str,
                    channel: Any = None, locale: str | None = None) -> InteractionHandle:
        """``/santacruz <command>``; a game this driver opens (``new``) is played in its channel itself
        (``thread:false``) unless the test asks for a thread (``test_threads`` plays games in threads)."""
        options = dict(options or {})
        if command == "new":
            options.setdefault("thread", False)
        return await self.fake.slash_command(f"santacruz {command}", options, user=user,
                                             channel=channel if channel is not None else self.channel,
                                             locale=locale)

    async def answer(self, handle: InteractionHandle) -> FakeMessage:
        """The interaction's visible answer (not the "thinking…" placeholder)."""
        return await handle.wait_for_message(lambda m: not m.loading, timeout=TIMEOUT)

    def slash_for_move(self, move: str) -> tuple[str, dict[str, Any]]:
        return slash_for_move(move)

    async def play_slash(self, user: str, move: str) -> FakeMessage:
        """Play ``move`` with a slash command in the channel (confirming a no-build card, or a move that cannot be
        taken back)."""
        command, options = self.slash_for_move(move)
        return await self.slash_confirmed(command, options, user)

    async def slash_confirmed(self, command: str, options: dict[str, Any], user: str,
                              locale: str | None = None) -> FakeMessage:
        """``/santacruz <command>`` by ``user``, pressing the confirm button when the bot asks first (a no-build
        card, a move that cannot be taken back); the answer of the move that was played."""
        reply = await self.answer(await self.slash(command, options, user=user, locale=locale))
        confirm = [b for b in reply.buttons if is_confirm(b["custom_id"])]
        if confirm:  # "play it anyway" / "play it"
            click = await self.fake.click_button(reply, confirm[0]["custom_id"], user=user, locale=locale)
            return await self.answer(click)
        return reply

    def turn_dm(self, user: str) -> FakeMessage:
        """The user's latest DM that carries move controls for the current position, else (the rest of a turn
        begun by a slash command: no turn DM follows one's own move) the user's own answer that carries them."""
        info = self.info()
        found = controls_of(self.fake, self.channel, user, info.game_id, info.seq)
        if found is None:
            raise LookupError(f"no DM with controls of position {info.seq} of game {info.game_id} for {user}")
        return found

    async def wait_turn_dm(self, user: str) -> FakeMessage:
        def find() -> FakeMessage | None:
            try:
                return self.turn_dm(user)
            except LookupError:
                return None
        return await self.fake.wait_until(find, timeout=TIMEOUT, description=f"a turn DM for {user}", poll=0.1)

    async def play_dm(self, user: str, move: str) -> InteractionHandle:
        """Play ``move`` with the controls of the user's turn DM."""
        message = await self.wait_turn_dm(user)
        info = self.info()
        select = next((s for s in message.selects if any(o["value"] == move for o in s["options"])), None)
        if select is not None:
            click = await self.fake.select(message, select["custom_id"], [move], user=user)
        else:
            custom_id = ids.move(info.game_id, info.seq, move)
            click = await self.fake.click_button(message, custom_id, user=user)
        return await self.confirm(click, user)

    async def confirm(self, click: InteractionHandle, user: str) -> InteractionHandle:
        """After a click on move controls (acknowledged first, then answered on the clicked message): if the bot
        asked first (a card that builds nothing, or a move that cannot be taken back, asked in place of the
        controls), press its confirm button; the click that played."""
        answer = await self.answer(click)
        confirm = next((b for b in answer.buttons if is_confirm(b["custom_id"])), None)
        if confirm is not None:  # a confirmation question, not the move's words
            click = await self.fake.click_button(answer, confirm["custom_id"], user=user)
        return click

    def pick(self, user: str, chooser: Callable[[list[str]], str] | None = None) -> str:
        legal = self.host.play.legal_moves(self.channel.id, self.fake.user(user).id)
        assert legal, f"{user} has no legal move"
        return chooser(legal) if chooser else self.rng.choice(legal)

    async def play_turn(self, via: str = "slash") -> str:
        """The player to move makes a random legal move; returns it. Waits for the host to store it."""
        user = self.to_move_user()
        assert user is not None, "a computer is to move"
        seq = self.info().seq
        move = self.pick(user)
        if via == "dm":
            await self.play_dm(user, move)
        else:
            await self.play_slash(user, move)
        await self.wait_seq(seq + 1)
        return move

    async def play_until(self, found: Callable[[str, View], T | None], what: str) -> tuple[str, T]:
        """Random turns by slash command until ``found`` (given the person to move and their view) answers; that
        person and the answer. Fails if the game ends first (``what`` says what never came up)."""
        while True:
            user = self.to_move_user()
            assert user is not None and self.info().status == "running", f"no {what} came up"
            answer = found(user, self.host.play.view_for(self.channel.id, self.fake.user(user).id))
            if answer is not None:
                return user, answer
            await self.play_turn("slash")
            await self.settle()

    # -- lobby -------------------------------------------------------------------------

    async def lobby(self, channel: Any = None) -> FakeMessage:
        """The lobby message the outbox posted in ``channel`` (default the driver's) for the newest lobby there: the
        bot's latest message with a Join button."""
        channel = self.fake.channel(channel or self.channel)

        def posted() -> FakeMessage | None:
            return next(iter(reversed(lobby_messages(self.fake, channel))), None)

        return await self.fake.wait_until(posted, timeout=TIMEOUT, description=f"a lobby message in #{channel.name}")

    async def open_lobby(self, user: str, options: dict[str, Any] | None = None, **where: Any) -> FakeMessage:
        """``/santacruz new`` by ``user`` (with ``options``; ``channel=`` elsewhere than the driver's): the lobby
        message the outbox posts for it (the command's own answer only says so)."""
        await self.answer(await self.slash("new", options or {}, user=user, **where))
        return await self.lobby(where.get("channel"))

    async def open_game(self, players: list[str], **options: Any) -> FakeMessage:
        """``/santacruz new`` by the first player, the others join (button), the opener starts."""
        lobby = await self.open_lobby(players[0], options)
        for user in players[1:]:
            click = await self.fake.click_button(lobby, label=self.button_label(lobby, "join"), user=user)
            await click.wait_for_callback(timeout=TIMEOUT)
        click = await self.fake.click_button(lobby, label=self.button_label(lobby, "start"), user=players[0])
        await click.wait_for_callback(timeout=TIMEOUT)
        await self.wait_posts(1)
        return lobby

    async def two_player_game(self) -> str:
        """Alice and Bob's game opened and settled; who is to move."""
        await self.open_game(["alice", "bob"])
        await self.settle()
        mover = self.to_move_user()
        assert mover is not None
        return mover

    @staticmethod
    def button_label(message: FakeMessage, action: str) -> str:
        button = next(b for b in message.buttons if is_game_button(b["custom_id"], action))
        return str(button["label"])

@asynccontextmanager
async def running(driver: Driver) -> AsyncIterator[Driver]:
    """The driver's bot started for the block; afterwards its gated computer is let go and the bot stopped (and
    checked for logged errors)."""
    await driver.start()
    try:
        yield driver
    finally:
        if driver.gate is not None:
            driver.gate.open()
        await driver.stop()


async def run_timers(driver: Driver) -> None:
    """What the sweep does when timers are due (it may have run them already, at a restart: then nothing)."""
    await driver.cog.background.run_timers()


async def with_clock(driver: Driver) -> Clock:
    """The bot restarted with a clock the test moves (it starts at the real time); the clock."""
    clock = Clock.real_time()
    driver.clock = clock
    await driver.restart()
    return clock


async def channel_post(driver: Driver, words: str) -> FakeMessage:
    """The first message everyone sees in the driver's channel that holds ``words``."""
    return await driver.fake.wait_for_message(driver.channel, lambda m: words in m.text and not m.ephemeral,
                                              timeout=TIMEOUT)


class Gate:
    """A computer player (the first legal move) that says when it thinks and waits for ``go``."""

    def __init__(self) -> None:
        self.thinking = threading.Event()
        self.go = threading.Event()
        self.go.set()

    def __call__(self, view: dict[str, Any], strength: str, seed: int, budget: float) -> str:
        self.thinking.set()
        assert self.go.wait(TIMEOUT)
        return str(view["you"]["legal_moves"][0])

    def close(self) -> None:
        """From now on the computer thinks until :meth:`open`."""
        self.thinking.clear()
        self.go.clear()

    def open(self) -> None:
        self.go.set()

    async def wait_thinking(self) -> None:
        assert await asyncio.to_thread(self.thinking.wait, TIMEOUT), "the computer never started thinking"
