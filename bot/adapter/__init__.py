"""The discord.py adapter: Discord input in, the host's answers out as messages.

Imports go one way: ``client`` (the bot, start-up and shutdown) → ``cog`` (commands and clicks) →
the services (``background``: computer moves, reminders, recovery; ``publish``: channel posts;
``dms``: hands by DM; ``errors``: refusals in words; ``options``: autocomplete) → ``views``
(buttons) and ``texts`` (message texts) → ``sending`` (the plain ways to speak). ``translator``
gives command descriptions in each language; ``main`` is the ``santacruz-bot`` entry point. The
host (``bot.host``) makes every decision; nothing here decides a rule.
"""
