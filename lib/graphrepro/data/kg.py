"""Knowledge graphs for rank metrics: WN18RR and FB15k-237 from the ConvE tarballs, and the small
graphs pykeen ships (Nations, Kinships, UMLS), as pykeen ``TriplesFactory`` objects whose training,
validation and test parts share one entity and one relation map (built from all three parts, so no
validation or test triple is dropped). pykeen's own cache is pointed inside the project's data cache."""

from __future__ import annotations

import fcntl
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from graphrepro import paths
from graphrepro.data.archive import read_tar_members
from graphrepro.data.registry import DATASETS, resolve

PARTS = ("train", "valid", "test")
SHIPPED = ("nations", "kinships", "umls")  # in pykeen's wheel: no file to fetch


@dataclass(frozen=True)
class KGStats:
    """Triples per part, entities over all parts and relations (checked on load)."""

    train: int
    valid: int
    test: int
    entities: int
    relations: int


STATS = {
    "wn18rr": KGStats(86_835, 3_034, 3_134, 40_943, 11),
    "fb15k237": KGStats(272_115, 17_535, 20_466, 14_541, 237),
}


def use_project_cache() -> Path:
    """Point pystow (pykeen's cache) inside the project's data cache, so pykeen writes nothing elsewhere."""
    home = paths.cache_dir() / "pystow"
    os.environ["PYSTOW_HOME"] = str(home)
    return home


def parse_triples(data: bytes) -> np.ndarray:
    """Tab-separated ``head relation tail`` lines into a [n, 3] array of strings; CRLF endings allowed."""
    rows = [line.split("\t") for line in data.decode().splitlines() if line.strip()]
    if any(len(r) != 3 for r in rows):
        raise ValueError("a triple line does not have three tab-separated fields")
    return np.array(rows, dtype=str).reshape(-1, 3)


def triples_from_tarball(path: Path) -> dict[str, np.ndarray]:
    """The train, valid and test triples of a ConvE-style tarball."""
    members = read_tar_members(path, tuple(f"{p}.txt" for p in PARTS))
    return {p: parse_triples(members[f"{p}.txt"]) for p in PARTS}


def factories(triples: dict[str, np.ndarray]) -> dict[str, object]:
    """One ``TriplesFactory`` per part, all with the same entity and relation maps."""
    use_project_cache()
    from pykeen.triples import TriplesFactory  # heavy (pykeen): only knowledge-graph runs load it

    every = np.concatenate([triples[p] for p in PARTS])
    entity_to_id = {e: i for i, e in enumerate(sorted(set(every[:, 0]) | set(every[:, 2])))}
    relation_to_id = {r: i for i, r in enumerate(sorted(set(every[:, 1])))}
    return {p: TriplesFactory.from_labeled_triples(triples[p], entity_to_id=entity_to_id, relation_to_id=relation_to_id)
            for p in PARTS}


def check(parts: dict[str, object], stats: KGStats, name: str) -> None:
    """Raise ``ValueError`` unless the triple, entity and relation counts are the expected ones."""
    found = KGStats(*(parts[p].num_triples for p in PARTS), parts["train"].num_entities, parts["train"].num_relations)
    if found != stats:
        raise ValueError(f"{name} is not the expected release: found {found}, expected {stats}")


def load_kg(name: str) -> dict[str, object]:
    """A knowledge graph's train, valid and test factories: WN18RR or FB15k-237 from the registry, or one
    of the graphs shipped with pykeen."""
    if name in SHIPPED:
        home = use_project_cache()
        home.mkdir(parents=True, exist_ok=True)
        from pykeen.datasets import get_dataset  # heavy (pykeen): only knowledge-graph runs load it

        # pykeen writes its cache of a shipped graph on first use; two workers doing so at once read each
        # other's half-written files, so the first use is one process at a time
        with open(home / f".{name}.lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                dataset = get_dataset(dataset=name)
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)
        return {"train": dataset.training, "valid": dataset.validation, "test": dataset.testing}
    (remote,) = DATASETS[name].files
    parts = factories(triples_from_tarball(resolve(remote)))
    check(parts, STATS[name], name)
    return parts
