"""A whole 4-player drafted game played by people through the fake Discord, counted (the messages a game may cost).

Shared by ``bench/bench_messages.py`` (which prints the figures of one game per language) and
``tests/adapter/test_whole_game_budget.py`` (which asserts the budget over one game read in English, German and French).
:func:`run` plays one seeded game in a language with four people named 王小明, たろう, 🦊 Fuchs and محمد, each reading
in their own Discord language (the game's by default), and no computer through the real bot (``bot.create_bot``)
and the fake Discord: on their turn they ask every autocomplete of the command their move needs and play their
move, every other turn with a slash command filled by picking an offered value as it is, every other turn with the
buttons and menus of their turn DM. Once in the game each runs ``status``, one runs ``games`` and ``log``, and one
takes a move back with ``undo``. The bot's clock goes at the players' pace (:class:`PeoplesClock`: each action takes
:data:`PACE` seconds), so that what waits on time (a "your cards changed" DM waits for the turn DM it may be folded
into) comes out as it would with people, whatever the machine's speed. What a player decides is read from the host
(as ``tests/helpers/driver.py``'s ``Driver`` does); every action goes through the fake Discord. :func:`summarise`
counts what the messages show into :class:`Figures` (see ``bench/bench_messages.py`` for what each figure means), each
message read in the language it speaks (a DM or an answer its reader's, a post the game's); the channel's posts are
also drawn again in every other language the players read, from the game's stored posts (:func:`redraw_posts`), and
read as the posts are.
"""

from __future__ import annotations

import json
import random
import statistics
import string
import tempfile
import time
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.adapter.compose import compose_post
from bot.adapter.words.common import SEP, esc, message_link
from bot.host.deliveries import LOBBY_EDIT, MOVE_POST, Delivery
from bot.host.model import effective_moves
from bot.host.settings import Settings
from engine import SINGLE_BUILDS, View, new_game, parse_move, replay
from engine.ai.coach import Advice, advise
from engine.history import since_last_move
from i18n import describe_events, t
from tests.adapter.hint_numbers import HintedMove, HintFigures, check_post, hinted_turn
from tests.fakediscord import FakeDiscord, FakeMessage, InteractionHandle, patch_discord
from tests.fakediscord.audit import (
    Offer,
    as_sent,
    autocomplete_asks,
    command_names,
    controls,
    offer_move,
    picture_size,
    pictures,
    pings,
    plural_slips,
    readable_texts,
    relative_after_since,
    transcript_entry,
    unknown_commands,
)
from tests.fakediscord.fixtures import FIXTURE_GLOBAL_LIMIT
from tests.fakediscord.remote import slash_for_move
from tests.helpers.buttons import is_confirm, move_control_seq
from tests.helpers.driver import Driver

ROOT = Path(__file__).resolve().parents[2]
PLAYERS = ("王小明", "たろう", "🦊 Fuchs", "محمد")
DISCORD_LOCALES = {"en": "en-US", "de": "de", "fr": "fr"}
TIMEOUT = 120.0
MAX_ACTIONS = 400
"""A game takes about a hundred moves; stop rather than loop for ever should the game not end."""
FEATURES_AT = 10
"""After this many moves every player runs ``status``, one ``games`` and ``log``, and the next mover undoes."""
HINT_EVERY = 5
"""The table has hints on: every this many turns (and for the last move) the player to move asks for one and plays
its best move (``tests/adapter/hint_numbers.py`` checks the numbers it states)."""
PACE = 10.0
"""Seconds each action of a player takes on the bot's clock: people who play quickly."""
HINT_PLAYOUTS = 30
"""The coach's playouts per hint. The numbers a hint states (what ``tests/adapter/hint_numbers.py`` compares) are the
exact points of the move it names, however long it searched: fewer playouts only change which move it names (a
quarter of :data:`tests.helpers.driver.HINT_PLAYOUTS`, the game's most expensive part at that figure)."""


