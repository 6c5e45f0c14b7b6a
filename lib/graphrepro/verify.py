"""Re-run recorded runs and check that their metrics come out as recorded."""

from __future__ import annotations

import random
from typing import Any

from graphrepro import chapters, experiments, store
from graphrepro.environment import package_versions
from graphrepro.grid import run_batch

TOLERANCE = 0.01  # absolute, on metrics in [0, 1], when the environment differs from the record's


def exact_expected(record: dict[str, Any], rerun: dict[str, Any]) -> bool:
    """Bitwise-equal metrics are expected on the CPU with the record's package versions and thread count."""
    return (
        record.get("device") == "cpu"
        and record.get("packages") == package_versions()
        and record.get("threads") == rerun["threads"]
    )


def current_records(chapter: str | None = None) -> list[dict[str, Any]]:
    """Every current record of one chapter, or of all chapters."""
    slugs = [chapter] if chapter else [p.slug for p in chapters.PAGES if p.chapter]
    return [r for slug in slugs for r in store.records(slug) if store.is_current(r)]


def check(record: dict[str, Any], tolerance: float = TOLERANCE) -> dict[str, Any]:
    """Re-train one record's batch of seeds on the CPU and compare the record's metrics."""
    experiment = experiments.get(record["experiment"])
    config = record["config"]
    batch = [{**config, "seed": s} for s in record.get("members", [config["seed"]])]
    rerun = run_batch(experiment, batch, experiment.prepare(config), device="cpu")[batch.index(config)]
    exact = exact_expected(record, rerun)
    fresh = rerun["metrics"]
    worst = max(abs(float(fresh[k]) - float(v)) for k, v in record["metrics"].items())
    ok = worst == 0 if exact else worst <= tolerance
    return {
        "key": record["key"],
        "run": f"{config.get('dataset')}/{config.get('task', '')} {config.get('model')} {config.get('variant', '')} seed {config.get('seed')}",
        "mode": "exact" if exact else f"within {tolerance}",
        "largest difference": worst,
        "ok": ok,
    }


def sample_records(n: int, chapter: str | None = None, seed: int | None = None) -> list[dict[str, Any]]:
    """``n`` records chosen at random (reproducibly when ``seed`` is given)."""
    recs = current_records(chapter)
    return random.Random(seed).sample(recs, min(n, len(recs)))
