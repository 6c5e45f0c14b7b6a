"""lrgb-head: what recorded runs decide about the papers'-budget runs: bf16's fidelity check (precision and step)
and the stopping rule checked on ``FIRST_FULL``."""

from __future__ import annotations

import functools
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from graphrepro import cells, pages, precision, store
from graphrepro.chapters.lrgb_head.paper import CHAPTER, FIDELITY_SEEDS, FIRST_FULL, LONG_PAIR, ONEDNN_MODELS
from graphrepro.chapters.lrgb_head.stages import PLAN_LABELS, base_of, key, labels, recorded, stage_config
from graphrepro.experiments import lrgb


def papers_budget_fields(params: dict[str, Any], model: str, stage: str) -> dict[str, Any]:
    """What the records decide for a papers'-budget run after ``FIRST_FULL``: ``paper_setting``'s precision and
    step (with oneDNN's products in the fast fp32 step for ``ONEDNN_MODELS``), and for an LRGB
    configuration the stated stopping rule (``lrgb.STOP_AT_MIN_LR``) once ``stopping_check`` says it applies."""
    setting, stop = paper_setting(params), base_of(model, stage) == "lrgb" and (stopping_check(params) or {}).get("applies")
    onednn = setting.get("step") == "fast" and model in ONEDNN_MODELS
    return {**setting, **({"matmul": "onednn"} if onednn else {}), **({"stop_at_min_lr": lrgb.STOP_AT_MIN_LR} if stop else {})}


def paper_setting(params: dict[str, Any]) -> dict[str, str]:
    """The precision and step of the papers'-budget runs after ``FIRST_FULL``: bf16 where the fidelity check
    passed, fp32 with the fast step where it failed, and the profile's precision until it is decided."""
    passed = bf16_passes(params)
    if passed is None:
        return {"precision": params["precision"]}
    return {"precision": precision.BFLOAT16} if passed else {"precision": precision.FLOAT32, "step": "fast"}


def paper_setting_note(params: dict[str, Any]) -> str:
    """``paper_setting`` in words, for the page."""
    passed = bf16_passes(params)
    if passed is None:
        return f"in {params['precision']}, the profile's precision, because the check is not yet decided"
    if passed:
        return "in bf16, because the check passed"
    models = [m for m in params["models"] if m in ONEDNN_MODELS]
    products = f" ({', '.join(models)} with oneDNN's linear products, see Cost)" if models else ""
    return f"in fp32 with the fast step{products}, because the check failed"


def bf16_passes(params: dict[str, Any]) -> bool | None:
    """The fidelity check's outcome from the records (``fidelity_table``): True when every stage is within, False
    when one is not, None until every run of it is recorded. A profile that trains no longer pair (``paper``)
    reads the standard profile's check."""
    long_epochs = params["long_epochs"] or pages.resolve(CHAPTER, "standard")["long_epochs"]
    return _bf16_passes(json.dumps({**params, "long_epochs": long_epochs}, sort_keys=True), store.stamp(CHAPTER))


@functools.lru_cache(maxsize=8)
def _bf16_passes(check: str, stamp: tuple[str, int]) -> bool | None:
    """``bf16_passes`` for one set of parameters (JSON) and one state of the store."""
    params = json.loads(check)
    within = [row["within"] for row in fidelity_check(fidelity_runs(params), params)]
    return None if not within or None in within else all(within)


def stopping_check(params: dict[str, Any]) -> dict[str, Any] | None:
    """The stopping rule checked on ``FIRST_FULL``'s record at 500 epochs: its best validation epoch, the first
    epoch at the minimum rate (None if never), and whether the rule applies (the best came first); None until
    that run is recorded."""
    model, stage, seed = FIRST_FULL
    path = store.record_path(CHAPTER, key(stage_config(params, model, stage, seed, 0)))
    return _check_rule(str(path), path.stat().st_mtime_ns) if path.exists() else None


