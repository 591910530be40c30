"""The coach's advice in words: :func:`advice_text` turns an :class:`engine.ai.coach.Advice` into a few lines.

Pure (no Discord, no I/O), so the terminal game and the bot say the same thing. Every reason code of
:data:`engine.ai.coach.REASON_CODES` and :data:`~engine.ai.coach.COMPARISON_CODES` has its words in
``coach.json`` (``coach.reason.<code>``, ``coach.why.<code>``); moves are worded by :func:`i18n.describe_move`,
scoring cards, buildings, building-card kinds and sets by the game's own keys, so the coach names everything
as the rest of the bot does. Every count goes through plural forms. The text fits one Discord message
(:data:`MESSAGE_MAX`); :func:`refusal_text` words a :class:`~engine.ai.coach.CoachError`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

from engine import CardNow
from engine.ai.coach import Advice, CoachError, MoveAdvice, Reason, VolcanoRisk
from i18n import decimal, describe_move, listed, normalize_locale, percent, plural_form, t, tn

__all__ = ["MESSAGE_MAX", "advice_text", "refusal_text"]

MESSAGE_MAX: Final = 2000
"""Discord's limit for one message; the advice is cut to it (it never needs to be in practice)."""
_BULLET: Final = "• "


def refusal_text(error: CoachError, locale: object) -> str:
    """Why there is no advice (not the seat's turn, the game is over, no seat), in words."""
    return t(f"coach.refusal.{error.code}", locale)


def advice_text(advice: Advice, locale: object, names: Sequence[str] | None = None,
                escape: Callable[[str], str] = str, *, notation: bool = True) -> str:
    """The advice in a few lines: the best move and why, the scoring cards, the volcano, the runner-up and why not.

    ``names`` replaces the players' names of the view (e.g. display names); ``escape`` makes a name harmless
    where the text is shown (Discord markdown); ``notation`` shows each move's notation before its words (what the
    terminal game's player types; on Discord moves are picked from offers in words, so it is left out there).
    """
    lang = normalize_locale(locale)
    shown = [escape(n) for n in (names if names is not None else advice.names)]
    words = _Words(lang, shown, notation)
    lines = [t("coach.title", lang, player=shown[advice.seat], round=advice.round)]
    lines.append(words.headed("coach.best", advice.best, advice.seat))
    lines += [_BULLET + words.reason(r) for r in advice.best.reasons]
    if advice.runner_up is None:
        lines.append(_BULLET + t("coach.only_move", lang))
    if advice.hand:
        lines.append(words.hand(advice.hand))
    if advice.volcano is not None:
        lines.append(words.volcano(advice.volcano))
    if advice.runner_up is not None:
        lines.append(words.runner_up(advice.runner_up, advice.seat))
        why = [words.why(r) for r in advice.why_not]
        lines += [_BULLET + w for w in why] or [_BULLET + t("coach.why.close", lang)]
    text = "\n".join(lines)
    if len(text) <= MESSAGE_MAX:
        return text
    cut = text.rfind("\n", 0, MESSAGE_MAX - 2)  # whole lines only
    return text[:cut] + "\n…"


