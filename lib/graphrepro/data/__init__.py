"""Datasets: the registry of pinned upstream files and the loaders that turn them into PyG objects."""

from graphrepro.data.registry import (
    DATASETS,
    ChecksumMismatch,
    DatasetSpec,
    DataUnavailable,
    RemoteFile,
    dataset_status,
    resolve,
    resolve_dataset,
)

__all__ = [
    "DATASETS",
    "ChecksumMismatch",
    "DataUnavailable",
    "DatasetSpec",
    "RemoteFile",
    "dataset_status",
    "resolve",
    "resolve_dataset",
]
