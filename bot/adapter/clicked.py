"""The message whose move controls were clicked, edited in place: the question before a move in place of the
controls (*Play it*, *Back*), the controls again (*Back*), the move played (with the controls of the rest of the turn)
or the turn passed, what an *Undo* on it took back.

A hand message (a turn DM, the hand of ``/santacruz status``) is a Components V2 layout and is edited as one
(:mod:`bot.adapter.dm_layout`: the flag stays, no ``content``); any other message with controls (a command's answer,
a DM sent before the hand messages were layouts) is edited as text, its question after :data:`QUESTION_SEP
<bot.adapter.words.moves.QUESTION_SEP>`.
"""

from __future__ import annotations

import discord

from bot.adapter import dm_layout
from bot.adapter.sending import ALLOWED_MENTIONS
from bot.adapter.words.common import MESSAGE_MAX, clip
from bot.adapter.words.moves import split_question, with_question


async def ask(interaction: discord.Interaction, message: discord.Message, question: str,
              buttons: discord.ui.View) -> None:
    """``question`` in place of the clicked message's controls (the click acknowledged already), with ``buttons``
    (*Play it* and *Back*)."""
    dm = dm_layout.read(message)
    if dm is not None:
        layout = dm_layout.layout(dm.asking(question), dm_layout.action_rows(buttons))
        await interaction.edit_original_response(view=layout, allowed_mentions=ALLOWED_MENTIONS)
        return
    await interaction.edit_original_response(content=with_question(message.content, question), view=buttons,
                                             allowed_mentions=ALLOWED_MENTIONS)


async def back(interaction: discord.Interaction, message: discord.Message | None,
               controls: discord.ui.View | None) -> None:
    """*Back*: the clicked message without its question, with ``controls`` (the move controls of now, if any)."""
    dm = dm_layout.read(message) if message is not None else None
    if dm is not None:
        await interaction.response.edit_message(
            view=dm_layout.layout(dm.without_question(), dm_layout.action_rows(controls)),
            allowed_mentions=ALLOWED_MENTIONS)
        return
    content = split_question(message.content)[0] if message is not None else ""
    await interaction.response.edit_message(content=content, view=controls, allowed_mentions=ALLOWED_MENTIONS)


async def played(interaction: discord.Interaction, message: discord.Message | None, line: str, *,
                 over: str | None, after: discord.ui.View | None, own_question: bool) -> None:
    """The clicked message once its move was played (the interaction deferred): ``over`` (how the turn passed, as its
    turn DM says it) when the turn is over, else ``line`` (the move played, and where to build next) below its words;
    ``after`` (*Undo*, the controls of the rest of the turn) in place of its controls. ``own_question``: the click was
    *Play it* under a question of its own (a command's answer), which ``line`` replaces."""
    dm = dm_layout.read(message) if message is not None else None
    if dm is not None:
        rows = dm_layout.action_rows(after)
        layout = (dm_layout.turn_over_layout(dm, over, rows) if over is not None
                  else dm_layout.layout(dm.played(f"**{line}**"), rows))
        await interaction.edit_original_response(view=layout)
        return
    base, was_asked = split_question(message.content) if message is not None else ("", False)
    if message is None or (own_question and not was_asked):
        await interaction.edit_original_response(content=line, view=after)
    elif over is not None:
        await interaction.edit_original_response(content=clip(over, MESSAGE_MAX), view=after)
    else:  # the controls clicked, or the question they asked in place
        await interaction.edit_original_response(content=clip(f"{base}\n**{line}**", MESSAGE_MAX), view=after)


async def taken_back(interaction: discord.Interaction, message: discord.Message | None, text: str) -> None:
    """The clicked message (its *Undo* pressed, the interaction deferred) says only ``text``, what was taken back (a
    hand message keeps its picture), without controls."""
    dm = dm_layout.read(message) if message is not None else None
    if dm is not None:
        await interaction.edit_original_response(view=dm_layout.turn_over_layout(dm, text))
        return
    await interaction.edit_original_response(content=text, view=None)
