"""The run store: one small JSON record per training run under ``results/<chapter>/``, written atomically."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from graphrepro import paths

if TYPE_CHECKING:
    import pandas as pd


def config_key(experiment: str, version: int, config: dict[str, Any]) -> str:
    """A stable key for a run: the hash of its canonical config and its experiment's name and version."""
    canonical = json.dumps({"experiment": experiment, "version": version, "config": config}, sort_keys=True)
    return hashlib.sha256(canonical.encode()).hexdigest()[:20]


def record_path(chapter: str, key: str, root: Path | None = None) -> Path:
    """Where the record with ``key`` lives."""
    return (paths.results_dir() if root is None else root) / chapter / f"{key}.json"


def record_digest(record: dict[str, Any]) -> str:
    """The sha256 of a record's content (every field but ``digest``): a hand edit no longer matches it."""
    content = {k: v for k, v in record.items() if k != "digest"}
    return hashlib.sha256(json.dumps(content, sort_keys=True, allow_nan=False).encode()).hexdigest()


def digest_matches(record: dict[str, Any]) -> bool:
    """True when the record carries a digest and its content still matches it."""
    return record.get("digest") == record_digest(record)


def write_record(chapter: str, record: dict[str, Any], root: Path | None = None) -> Path:
    """Write a record atomically (temporary file, fsync, rename): a crash leaves the old state or the new.

    The record gets its content digest; a value JSON cannot hold (NaN, infinity) is refused."""
    path = record_path(chapter, record["key"], root)
    try:
        record = {**record, "digest": record_digest(record)}
        text = json.dumps(record, sort_keys=True, indent=1, allow_nan=False) + "\n"
    except ValueError as err:
        raise ValueError(f"run record {record['key']} holds a value JSON cannot store ({err}); nothing written") from None
    paths.write_atomically(path, lambda tmp: tmp.write_text(text))
    return path


def write_trained(chapter: str, record: dict[str, Any], root: Path | None = None) -> Path:
    """Write a record fresh from training, whose metrics still hold its artefacts: the artefacts first, so that
    a record never points to nothing, then the record."""
    outputs = record["metrics"].pop("artefacts", None) or {}
    if outputs:
        record["artefacts"] = {name: write_artefact(chapter, record["key"], name, arrays, root) for name, arrays in outputs.items()}
    return write_record(chapter, record, root)


def _refuse_constant(name: str) -> Any:
    raise json.JSONDecodeError(f"non-standard JSON value {name}", name, 0)


def read_record(path: Path) -> dict[str, Any]:
    """Read one record; a damaged file raises ``ValueError`` naming it."""
    try:
        record = json.loads(Path(path).read_text(), parse_constant=_refuse_constant)
    except json.JSONDecodeError as err:
        raise ValueError(f"damaged run record {path}: {err}; delete it to re-run that config") from None
    missing = {"key", "experiment", "version", "config", "metrics"} - set(record)
    if missing:
        raise ValueError(f"run record {path} lacks {sorted(missing)}; delete it to re-run that config")
    return record


def record_files(chapter: str, root: Path | None = None) -> list[Path]:
    """The chapter's record files, sorted (dot-files, such as a temporary file being written, are not records)."""
    return sorted(((paths.results_dir() if root is None else root) / chapter).glob("[!.]*.json"))


def records(chapter: str, root: Path | None = None) -> list[dict[str, Any]]:
    """Every record of a chapter, current or stale, sorted by key."""
    return [read_record(p) for p in record_files(chapter, root)]


def stamp(chapter: str, root: Path | None = None) -> tuple[str, int, int]:
    """The chapter's store, when it last changed and how many entries it holds, for caches of what records decide
    (the count tells apart two records added within one tick of the file system's clock)."""
    folder = (paths.results_dir() if root is None else root) / chapter
    return (str(folder), folder.stat().st_mtime_ns, len(os.listdir(folder))) if folder.exists() else (str(folder), 0, 0)


def committed_keys(chapter: str, root: Path | None = None) -> set[str] | None:
    """Keys of the chapter's records committed to git (None when the store is not the repository's)."""
    folder = (paths.results_dir() if root is None else root) / chapter
    try:
        inside = folder.resolve().is_relative_to(paths.REPO_ROOT.resolve())
        listed = subprocess.run(["git", "ls-files", "--", str(folder)], cwd=paths.REPO_ROOT,
                                capture_output=True, text=True, check=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        return None
    return {Path(p).stem for p in listed if p.endswith(".json")} if inside else None


def to_frame(recs: list[dict[str, Any]]) -> pd.DataFrame:
    """One row per run: config fields as columns, then ``val_*``/``test_*`` metrics and run facts."""
    import pandas as pd  # heavy (half a second): the command line counts records before it answers, without pandas

    rows = [
        {
            **r["config"],
            **r["metrics"],
            "key": r["key"],
            "experiment": r["experiment"],
            "wall_s": r.get("wall_s"),
            "peak_rss_mb": r.get("peak_rss_mb"),
            "device": r.get("device"),
        }
        for r in recs
    ]
    return pd.DataFrame(rows)


def runs_with_keys(runs: pd.DataFrame, keys: Iterable[str]) -> pd.DataFrame:
    """The rows of ``runs`` whose key is one of ``keys`` (an empty frame, which has no key column, stays empty)."""
    return runs[runs.key.isin(set(keys))] if len(runs) else runs


ARTEFACTS = "artefacts"  # subfolder of a chapter's records: results/<chapter>/artefacts/<key>/<name>.json
ARTEFACT_BUDGET_BYTES = 50 * 2**20  # what the committed artefacts of the whole book may weigh


def write_artefact(chapter: str, key: str, name: str, arrays: dict[str, np.ndarray], root: Path | None = None) -> str:
    """Store a run's larger output (per-query ranks, a learning curve) beside its record as a JSON text
    of named 1-d arrays with their dtypes (a run record, not a binary blob), atomically; returns its
    sha256 for the record."""
    path = (paths.results_dir() if root is None else root) / chapter / ARTEFACTS / key / f"{name}.json"
    content = {k: {"dtype": str(np.asarray(v).dtype), "values": np.asarray(v).tolist()} for k, v in sorted(arrays.items())}
    text = json.dumps(content, sort_keys=True, allow_nan=True, separators=(",", ":"))
    return paths.write_atomically(path, lambda tmp: tmp.write_text(text))


def load_artefact(chapter: str, record: dict[str, Any], name: str, root: Path | None = None) -> dict[str, np.ndarray]:
    """A run's artefact, loaded only when asked for and only if its bytes match the record's sha256."""
    expected = record.get("artefacts", {}).get(name)
    if expected is None:
        raise KeyError(f"run {record['key']} has no artefact {name!r}")
    path = (paths.results_dir() if root is None else root) / chapter / ARTEFACTS / record["key"] / f"{name}.json"
    data = path.read_bytes()
    if hashlib.sha256(data).hexdigest() != expected:
        raise ValueError(f"artefact {path} does not match its record's sha256; delete both to re-run that config")
    return {k: np.asarray(v["values"], dtype=v["dtype"]) for k, v in json.loads(data).items()}


def artefact_bytes(root: Path | None = None) -> int:
    """The size of every artefact in the store (all chapters)."""
    base = paths.results_dir() if root is None else root
    return sum(p.stat().st_size for p in base.glob(f"*/{ARTEFACTS}/*/*.json"))
