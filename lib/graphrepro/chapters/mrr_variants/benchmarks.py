"""mrr-variants: micro-benchmarks of this chapter's runs."""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import torch

from graphrepro import pages
from graphrepro.bench import compare_seconds
from graphrepro.chapters.mrr_variants import configs
from graphrepro.chapters.mrr_variants.paper import CHAPTER, KG_LABELS, LARGE_KGS
from graphrepro.data import kg as kg_data
from graphrepro.data.availability import is_available
from graphrepro.experiments import kg, kg_scoring
from graphrepro.grid import machine_mb
from graphrepro.metrics import ranking


MEMORY_SHARE = 0.5  # a probe may take at most this share of the machine's memory (two trainings may run beside it)
DIFFERENCE_COPIES = 4  # about how many tensors of its difference's size a TransE or RotatE batch holds at its peak
PARTS_TRIPLES = 16  # the smaller probe of a run timed in parts: each of its queries takes seconds


def probe_sub_batch(config: dict[str, Any], memory_mb: float) -> int | None:
    """The part of ``config``'s batch a probe trains at a time (pykeen's ``sub_batch_size``: the same gradient, a
    part at a time), halved until its difference (``kg.least_mb``) and autograd's copies of it fit ``MEMORY_SHARE``
    of ``memory_mb``; None where a whole batch fits."""
    batch, least = kg.pipeline_arguments(config)["training_kwargs"]["batch_size"], kg.least_mb(config)
    size, budget = batch, MEMORY_SHARE * memory_mb / DIFFERENCE_COPIES
    while size > 1 and least * size / batch > budget:
        size //= 2
    return None if size == batch else size


def epoch_seconds(config: dict[str, Any], triples: int = 256, sub_batch: int | None = None) -> float:
    """Seconds of one training epoch of ``config`` in pykeen's own loop: it trains one epoch on ``triples`` and on four
    times as many of the dataset's training triples (drawn at random, every entity kept; each batch in parts of
    ``sub_batch`` where given), and the difference per training instance (a query under LCWA, a triple under sLCWA)
    times the whole dataset's instances is the epoch."""
    from pykeen.pipeline import pipeline  # heavy (pykeen): only this benchmark needs it
    from pykeen.triples import LCWAInstances, TriplesFactory

    data, arguments = kg.prepare(config), kg.training_arguments(config)
    train = data["train"]
    lcwa = kg.trains_lcwa(config)

    def instances(factory: Any) -> int:
        return len(LCWAInstances.from_triples_factory(factory, target=2)) if lcwa else factory.num_triples

    arguments["training_kwargs"] = {**arguments["training_kwargs"], "num_epochs": 1, "use_tqdm": False}
    if sub_batch:  # pykeen's memory search would try the whole batch first, and then choose the parts itself
        arguments["training_kwargs"]["sub_batch_size"] = sub_batch
        arguments["training_loop_kwargs"] = {**arguments.get("training_loop_kwargs", {}), "automatic_memory_optimization": False}
    order = torch.randperm(train.num_triples, generator=torch.Generator().manual_seed(0))
    tiny = TriplesFactory(data["test"].mapped_triples[:4], train.entity_to_id, train.relation_to_id)
    timed = []
    for n in (triples, 4 * triples):
        with kg.quiet_pykeen(), kg.flushed(config.get("denormals") == kg.FLUSH):
            part = TriplesFactory(train.mapped_triples[order[:n]], train.entity_to_id, train.relation_to_id,
                                  create_inverse_triples=train.create_inverse_triples)
            result = pipeline(training=part, testing=tiny, random_seed=0, device="cpu", evaluation_kwargs={"use_tqdm": False}, **arguments)
        timed.append((instances(part), result.train_seconds))
    (short, short_s), (long, long_s) = timed
    return (long_s - short_s) / (long - short) * instances(train)


def _large_run(config: dict[str, Any]) -> str:
    """The name of ``config``'s row in ``large_graph_rows``."""
    return f"{config['model']} on {KG_LABELS[config['dataset']]}, Hoyt et al.'s setting, an epoch"


