"""Which code a run was made with: the HEAD commit, whether the files that decide its numbers differ from it,
and the diff kept with a record made from uncommitted code. Light (git only), so the CLI can refuse early."""

from __future__ import annotations

import hashlib
import subprocess

from graphrepro import paths

TRAINING_SOURCES = ("lib", "notebooks", "pyproject.toml")  # the files that decide what a run computes
DIFFS = "diffs"  # results/diffs/<sha256>.patch: the uncommitted change a record was made with


class UncommittedCode(Exception):
    """Training was asked for while files that decide its numbers differ from HEAD."""


def _git(*args: str, check: bool = True) -> str:
    return subprocess.run(["git", *args], cwd=paths.REPO_ROOT, capture_output=True, text=True, check=check).stdout


def uncommitted_sources() -> list[str] | None:
    """The files of ``TRAINING_SOURCES`` that differ from HEAD: changed, staged, deleted, or new and not ignored;
    None outside a git checkout (nothing can be told)."""
    try:
        status = _git("status", "--porcelain", "--untracked-files=all", "--", *TRAINING_SOURCES)
    except (OSError, subprocess.CalledProcessError):
        return None
    return [line[3:] for line in status.splitlines() if line.strip()]


def git_commit() -> str:
    """The repository's HEAD commit, with ``+dirty`` when a file of ``TRAINING_SOURCES`` differs from it;
    ``unknown`` outside git."""
    try:
        head = _git("rev-parse", "HEAD").strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+dirty" if uncommitted_sources() else "")


def source_diff() -> str:
    """The change of ``TRAINING_SOURCES`` against HEAD as one patch (new files included) that ``git apply``
    replays on a checkout of HEAD."""
    patch = _git("diff", "--binary", "HEAD", "--", *TRAINING_SOURCES)
    for new in _git("ls-files", "--others", "--exclude-standard", "--", *TRAINING_SOURCES).splitlines():
        patch += _git("diff", "--binary", "--no-index", "/dev/null", new, check=False)  # exit 1: they differ
    return patch


def keep_diff() -> str | None:
    """Keep the uncommitted change in the run store (``results/diffs/<sha256>.patch``, written once) and return
    its sha256; None when ``TRAINING_SOURCES`` equal HEAD."""
    if not uncommitted_sources():
        return None
    patch = source_diff().encode()
    digest = hashlib.sha256(patch).hexdigest()
    target = paths.results_dir() / DIFFS / f"{digest}.patch"
    if not target.exists():
        paths.write_atomically(target, lambda tmp: tmp.write_bytes(patch))
    return digest


def refuse_uncommitted(what: str) -> None:
    """Raise ``UncommittedCode`` naming the files when ``TRAINING_SOURCES`` differ from HEAD."""
    changed = uncommitted_sources()
    if changed:
        shown = ", ".join(changed[:8]) + (f" and {len(changed) - 8} more" if len(changed) > 8 else "")
        raise UncommittedCode(
            f"refusing to train {what} from uncommitted code: {shown} differ from HEAD. Commit them, or pass "
            f"--allow-dirty (each record then keeps the diff as {DIFFS}/<sha256>.patch in the run store). Nothing was trained.")
