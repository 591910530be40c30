"""The ``/santacruz`` commands by feature, each with its buttons' handlers and its autocomplete: ``lobby`` (open,
join, leave, start, computers, kick), ``turn`` (land, build, score, choose, undo, hint: one confirmation flow and one
*Undo*), ``table`` (status, board, log, away, back, abandon, rematch, vacation, rules), ``archive`` (history, stats)
and ``person`` (games, settings, forget me). :class:`bot.adapter.cog.SantaCruzCog` is composed of them; discord.py
collects the commands of every class a cog is made of, so the command tree is the same as one class would give."""
