"""Checkpoints of long runs: kept in the cache (never the repository) while a run trains, each file pinned by
its sha256 beside it, so a torn or edited checkpoint is never unpickled: the run starts over instead. A
checkpoint may carry the seconds of training it embodies, so a resumed run's record counts every process."""

from __future__ import annotations

import hashlib
import os
import warnings
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


class CheckpointNotWritten(OSError):
    """A checkpoint could not be written (a full disk, a lost mount); the previous one is still in place."""


class TornCheckpoint(UserWarning):
    """A checkpoint did not match its pinned sha256 (a torn write, an edit): it was removed, the run starts over."""


def write_pinned(path: Path, write: Callable[[Path], None], seconds: float | None = None) -> None:
    """``write`` a checkpoint and its sha256 pin (and the ``seconds`` of training it embodies, when given) beside
    the current ones first, and only then move both into place: a write that fails (``CheckpointNotWritten``)
    leaves the previous checkpoint whole and loadable; a crash between the two moves leaves a mismatch, so the
    file is never loaded."""
    pin, count = _pin_path(path), _seconds_path(path)
    staged = {p: p.with_name(p.name + ".staged") for p in (path, pin, count)}
    try:
        digest = paths.write_atomically(staged[path], write)
        paths.write_atomically(staged[pin], lambda tmp: tmp.write_text(digest))
        if seconds is not None:
            paths.write_atomically(staged[count], lambda tmp: tmp.write_text(f"{seconds:.3f}"))
    except OSError as err:
        for leftover in staged.values():
            leftover.unlink(missing_ok=True)
        kept = "the previous checkpoint is kept and a rerun resumes from it" if path.exists() else "no earlier checkpoint"
        raise CheckpointNotWritten(f"could not write the checkpoint {path}: {err.strerror or err}; {kept}") from err
    os.replace(staged[path], path)
    os.replace(staged[pin], pin)
    if seconds is None:
        count.unlink(missing_ok=True)  # the old count belongs to the old checkpoint
    else:
        os.replace(staged[count], count)


def seconds(path: Path) -> float:
    """The seconds of training a verified checkpoint embodies (0 when it has none or recorded none)."""
    if read_verified(path) is None or not _seconds_path(path).exists():
        return 0.0
    return float(_seconds_path(path).read_text())


def read_verified(path: Path, repair: bool = True) -> bytes | None:
    """The checkpoint's bytes when they match their pinned sha256; otherwise None, and (with ``repair``, as the
    run that owns it starts) an unpinned or mismatching file is removed so that nothing loads it later. A reader
    that only looks, while the run may be writing, passes ``repair=False``: it could see the new file before its pin."""
    pin = _pin_path(path)
    if repair:
        paths.remove_abandoned_temporaries(path.parent)  # a run reads its checkpoint once, as it starts
    if not path.exists():
        return None
    data = path.read_bytes()
    if pin.exists() and hashlib.sha256(data).hexdigest() == pin.read_text().strip():
        return data
    if not repair:
        return None
    path.unlink()
    pin.unlink(missing_ok=True)
    _seconds_path(path).unlink(missing_ok=True)
    warnings.warn(f"the checkpoint {path} does not match its pinned sha256 (torn or edited): removed, and the run "
                  "starts over from its first epoch", TornCheckpoint, stacklevel=2)
    return None
