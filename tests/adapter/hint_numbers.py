"""A hinted move, played and read as its player reads it: every number the hint states against the question before
the move, the mover's answer and the channel's post of it (used by ``tests/adapter/whole_game.py``).

The player to move asks ``/santacruz hint``, plays the best move it names with a slash command (confirming when asked)
and reads three texts as Discord shows them: the hint, the question before a move that cannot be taken back (both in
the asker's language), the channel's post of the move (in the game's language). :func:`hinted_turn` checks that the
points a hint states for its best move (a build's points, a scoring card's points for the asker and the best other
player, the asker's bird chips that a last move reveals) are the points the question and the answer state for that
move, worded by the same catalogue; that the eruption risk the hint states is the exact count from the asker's view;
and that the best move is said to the asker, not about them. :func:`check_post` compares the same numbers with the
post, in any language (the game's post as Discord shows it, or the same stored post drawn in another language). What
it found goes into :class:`HintFigures`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from bot.adapter.words.common import esc
from engine import parse_move
from engine.ai.coach import Advice, MoveAdvice, Reason
from engine.ai.determinize import eruption_risk
from i18n import describe_move, listed, t, tn
from i18n import percent as percent_text
from i18n.coach import advice_text
from tests.fakediscord.audit import readable_texts
from tests.helpers.buttons import is_confirm
from tests.helpers.driver import Driver


@dataclass
class HintFigures:
    """What the hinted moves of one game showed."""

    hints: int = 0
    checked: Counter[str] = field(default_factory=Counter)
    """Numbers compared, by what they were (``build``, ``card``, ``other``, ``birds``, ``volcano``)."""
    asked_in: Counter[str] = field(default_factory=Counter)
    """Hints asked, by the asker's language."""
    problems: list[str] = field(default_factory=list)


def _reason(advised: MoveAdvice, code: str) -> Reason | None:
    return next((r for r in advised.reasons if r.code == code), None)


@dataclass(frozen=True)
class HintedMove:
    """A hinted move as it was played: the advice, the asker's language, and what the question and the answer said."""

    advice: Advice
    names: list[str]
    lang: str
    move: str
    occupied: list[Any]
    """The buildings on the move's site before it (a shared site)."""
    question: str
    done: str
    seq: int
    """The position after the move: the stored post of the move is the one of this position."""
    goes_on: bool
    """The same player moves again (a double move's card): the move has no post of its own."""


def _said(message: Any) -> str:
    return "\n".join(readable_texts(message))


def percent(share: Fraction) -> int:
    """A chance in whole percent as the coach states it: never 0 or 100 unless it is."""
    value = round(100 * share)
    return 1 if share > 0 and value == 0 else 99 if share < 1 and value == 100 else value


def exact_eruption_chance(view: Any) -> Fraction:
    """The chance that another player holds the eruption card, counted from the asker's view: in round 1 the others'
    hand cards over every card the asker has not seen (the others' hands and the deck); in round 2 the engine's count
    (a pile's card and the one card put back, :func:`engine.ai.determinize.eruption_risk`)."""
    if view["round"] == 1:
        others = sum(p["scoring_cards_in_hand"] for p in view["players"] if p["seat"] != view["seat"])
        return Fraction(others, others + view["scoring_deck"])
    return eruption_risk(view)[1]


async def hinted_turn(driver: Driver, user: str, lang: str, post_lang: str, figures: HintFigures) -> HintedMove:
    """``user`` (to move, reading ``lang``) asks for a hint, plays its best move by slash command and checks its
    numbers against the question, the answer and the channel's post (in the game's language ``post_lang``)."""
    fake, channel = driver.fake, driver.channel
    user_id = fake.user(user).id
    view = driver.host.play.view_for(channel.id, user_id)
    names = [s.name for s in driver.info().seats]
    answer = await driver.answer(await driver.slash("hint", user=user))
    advice: Advice = (await driver.host.hints.hint(channel.id, user_id)).advice  # the same position: the same advice
    figures.hints += 1
    figures.asked_in[lang] += 1
    problems = figures.problems
    if answer.text != advice_text(advice, lang, names, escape=esc, notation=False):
        problems.append(f"{lang}: the hint is not the coach's advice in words: {answer.text!r}")
    best_line = answer.text.splitlines()[1]
    to_you = describe_move(advice.best.move, lang, [esc(n) for n in names], advice.seat, you=True)
    if to_you not in best_line and to_you[:1].lower() + to_you[1:] not in best_line:
        problems.append(f"{lang}: the best move is not said to the asker ({to_you!r}): {best_line!r}")
    _check_volcano(view, advice, answer.text, lang, figures)

    move, seq = advice.best.move, driver.info().seq
    site = parse_move(move).site
    occupied = view["board"]["sites"][site - 1]["buildings"] if site is not None else []
    marker = fake.snowflakes.next()  # the messages after it followed the move
    command, options = driver.slash_for_move(move)
    reply = await driver.answer(await driver.slash(command, options, user=user))
    question = ""
    confirm = [b for b in reply.buttons if is_confirm(b["custom_id"])]
    if confirm:
        question = reply.text
        reply = await driver.answer(await fake.click_button(reply, confirm[0]["custom_id"], user=user))
    await driver.wait_seq(seq + 1)
    await driver.settle()
    goes_on = (driver.info().status == "running"
               and driver.host.play.view_for(channel.id, user_id)["pending"] is not None)
    # (a double move goes on: its post comes with its last build; the same player may also simply move again)
    post = "" if goes_on else "\n".join(_said(m) for m in fake.messages(channel, ephemeral=False)
                                         if m.id > marker and m.author_id == fake.bot_user.id)
    hinted = HintedMove(advice, names, lang, move, occupied, question, reply.text, seq + 1, goes_on)
    _check_said(hinted, figures)
    check_post(hinted, post_lang, post, figures)
    return hinted


