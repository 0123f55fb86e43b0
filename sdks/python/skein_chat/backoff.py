"""Exponential back-off with jitter, capped: how long to wait before the next attempt."""

from __future__ import annotations

import random


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
