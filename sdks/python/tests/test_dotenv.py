"""What ``npx skein-sdk bot create`` leaves behind is enough to start a bot: ``Bot.from_env`` reads the
``.env`` of the working folder (the environment wins over it), and a cursor file the TypeScript SDK
wrote (the bare cursor) resumes a Python bot as well as its own JSON does."""

from __future__ import annotations

from pathlib import Path

import pytest

from skein_chat import Bot
from skein_chat.bot import read_dotenv


def test_when_a_dotenv_file_is_there_then_from_env_reads_it_and_the_environment_wins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / ".env").write_text(
        "# Written by `skein-sdk bot create`\n"
        "SKEIN_URL=http://skein.example:8080\n"
        "SKEIN_API_KEY='sk_from_the_file'\n"
        "SKEIN_CURSOR_FILE=echobot.cursor  # resumes there\n"
        "not a line of its\n",
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    for name in ("SKEIN_URL", "SKEIN_TOKEN", "SKEIN_API_KEY", "SKEIN_CURSOR_FILE"):
        monkeypatch.delenv(name, raising=False)
    assert read_dotenv() == {
        "SKEIN_URL": "http://skein.example:8080",
        "SKEIN_API_KEY": "sk_from_the_file",
        "SKEIN_CURSOR_FILE": "echobot.cursor",
    }
    bot = Bot.from_env()
    assert (bot.base_url, bot.api_key, bot.token) == ("http://skein.example:8080", "sk_from_the_file", None)
    assert bot.cursor_file == Path("echobot.cursor")

    monkeypatch.setenv("SKEIN_URL", "http://elsewhere:9000")
    assert Bot.from_env().base_url == "http://elsewhere:9000"


def test_when_the_cursor_file_holds_the_typescript_sdks_bare_cursor_then_the_bot_resumes_from_it(
    tmp_path: Path,
) -> None:
    bare = tmp_path / "ts.cursor"
    bare.write_text("0000000000000042\n", encoding="utf-8")
    own = tmp_path / "py.cursor"
    own.write_text('{"cursor": "0000000000000043"}', encoding="utf-8")
    assert Bot("http://localhost:8080", api_key="sk_x", cursor_file=bare)._load_cursor() == "0000000000000042"
    assert Bot("http://localhost:8080", api_key="sk_x", cursor_file=own)._load_cursor() == "0000000000000043"
