"""What several test modules share, one module a topic (a test module imports from here, never from another test
module or a ``conftest.py``):

=================  ====================================================================================================
``engine.py``      a tiny island and positions laid by hand, for rule tests
``clock.py``       :class:`~tests.helpers.clock.Clock`, the host's clock that the test moves, and local wall times
``host.py``        the host as the host tests drive it: people and channels, ``make_host``, the person to move, a
                   game played to its end, a refusal
``damage.py``      a stored game damaged behind the stores' backs, every kind of damage the host quarantines
``driver.py``      :class:`~tests.helpers.driver.Driver`: the real bot against the fake Discord, played through
                   interactions; what tests look for in its messages
``secrets.py``     the search of a log for a game's secrets; the scoring cards whose names give a hand away
``names.py``       names people choose: hostile ones (markdown, links, mentions) and long ones in several scripts
``http.py``        the bot's own HTTP servers as tests talk to them: a free port, answers, live events, metrics
``web.py``         :class:`~tests.helpers.web.Site`: a host with a game and its web pages, for the web tests
``layout.py``      the modules of a package and what each imports, read from the source, for the layout tests
``shards.py``      two bot processes (shards 0 and 1) over one PostgreSQL against the fake Discord
=================  ====================================================================================================

Fixtures are in the ``conftest.py`` files (the stores, ``clock`` and ``host`` in ``tests/conftest.py``); the fake
Discord and what reads its messages (``audit.py``, ``remote.py``) are the package ``tests/fakediscord``.
"""
