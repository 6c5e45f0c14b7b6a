"""Where things live: the repository, the run store, the data cache and the data mirrors."""

from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]


def results_dir() -> Path:
    """The run store's root: ``GRAPHREPRO_RESULTS`` or ``results/`` in the repository."""
    return Path(os.environ.get("GRAPHREPRO_RESULTS", REPO_ROOT / "results"))


def cache_dir() -> Path:
    """The data cache: ``GRAPHREPRO_DATA`` or ``~/.cache/graphrepro``."""
    return Path(os.environ.get("GRAPHREPRO_DATA", Path.home() / ".cache" / "graphrepro"))


def mirror_dirs() -> list[Path]:
    """Mirror folders from ``GRAPHREPRO_MIRROR`` (colon-separated), else ``../shared/data`` if present."""
    value = os.environ.get("GRAPHREPRO_MIRROR")
    if value is not None:
        return [Path(p) for p in value.split(":") if p]
    default = REPO_ROOT.parent / "shared" / "data"
    return [default] if default.is_dir() else []


def executed_dir() -> Path:
    """Where the runner writes executed notebooks for the book to pick up."""
    return Path(os.environ.get("GRAPHREPRO_EXECUTED", REPO_ROOT / "book" / "executed"))


def offline() -> bool:
    """True when downloads are switched off (``GRAPHREPRO_OFFLINE=1``)."""
    return os.environ.get("GRAPHREPRO_OFFLINE", "0") not in ("", "0", "false", "no")


class NotWritable(RuntimeError):
    """A folder that graphrepro must write to cannot be written."""


def require_writable(folder: Path) -> Path:
    """Create ``folder`` if needed and prove it writable with a probe file; else raise ``NotWritable``."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / f".write-probe-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as err:
        raise NotWritable(f"cannot write to {folder} ({err.strerror or err}); make it writable or point "
                          f"GRAPHREPRO_RESULTS / GRAPHREPRO_EXECUTED elsewhere. Nothing was trained.") from None
    return folder
