"""Where things live: the repository, the run store, the data cache and the data mirrors."""

from __future__ import annotations

import hashlib
import os
import socket
from collections.abc import Callable
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


TEMPORARY = ".tmp-"  # a file being written: .tmp-<pid>-<host>-<stem>.partial<suffix>, moved into place when whole


def temporary_prefix() -> str:
    """The name prefix of this process's temporary files: which process, on which host, writes them."""
    return f"{TEMPORARY}{os.getpid()}-{_host()}-"


def write_atomically(path: Path, write: Callable[[Path], None]) -> str:
    """Have ``write`` fill a temporary file beside ``path``, fsync it and move it into place, so that a crash
    leaves the old file or the new, never half of one; returns the new file's sha256. The temporary keeps the
    file's suffix (numpy appends a missing one) and names its writer, so ``remove_abandoned_temporaries`` can
    tell a killed writer's leftover from a live one's."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{temporary_prefix()}{path.stem}.partial{path.suffix}")
    try:
        write(tmp)
        with tmp.open("rb") as fh:
            digest = hashlib.file_digest(fh, "sha256").hexdigest()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return digest


def _host() -> str:
    return hashlib.sha256(socket.gethostname().encode()).hexdigest()[:8]


def remove_abandoned_temporaries(folder: Path) -> int:
    """Delete the temporary files under ``folder`` whose writer, a process on this host, has ended (killed
    mid-write); those of live processes and of other hosts stay. Returns how many went."""
    here, removed = _host(), 0
    for path in folder.rglob(f"{TEMPORARY}*"):
        pid, host = (path.name.split("-") + ["", ""])[1:3]
        if pid.isdigit() and host == here and not _alive(int(pid)):
            path.unlink(missing_ok=True)
            removed += 1
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        pass
    return True