class _Words:
    """Reasons of one locale and table in words."""

    def __init__(self, lang: str, names: list[str], notation: bool = True) -> None:
        self.lang = lang
        self.names = names
        self.notation = notation

    # ------------------------------------------------------------------ pieces

    def card(self, card: object) -> str:
        return t(f"game.scoring.{card}.name", self.lang)

    def points(self, value: int) -> str:
        """``3 points``, ``1 point``, ``−4 points`` (a true minus sign)."""
        shown = f"−{-value}" if value < 0 else str(value)
        return t(f"game.points.{plural_form(value, self.lang)}", self.lang, count=shown)

    def number(self, value: int) -> str:
        return f"−{-value}" if value < 0 else str(value)

    def decimal(self, tenths: int) -> str:
        return decimal(tenths / 10, self.lang)

    def percent(self, chance: int) -> str:
        return percent(chance / 100, self.lang)

    def player(self, seat: object) -> str:
        return self.names[seat] if isinstance(seat, int) and 0 <= seat < len(self.names) else "?"

    def joined(self, items: Sequence[str]) -> str:
        return listed(items, self.lang)

    def move(self, move: str, seat: int) -> str:
        """The move said to the asker ("you land on site 46"): after a colon, lower case but in German, where what
        follows a colon as a whole sentence starts with a capital ("Bester Zug: Du landest auf Bauplatz 46")."""
        words = describe_move(move, self.lang, self.names, seat, you=True)
        return words if self.lang == "de" else words[:1].lower() + words[1:]

    # ------------------------------------------------------------------ a move's reasons

    def reason(self, r: Reason) -> str:
        lang, code = self.lang, r.code
        if code == "build_points":
            return tn("coach.reason.build_points", r.number("points"), lang)
        if code == "build_expected":
            tenths, chance = r.number("tenths"), r.number("chance")
            count = self.decimal(tenths)
            form = plural_form(tenths / 10, lang)
            if chance >= 100:
                return t(f"coach.reason.build_expected_sure.{form}", lang, count=count)
            return t(f"coach.reason.build_expected.{form}", lang, count=count, chance=self.percent(chance))
        if code == "card_score":
            return t("coach.reason.card_score", lang, card=self.card(r["card"]), mine=self.points(r.number("points")),
                     player=self.player(r["other"]), theirs=self.points(r.number("other_points")))
        if code == "card_score_alone":
            return t("coach.reason.card_score_alone", lang, card=self.card(r["card"]),
                     mine=self.points(r.number("points")))
        if code == "destroys":
            return t("coach.reason.destroys", lang, yours=tn("coach.count.buildings", r.number("yours"), lang),
                     others=tn("coach.count.buildings", r.number("others"), lang))
        if code in ("card_gain", "card_loss"):
            chance = r.number("chance")
            key = f"coach.reason.{code}" if chance >= 100 else f"coach.reason.{code}_maybe"
            return t(key, lang, card=self.card(r["card"]), now=self.number(r.number("now")),
                     after=self.points(r.number("after")), chance=self.percent(chance))
        if code == "bird_chip":
            chance, left = r.number("chance"), r.number("left")
            key = "coach.reason.bird_chip" if chance >= 100 else "coach.reason.bird_chip_maybe"
            return tn(key, left, lang, chance=self.percent(chance))
        if code in ("opens", "reveals"):
            return tn(f"coach.reason.{code}", r.number("count"), lang)
        if code == "takes_from":
            seats = r["seats"]
            players = self.joined([self.player(s) for s in seats]) if isinstance(seats, tuple) else "?"
            return t("coach.reason.takes_from", lang, players=players)
        if code == "shares":
            return t("coach.reason.shares", lang, player=self.player(r["seat"]))
        if code == "on_volcano":
            return t(f"coach.reason.on_volcano.{r['status']}", lang, chance=self.percent(r.number("chance")))
        if code == "double_plan":
            sites = r["sites"]
            listed = self.joined([str(s) for s in sites]) if isinstance(sites, tuple) else ""
            return tn("coach.reason.double_plan", r.number("options"), lang,
                      kind=t(f"game.card.{r['kind']}.short", lang), sites=listed)
        if code == "set_choice":
            letter = str(r["set"])
            return t("coach.reason.set_choice", lang, set=t("game.set.label", lang, set=letter,
                                                            name=t(f"game.set.{letter}.name", lang)),
                     cards=t(f"game.set.{letter}.cards", lang))
        if code == "pile_cards":
            cards = r["cards"]
            listed = self.joined([self.card(c) for c in cards]) if isinstance(cards, tuple) else ""
            letter = str(r["set"])
            return t("coach.reason.pile_cards", lang, owner=self.player(r["owner"]), cards=listed or "—",
                     set=t("game.set.label", lang, set=letter, name=t(f"game.set.{letter}.name", lang)))
        if code == "discard_card":
            return t("coach.reason.discard_card", lang, card=self.card(r["card"]))
        if code == "ends_game":
            chips = r["chips"]
            if not isinstance(chips, tuple) or not chips:
                return t("coach.reason.ends_game_no_birds", lang)
            return t("coach.reason.ends_game", lang, points=self.number(r.number("points")),
                     chips=" + ".join(str(c) for c in chips))
        # no_build and pass_rest take no parameters
        return t(f"coach.reason.{code}", lang)

    # ------------------------------------------------------------------ the position and the runner-up

    def hand(self, hand: Sequence[CardNow]) -> str:
        return t("coach.hand_line", self.lang, cards=" · ".join(map(self.card_now, hand)))

    def card_now(self, now: CardNow) -> str:
        """A scoring card of the hand with what it scores now, for the seat and the best other seat."""
        card, mine, other = self.card(now["card"]), self.number(now["points"]), now["other"]
        if other is None:
            return t("coach.hand_card_alone", self.lang, card=card, mine=mine)
        return t("coach.hand_card", self.lang, card=card, mine=mine, player=self.player(other),
                 theirs=self.number(now["other_points"]))

    def volcano(self, risk: VolcanoRisk) -> str:
        status = t(f"coach.volcano_status.{risk.status}", self.lang, chance=self.percent(risk.chance))
        if risk.buildings:
            mine = tn("coach.volcano_buildings", risk.buildings, self.lang)
        else:
            mine = t("coach.volcano_none", self.lang)
        return t("coach.volcano_line", self.lang, status=status, buildings=mine)

    def runner_up(self, second: MoveAdvice, seat: int) -> str:
        return self.headed("coach.runner_up", second, seat)

    def headed(self, key: str, advised: MoveAdvice, seat: int) -> str:
        """``key``'s line for a move: its notation and words, or its words alone."""
        words = self.move(advised.move, seat)
        if self.notation:
            return t(key, self.lang, move=advised.move, words=words)
        return t(f"{key}_words", self.lang, words=words)

    def why(self, r: Reason) -> str:
        lang = self.lang
        if r.code in ("value_gap", "close_call"):
            return tn(f"coach.why.{r.code}", r.number("playouts"), lang, gap=r.number("gap"))
        if r.code == "fewer_points":
            return tn("coach.why.fewer_points", r.number("count"), lang)
        codes = r["codes"]
        labels = [t(f"coach.code.{c}", lang) for c in codes] if isinstance(codes, tuple) else []
        return t(f"coach.why.{r.code}", lang, list=self.joined(labels))
