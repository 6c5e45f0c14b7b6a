"""Shared fixtures: an isolated run store and data cache for every test."""

from __future__ import annotations

import os

import graphrepro  # noqa: F401  (first: it switches TorchScript off before torch and geoopt load)
import pytest
import torch


def pytest_configure(config):
    """Under ``pytest -n N`` (``make test``), each of the N processes takes its share of the cores, not all of them."""
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    if workers > 1:
        torch.set_num_threads(max(1, (os.cpu_count() or 1) // workers))


@pytest.fixture(autouse=True)
def isolated_store(tmp_path, monkeypatch):
    """Each test writes records and cache files under its own temporary folder, never into results/."""
    monkeypatch.setenv("GRAPHREPRO_RESULTS", str(tmp_path / "results"))
    monkeypatch.setenv("GRAPHREPRO_DATA", str(tmp_path / "cache"))
    monkeypatch.setenv("GRAPHREPRO_PROGRESS", "0")
    monkeypatch.setenv("GRAPHREPRO_WORKERS", "1")  # grids in one process unless a test asks for workers
    return tmp_path / "results"
