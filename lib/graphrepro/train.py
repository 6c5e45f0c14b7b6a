"""Seeding, devices and HGCN's full-batch training loop with early stopping on validation, run for a
batch of independently seeded members at once (each with its own best epoch and stopping time)."""

from __future__ import annotations

import ctypes
import functools
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np
import torch

DEVICES = ("auto", "cpu", "cuda")

Metrics = dict[str, float]


def seed_everything(seed: int) -> None:
    """Seed python, numpy and torch's global generators."""
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def resolve_device(name: str) -> torch.device:
    """``auto`` takes CUDA when present, else the CPU; ``cuda`` without a GPU is an error."""
    if name not in DEVICES:
        raise ValueError(f"unknown device {name!r}; choose from {DEVICES}")
    if name == "cuda" and not torch.cuda.is_available():
        raise RuntimeError("device 'cuda' was asked for but torch sees no CUDA GPU; use 'auto' or 'cpu'")
    if name == "auto":
        name = "cuda" if torch.cuda.is_available() else "cpu"
    return torch.device(name)


class StoppingRule(Protocol):
    """When a member stops: at most ``max_epochs``; ``stop(counter, epoch)`` is asked after every
    evaluation that did not improve, with ``counter`` evaluations in a row without improvement."""

    max_epochs: int

    def stop(self, counter: int, epoch: int) -> bool:
        """True when the member stops now."""
        ...


@dataclass(frozen=True)
class HGCNStopping:
    """HGCN's stopping rule: stop when ``patience`` evaluations in a row fail to improve, but only after
    ``min_epochs`` (the counter is compared with ``==``, as in the original)."""

    max_epochs: int = 5000
    patience: int = 100
    min_epochs: int = 100

    def stop(self, counter: int, epoch: int) -> bool:
        """HGCN's test: exactly ``patience`` non-improving evaluations, past ``min_epochs``."""
        return counter == self.patience and epoch > self.min_epochs


@dataclass(frozen=True)
class PatienceStopping:
    """Plain early stopping: stop once ``patience`` evaluations in a row fail to improve."""

    max_epochs: int = 1000
    patience: int = 100

    def stop(self, counter: int, epoch: int) -> bool:
        """At least ``patience`` non-improving evaluations."""
        return counter >= self.patience


@dataclass
class FitResult:
    """One member's validation and test metrics at its best validation epoch, and how training went."""

    val: Metrics
    test: Metrics
    best_epoch: int = -1
    epochs_run: int = 0
    diverged: bool = False
    best_score: float = -np.inf
    counter: int = 0
    done: bool = False
    losses: list[float] = field(default_factory=list)  # training loss of every epoch it trained


def fit(
    n_members: int,
    step: Callable[[list[bool]], list[float]],
    evaluate: Callable[[], tuple[list[Metrics], Callable[[int], Metrics]]],
    score: Callable[[Metrics], float],
    stopping: StoppingRule,
) -> list[FitResult]:
    """Train all members epoch by epoch; each keeps the test metrics of its best validation epoch.

    ``step(active)`` trains one epoch and returns every member's loss; a member whose loss is not
    finite stops there as diverged, keeping its best epoch so far. ``evaluate()``
    returns every member's validation metrics and a function giving member s's test metrics now.
    """
    results = [FitResult({}, {}) for _ in range(n_members)]
    for epoch in range(stopping.max_epochs):
        active = [not r.done for r in results]
        if not any(active):
            break
        losses = step(active)
        for r, was_active, loss in zip(results, active, losses):
            if was_active:
                r.losses.append(loss)
                if not np.isfinite(loss):
                    r.diverged, r.done, r.epochs_run = True, True, epoch + 1
        vals, test_now = evaluate()
        for s, r in enumerate(results):
            if r.done:
                continue
            r.epochs_run = epoch + 1
            if score(vals[s]) > r.best_score:
                r.best_score, r.val, r.test, r.best_epoch, r.counter = score(vals[s]), vals[s], test_now(s), epoch, 0
            else:
                r.counter += 1
                if stopping.stop(r.counter, epoch):
                    r.done = True
    return results


@functools.cache
def _libc() -> ctypes.CDLL | None:
    """The C library, loaded once (None where there is no glibc)."""
    try:
        return ctypes.CDLL("libc.so.6")
    except OSError:
        return None


def release_freed_memory() -> bool:
    """Give the pages of glibc's heap that hold only freed blocks back to the system (``malloc_trim``). glibc
    serves freed blocks of up to 32 MB from its heap once it has seen one that large, and when their sizes vary
    from batch to batch the heap fragments: a chapter-4 training process grew past 13 GB that way. True when
    the C library has it (glibc only) and memory was released."""
    libc = _libc()
    return bool(libc.malloc_trim(0)) if libc is not None and hasattr(libc, "malloc_trim") else False