def coach_by_playouts(view: View, seed: int, budget: float) -> Advice:
    """The real coach thinking :data:`HINT_PLAYOUTS` playouts instead of ``HINT_SECONDS`` (the same game on a fast or
    a busy machine)."""
    return advise(view, seed=seed, budget=None, iterations=HINT_PLAYOUTS)


class PeoplesClock:
    """The bot's clock during a whole game: it starts at the real time and moves :data:`PACE` seconds with each
    action of a player (:meth:`Game.mark`)."""

    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now


@dataclass
class Action:
    """Something a player did; the messages created from ``first_id`` on (until the next action) followed it."""

    first_id: int
    user: str
    what: str
    own_move: bool = False


@dataclass
class Figures:
    """What one game showed, counted."""

    lang: str
    """The game's language (its posts')."""
    readers: dict[str, str] = field(default_factory=dict)
    """Per player: the language they read their DMs and answers in."""
    moves: int = 0
    channel_posts: int = 0
    channel_pictures: int = 0
    dms: dict[str, tuple[int, int]] = field(default_factory=dict)
    """Per player: (DMs, own actions)."""
    own_turns: dict[str, int] = field(default_factory=dict)
    """Per player: the turns they made (a double move is one turn), as the stored moves tell them."""
    unknown: list[str] = field(default_factory=list)
    since: list[str] = field(default_factory=list)
    plurals: list[str] = field(default_factory=list)
    seconds: float = 0.0
    actions: list[Action] = field(default_factory=list)
    probe_messages: set[int] = field(default_factory=set)
    offers_made: int = 0
    offers_accepted: int = 0
    offers_refused: int = 0
    refused_examples: list[str] = field(default_factory=list)
    verified_refused: int = 0
    verified_accepted: list[str] = field(default_factory=list)
    moves_not_offered: list[str] = field(default_factory=list)
    played_offer_refused: list[str] = field(default_factory=list)
    turns_without_dm: int = 0
    slash_turns: int = 0
    dm_turns: int = 0
    report: list[str] = field(default_factory=list)
    transcript: str = ""
    hints: HintFigures = field(default_factory=HintFigures)
    turn_dms: int = 0
    """Turn DMs read for what happened since their player's last move."""
    since_missing: list[str] = field(default_factory=list)
    """A turn DM's missing line for a turn since its player's last move (the turn's words in the channel's form)."""
    your_turn_left: list[str] = field(default_factory=list)
    """DMs that still say "Your turn" at the end (every turn has passed once the game is over)."""
    game_over_dms: dict[str, list[str]] = field(default_factory=dict)
    """Per player: the DMs telling them the result (their breakdown, the winner's, the link)."""
    over_link: str = ""
    final_scores: dict[str, int] = field(default_factory=dict)
    help_lines: dict[str, int] = field(default_factory=dict)
    """Per player: DMs (as sent) with the help line of the play phase."""
    status_since: list[bool] = field(default_factory=list)
    """Per ``status`` asked: whether its answer says what happened since the asker's own last move."""
    banners: dict[str, list[bool]] = field(default_factory=dict)
    """Per language, per channel post of the game in order (drawn again in the languages other than the game's):
    whether it says that hints are on."""
    redrawn: dict[str, int] = field(default_factory=dict)
    """Per language other than the game's: the channel's posts drawn again in it and read."""


