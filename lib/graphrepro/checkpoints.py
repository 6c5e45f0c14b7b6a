"""Checkpoints of long runs: kept in the cache while a run trains, each file pinned by its sha256 beside it,
so a torn or edited checkpoint is never unpickled: the run starts over instead. A checkpoint may carry counts
beside it (the seconds of training it embodies, so a resumed run's record counts every process; its epochs, so
an observer need not unpickle it). A copy can be carried in the run store (``carry``), so that a copy of it takes
an unfinished run to another machine, where it resumes from whichever copy holds more epochs."""

from __future__ import annotations

import hashlib
import os
import shutil
import warnings
from collections.abc import Callable
from pathlib import Path

from graphrepro import paths


def folder(experiment: str, key: str) -> Path:
    """Where a run's checkpoint lives while it trains."""
    return paths.cache_dir() / "checkpoints" / experiment / key


CARRIED = ("underway", "checkpoints")  # under the run store: the copies that travel with the repository


def carried(path: Path) -> Path | None:
    """Where the cache's checkpoint file or folder ``path`` is carried in the run store; None outside the cache."""
    root = paths.cache_dir() / "checkpoints"
    if not path.is_relative_to(root):
        return None
    return paths.results_dir().joinpath(*CARRIED, path.relative_to(root))


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
    if read_verified(path, repair) is None:
        return 0.0
    return _counted(_resumable(path, repair=False), name) or 0.0


def seconds(path: Path) -> float:
    """The seconds of training a verified checkpoint embodies (0 when it has none or recorded none); as the run
    that owns it starts, so a torn one is removed."""
    return count(path, "seconds")


def _verified(path: Path) -> bytes | None:
    """The file's bytes when they match the sha256 pinned beside it; else None."""
    pin = _pin_path(path)
    if not path.exists() or not pin.exists():
        return None
    data = path.read_bytes()
    return data if hashlib.sha256(data).hexdigest() == pin.read_text().strip() else None


def _counted(path: Path, name: str) -> float | None:
    """The count ``name`` beside a checkpoint, unverified; None when it carries none."""
    counted = _count_path(path, name)
    return float(counted.read_text()) if counted.exists() else None


def _ahead(source: Path | None, target: Path) -> bool:
    """Whether the checkpoint ``source`` is whole and further on than ``target`` (more epochs, or ``target`` none)."""
    if source is None or _verified(source) is None:
        return False
    return _verified(target) is None or (_counted(source, "epochs") or 0) > (_counted(target, "epochs") or 0)


def _newer(live: Path, copy: Path) -> bool:
    """Whether the training machine's checkpoint ``live`` should replace its carried ``copy``: whole, other than the
    copy, and not fewer epochs (a checkpoint without an epochs count, as older ones are, counts as no fewer)."""
    data, copied = _verified(live), _verified(copy)  # each file read and hashed once
    if data is None or data == copied:
        return False
    epochs = _counted(live, "epochs")
    return epochs is None or epochs >= (_counted(copy, "epochs") or 0) or copied is None


def _copy(source: Path, target: Path) -> None:
    """Copy a verified checkpoint, its pin and its counts, as ``write_pinned`` writes one."""
    data = _verified(source)
    assert data is not None, f"{source} is not a verified checkpoint"
    counts = {n: value for n in COUNTS if (value := _counted(source, n)) is not None}
    write_pinned(target, lambda tmp: tmp.write_bytes(data), **counts)


def _pinned(folder: Path) -> list[Path]:
    """The checkpoint files in ``folder`` that have a pin beside them."""
    return sorted(p for p in folder.glob("*") if p.suffix not in (".sha256", ".staged", *(f".{n}" for n in COUNTS))
                  and not p.name.startswith(paths.TEMPORARY) and _pin_path(p).exists()) if folder.is_dir() else []


def carry(folder: Path) -> list[Path]:
    """Copy the checkpoints in the cache's ``folder`` that are ahead of their carried copies into the run store
    (``carried``), for a copy to take to another machine (the folder is git-ignored); the copies written."""
    target = carried(folder)
    if target is None:
        raise ValueError(f"{folder} is not a checkpoint folder in the cache ({paths.cache_dir() / 'checkpoints'})")
    written = [target / p.name for p in _pinned(folder) if _newer(p, target / p.name)]
    for path in written:
        _copy(folder / path.name, path)
    return written


def carried_keys(experiment: str) -> list[str]:
    """The keys of ``experiment``'s runs with checkpoints carried in the run store."""
    root = paths.results_dir().joinpath(*CARRIED, experiment)
    return sorted(p.name for p in root.iterdir() if p.is_dir()) if root.is_dir() else []


def discard(folder: Path) -> None:
    """Remove a finished run's checkpoint folder, from the cache and from the run store where it was carried."""
    for path in (folder, carried(folder)):
        if path is not None:
            shutil.rmtree(path, ignore_errors=True)


def _resumable(path: Path, repair: bool) -> Path:
    """The checkpoint a run resumes from: ``path``, or its carried copy where that is further on (copied into
    place first with ``repair``, as the run starts: it then goes on writing the cache's)."""
    copy = carried(path)
    if copy is None or not _ahead(copy, path):
        return path
    if not repair:
        return copy
    _copy(copy, path)
    return path


def read_verified(path: Path, repair: bool = True) -> bytes | None:
    """The checkpoint's bytes when they match their pinned sha256 (from its carried copy where that is further
    on: ``_resumable``); otherwise None, and (with ``repair``, as the run that owns it starts) an unpinned or
    mismatching file is removed so that nothing loads it later. A reader that only looks, while the run may be
    writing, passes ``repair=False``: it could see the new file before its pin."""
    if repair:
        paths.remove_abandoned_temporaries(path.parent)  # a run reads its checkpoint once, as it starts
    path = _resumable(path, repair)
    data = _verified(path)
    if data is not None or not repair or not path.exists():
        return data
    path.unlink()
    _pin_path(path).unlink(missing_ok=True)
    for name in COUNTS:
        _count_path(path, name).unlink(missing_ok=True)
    warnings.warn(f"the checkpoint {path} does not match its pinned sha256 (torn or edited): removed, and the run "
                  "starts over from its first epoch", TornCheckpoint, stacklevel=2)
    return None
