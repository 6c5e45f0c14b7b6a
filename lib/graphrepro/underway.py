"""Runs training on this machine and not yet recorded: how many epochs their checkpoints hold, kept as
``results/underway/<chapter>.json`` (``python -m graphrepro underway``) so that a page can say how far its
long runs have got, and their checkpoints, carried under ``results/underway/checkpoints/`` (git-ignored) so
that a copy of that folder takes them to another machine. A dated snapshot, not a result: a run's record
supersedes its entry."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from graphrepro import pages, paths

RESULTS = "underway"


def _path(slug: str) -> Path:
    return paths.results_dir() / RESULTS / f"{slug}.json"


def checkpointed(slug: str, params: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Per key of the unrecorded runs ``params`` plan with a checkpoint here: its experiment, dataset and model,
    and the epochs done and planned (it only looks: a run training meanwhile loses nothing)."""
    if not any(e.checkpointed for e in pages.experiments(slug)):
        return {}
    from graphrepro import bench, store  # heavy (torch): only a chapter with checkpointed runs needs them

    done = {r["key"] for r in store.records(slug)}
    runs = {}
    for (name, dataset, model), (experiment, members) in bench.probe_groups(slug, params).items():
        for config in members:
            key = experiment.key(config)
            epochs = experiment.checkpointed(config) if experiment.checkpointed and key not in done else 0
            if epochs:
                runs[key] = {"experiment": name, "dataset": dataset, "model": model, "seed": config.get("seed"),
                             "epochs": epochs, "planned": experiment.planned_epochs(config)[1]}
    return runs


def save(slug: str, runs: dict[str, dict[str, Any]]) -> Path | None:
    """Keep ``runs`` (``checkpointed``) with when and where they were seen as ``results/underway/<slug>.json``;
    with none, remove the file. Returns its path, or None."""
    path = _path(slug)
    if not runs:
        path.unlink(missing_ok=True)
        return None
    from graphrepro.environment import measured_on  # torch: only the command that looks needs it

    snapshot = {"chapter": slug, **measured_on(), "runs": runs}
    paths.write_atomically(path, lambda tmp: tmp.write_text(json.dumps(snapshot, indent=1, sort_keys=True) + "\n"))
    return path


def carry(slug: str, runs: dict[str, dict[str, Any]]) -> tuple[list[Path], list[str]]:
    """Copy the checkpoints of ``runs`` (``checkpointed``) that are further on here than their carried copies
    into the run store, and drop the carried checkpoints of the chapter's runs that have a record since; the
    copies written and the keys dropped."""
    from graphrepro import checkpoints, store

    written = [p for key, run in runs.items() for p in checkpoints.carry(checkpoints.folder(run["experiment"], key))]
    done = {r["key"] for r in store.records(slug)}
    dropped = [(e.name, key) for e in pages.experiments(slug) for key in checkpoints.carried_keys(e.name) if key in done]
    for name, key in dropped:
        checkpoints.discard(checkpoints.folder(name, key))
    return written, [key for _, key in dropped]


def load(slug: str) -> dict[str, Any]:
    """The kept snapshot (``save``): its ``date`` and ``runs`` by key; an empty one where none is kept."""
    path = _path(slug)
    return json.loads(path.read_text()) if path.exists() else {"date": None, "runs": {}}


def words(snapshot: dict[str, Any] | None, keys: Iterable[str]) -> str:
    """How far the runs ``keys`` that ``snapshot`` (``load``) lists had trained ("training: 206 of 500 epochs on
    2026-12-06"); "" where it lists none of them."""
    runs = [snapshot["runs"][k] for k in keys if snapshot and k in snapshot["runs"]]
    if not runs:
        return ""
    return f"training: {', '.join(str(r['epochs']) for r in runs)} of {runs[0]['planned']} epochs on {snapshot['date']}"
