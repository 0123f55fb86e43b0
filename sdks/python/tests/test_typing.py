"""The package type-checks under mypy --strict, with the examples (shipped in it, skein_chat.examples)
as its first consumers (the wheel ships py.typed, so a bot's own mypy reads these hints)."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

SDK = Path(__file__).resolve().parent.parent
# Outside the repository: Prettier (npm run lint) would read the cache's JSON files.
CACHE = Path(tempfile.gettempdir()) / "skein-chat-mypy-cache"


def test_when_mypy_strict_checks_the_package_and_the_examples_then_it_finds_nothing() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(CACHE), "skein_chat"],
        cwd=SDK,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert (SDK / "skein_chat" / "py.typed").exists()