class Game:
    """One game in a language: the driver, the players (each reading their own language) and what they met."""

    def __init__(self, fake: FakeDiscord, driver: Driver, lang: str, readers: dict[str, str], seed: int,
                 verify: int, clock: PeoplesClock) -> None:
        self.fake, self.driver, self.lang, self.readers = fake, driver, lang, readers
        self.clock = clock
        self.rng = random.Random(seed)
        self.verify = verify
        self.figures = Figures(lang, dict(readers))
        self.hinted: list[HintedMove] = []
        self.redrawn: dict[str, list[FakeMessage]] = {}
        """Per language other than the game's: the channel's posts drawn again in it (:func:`redraw_posts`)."""
        self.turns: Counter[str] = Counter()
        self.all_turns = 0

    # -- bookkeeping ------------------------------------------------------------------------------

    def mark(self, user: str, what: str, *, own_move: bool = False) -> None:
        """``user`` begins to do ``what``: on the bot's clock, :data:`PACE` seconds after their last action."""
        self.clock.now += PACE
        self.figures.actions.append(Action(self.fake.snowflakes.next(), user, what, own_move))

    def probe(self, handle: InteractionHandle) -> None:
        self.figures.probe_messages.update(m.id for m in handle.messages)

    def seq(self) -> int:
        return int(self.driver.info().seq)

    async def settle(self) -> None:
        await self.driver.settle()

    # -- autocomplete ------------------------------------------------------------------------------

    async def offers(self, user: str, legal: list[str], build_sites: Any) -> list[tuple[Offer, tuple[str, ...] | None]]:
        """Every value the autocompletes offer now, with the moves it plays picked as it is (``None``: none);
        up to ``verify`` refused ones per autocomplete sent to the bot, which must refuse them."""
        found: list[tuple[Offer, tuple[str, ...] | None]] = []
        for command, focused, filled in autocomplete_asks(legal):
            handle = await self.fake.autocomplete(f"santacruz {command}", focused, "", filled, user=user,
                                                  channel=self.driver.channel)
            callback = await handle.wait_for_callback(timeout=TIMEOUT)
            refused_here = 0
            for choice in callback.choices:
                offer = Offer(command, tuple(filled.items()), focused, str(choice["name"]), choice["value"])
                moves = offer_move(offer, legal, build_sites)
                found.append((offer, moves))
                self.figures.offers_made += 1
                if moves is not None:
                    self.figures.offers_accepted += 1
                    continue
                self.figures.offers_refused += 1
                refused_here += 1
                if refused_here <= self.verify and not await self.refused_by_bot(user, offer):
                    return found  # the bot played it: the turn is over
        return found

    async def refused_by_bot(self, user: str, offer: Offer) -> bool:
        """Send ``offer`` picked as it is; whether the bot refused it (and changed nothing)."""
        before = self.seq()
        handle = await self.driver.slash(offer.command, offer.options(), user=user)
        reply = await self.driver.answer(handle)
        self.probe(handle)
        options = " ".join(f"{k}:{v}" for k, v in offer.filled)
        example = f"/santacruz {offer.command} {options} {offer.focused}: “{offer.name}” → {reply.text!r}".replace(
            "  ", " ")
        if self.seq() != before or any(is_confirm(b["custom_id"]) for b in reply.buttons):
            self.figures.verified_accepted.append(example)
            self.figures.offers_refused -= 1
            self.figures.offers_accepted += 1
            return self.seq() == before
        self.figures.verified_refused += 1
        if len(self.figures.refused_examples) < 6 and not any(
                e.split(" → ")[1] == example.split(" → ")[1] for e in self.figures.refused_examples):
            self.figures.refused_examples.append(example)
        return True

    # -- playing -----------------------------------------------------------------------------------

    def choose(self, legal: list[str]) -> str:
        """A person's move: one that builds or decides something when there is one."""
        useful = [m for m in legal if not (m == "pass" or (parse_move(m).verb in SINGLE_BUILDS
                                                           and parse_move(m).site is None))]
        return self.rng.choice(sorted(useful or legal))

    async def turn(self) -> bool:
        """The player to move makes one move; ``False`` once the game is over."""
        info = self.driver.info()
        if info is None or info.status != "running":
            return False
        user = self.driver.to_move_user()
        assert user is not None, "a computer is to move, but the game has none"
        user_id = self.fake.user(user).id
        before = info.seq
        self.all_turns += 1
        if self.all_turns % HINT_EVERY == 0 or self.last_move(user_id):
            self.mark(user, f"{user} asks /santacruz hint and plays its best move", own_move=True)
            self.hinted.append(await hinted_turn(self.driver, user, self.readers[user], self.lang, self.figures.hints))
            self.figures.moves += self.seq() - before
            return True
        legal = self.driver.host.play.legal_moves(self.driver.channel.id, user_id)
        view = self.driver.host.play.view_for(self.driver.channel.id, user_id)
        offered = await self.offers(user, legal, view["you"].get("build_sites"))
        if self.seq() != before:  # a refused-looking offer was played
            self.mark(user, "(a verified offer was played)", own_move=True)
            await self.settle()
            self.figures.moves += self.seq() - before
            return True
        move = self.choose(legal)
        self.turns[user] += 1
        via = "dm" if self.turns[user] % 2 == 0 else "slash"
        if via == "dm":
            try:
                self.driver.turn_dm(user)
            except LookupError:
                self.figures.turns_without_dm += 1
                via = "slash"
        if via == "dm":
            self.figures.dm_turns += 1
            self.mark(user, f"{user} plays `{move}` with the controls of their turn DM", own_move=True)
            await self.driver.play_dm(user, move)
        else:
            self.figures.slash_turns += 1
            await self.play_offer(user, move, offered)
        await self.driver.wait_seq(before + 1)
        await self.settle()
        self.figures.moves += self.seq() - before
        return True

    def last_move(self, user_id: int) -> bool:
        """Whether the move to make now may end the game (one card is left in all the hands, or none and a double
        move's builds): its hint also names the bird chips it reveals."""
        view = self.driver.host.play.view_for(self.driver.channel.id, user_id)
        cards = sum(sum(p["building_cards"].values()) + p["scoring_cards_in_hand"] for p in view["players"])
        return view["round"] == 2 and view["phase"] == "play" and cards == (0 if view["pending"] else 1)

    async def play_offer(self, user: str, move: str, offered: list[tuple[Offer, tuple[str, ...] | None]]) -> None:
        """``move`` with a slash command: the offer that plays it picked as it is (the one with the card chosen
        first, as a person fills the command), else typed by hand."""
        fitting = [(offer, moves) for offer, moves in offered if moves is not None and moves[0] == move]
        fitting.sort(key=lambda pair: (-len(pair[0].filled), len(pair[1] or ())))
        if fitting:
            offer = fitting[0][0]
            command, options = offer.command, offer.options()
            how = f"picks “{offer.name}”"
        else:
            command, options = slash_for_move(move)
            has_autocomplete = command in ("land", "score", "choose") or (command == "build" and "site" in options)
            if has_autocomplete:
                self.figures.moves_not_offered.append(f"{user}: {move}")
            how = "types it"
        shown = " ".join(f"{k}:{v}" for k, v in options.items())
        self.mark(user, f"{user} plays `{move}` with /santacruz {command} {shown} ({how})", own_move=True)
        before = self.seq()
        handle = await self.driver.slash(command, options, user=user)
        reply = await self.driver.answer(handle)
        confirm = [b for b in reply.buttons if is_confirm(b["custom_id"])]
        if confirm:
            click = await self.fake.click_button(reply, confirm[0]["custom_id"], user=user)
            await self.driver.answer(click)
        elif self.seq() == before:
            self.figures.played_offer_refused.append(f"{user}: /santacruz {command} {shown} → {reply.text!r}")
            await self.driver.play_slash(user, move)

    async def features(self) -> None:
        """``status`` for everyone, ``games`` and ``log`` once, and an ``undo`` after the next move."""
        for user in PLAYERS:
            self.mark(user, f"{user}: /santacruz status")
            status = await self.driver.answer(await self.driver.slash("status", user=user))
            self.figures.status_since.append(t("bot.dm.since", self.readers[user]) in status.text)
        self.mark(PLAYERS[0], f"{PLAYERS[0]}: /santacruz games")
        await self.driver.answer(await self.driver.slash("games", user=PLAYERS[0]))
        self.mark(PLAYERS[1], f"{PLAYERS[1]}: /santacruz log")
        await self.driver.answer(await self.driver.slash("log", user=PLAYERS[1]))
        mover = self.driver.to_move_user()
        if mover is None or not await self.turn():
            return
        self.mark(mover, f"{mover}: /santacruz undo")
        await self.driver.answer(await self.driver.slash("undo", user=mover))
        await self.settle()

    async def play(self) -> None:
        begin = time.perf_counter()
        self.mark(PLAYERS[0], f"{PLAYERS[0]} opens the game (/santacruz new draft:true language:{self.lang} "
                              "hints:true), the others join, the opener starts")
        await self.driver.open_game(list(PLAYERS), draft=True, language=self.lang, hints=True)
        await self.settle()
        for turns in range(MAX_ACTIONS):
            if turns == FEATURES_AT:
                await self.features()
            if not await self.turn():
                break
        self.figures.seconds = time.perf_counter() - begin


