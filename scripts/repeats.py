"""Count the repeated code under a folder, as issue 19 measured it, with and without field declarations.

    python scripts/repeats.py bot/host            # the working tree
    python scripts/repeats.py bot/host --rev d32b760   # the folder as it was at a commit

It runs the workplace's ``duplicates`` command (on PATH where the workplace has it) with ``--min-lines 3`` over
a copy of the folder and sums its rows: the pairs, the runs (each pair's longest run plus its "+N more runs"),
and the runs not marked boilerplate. It does so twice: on the folder as it is, and with the declared fields of
every class (an annotated name and the docstring under it) blanked out, so that the declarations of different
value types (rows, answers, settings: ``game_id: int`` in six of them) are told apart from repeated logic.
"""

from __future__ import annotations

import argparse
import ast
import io
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

_ROW = re.compile(r"D\d+ ")
_MORE = re.compile(r"\(\+(\d+) more runs?\)")


def count(folder: Path) -> tuple[int, int, int]:
    """(pairs, runs, runs not marked boilerplate) that ``duplicates`` finds under ``folder``."""
    out = subprocess.run(["duplicates", "--repo", str(folder), "--min-lines", "3", "--most", "200",
                          "--seconds", "120"], check=True, capture_output=True, text=True).stdout
    pairs = runs = plain = 0
    for line in out.splitlines():
        if not _ROW.match(line):
            continue
        more = _MORE.search(line)
        k = 1 + (int(more.group(1)) if more else 0)
        pairs += 1
        runs += k
        plain += 0 if "boilerplate" in line else k
    return pairs, runs, plain


def blank_fields(folder: Path) -> None:
    """Blank every class's declared fields (and the docstring under each) in the ``.py`` files of ``folder``."""
    for path in folder.rglob("*.py"):
        lines = path.read_text().splitlines(keepends=True)
        drop: set[int] = set()
        for node in ast.walk(ast.parse("".join(lines))):
            if not isinstance(node, ast.ClassDef):
                continue
            for i, statement in enumerate(node.body):
                if not isinstance(statement, ast.AnnAssign):
                    continue
                end = statement.end_lineno or statement.lineno
                after = node.body[i + 1] if i + 1 < len(node.body) else None
                if (isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant)
                        and isinstance(after.value.value, str)):
                    end = after.end_lineno or after.lineno
                drop.update(range(statement.lineno, end + 1))
        path.write_text("".join("\n" if n in drop else line for n, line in enumerate(lines, 1)))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder", type=Path)
    ap.add_argument("--rev", help="count the folder as it was at this commit (git archive)")
    args = ap.parse_args(argv)
    if shutil.which("duplicates") is None:
        sys.exit("this needs the workplace's duplicates command on PATH")
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "tree"
        if args.rev:
            data = subprocess.run(["git", "archive", args.rev, str(args.folder)], check=True,
                                  capture_output=True).stdout
            with tarfile.open(fileobj=io.BytesIO(data)) as tar:
                tar.extractall(copy, filter="data")
            copy = copy / args.folder
        else:
            shutil.copytree(args.folder, copy, ignore=shutil.ignore_patterns("__pycache__"))
        for label in ("as it is", "fields of classes blanked"):
            pairs, runs, plain = count(copy)
            print(f"{label}: {pairs} pairs, {runs} runs, {plain} not boilerplate")
            blank_fields(copy)


if __name__ == "__main__":
    main()
