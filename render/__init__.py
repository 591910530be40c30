"""Pictures of Santa Cruz positions for Discord, made with Pillow from ``Game.view(seat)`` only.

Each picture is a module of its own; the package itself imports none of them, so that a reader of a light module
(the settings reading :data:`render.theme.WIDTHS`) loads neither Pillow nor the renderer::

    from render.overview import render_overview    # what the chat shows without a tap; personal=True: a DM's
    from render.board import render_board          # the channel's picture; personal=True: a seat's DM
    from render.gameover import render_game_over   # final ranking and score chart
    from render.legend import render_legend        # what the pictures' signs mean
    from render.replay import render_replay        # animated replay of a finished game
    from render.describe import legal_sites        # the sites a personal picture's flags mark
    from render.theme import Theme, WIDTHS         # colours, sizes, player letters; the widths drawn
    from render import inline                      # how large Discord shows a picture inline (no Pillow)

    png = render_board(game.view(None), locale="de")
    png = render_board(game.view(seat), personal=True)
    gif = render_replay([view0, view1, ...], locale="fr")

The static island is drawn once per board and cached; a render draws only what changes and writes
a palette PNG (at most 1 MiB, ``Theme.width`` pixels wide). Hidden information never reaches the
picture because the renderer reads nothing but the view.
"""