def _check_volcano(view: Any, advice: Advice, text: str, lang: str, figures: HintFigures) -> None:
    if advice.volcano is None or advice.volcano.status not in ("unseen", "pile"):
        return
    exact = percent(exact_eruption_chance(view))
    stated = t(f"coach.volcano_status.{advice.volcano.status}", lang, chance=percent_text(exact / 100, lang))
    if advice.volcano.chance != exact or stated not in text:
        figures.problems.append(f"{lang}: eruption risk {advice.volcano.chance} %, exact {exact} %: {text!r}")
    figures.checked["volcano"] += 1


def _check_said(hinted: HintedMove, figures: HintFigures) -> None:
    """The points the hint states for its best move, in the question and the mover's answer (the asker's language);
    counted in ``figures.checked`` by what they were."""
    advice, names, lang, move, question, done = (hinted.advice, hinted.names, hinted.lang, hinted.move,
                                                 hinted.question, hinted.done)
    best, problems = advice.best, figures.problems
    where = f"{lang} {move}"
    built = _reason(best, "build_points")
    if built is not None:
        points = built.number("points")
        if f"(+{points})" not in done and f", +{points})" not in done:
            problems.append(f"{where}: hint +{points}, the mover's answer: {done!r}")
        figures.checked["build"] += 1
    for code in ("card_score", "card_score_alone"):
        scored = _reason(best, code)
        if scored is None:
            continue
        card, mine = str(scored["card"]), scored.number("points")
        card_name = t(f"game.scoring.{card}.name", lang)
        clause = t("bot.confirm.what.score", lang, card=card_name, count=mine)
        if code == "card_score":
            other, theirs = scored.number("other"), scored.number("other_points")
            minus = str(theirs) if theirs >= 0 else f"−{-theirs}"
            clause = t("bot.confirm.what.score_other", lang, card=card_name, count=mine, other=esc(names[other]),
                       other_points=minus)
            figures.checked["other"] += 1
        if clause not in question:
            problems.append(f"{where}: hint {mine} (and the best other), the question: {question!r}")
        figures.checked["card"] += 1
    ends = _reason(best, "ends_game")
    if ends is not None:
        chips = ends["chips"]
        assert isinstance(chips, tuple)
        if chips and t("bot.confirm.what.game_over_birds", lang, points=ends.number("points"),
                       chips=" + ".join(map(str, chips))) not in question:
            problems.append(f"{where}: hint +{ends.number('points')} from bird chips, question {question!r}")
        figures.checked["birds"] += 1


def check_post(hinted: HintedMove, lang: str, post: str, figures: HintFigures) -> None:
    """The points the hint states for its best move, in the channel's post of the move (``post``, in ``lang``;
    empty when the move has no post of its own)."""
    best, problems, names, move = hinted.advice.best, figures.problems, hinted.names, hinted.move
    me = names[hinted.advice.seat]
    where = f"{lang} {move}"
    built = _reason(best, "build_points")
    if built is not None:
        points = built.number("points")
        key = "game.event.build_shared" if hinted.occupied else "game.event.build"
        site = parse_move(move).site
        if post and not any(line.removeprefix("• ").startswith(esc(me)) and f"+{points})" in line
                            and f" {site} " in line for line in post.splitlines()):
            problems.append(f"{where}: hint +{points}, the post ({key}): {post!r}")
    for code in ("card_score", "card_score_alone"):
        scored = _reason(best, code)
        if scored is None:
            continue
        card_name = t(f"game.scoring.{scored['card']}.name", lang)
        mine = scored.number("points")
        if code == "card_score":
            other, theirs = scored.number("other"), scored.number("other_points")
            if _card_line(lang, names[other], card_name, theirs) not in post:
                problems.append(f"{where}: hint {theirs} for {names[other]}, the post: {post!r}")
        if mine and _card_line(lang, me, card_name, mine) not in post:
            problems.append(f"{where}: hint {mine} for the asker, the post: {post!r}")
    ends = _reason(best, "ends_game")
    if ends is not None:
        chips = ends["chips"]
        assert isinstance(chips, tuple)
        if chips:  # those the asker holds; a chip the move draws comes on top, its value unknown before
            total = ends.number("points")
            drawn = _drew_a_chip(lang, me, post)
            exact = tn("game.event.birds", len(chips), lang, player=esc(me), chips=listed(list(chips), lang),
                       points=total)
            begun = tn("game.event.birds", len(chips) + 1, lang, player=esc(me), chips=", ".join(map(str, chips)),
                       points=0).split(" (+")[0]  # the drawn chip's value closes the list
            if (exact if not drawn else begun) not in post:
                problems.append(f"{where}: hint +{total} from bird chips, the post {post!r}")


def _card_line(lang: str, player: str, card_name: str, points: int) -> str:
    key = "game.event.score.card" if points >= 0 else "game.event.loss.card"
    return tn(key, abs(points), lang, player=esc(player), card=card_name)


def _drew_a_chip(lang: str, player: str, post: str) -> int:
    """1 if the post says ``player`` drew a bird chip (the move's own, before the chips are revealed), else 0."""
    return int(t("game.event.bird", lang, player=esc(player)) in post)