# -- counting -------------------------------------------------------------------------------------------------


def summarise(game: Game) -> None:
    """Count what the game's messages show; fill ``game.figures.report`` and ``.transcript``."""
    fake, figures, lang = game.fake, game.figures, game.lang
    bot_id = fake.bot_user.id
    channel = game.driver.channel
    ids = {fake.user(name).id: name for name in PLAYERS}
    known = command_names(fake.synced_commands()) | command_names(fake.synced_commands(channel.guild_id))
    messages = [m for m in fake.all_messages() if m.author_id == bot_id and m.id not in figures.probe_messages]
    starts = [a.first_id for a in figures.actions]

    def action_of(message: FakeMessage) -> Action:
        index = max(0, sum(1 for s in starts if s < message.id) - 1)
        return figures.actions[index]

    def language(message: FakeMessage) -> str:
        """The language ``message`` speaks: a DM its reader's, an answer its asker's, a post the game's."""
        name = where(message)[1]
        if name is None and message.ephemeral:
            name = ids.get(int((message.interaction_metadata or {}).get("user", {}).get("id", 0)))
        return game.readers[name] if name is not None else lang

    def where(message: FakeMessage) -> tuple[str, str | None]:
        """(label, the user a DM went to)"""
        if message.channel_id == channel.id:
            return f"#{channel.name}", None
        for user_id, name in ids.items():
            dm = fake._dm_channels.get(user_id)
            if dm is not None and dm.id == message.channel_id:
                return f"DM → {name}", name
        return f"channel {message.channel_id}", None

    posts = [m for m in messages if m.channel_id == channel.id and not m.ephemeral]
    channel_pictures = figures.channel_pictures = sum(len(pictures(m)) for m in posts)
    figures.channel_posts = len([m for m in posts if pictures(m)])
    pinging = sum(1 for m in posts if pings(m))
    rows = [f"moves {figures.moves} ({figures.slash_turns} turns by slash command, {figures.dm_turns} by turn DM, "
            f"{figures.turns_without_dm} turns found no turn DM); {figures.seconds:.0f} s",
            f"channel: {len(posts)} posts, {figures.channel_posts} with pictures (budget {figures.moves + 2}: one per "
            f"move plus start and game over), {channel_pictures} pictures (budget two a post: the overview and the "
            f"board; the game over's also the chart and the replay), {pinging} posts ping"]
    rows.append(f"{'DMs':<10}{'total':>6}{'own acts':>9}{'turns':>6}{'per turn':>9}{'budget':>7}{'pictures':>9}"
                f"{'controls':>9}{'after own move, no controls':>28}")
    dm_sizes: list[int] = []
    dm_pixels: Counter[str] = Counter()
    for name in PLAYERS:
        dms = [m for m in messages if where(m)[1] == name]
        own = sum(1 for a in figures.actions if a.own_move and a.user == name)
        figures.dms[name] = (len(dms), own)
        with_pictures = [m for m in dms if pictures(m)]
        with_controls = [m for m in dms if controls(m) or controls_first(m)]
        after_own = [m for m in dms if action_of(m).own_move and action_of(m).user == name
                     and not (controls(m) or controls_first(m))]
        for message in with_pictures:
            for picture in pictures(message):
                dm_sizes.append(picture.size)
                size = picture_size(picture)
                dm_pixels[f"{size[0]}×{size[1]}" if size else "?"] += 1
        turns = figures.own_turns.get(name, 0)
        rows.append(f"{pad(name, 10)}{len(dms):>6}{own:>9}{turns:>6}{len(dms) / max(1, turns):>9.2f}{turns + 4:>7}"
                    f"{len(with_pictures):>9}{len(with_controls):>9}{len(after_own):>28}")
    if dm_sizes:
        rows.append(f"DM pictures: {len(dm_sizes)}, median {statistics.median(dm_sizes) / 1000:.0f} kB, "
                    f"max {max(dm_sizes) / 1000:.0f} kB, total {sum(dm_sizes) / 1e6:.1f} MB; pixels: "
                    + ", ".join(f"{k} ({v})" for k, v in dm_pixels.most_common(3)))
    rows.append(f"autocomplete: {figures.offers_made} offers, {figures.offers_accepted} accepted, "
                f"{figures.offers_refused} refused ({figures.verified_refused} of them sent to the bot and refused; "
                f"{len(figures.verified_accepted)} judged refused but accepted by the bot); chosen move not offered "
                f"{len(figures.moves_not_offered)}×; an offer refused when played {len(figures.played_offer_refused)}×")
    rows += [f"  refused: {e}" for e in figures.refused_examples[:4]]
    rows += [f"  judged refused, bot accepted: {e}" for e in figures.verified_accepted[:3]]
    rows += [f"  not offered: {e}" for e in figures.moves_not_offered[:3]]
    rows += [f"  refused when played: {e}" for e in figures.played_offer_refused[:3]]

    unknown: list[str] = []
    since: list[str] = []
    plurals: list[str] = []
    read = [(message, language(message)) for message in messages]
    read += [(post, other) for other, drawn in game.redrawn.items() for post in drawn]
    for message, language_read in read:
        for text in dict.fromkeys(readable_texts(message) + readable_texts(first_version(message))):
            unknown += [f"/santacruz {x}: {text[:90]!r}" for x in unknown_commands(text, known)]
            since += relative_after_since(text)
            plurals += plural_slips(text, language_read)
    rows.append(f"texts naming a command that does not exist: {len(unknown)}"
                + (f" (e.g. {unknown[0]})" if unknown else ""))
    rows.append(f"relative times after since/until: {len(since)}" + (f" (e.g. {since[0]!r})" if since else ""))
    rows.append(f"plural slips: {len(plurals)}" + (f" ({', '.join(repr(p) for p in Counter(plurals))})"
                                                   if plurals else ""))
    rows += [f"channel posts drawn again in {other}: {count}" for other, count in figures.redrawn.items()]
    for read_in in languages(game):
        catalogue = catalogue_slips(read_in, known)
        rows.append(f"catalogue {read_in}: {len(catalogue)} entries name a command that does not exist or an ending "
                    "in brackets" + (f" ({', '.join(catalogue[:4])})" if catalogue else ""))
    figures.unknown, figures.since, figures.plurals = unknown, since, plurals
    figures.report = rows

    readers = ", ".join(f"{name} ({game.readers[name]})" for name in PLAYERS)
    lines = [f"Santa Cruz, a 4-player drafted game in {lang} ({readers}); {figures.moves} moves", ""]
    current: Action | None = None
    for message in messages:
        action = action_of(message)
        if action is not current:
            current = action
            lines.append(f"\n=== {action.what}")
        lines.append(transcript_entry(message, where(message)[0], {**ids, channel.id: str(channel.name)}))
    figures.transcript = "\n".join(lines) + "\n"


