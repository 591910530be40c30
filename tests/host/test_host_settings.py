"""Settings from the environment and a ``.env`` file; ``.env.example`` documents every one."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from bot.host.settings import AI_STRENGTHS, Settings, SettingsError, parse_env
from engine.ai import OFFERED, STRENGTHS


def test_defaults() -> None:
    s = Settings.load(env_file=None, environ={})
    assert (s.database_path, s.reminder_hours, s.away_hours, s.ai_strength, s.default_locale, s.log_level) == (
        "santacruz.db", 12.0, 48.0, "greedy", "en", "INFO")
    assert s.dev_guild_id is None and s.discord_token == ""


def test_the_environment_wins_over_the_file(tmp_path: Path) -> None:
    env = tmp_path / ".env"
    env.write_text("# comment\n\nexport DISCORD_TOKEN='abc # not a comment'\nDATABASE_PATH=games.db  # here\n"
                   'REMINDER_HOURS="6"\nDEV_GUILD_ID=\nAI_STRENGTH=Expert\nLOG_LEVEL=debug\n', encoding="utf-8")
    s = Settings.load(env, environ={"DATABASE_PATH": "/data/sc.db", "AWAY_HOURS": "24"})
    assert s.discord_token == "abc # not a comment"
    assert s.database_path == "/data/sc.db" and s.reminder_hours == 6.0 and s.away_hours == 24.0
    assert s.dev_guild_id is None and s.ai_strength == "expert" and s.log_level == "DEBUG"
    assert "abc" not in repr(s)  # the token is never logged
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.database_path = "x"  # type: ignore[misc]


def test_ai_strength_is_one_of_the_offered_strengths() -> None:
    assert AI_STRENGTHS == OFFERED
    for strength in STRENGTHS:
        environ = {"AI_STRENGTH": strength.capitalize()}
        if strength in OFFERED:
            assert Settings.load(env_file=None, environ=environ).ai_strength == strength
        else:
            with pytest.raises(SettingsError, match=f"AI_STRENGTH must be one of {', '.join(OFFERED)}, not"):
                Settings.load(env_file=None, environ=environ)
    with pytest.raises(SettingsError, match=f"AI_STRENGTH must be one of {', '.join(OFFERED)}, not 'godlike'"):
        Settings.load(env_file=None, environ={"AI_STRENGTH": "godlike"})


def test_a_missing_file_is_fine(tmp_path: Path) -> None:
    assert Settings.load(tmp_path / "nope.env", environ={"DEV_GUILD_ID": "123"}).dev_guild_id == 123


@pytest.mark.parametrize(("name", "value", "message"), [
    ("DEV_GUILD_ID", "abc", "DEV_GUILD_ID"),
    ("DEV_GUILD_ID", "12²", "DEV_GUILD_ID"),  # a Unicode digit: str.isdigit says yes, int() says no
    ("REMINDER_HOURS", "soon", "REMINDER_HOURS"),
    ("AWAY_HOURS", "0", "AWAY_HOURS"),
    ("AI_SECONDS", "-1", "AI_SECONDS"),
    ("AI_STRENGTH", "godlike", "AI_STRENGTH"),
    ("DEFAULT_LOCALE", "es", "DEFAULT_LOCALE"),
    ("LOG_LEVEL", "loud", "LOG_LEVEL"),
])
def test_bad_values_name_the_variable(name: str, value: str, message: str) -> None:
    with pytest.raises(SettingsError, match=message):
        Settings.load(env_file=None, environ={name: value})


def test_bad_env_lines_are_reported() -> None:
    with pytest.raises(SettingsError, match="line 2"):
        parse_env("A=1\njust words\n")
    with pytest.raises(SettingsError, match="not closed"):
        parse_env("A='open\n")


def test_env_example_lists_every_setting_with_a_comment() -> None:
    lines = Path(".env.example").read_text(encoding="utf-8").splitlines()
    names = [f.name.upper() for f in dataclasses.fields(Settings)]
    listed = [m.group(1) for line in lines if (m := re.match(r"([A-Z_]+)=", line))]
    assert listed == names
    for i, line in enumerate(lines):
        if re.match(r"[A-Z_]+=", line):
            assert lines[i - 1].startswith("# "), line
    # the example itself is a valid configuration
    Settings.from_mapping(parse_env("\n".join(lines)))


def test_postgresql_and_shard_settings() -> None:
    settings = Settings.load(env_file=None, environ={
        "DATABASE_URL": "postgresql://bot:hunter2@db:5432/santacruz", "SHARD_COUNT": "4", "SHARD_IDS": "0, 2"})
    assert (settings.shard_count, settings.shard_ids) == (4, (0, 2))
    assert "hunter2" not in repr(settings)
    assert Settings.load(env_file=None, environ={}).shard_ids == ()
    assert Settings.load(env_file=None, environ={"PICTURE_WIDTH": "800"}).picture_width == 800


@pytest.mark.parametrize(("environ", "message"), [
    ({"DATABASE_URL": "mysql://x"}, "DATABASE_URL"),
    ({"SHARD_IDS": "0"}, "needs SHARD_COUNT"),
    ({"SHARD_COUNT": "2", "SHARD_IDS": "0,2"}, "from 0 to 1"),
    ({"SHARD_COUNT": "2", "SHARD_IDS": "1,1"}, "distinct"),
    ({"SHARD_COUNT": "two"}, "whole number"),
    ({"SHARD_COUNT": "2", "SHARD_IDS": "0;1"}, "separated by commas"),
    ({"SHARD_COUNT": "0"}, "at least 1"),
    ({"PICTURE_WIDTH": "wide"}, "PICTURE_WIDTH must be a whole number"),
    ({"PICTURE_WIDTH": "799"}, "PICTURE_WIDTH must be a whole number from 800 to 2400"),
    ({"PICTURE_WIDTH": "2401"}, "from 800 to 2400"),
])
def test_bad_postgresql_and_shard_settings_are_refused(environ: dict[str, str], message: str) -> None:
    with pytest.raises(SettingsError, match=message):
        Settings.load(env_file=None, environ=environ)


def test_web_settings_and_where_the_links_point() -> None:
    assert Settings.load(env_file=None, environ={}).web_url == ""  # no pages, no links
    assert Settings.load(env_file=None, environ={"WEB_PORT": "8081"}).web_url == "http://127.0.0.1:8081"
    wildcard = Settings.load(env_file=None, environ={"WEB_PORT": "8081", "WEB_HOST": "0.0.0.0"})
    assert wildcard.web_url == "http://127.0.0.1:8081", "a link to 0.0.0.0 reaches nobody"
    public = Settings.load(env_file=None, environ={"PUBLIC_URL": "https://santacruz.example/games/",
                                                   "WEB_SECRET": "k" * 32})
    assert public.web_url == "https://santacruz.example/games" and public.web_port is None
    assert "k" * 32 not in repr(public)  # the key that signs the players' links is never logged


@pytest.mark.parametrize(("environ", "message"), [
    ({"WEB_PORT": "0"}, "WEB_PORT must be a port number"),
    ({"WEB_PORT": "web"}, "WEB_PORT must be a port number"),
    ({"WEB_PORT": "8080", "HTTP_PORT": "8080"}, "/metrics stays on the private health port"),
    ({"PUBLIC_URL": "santacruz.example"}, "PUBLIC_URL must be an http:// or https:// address"),
    ({"PUBLIC_URL": "https://santacruz.example/?x=1"}, "without \\? or #"),
    ({"WEB_SECRET": "short"}, "WEB_SECRET must be at least 32 characters"),
])
def test_bad_web_settings_are_refused(environ: dict[str, str], message: str) -> None:
    with pytest.raises(SettingsError, match=message):
        Settings.load(env_file=None, environ=environ)
