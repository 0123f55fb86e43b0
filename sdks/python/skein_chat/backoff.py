"""Exponential back-off with jitter, capped: how long to wait before the next attempt."""

from __future__ import annotations

import asyncio
import random

import httpx


class Backoff:
    """Each ``next()`` doubles the ceiling, from ``initial`` up to ``cap``, and answers a wait drawn
    from its upper half ([ceiling/2, ceiling]), so that many clients cut off at once (a restart of
    Skein) do not all come back in the same instant. ``reset()`` starts again from ``initial``."""

    def __init__(self, initial: float = 0.5, cap: float = 30.0, rng: random.Random | None = None) -> None:
        if initial <= 0 or cap < initial:
            raise ValueError("Backoff needs 0 < initial <= cap")
        self.initial = initial
        self.cap = cap
        self._ceiling = initial
        self._rng = rng or random.Random()

    def next(self) -> float:
        ceiling = self._ceiling
        self._ceiling = min(ceiling * 2, self.cap)
        return self._rng.uniform(ceiling / 2, ceiling)

    def reset(self) -> None:
        self._ceiling = self.initial


READINESS_PROBE_SECONDS = 0.5
"""How often a wait polls the service's readiness (``GET /readyz``) while the service is away."""


async def pause_until_ready(seconds: float, base_url: str, *, down: bool) -> None:
    """Sleeps ``seconds``, but watches a service that went away: ``GET /readyz`` every half second,
    and returns (after a short jitter, so the bots one restart dropped do not all come back in the
    same instant) as soon as it answers ready again. ``down`` says the failure that led here was the
    service's absence (no answer, 502-504): then the first ready answer ends the wait; otherwise only
    one after a probe that found it not ready. A service that answers but refuses keeps the back-off."""
    if seconds <= READINESS_PROBE_SECONDS:
        await asyncio.sleep(seconds)
        return
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    saw_down = down
    url = base_url.rstrip("/") + "/readyz"
    async with httpx.AsyncClient(timeout=2.0) as http:
        while True:
            left = deadline - loop.time()
            if left <= 0:
                return
            await asyncio.sleep(min(READINESS_PROBE_SECONDS, left))
            if loop.time() >= deadline:
                return
            try:
                ready = (await http.get(url)).status_code == 200
            except httpx.HTTPError:
                ready = False
            if not ready:
                saw_down = True
            elif saw_down:
                await asyncio.sleep(random.uniform(0, 0.25))
                return
