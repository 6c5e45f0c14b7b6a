"""Experiments: named, versioned functions from a run config to metrics; the store keys records by them."""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

import torch

from graphrepro.metrics import METRICS, Metric
from graphrepro.store import config_key

EPOCH_FIELDS = ("max_epochs", "epochs")  # a config's epoch cap, under one of these names


@dataclass(frozen=True)
class Experiment:
    """A kind of training run. Bump ``version`` when a change alters its numbers: old records go stale.

    ``train(data, configs, device)`` trains configs of one batch (by default they differ only in their
    seed; ``batch_key`` may group more widely) and returns one metrics dict per config. Its execution policy: with ``stacks`` they train together as the members
    of one stacked model (else one at a time), on ``threads`` intra-op threads. ``metrics`` names the
    specs (``graphrepro.metrics.METRICS``) of what it reports, and ``selection(config)`` the metric a
    search maximises (or minimises, by its spec) on validation.
    """

    name: str
    version: int
    make_config: Callable[..., dict[str, Any]]
    data_key: Callable[[dict[str, Any]], Hashable]
    prepare: Callable[[dict[str, Any]], Any]
    train: Callable[[Any, list[dict[str, Any]], torch.device], list[dict[str, Any]]]
    stacks: bool = True
    threads: int = 1
    metrics: tuple[str, ...] = ()
    selection: Callable[[dict[str, Any]], str] | None = None
    batch_key: Callable[[dict[str, Any]], str] | None = None  # default: configs that differ only in their seed
    epochs: Callable[[dict[str, Any]], int] | None = None  # planned epochs; default: the config's epoch field
    peak_mb: Callable[[dict[str, Any]], float] | None = None  # a run's expected peak memory; caps a grid's workers
    least_mb: Callable[[dict[str, Any]], float] | None = None  # memory a run cannot do without; `train` refuses beyond the machine's
    checkpointed: Callable[[dict[str, Any]], int] | None = None  # epochs an unrecorded run has checkpointed here
    speed_fields: tuple[str, ...] = ()  # config fields that only make a run faster, its epochs' work unchanged
    kind_fields: tuple[str, ...] = ()  # config fields beside dataset and model that set what an epoch costs (a base width)

    def key(self, config: dict[str, Any]) -> str:
        """The store key of this experiment's run of ``config`` (its name, version and config, hashed)."""
        return config_key(self.name, self.version, config)

    def batch_of(self, config: dict[str, Any]) -> str:
        """Configs with the same value (and data) may train together as one batch."""
        return (self.batch_key or batch_key)(config)

    def planned_epochs(self, config: dict[str, Any]) -> tuple[str, int]:
        """The config's epoch field and the epochs a run of it plans (an upper bound where it stops early)."""
        field = next((f for f in EPOCH_FIELDS if f in config), None)
        if field is None:
            raise ValueError(f"experiment {self.name!r}: a config with no epoch field ({' or '.join(EPOCH_FIELDS)})")
        return field, int(self.epochs(config) if self.epochs else config[field])

    def selection_spec(self, config: dict[str, Any]) -> Metric:
        """The spec of the metric that selects among this experiment's runs of ``config``'s kind."""
        if self.selection is None:
            raise ValueError(f"experiment {self.name!r} names no selection metric")
        return METRICS[self.selection(config)]


def batch_key(config: dict[str, Any]) -> str:
    """Configs with the same batch key differ only in their seed and can train as one batch."""
    return json.dumps({k: v for k, v in config.items() if k != "seed"}, sort_keys=True)
