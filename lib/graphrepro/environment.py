"""Facts about the machine and packages a run happened on, stored with every record."""

from __future__ import annotations

import platform
import subprocess
from importlib import metadata

import torch

from graphrepro import paths

PACKAGES = ("torch", "torch-geometric", "geoopt", "numpy", "scipy", "scikit-learn", "pandas")


def package_versions() -> dict[str, str]:
    """Installed versions of the packages that decide the numbers."""
    return {name: metadata.version(name) for name in PACKAGES}


def git_commit() -> str:
    """The repository's HEAD commit, with ``+dirty`` when tracked files differ; ``unknown`` outside git."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=paths.REPO_ROOT, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"], cwd=paths.REPO_ROOT,
            capture_output=True, text=True, check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+dirty" if dirty else "")


def hardware(device: torch.device) -> str:
    """A one-line description of where a run executed."""
    if device.type == "cuda":
        return torch.cuda.get_device_name(device)
    return f"{platform.processor() or platform.machine()}, {torch.get_num_threads()} torch threads"


def run_environment(device: torch.device) -> dict[str, object]:
    """Everything recorded next to a run's metrics about where and with what it ran."""
    return {
        "device": device.type,
        "hardware": hardware(device),
        "threads": torch.get_num_threads(),
        "python": platform.python_version(),
        "packages": package_versions(),
        "git_commit": git_commit(),
    }
