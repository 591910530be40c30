"""The files that build the container image agree with ``pyproject.toml``: ``requirements.lock`` (made by pip-compile,
installed by the Dockerfile with ``--require-hashes``) pins every runtime dependency, the ``postgres`` extra and the
build backend at a version ``pyproject.toml`` allows, and every locked package with its hashes; the Dockerfile's
version label is the project's version."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
PIN = re.compile(r"^([A-Za-z0-9._-]+)==([^ \\]+)")


def locked() -> dict[str, tuple[str, int]]:
    """The lock's packages: canonical name -> (version, how many hashes)."""
    found: dict[str, tuple[str, int]] = {}
    name: str | None = None
    for line in (ROOT / "requirements.lock").read_text(encoding="utf-8").splitlines():
        pin = PIN.match(line)
        if pin is not None:
            name = canonicalize_name(pin[1])
            found[name] = (pin[2], 0)
        elif name is not None and line.strip().startswith("--hash=sha256:"):
            version, hashes = found[name]
            found[name] = (version, hashes + 1)
    return found


def test_the_lock_pins_what_pyproject_asks_for_with_hashes() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    wanted = [Requirement(r) for r in (*project["project"]["dependencies"],
                                       *project["project"]["optional-dependencies"]["postgres"],
                                       *project["build-system"]["requires"])]
    lock = locked()
    assert len(lock) > len(wanted)  # the transitive dependencies too
    for requirement in wanted:
        name = canonicalize_name(requirement.name)
        assert name in lock, f"{requirement} is not in requirements.lock: regenerate it (README, Container)"
        version = lock[name][0]
        assert requirement.specifier.contains(version, prereleases=True), (
            f"requirements.lock pins {name}=={version}, pyproject.toml asks for {requirement}: regenerate the lock")
    assert not [name for name, (_, hashes) in lock.items() if hashes == 0], "a locked package without hashes"


def test_the_image_label_carries_the_project_version() -> None:
    version = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    assert f"ARG VERSION={version}\n" in dockerfile
    assert 'org.opencontainers.image.version="${VERSION}"' in dockerfile