def pad(text: str, width: int) -> str:
    """``text`` padded to ``width`` columns of a terminal (Chinese and Japanese letters and emoji take two)."""
    columns = sum(2 if unicodedata.east_asian_width(c) in "WF" else 0 if unicodedata.combining(c) else 1
                  for c in text)
    return text + " " * max(0, width - columns)


def first_version(message: FakeMessage) -> FakeMessage:
    return as_sent(message)


def controls_first(message: FakeMessage) -> bool:
    """Whether ``message`` had controls when it was sent (a turn DM's are taken off once the turn passed)."""
    return bool(controls(first_version(message)))


def catalogue_slips(lang: str, known: set[str]) -> list[str]:
    """The catalogue keys of ``lang`` whose text names ``/santacruz <x>`` with no such command, or has an
    ending in brackets ("game(s)")."""
    found = []
    for path in sorted((ROOT / "i18n" / "locales" / lang).glob("*.json")):
        for key, text in json.loads(path.read_text(encoding="utf-8")).items():
            if not isinstance(text, str):
                continue
            if unknown_commands(text, known) or [p for p in plural_slips(text, lang) if "(" in p]:
                found.append(key)
    return found


# -- running --------------------------------------------------------------------------------------------------


def head(key: str, lang: str) -> str:
    """How a catalogue text begins, before its first value: what marks a message as that text."""
    fields = [f for _, f, _, _ in string.Formatter().parse(t(key, lang)) if f]
    return t(key, lang, **dict.fromkeys(fields, "\0")).split("\0")[0]