def kept_epoch_seconds(config: dict[str, Any], rows: list[dict[str, Any]]) -> float | None:
    """Seconds of one epoch of ``config`` in a kept bench's ``rows`` where ``large_graph_rows`` timed it: a large
    graph with its configuration's own negatives, on the path the config takes; None otherwise."""
    if config["dataset"] not in LARGE_KGS or "negatives" in config:
        return None
    column = "s, fast path" if kg.fast_fields(config).items() <= config.items() else "s, pykeen's path"
    seconds = next((r.get(column) for r in rows if r.get("run") == _large_run(config)), None)
    return float(seconds) if seconds is not None else None


def _timed_epoch(config: dict[str, Any], memory_mb: float) -> tuple[float, int | None]:
    """``epoch_seconds`` of ``config`` and the part of a batch it was timed in (``probe_sub_batch``; None: whole)."""
    sub_batch = probe_sub_batch(config, memory_mb)
    return (epoch_seconds(config, PARTS_TRIPLES, sub_batch) if sub_batch else epoch_seconds(config)), sub_batch


def large_graph_rows() -> list[dict[str, Any]]:
    """Seconds per epoch of Hoyt et al.'s setting of every model on WN18RR and FB15k-237 on the fast path
    (``kg.fast_fields``), and the hours of a run at its own epochs; on WN18RR also on pykeen's path, and the ratio.
    A batch too large for this machine is timed in parts (``probe_sub_batch``), on fewer triples."""
    rows, memory_mb = [], machine_mb()
    for dataset in LARGE_KGS:
        if not is_available(dataset):
            rows.append({"run": f"{KG_LABELS[dataset]}: an epoch of each model", "status": "its files cannot be had here"})
            continue
        for config in configs.kg_configs_on(pages.resolve(CHAPTER, "paper", kg_seeds=1), [dataset], fast=True):
            fast, parts = _timed_epoch(config, memory_mb)
            pykeens, pykeens_parts = _timed_epoch(kg.pykeens_path(config), memory_mb) if dataset == "wn18rr" else (None, None)
            status = [f"{path} timed in parts of {n} queries: one batch's difference alone is {kg.least_mb(c) / 2**10:.0f} GB"
                      for path, n, c in (("the fast path", parts, config), ("pykeen's path", pykeens_parts, kg.pykeens_path(config))) if n]
            rows.append({"run": _large_run(config), "s, pykeen's path": pykeens, "s, fast path": fast,
                         "speedup": pykeens / fast if pykeens else None, "hours per run, fast path": fast * kg.own_epochs(config) / 3600,
                         **({"status": "; ".join(status)} if status else {})})
    return rows


def bench(seeds: int) -> list[dict[str, Any]]:
    """Seconds to rank a million queries of 100 candidates each and to evaluate every metric on them; then
    RotatE's scores of 8 queries against WN18RR's 40,943 entities (500 complex dimensions, random unit-modulus
    relations), pykeen's interaction against ``kg_scoring.rotated_distances``."""
    from pykeen.nn.modules import RotatEInteraction  # heavy (pykeen): only this benchmark needs it

    rng = np.random.default_rng(0)
    start = time.perf_counter()
    total = 0
    for _ in range(10):
        scores = rng.random((100_000, 100))
        r = ranking.ranks_from_scores(scores, rng.integers(0, 100, 100_000))
        total += len(r["realistic"])
    rank_s = time.perf_counter() - start
    ranks_ = np.floor(rng.random(1_000_000) * 100) + 1
    counts = np.full(1_000_000, 100)
    start = time.perf_counter()
    for m in ranking.RANK_METRICS:
        ranking.metric(m, ranks_, counts)
    rows = [{"run": "rank 1,000,000 queries x 100 candidates", "seconds": rank_s},
            {"run": f"all {len(ranking.RANK_METRICS)} metrics on 1,000,000 ranks", "seconds": time.perf_counter() - start}]
    generator = torch.Generator().manual_seed(0)
    entities = torch.randn(kg_data.STATS["wn18rr"].entities, 500, dtype=torch.cfloat, generator=generator)
    heads, relations = entities[:8], torch.polar(torch.ones(8, 500), 6.3 * torch.rand(8, 500, generator=generator))
    with torch.no_grad():
        rows.append(compare_seconds("RotatE, 8 queries x 40,943 entities", ("pykeen's interaction", lambda: RotatEInteraction()(
            heads[:, None], relations[:, None], entities[None])), ("kg_scoring.rotated_distances", lambda: kg_scoring.rotated_distances(heads * relations, entities)),
            repeats=1))
    return rows + large_graph_rows()
