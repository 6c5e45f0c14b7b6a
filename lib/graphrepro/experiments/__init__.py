"""Experiments: named, versioned functions from a run config to metrics; the store keys records by them."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

import torch


@dataclass(frozen=True)
class Experiment:
    """A kind of training run. Bump ``version`` when a change alters its numbers: old records go stale."""

    name: str
    version: int
    make_config: Callable[..., dict[str, Any]]
    data_key: Callable[[dict[str, Any]], Hashable]
    prepare: Callable[[dict[str, Any]], Any]
    train: Callable[[Any, dict[str, Any], torch.device], dict[str, float]]


def registry() -> dict[str, Experiment]:
    """Every experiment by name."""
    from graphrepro.experiments import hgcn

    return {e.name: e for e in [hgcn.EXPERIMENT]}


def get(name: str) -> Experiment:
    """The experiment called ``name``."""
    experiments = registry()
    if name not in experiments:
        raise KeyError(f"unknown experiment {name!r}; known: {', '.join(sorted(experiments))}")
    return experiments[name]