def stopping_note(params: dict[str, Any]) -> str:
    """``stopping_check`` in words, for the page."""
    check, rule = stopping_check(params), (f"once their rate is at {lrgb.PLATEAU['min_lr']:g} and validation AP has not "
                                           f"improved for {lrgb.STOP_AT_MIN_LR} epochs")
    if check is None:
        return ("is not yet checked: the first GCN run of LRGB's configuration at 500 epochs (linear head, seed 0) is not "
                "recorded, so every LRGB-configuration run trains all 500 epochs")
    best, first = check["best epoch"] + 1, check["first epoch at the minimum rate"]
    reached = "never reached the minimum rate" if first is None else f"reached the minimum rate at epoch {first + 1}"
    if check["applies"]:
        return (f"applies: that run's best validation epoch was {best}, and it {reached}; the other LRGB-configuration "
                f"runs stop {rule}, and each record keeps the epochs it ran")
    return f"does not apply: that run's best validation epoch was {best}, and it {reached}; every LRGB run trains all 500 epochs"


@functools.lru_cache(maxsize=4)
def _check_rule(path: str, mtime_ns: int) -> dict[str, Any]:
    """``stopping_check`` on one record file as it is at ``mtime_ns`` (read once per process, not per config)."""
    curve = store.load_artefact(CHAPTER, store.read_record(Path(path)), "curve")
    best = int(np.argmax(curve["val_ap"]))
    at_min = np.flatnonzero(curve["lr"] <= lrgb.PLATEAU["min_lr"] * (1 + 1e-6))
    first_min = int(at_min[0]) if len(at_min) else None
    return {"best epoch": best, "first epoch at the minimum rate": first_min,
            "applies": first_min is not None and best < first_min}


def fidelity_configs(params: dict[str, Any]) -> list[dict[str, Any]]:
    """The longer GCN pair in fp32 and in bf16 mixed precision, ``FIDELITY_SEEDS`` seeds each: the check that
    decides whether bf16 may train the papers'-budget runs."""
    return [c for _, c in fidelity_rows(params)]


def fidelity_rows(params: dict[str, Any]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """``fidelity_configs`` with their ``plan`` labels."""
    model, stages = LONG_PAIR
    if not params["long_epochs"] or model not in params["models"]:
        return []
    return [(labels("fidelity", c, s), c) for p in precision.CHOICES for s in stages for seed in range(FIDELITY_SEEDS)
            for c in [stage_config({**params, "precision": p}, model, s, seed, params["long_epochs"])]]


def fidelity_plan(params: dict[str, Any]) -> pd.DataFrame:
    """``plan``'s ``fidelity`` part alone (``fidelity_check`` reads it while ``config`` decides the precision)."""
    return cells.plan(fidelity_rows(params), key, PLAN_LABELS)


def fidelity_runs(params: dict[str, Any]) -> pd.DataFrame:
    """The recorded runs of ``fidelity_configs`` (nothing is trained)."""
    return recorded(fidelity_configs(params))


def fidelity_check(runs: pd.DataFrame, params: dict[str, Any]) -> list[dict[str, Any]]:
    """Per stage of the longer GCN pair: test AP × 100 in fp32 and in bf16 as (mean, std, runs) over seeds, the
    difference allowed (fp32's seed spread or the tolerance, whichever is larger), and whether bf16 is within it
    (None until every run of the stage is recorded)."""
    found = cells.stats(fidelity_plan(params), runs, ["stage", "precision"], "test_ap")
    rows = []
    for stage in dict.fromkeys(found.index.get_level_values("stage")):
        stats = {p: tuple(found.loc[(stage, p), ["mean", "std", "n"]]) for p in precision.CHOICES}
        stats = {p: (float(m), float(sd), int(n)) for p, (m, sd, n) in stats.items()}
        (fm, fs, fn), (bm, _, bn) = stats[precision.FLOAT32], stats[precision.BFLOAT16]
        allowed = max(params["tolerance"], 0.0 if math.isnan(fs) else fs)
        complete = fn == bn == FIDELITY_SEEDS
        rows.append({"stage": stage, **stats, "allowed": allowed, "within": abs(bm - fm) <= allowed if complete else None})
    return rows
