"""The manifest's experiments by name, and the run store read through them: a record is current while its
experiment exists at the record's version. The store below knows nothing of chapters; this module does."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from graphrepro import pages, store
from graphrepro.experiments import Experiment


def experiments() -> dict[str, Experiment]:
    """Every experiment of the manifest's chapters, by name."""
    return {e.name: e for page in pages.chapter_pages() for e in pages.experiments(page.slug)}


def experiment(name: str) -> Experiment:
    """The experiment called ``name``."""
    known = experiments()
    if name not in known:
        raise KeyError(f"unknown experiment {name!r}; known: {', '.join(sorted(known))}")
    return known[name]


def is_current(record: dict[str, Any], known: dict[str, Experiment] | None = None) -> bool:
    """True when the record's experiment (among ``known``, by default the manifest's) still exists at the
    record's version."""
    found = (experiments() if known is None else known).get(record["experiment"])
    return found is not None and found.version == record["version"]


def stale(chapter: str, root: Path | None = None) -> list[dict[str, Any]]:
    """Records made by an older version of their experiment (ignored by ``load``)."""
    known = experiments()
    return [r for r in store.records(chapter, root) if not is_current(r, known)]


def load(chapter: str, root: Path | None = None) -> pd.DataFrame:
    """The chapter's current records as one DataFrame (stale records left out)."""
    known = experiments()
    return store.to_frame([r for r in store.records(chapter, root) if is_current(r, known)])
