"""A run's numeric precision: ``float32``, or ``bfloat16`` mixed precision (matmuls and attention in bf16
under autocast; master weights, optimiser state, losses and metrics in fp32) where the hardware has bf16."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # torch loads only when a run trains: the command line answers without it
    import torch  # heavy: declaring parameters and answering the CLI never load torch

FLOAT32, BFLOAT16 = "float32", "bfloat16"
CHOICES = (FLOAT32, BFLOAT16)


def cpu_flags() -> set[str]:
    """The CPU's feature flags (``/proc/cpuinfo``; empty where it cannot be read)."""
    try:
        with open("/proc/cpuinfo") as fh:
            line = next((line for line in fh if line.startswith("flags")), "")
    except OSError:
        return set()
    return set(line.partition(":")[2].split())


def cpu_bf16() -> str:
    """The CPU's bfloat16 hardware: ``amx`` (Intel AMX), ``avx512_bf16`` (e.g. AMD Zen 4) or ``none``."""
    flags = cpu_flags()
    return "amx" if "amx_bf16" in flags else "avx512_bf16" if "avx512_bf16" in flags else "none"


def unavailable(precision: str) -> str | None:
    """Why ``precision`` cannot train here (None when it can)."""
    if precision != BFLOAT16 or cpu_bf16() != "none":
        return None
    import torch  # heavy: loaded only to ask about CUDA; declaring parameters and answering the CLI never load it

    if not torch.cuda.is_available():
        return ("this CPU has no bfloat16 hardware (neither AMX nor avx512_bf16) and torch sees no CUDA device; "
                "use -p precision float32")
    return None


@contextlib.contextmanager
def autocast(precision: str, device: torch.device) -> Iterator[None]:
    """Mixed precision on ``device`` for ``bfloat16``; nothing changes for ``float32``."""
    if precision == FLOAT32:
        yield
        return
    import torch  # heavy: declaring parameters and answering the CLI never load torch

    with torch.autocast(device.type, dtype=torch.bfloat16):
        yield


def of(config: dict) -> str:
    """A run's precision (float32 where its config names none)."""
    return config.get("precision", FLOAT32)


def keyed(config: dict) -> dict:
    """``config`` with its precision checked and left out where it is float32: the default stays out of a run's
    key, so records made before precision was a setting keep theirs."""
    if of(config) not in CHOICES:
        raise ValueError(f"unknown precision {of(config)!r}; choose from {CHOICES}")
    return {k: v for k, v in config.items() if k != "precision" or v != FLOAT32}
