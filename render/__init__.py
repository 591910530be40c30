"""Pictures of Santa Cruz positions for Discord, made with Pillow from ``Game.view(seat)`` only.

Public API::

    png = render_board(game.view(None), locale="de")               # the channel's picture
    png = render_board(game.view(seat), personal=True)             # a seat's DM: its legal sites flagged
    png = render_game_over(game.view(None))                        # final ranking and score chart
    png = render_legend(locale="de")                                # what the pictures' signs mean
    gif = render_replay([view0, view1, ...], locale="fr")          # animated replay of a finished game
    legal_sites(game.view(seat))                                   # the sites the flags mark
    Theme(...)                                                     # colours, sizes, player letters

The static island is drawn once per board and cached; a render draws only what changes and writes
a palette PNG (at most 1 MiB, ``Theme.width`` pixels wide). Hidden information never reaches the
picture because the renderer reads nothing but the view.
"""

from render.board import render_board
from render.describe import legal_sites
from render.gameover import render_game_over
from render.legend import render_legend
from render.replay import render_replay
from render.theme import Theme

__all__ = ["Theme", "legal_sites", "render_board", "render_game_over", "render_legend", "render_replay"]
