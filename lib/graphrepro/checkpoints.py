"""Checkpoints of long runs: kept in the cache (never the repository) while a run trains, each file pinned by
its sha256 beside it, so a torn or edited checkpoint is never unpickled: the run starts over instead. A
checkpoint may carry counts beside it (the seconds of training it embodies, so a resumed run's record counts every
process; its epochs, so an observer need not unpickle it)."""

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


COUNTS = ("seconds", "epochs")  # what a checkpoint may carry beside it, one small text file each


def _count_path(path: Path, name: str) -> Path:
    return path.with_suffix(f".{name}")


class CheckpointNotWritten(OSError):
    """A checkpoint could not be written (a full disk, a lost mount); the previous one is still in place."""


class TornCheckpoint(UserWarning):
    """A checkpoint did not match its pinned sha256 (a torn write, an edit): it was removed, the run starts over."""


def write_pinned(path: Path, write: Callable[[Path], None], **counts: float) -> None:
    """``write`` a checkpoint and its sha256 pin (and its ``counts``, ``COUNTS`` such as the seconds of training it
    embodies, when given) beside the current ones first, and only then move them into place: a write that fails
    (``CheckpointNotWritten``) leaves the previous checkpoint whole and loadable; a crash between the moves leaves
    a mismatch, so the file is never loaded."""
    unknown = set(counts) - set(COUNTS)
    if unknown:
        raise ValueError(f"a checkpoint carries only {', '.join(COUNTS)}, not {', '.join(sorted(unknown))}")
    pin = _pin_path(path)
    staged = {p: p.with_name(p.name + ".staged") for p in (path, pin, *(_count_path(path, n) for n in counts))}
    try:
        digest = paths.write_atomically(staged[path], write)
        paths.write_atomically(staged[pin], lambda tmp: tmp.write_text(digest))
        for name, value in counts.items():
            paths.write_atomically(staged[_count_path(path, name)], lambda tmp, v=value: tmp.write_text(f"{v:.3f}"))
    except OSError as err:
        for leftover in staged.values():
            leftover.unlink(missing_ok=True)
        kept = "the previous checkpoint is kept and a rerun resumes from it" if path.exists() else "no earlier checkpoint"
        raise CheckpointNotWritten(f"could not write the checkpoint {path}: {err.strerror or err}; {kept}") from err
    for final, staged_path in staged.items():  # the checkpoint first, then its pin, then its counts
        os.replace(staged_path, final)
    for name in set(COUNTS) - set(counts):
        _count_path(path, name).unlink(missing_ok=True)  # an old count belongs to the old checkpoint


def count(path: Path, name: str, repair: bool = True) -> float:
    """The count ``name`` (``COUNTS``) a verified checkpoint carries; 0 when it has none or carries none
    (``repair``: as ``read_verified``)."""
    if read_verified(path, repair) is None or not _count_path(path, name).exists():
        return 0.0
    return float(_count_path(path, name).read_text())


def seconds(path: Path) -> float:
    """The seconds of training a verified checkpoint embodies (0 when it has none or recorded none); as the run
    that owns it starts, so a torn one is removed."""
    return count(path, "seconds")


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
    for name in COUNTS:
        _count_path(path, name).unlink(missing_ok=True)
    warnings.warn(f"the checkpoint {path} does not match its pinned sha256 (torn or edited): removed, and the run "
                  "starts over from its first epoch", TornCheckpoint, stacklevel=2)
    return None
