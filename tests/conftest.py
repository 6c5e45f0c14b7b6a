"""Shared fixtures: an isolated run store and data cache for every test."""

from __future__ import annotations

import graphrepro  # noqa: F401  (first: it switches TorchScript off before torch and geoopt load)
import pytest


@pytest.fixture(autouse=True)
def isolated_store(tmp_path, monkeypatch):
    """Each test writes records and cache files under its own temporary folder, never into results/."""
    monkeypatch.setenv("GRAPHREPRO_RESULTS", str(tmp_path / "results"))
    monkeypatch.setenv("GRAPHREPRO_DATA", str(tmp_path / "cache"))
    monkeypatch.setenv("GRAPHREPRO_PROGRESS", "0")
    monkeypatch.setenv("GRAPHREPRO_WORKERS", "1")  # grids in one process unless a test asks for workers
    return tmp_path / "results"
