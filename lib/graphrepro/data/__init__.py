"""Datasets: the registry of pinned upstream files and the loaders that turn them into PyG objects."""

from graphrepro.data.availability import Availability, dataset_status, is_available
from graphrepro.data.registry import (
    DATASETS,
    ChecksumMismatch,
    DatasetSpec,
    DataUnavailable,
    RemoteFile,
    resolve,
    resolve_dataset,
)

__all__ = [
    "DATASETS",
    "Availability",
    "ChecksumMismatch",
    "DataUnavailable",
    "DatasetSpec",
    "RemoteFile",
    "dataset_status",
    "is_available",
    "resolve",
    "resolve_dataset",
]