def languages(game: Game) -> list[str]:
    """The languages the game is read in: the game's first, then its readers' others."""
    return list(dict.fromkeys([game.lang, *(game.readers[name] for name in PLAYERS)]))


async def redraw_posts(game: Game) -> None:
    """The channel's posts of the game (the lobby message, the start, every move and undo, the game over, the
    replay) composed again by the bot (:func:`bot.adapter.compose.compose_post`), from the stored deliveries, in
    every language the players read other than the game's (their pictures are not drawn): into ``game.redrawn``;
    and the hinted moves' numbers checked against those posts (:func:`tests.adapter.hint_numbers.check_post`). A
    redraw of the lobby message is the lobby message once more: composed once."""
    info = game.driver.info()
    store = game.driver.bot.store
    assert store is not None
    deliveries = [Delivery.from_row(row) for row in await store.deliveries(info.game_id)]
    deliveries = [d for d in deliveries if d.is_post and d.kind != LOBBY_EDIT]
    bot_author = {"id": str(game.fake.bot_user.id), "username": "bot", "bot": True}
    for lang in languages(game)[1:]:
        drawn: list[FakeMessage] = []
        moves: dict[int, str] = {}
        for delivery in sorted(deliveries, key=lambda d: d.id):
            post = await compose_post(game.driver.host, delivery, lang)
            if delivery.kind == MOVE_POST and not delivery.move().undo:
                moves[delivery.seq] = post.text
            layout = post.layout(post.names) if post.layout is not None else post.view
            components = layout.to_components() if layout is not None else []
            drawn.append(FakeMessage(id=delivery.id, channel_id=info.channel_id, author=bot_author,
                                     content="" if post.layout is not None else post.text, components=components))
        game.redrawn[lang] = drawn
        game.figures.redrawn[lang] = len(drawn)
        for hinted in game.hinted:
            check_post(hinted, lang, "" if hinted.goes_on else moves.get(hinted.seq, ""), game.figures.hints)


