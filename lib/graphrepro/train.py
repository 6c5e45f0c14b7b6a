"""Seeding, devices and HGCN's full-batch training loop with early stopping on validation."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch

DEVICES = ("auto", "cpu", "cuda")


def seed_everything(seed: int) -> np.random.Generator:
    """Seed python, numpy and torch; return a numpy generator for the run's own sampling."""
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    return np.random.default_rng(seed)


def resolve_device(name: str) -> torch.device:
    """``auto`` takes CUDA when present, else the CPU; ``cuda`` without a GPU is an error."""
    if name not in DEVICES:
        raise ValueError(f"unknown device {name!r}; choose from {DEVICES}")
    if name == "cuda" and not torch.cuda.is_available():
        raise RuntimeError("device 'cuda' was asked for but torch sees no CUDA GPU; use 'auto' or 'cpu'")
    if name == "auto":
        name = "cuda" if torch.cuda.is_available() else "cpu"
    return torch.device(name)


@dataclass(frozen=True)
class Stopping:
    """HGCN's stopping rule: at most ``max_epochs``; stop when ``patience`` evaluations in a row fail to
    improve, but only after ``min_epochs`` (the counter is compared with ``==``, as in the original)."""

    max_epochs: int = 5000
    patience: int = 100
    min_epochs: int = 100


@dataclass(frozen=True)
class FitResult:
    """Validation and test metrics at the best validation epoch, and how long training went."""

    val: dict[str, float]
    test: dict[str, float]
    best_epoch: int
    epochs_run: int
    diverged: bool = False


def fit(
    step: Callable[[], float],
    evaluate: Callable[[], tuple[dict[str, float], Callable[[], dict[str, float]]]],
    score: Callable[[dict[str, float]], float],
    stopping: Stopping,
) -> FitResult:
    """Train epoch by epoch; test metrics are taken at the epoch whose validation score is best.

    A step that raises ``FloatingPointError`` (a non-finite loss) ends training: the run keeps its
    best epoch so far and is marked as diverged.
    """
    best_score, best, counter, diverged = -np.inf, None, 0, False
    epoch = 0
    for epoch in range(stopping.max_epochs):
        try:
            step()
        except FloatingPointError:
            diverged = True
            break
        val, test_now = evaluate()
        if score(val) > best_score:
            best_score, best, counter = score(val), (val, test_now(), epoch), 0
        else:
            counter += 1
            if counter == stopping.patience and epoch > stopping.min_epochs:
                break
    if best is None:
        return FitResult({}, {}, -1, epoch + 1, diverged)
    val, test, best_epoch = best
    return FitResult(val, test, best_epoch, epoch + 1, diverged)
