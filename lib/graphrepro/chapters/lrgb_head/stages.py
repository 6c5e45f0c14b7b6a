"""lrgb-head: one run's config at a stage of the ablation, its key, and the store's records of configs."""

from __future__ import annotations

from typing import Any

import pandas as pd

from graphrepro import catalog, precision, store
from graphrepro.chapters.lrgb_head.paper import CHAPTER, FIRST_FULL, GPS_STAGES, STAGES
from graphrepro.data.availability import is_available
from graphrepro.experiments import lrgb


def available() -> bool:
    """Whether Peptides-func's files can be had."""
    return is_available("peptides_func")


def base_of(model: str, stage: str) -> str:
    """The base configuration a stage starts from: ``lrgb`` (LRGB's) or ``tuned`` (Tönshoff et al.'s; GPS always)."""
    return "tuned" if model == lrgb.GPS else STAGES[stage][0]


def stage_config(params: dict[str, Any], model: str, stage: str, seed: int, epochs: int, **fields: Any) -> dict[str, Any]:
    """One run: the stage's base configuration of ``model`` (GPS: its ``GPS_STAGES``), its changes, the profile's
    reductions and precision, and ``fields`` on top; ``epochs`` 0 trains the papers' epochs, ``FIRST_FULL`` always
    in fp32 with today's step."""
    base, changes = base_of(model, stage), GPS_STAGES[stage] if model == lrgb.GPS else STAGES[stage][1]
    fields = {**changes, "train_graphs": params["train_graphs"], "eval_graphs": params["eval_graphs"],
              "precision": params["precision"], **fields}
    if not epochs and (model, stage, seed) == FIRST_FULL:
        fields["precision"] = precision.FLOAT32
    if epochs:
        fields["epochs"] = epochs
        if base == "tuned":  # the same shape in fewer epochs: warm-up 2% of training, stepped every batch
            full = lrgb.BASES["tuned"]
            fields.update(warmup_epochs=full["warmup_epochs"] * epochs / full["epochs"], schedule_per_batch=True)
    return lrgb.make_config(model, base, seed, **fields)


def key(config: dict[str, Any]) -> str:
    """The store key of a chapter 4 run."""
    return lrgb.EXPERIMENT.key(config)


def stage_of(config: dict[str, Any]) -> str:
    """The stage a config belongs to."""
    if config["model"] == lrgb.GPS:
        own = lrgb.TUNED[lrgb.GPS]["head_layers"]
        return next(s for s, changes in GPS_STAGES.items() if changes.get("head_layers", own) == config["head_layers"])
    for stage, (base, changes) in STAGES.items():
        defaults = {"head_layers": lrgb.BASES[base]["head_layers"], "rwse": lrgb.BASES[base]["rwse"]}
        if config["base"] == base and all(config[k] == v for k, v in {**defaults, **changes}.items()):
            return stage
    return "other"


def paper_epochs(model: str, stage: str) -> int:
    """The epochs the papers trained a stage for (LRGB's configurations 500, the tuned ones 250)."""
    return lrgb.BASES[base_of(model, stage)]["epochs"]


def full_params(params: dict[str, Any]) -> dict[str, Any]:
    """``params`` at the papers' epochs (the same graphs and seeds)."""
    return {**params, "epochs": 0}


PLAN_LABELS = ["part", "model", "stage", "precision", "seed"]


def labels(part: str, config: dict[str, Any], stage: str) -> dict[str, Any]:
    """A planned run's labels (``PLAN_LABELS``) for ``cells.plan``."""
    return {"part": part, "model": config["model"], "stage": stage, "precision": precision.of(config), "seed": config["seed"]}


def recorded(configs: list[dict[str, Any]]) -> pd.DataFrame:
    """The store's current records of ``configs`` (nothing is trained)."""
    keys = {key(c) for c in configs} if available() else set()
    return store.to_frame([r for r in store.records(CHAPTER) if r["key"] in keys and catalog.is_current(r)])