async def count_turns(game: Game) -> None:
    """Each player's own turns, from the game's stored moves (those that stand): a turn ends with a move that leaves
    no double move's build to make (into ``game.figures.own_turns``)."""
    info = game.driver.info()
    table = game.driver.host.games.tables[info.channel_id]
    store = game.driver.bot.store
    assert store is not None
    played = new_game(table.names, table.seed, draft=True)
    turns: Counter[int] = Counter()
    for row in effective_moves(await store.moves(info.game_id)):
        seat = played.to_move
        played.apply(row.move)
        if played.pending is None and seat is not None:
            turns[seat] += 1
    for name in PLAYERS:
        seat = table.seat_of(game.fake.user(name).id)
        assert seat is not None
        game.figures.own_turns[name] = turns[seat]


async def read_dms(game: Game) -> None:
    """What the game's DMs said, read as each player in their language (into ``game.figures``): every turn DM (as
    sent) against the turns made since its player's own last move (replayed from the stored log: the seq its controls
    carry), every DM's last words (none may still say "Your turn"), the game-over DMs, the help lines; and the
    channel's posts with the hints banner, in every language read (the game's as posted, the others drawn again)."""
    fake, figures, host = game.fake, game.figures, game.driver.host
    info = game.driver.info()
    table = host.games.tables[info.channel_id]
    store = game.driver.bot.store
    assert store is not None
    rows = await store.moves(info.game_id)
    names = [esc(n) for n in table.names]
    for name in PLAYERS:
        lang = game.readers[name]
        your_turn = head("bot.dm.your_turn", lang)
        seat = table.seat_of(fake.user(name).id)
        assert seat is not None
        for message in fake.dm_messages(name):
            sent = as_sent(message)
            if your_turn in message.text:
                figures.your_turn_left.append(f"{name}: {message.text[:80]!r}")
            seqs = {seq for c in controls(sent)
                    if (seq := move_control_seq(str(c["custom_id"]), info.game_id)) is not None}
            if your_turn in sent.text and seqs:
                figures.turn_dms += 1
                moves = [r.move for r in effective_moves(rows[:max(seqs)])]
                then = replay(table.names, table.seed, moves, draft=True)
                turns = since_last_move(then, seat)["turns"]
                said = [SEP.join(told) for turn in turns if (told := describe_events(turn["events"], lang, names))]
                if "• …" in sent.text:  # a long wait: the oldest turns gave way to the newest
                    said = said[-1:]
                figures.since_missing += [f"{name} ({lang}) at {max(seqs)}: {line}" for line in said
                                          if f"• {line}" not in sent.text]
            if t("bot.prompt.play", lang) in sent.text:
                figures.help_lines[name] = figures.help_lines.get(name, 0) + 1
        heads = (head("bot.dm.over.won", lang), head("bot.dm.over.place", lang))
        figures.game_over_dms[name] = [m.text for m in fake.dm_messages(name) if m.text.startswith(heads)]
    past = await host.archive.past_game(info.guild_id, info.game_id)
    assert past.over_message_id is not None
    figures.over_link = message_link(info.guild_id, info.channel_id, past.over_message_id)
    figures.final_scores = {name: past.scores[table.seat_of(fake.user(name).id) or 0] for name in PLAYERS}
    posts_in = {game.lang: [as_sent(m) for m in fake.messages(game.driver.channel) if pictures(m)]}
    posts_in |= {lang: [m for m in drawn if m.components] for lang, drawn in game.redrawn.items()}
    figures.banners = {lang: [t("bot.post.hints", lang) in m.text for m in shown] for lang, shown in posts_in.items()}


