"""Checkpoints of long runs: kept in the cache (never the repository) while a run trains, each file pinned by
its sha256 beside it, so a torn or edited checkpoint is never unpickled: the run starts over instead. A
checkpoint may carry the seconds of training it embodies, so a resumed run's record counts every process."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

from graphrepro import paths


def folder(experiment: str, key: str) -> Path:
    """Where a run's checkpoint lives while it trains."""
    return paths.cache_dir() / "checkpoints" / experiment / key


def _pin_path(path: Path) -> Path:
    return path.with_suffix(".sha256")


def _seconds_path(path: Path) -> Path:
    return path.with_suffix(".seconds")


def write_pinned(path: Path, write: Callable[[Path], None], seconds: float | None = None) -> None:
    """``write`` a checkpoint atomically, then pin its sha256 (and the ``seconds`` of training it embodies,
    when given). A crash before the new pin is written leaves the new file beside the old pin: a mismatch,
    so the file is never loaded."""
    digest = paths.write_atomically(path, write)
    _seconds_path(path).unlink(missing_ok=True)  # the old count belongs to the old checkpoint
    _pin_path(path).write_text(digest)
    if seconds is not None:
        _seconds_path(path).write_text(f"{seconds:.3f}")


def seconds(path: Path) -> float:
    """The seconds of training a verified checkpoint embodies (0 when it has none or recorded none)."""
    if read_verified(path) is None or not _seconds_path(path).exists():
        return 0.0
    return float(_seconds_path(path).read_text())


def read_verified(path: Path) -> bytes | None:
    """The checkpoint's bytes when they match their pinned sha256; otherwise None, and an unpinned or
    mismatching file is removed so that nothing loads it later."""
    pin = _pin_path(path)
    paths.remove_abandoned_temporaries(path.parent)  # a run reads its checkpoint once, as it starts
    if not path.exists():
        return None
    data = path.read_bytes()
    if pin.exists() and hashlib.sha256(data).hexdigest() == pin.read_text().strip():
        return data
    path.unlink()
    pin.unlink(missing_ok=True)
    _seconds_path(path).unlink(missing_ok=True)
    return None
