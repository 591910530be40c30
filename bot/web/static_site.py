"""A game's web page written as static files, for the offline demo (``santacruz demo`` → ``demo-out/index.html``).

The same template, script and style as the server's page (:mod:`bot.web.server`), with the document of every
position written into the page (a JSON data block, no inline script; the whole game's log once, as every position
shows the same log), so that the replay slider, the zoom and the
log work from the folder alone, opened from the disk with no server and no Discord. The board pictures are the
demo's own (``move-000.png`` …), one per position.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Final

from bot.host.web import Page, WebSeat
from bot.web.document import labels, public_document
from bot.web.server import json_for_html, static_files, templates
from engine import View

PICTURE: Final = "move-{at:03d}.png"
"""The demo's picture of position ``at`` (``play/cli.py`` writes them)."""


class StaticPaths:
    """Where the written page finds its pictures: beside it; nothing to ask a server for."""

    def board(self, page: Page, at: int, locale: str) -> str:
        return PICTURE.format(at=at)

    def personal(self, page: Page, locale: str) -> str | None:
        return None

    def state(self) -> str | None:
        return None

    def events(self) -> str | None:
        return None

    def hint(self) -> str | None:
        return None


def write_page(out: Path, views: Sequence[View], locale: str, *, computers: bool = True) -> Path:
    """Write ``index.html`` (with the documents of every position of ``views``, the public views of the set-up and
    after each move) and the page's script, style and icon into ``out``; the page's path."""
    last = views[-1]
    seats = tuple(WebSeat(p["name"], computers, False) for p in last["players"])
    count = len(views) - 1
    page = Page(token="demo", game_id=0, version=count, status="over" if last["phase"] == "over" else "running",
                locale=locale, seats=seats, hints=False, positions=count, marks=tuple(range(1, count + 1)))
    paths = StaticPaths()
    documents = [public_document(page, view, at, locale, paths, last=last) for at, view in enumerate(views)]
    for document in documents:
        document["live"] = False
    main = documents[-1]
    positions = [{key: value for key, value in document.items() if key != "log"} for document in documents]
    html = templates().get_template("page.html").render(
        doc=main, doc_json=json_for_html(main), positions_json=json_for_html(positions),
        labels=labels(locale), seat=False, og_image=None, og_size=None, description=documents[-1]["turn"],
        static=".", version="demo", demo=True)
    out.mkdir(parents=True, exist_ok=True)
    for name, body in static_files().items():
        (out / name).write_bytes(body)
    index = out / "index.html"
    index.write_text(html, encoding="utf-8")
    return index
