"""Experiments: named, versioned functions from a run config to metrics; the store keys records by them."""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

import torch


@dataclass(frozen=True)
class Experiment:
    """A kind of training run. Bump ``version`` when a change alters its numbers: old records go stale.

    ``train(data, configs, device)`` trains configs that differ only in their seed together, as the
    members of one stacked model, and returns one metrics dict per config.
    """

    name: str
    version: int
    make_config: Callable[..., dict[str, Any]]
    data_key: Callable[[dict[str, Any]], Hashable]
    prepare: Callable[[dict[str, Any]], Any]
    train: Callable[[Any, list[dict[str, Any]], torch.device], list[dict[str, Any]]]


def batch_key(config: dict[str, Any]) -> str:
    """Configs with the same batch key differ only in their seed and can train as one batch."""
    return json.dumps({k: v for k, v in config.items() if k != "seed"}, sort_keys=True)


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
