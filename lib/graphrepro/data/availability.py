"""Whether each dataset can be had here, and where it was found or why not (the registry's files, no download)."""

from __future__ import annotations

from enum import StrEnum

from graphrepro.data.registry import DATASETS, ChecksumMismatch, DataUnavailable, resolve_dataset


class Availability(StrEnum):
    """Whether a dataset can be had here (``dataset_status``)."""

    AVAILABLE = "available"
    UNAVAILABLE = "unavailable"
    REFUSED = "refused"  # a file is there but fails its checksum


def is_available(name: str) -> bool:
    """Whether every file of dataset ``name`` is here and verified (no download)."""
    return dataset_status(name)["status"] is Availability.AVAILABLE


def dataset_status(name: str) -> dict[str, str]:
    """Whether a dataset is available now, where it was found, or why it is not (no download)."""
    spec = DATASETS[name]
    try:
        found = resolve_dataset(name, allow_download=False)
    except DataUnavailable as err:
        reason = spec.unavailable_reason or str(err).splitlines()[0]
        return {"dataset": name, "status": Availability.UNAVAILABLE, "where": "", "reason": reason}
    except ChecksumMismatch as err:
        return {"dataset": name, "status": Availability.REFUSED, "where": "", "reason": str(err)}
    folders = sorted({str(p.parent) for p in found.values()})
    return {"dataset": name, "status": Availability.AVAILABLE, "where": "; ".join(folders) or f"inside the package ({spec.source})",
            "reason": ""}

