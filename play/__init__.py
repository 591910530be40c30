"""Santa Cruz without Discord: the terminal game and the offline demo (``santacruz play`` / ``demo``),
and the computer players' arena and balance reports (``python -m play.arena``, ``python -m play.balance``)."""
