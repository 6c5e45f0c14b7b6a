"""Facts about the machine and packages a run happened on, stored with every record."""

from __future__ import annotations

import os
import platform
import time
from importlib import metadata

import torch

from graphrepro import precision
from graphrepro.sources import git_commit, keep_diff

PACKAGES = ("torch", "torch-geometric", "geoopt", "numpy", "scipy", "scikit-learn", "pandas", "pykeen")


def package_versions() -> dict[str, str]:
    """Installed versions of the packages that decide the numbers."""
    versions = {}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


def hardware(device: torch.device) -> str:
    """A one-line description of where a run executed."""
    if device.type == "cuda":
        return torch.cuda.get_device_name(device)
    return f"{platform.processor() or platform.machine()}, {torch.get_num_threads()} torch threads"


def cpu() -> str:
    """The CPU's model and the instruction set torch's kernels use on it: float results can differ in the last
    bits from one to another, so ``verify`` expects identical numbers only on the same."""
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as fh:
            model = next((line.split(":", 1)[1].strip() for line in fh if line.startswith("model name")), model)
    except OSError:
        pass
    return f"{model}, {torch.backends.cpu.get_cpu_capability()}"


def cpu_kind(cpu: str | None) -> str:
    """A CPU (``cpu()``) as its maker and family ('Intel Xeon', 'AMD EPYC'), or 'not recorded'."""
    if not cpu:
        return "not recorded"
    name = cpu.split(",")[0].replace("(R)", "").replace("(TM)", "")
    for maker, family in (("Intel", "Xeon"), ("AMD", "EPYC")):
        if maker in name:
            return f"{maker} {family}" if family in name else maker
    return name.strip()


def run_environment(device: torch.device) -> dict[str, object]:
    """Everything recorded next to a run's metrics about where and with what it ran; a run made from uncommitted
    code also names the diff it was made with (``keep_diff``)."""
    diff = keep_diff()
    return {
        "device": device.type,
        "hardware": hardware(device),
        "cpu": cpu(),
        "cpu_bf16": precision.cpu_bf16(),
        "threads": torch.get_num_threads(),
        "python": platform.python_version(),
        "packages": package_versions(),
        "git_commit": git_commit(),
        **({"git_diff_sha256": diff} if diff else {}),
    }


def measured_on() -> dict[str, object]:
    """Where and when a kept measurement (a ``verify`` check, a bench table) ran: the UTC date, commit, CPU,
    thread count, torch and PyG, and the load average over the CPUs beside it."""
    versions = package_versions()
    return {"date": time.strftime("%Y-%m-%d", time.gmtime()), "commit": git_commit(), "cpu": cpu(),
            "threads": torch.get_num_threads(), "torch": versions["torch"], "torch_geometric": versions["torch-geometric"],
            "load_average": round(os.getloadavg()[0], 2), "cpus": os.cpu_count()}
