"""``santacruz-bot backup FILE``: a consistent copy of the SQLite database while the bot runs.

SQLite's online backup API copies the database page by page inside one read transaction, so the copy is the
database as it was at one moment, every move whole, even while the bot writes (a file copy made with ``cp`` meanwhile
can be torn). The copy is written beside ``FILE`` first and renamed when it is complete and checked
(``PRAGMA integrity_check``), so a backup that fails leaves no half file behind. PostgreSQL has its own tools
(``pg_dump``; see the README).
"""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path


class BackupError(Exception):
    """The backup could not be made; the message says why in words."""


@dataclass(frozen=True, slots=True)
class BackupReport:
    target: Path
    size: int
    """Bytes of the copy."""
    games: int
    moves: int
    schema: int

    def line(self) -> str:
        return (f"backed up to {self.target}: {self.games} games, {self.moves} moves, schema version {self.schema}, "
                f"{self.size / 1_000_000:.1f} MB")


def backup_sqlite(source: str | Path, target: str | Path) -> BackupReport:
    """Copy the SQLite database ``source`` to ``target`` (which must not exist) consistently, while others write."""
    source, target = Path(source), Path(target)
    if not source.is_file():
        raise BackupError(f"there is no database at {source} (DATABASE_PATH)")
    if target.exists():
        raise BackupError(f"{target} exists already: choose a new file (a backup never overwrites one)")
    partial = target.with_name(f".{target.name}.partial")
    try:
        with sqlite3.connect(f"file:{source}?mode=ro", uri=True, timeout=30) as src, \
                sqlite3.connect(partial) as dst:
            src.backup(dst)
            dst.execute("PRAGMA journal_mode = DELETE")  # the copy is one file, no WAL beside it
            check = dst.execute("PRAGMA integrity_check").fetchone()[0]
            if check != "ok":
                raise BackupError(f"the copy did not pass SQLite's integrity check: {check}")
            games = dst.execute("SELECT COUNT(*) FROM games").fetchone()[0]
            moves = dst.execute("SELECT COUNT(*) FROM moves").fetchone()[0]
            schema = dst.execute("PRAGMA user_version").fetchone()[0]
        src.close()
        dst.close()
        os.replace(partial, target)
    except sqlite3.Error as exc:
        raise BackupError(f"the backup failed: {exc}") from None
    finally:
        partial.unlink(missing_ok=True)
    return BackupReport(target, target.stat().st_size, games, moves, schema)
