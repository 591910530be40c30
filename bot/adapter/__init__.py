"""The discord.py adapter: Discord input in, the host's answers out as messages.

Imports go one way (``tests/adapter/test_layout.py``): ``client`` (the bot, start-up and shutdown) → ``cog`` (the
cog, composed of the features of ``commands``: lobby, turn, table, archive, person) → the services (``background``:
computer moves, reminders, start-up; ``publish``: the channels' outboxes, ``delivery``: one post or DM sent,
``undo_marks``: *Undo* on the latest post, ``lobby_message``; ``dms``: hands by DM; ``gone_channels``; ``errors``:
refusals in words; ``options``: autocomplete) → ``views`` (ready-made sets of buttons), ``posts`` (a post's layout)
→ ``items`` (the buttons and menus, checked once) → ``ids`` (every custom_id) and ``words`` (every text, by the
surface it appears on) → ``sending`` (the plain ways to speak). ``translator`` gives command descriptions in each
language; ``main`` is the ``santacruz-bot`` entry point. The host (``bot.host``) makes every decision.
"""
