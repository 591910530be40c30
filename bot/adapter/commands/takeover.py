"""Someone new takes over a seat the computer plays for a person who left it: ``/santacruz join`` in a running game
(its ``seat`` autocomplete lists the seats that may be taken), *Take this seat* under the post that handed a seat to
the computer, and the opener's *Confirm* under the offer. The host decides (:mod:`bot.host.takeover`): who may offer,
which seat, who confirms, the lapse after a day, the seat's own person coming back first; here the clicks are checked
before they act and the answers become replies."""

from __future__ import annotations

import discord
from discord.app_commands import Choice

from bot.adapter.commands.base import Feature, can_manage
from bot.adapter.sending import reply
from bot.adapter.words.common import OPTION_MAX, clip, esc
from i18n import t


class TakeoverCommands(Feature):
    """Offers to take a seat and their confirmation."""

    async def _offer_seat(self, interaction: discord.Interaction, channel_id: int, seat: int | None) -> None:
        """``interaction``'s user offers to take ``seat`` (from 0; ``None``: the only one that may be taken); the
        offer's post, with the opener's *Confirm*, goes out from the outbox."""
        if not interaction.response.is_done():
            await interaction.response.defer(ephemeral=True, thinking=True)  # the host may wait for the database
        change = await self.host.takeover.offer(channel_id, interaction.user.id, interaction.user.display_name, seat)
        self.background.after(change)
        await reply(interaction, t("bot.takeover.reply.offered", await self._locale(interaction),
                                   name=esc(change.name)))

    def _open_seat_choices(self, channel_id: int | None, current: str) -> list[Choice[int]]:
        """The seats of the channel's game that may be taken over, as ``seat`` choices (numbered from 1)."""
        info = self.host.games.info(channel_id) if channel_id is not None else None
        if info is None:
            return []
        seats = [info.seats[number] for number in self.host.takeover.open_seats(info.channel_id)]
        return [Choice(name=clip(f"{s.seat + 1}. {s.name}", OPTION_MAX), value=s.seat + 1) for s in seats
                if current.strip().lower() in f"{s.seat + 1}. {s.name}".lower()]

    # ------------------------------------------------------------------ the buttons

    def check_newcomer(self, interaction: discord.Interaction, game_id: int) -> None:
        """Before *Take this seat* acts: only someone not seated in the game may press it."""
        self.host.takeover.may_offer(self._current(game_id).channel_id, interaction.user.id)

    def check_confirmer(self, interaction: discord.Interaction, game_id: int) -> None:
        """Before *Confirm* acts: only the opener (or someone who may manage the channel) may press it; anyone
        else's click, forged or not, is refused in words and changes nothing."""
        self.host.takeover.may_confirm(self._current(game_id).channel_id, interaction.user.id,
                                       can_manage=can_manage(interaction))

    async def take_seat_clicked(self, interaction: discord.Interaction, game_id: int, seat: int) -> None:
        await self._offer_seat(interaction, self._current(game_id).channel_id, seat)

    async def takeover_confirmed(self, interaction: discord.Interaction, game_id: int, seat: int,
                                 user_id: int) -> None:
        """The opener's *Confirm*: the seat is the newcomer's (the host checks the offer still stands); the offer's
        post loses its button, the channel is told, the newcomer gets the hand (or the turn) by DM."""
        change = await self.host.takeover.confirm(self._current(game_id).channel_id, interaction.user.id, seat,
                                                  user_id, can_manage=can_manage(interaction))
        await interaction.response.edit_message(view=None)
        self.background.after(change)