async def run(lang: str, seed: int, verify: int, readers: dict[str, str] | None = None) -> Figures:
    """One game in ``lang`` (its posts'), each player reading ``readers[name]`` (their Discord language; ``lang`` by
    default), counted and read (:func:`summarise`, :func:`read_dms`)."""
    readers = {name: (readers or {}).get(name, lang) for name in PLAYERS}
    clock = PeoplesClock()
    # the people play at machine speed (only the bot's clock goes at a person's pace): Discord's 5 posts per 5 s per
    # channel would hold the game's posts for a minute and more, its global limit the whole game by half as long again
    async with FakeDiscord(route_limits=(), global_limit=FIXTURE_GLOBAL_LIMIT) as fake, patch_discord(fake):
        users = [fake.add_user(name, global_name=name, locale=DISCORD_LOCALES[readers[name]]) for name in PLAYERS]
        guild = fake.add_guild(f"Santa Cruz {lang}", owner=users[0], preferred_locale=DISCORD_LOCALES[lang],
                               channels=("santa-cruz",))
        for user in users[1:]:
            fake.add_member(guild, user)
        with tempfile.TemporaryDirectory() as folder:
            settings = Settings(database_path=str(Path(folder) / "messages.db"), ai_strength="random",
                                ai_seconds=0.05, picture_width=800, hint_seconds=0.2,
                                global_rate_limit=FIXTURE_GLOBAL_LIMIT)
            driver = Driver(fake, settings, channel=guild.channel("santa-cruz"), seed=seed, coach=coach_by_playouts,
                            clock=clock)
            await driver.start()
            game = Game(fake, driver, lang, readers, seed, verify, clock)
            try:
                await game.play()
                await driver.settle()
                await redraw_posts(game)
                await count_turns(game)
                summarise(game)
                await read_dms(game)
            finally:
                await driver.stop()
        return game.figures
