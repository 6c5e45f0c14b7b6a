"""Hyperparameter search on validation: a grid of settings and the choice of the best one."""

from __future__ import annotations

import itertools
import math
from typing import Any


def grid(space: dict[str, list[Any]]) -> list[dict[str, Any]]:
    """Every combination of the values in ``space``, in the order the values are listed."""
    names = list(space)
    return [dict(zip(names, values)) for values in itertools.product(*(space[n] for n in names))]


def best(scores: list[float]) -> int | None:
    """The index of the highest validation score; a tie goes to the earlier setting, NaN never wins,
    and None when no score is a number (every trial failed)."""
    finite = [(s, -i) for i, s in enumerate(scores) if not math.isnan(s)]
    return -max(finite)[1] if finite else None
