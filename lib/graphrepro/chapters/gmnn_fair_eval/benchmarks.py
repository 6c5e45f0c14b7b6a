"""gmnn-fair-eval: micro-benchmarks of this chapter's runs."""

from __future__ import annotations

import time
from typing import Any

from graphrepro import pages
from graphrepro.bench import batched_profile, batched_speedup
from graphrepro.chapters.gmnn_fair_eval import budget
from graphrepro.chapters.gmnn_fair_eval.paper import CHAPTER
from graphrepro.chapters.gmnn_fair_eval.searches import replay
from graphrepro.experiments import fair_eval


def bench(seeds: int) -> list[dict[str, Any]]:
    """The batched trainer against one-at-a-time training on Cora (MLP, GCN, FAGCN), 20 epochs; where the time
    of a batched GCN member-epoch goes, at one member and at 32; and a recorded search replayed (``replay_speedup``)."""
    data = fair_eval.prepare(fair_eval.make_config("cora", 0, "dense", "GCN", 0))
    sizes = tuple(sorted({1, max(1, seeds), 8, 32}))
    graph = (data["graph"], data["y"], data["split"])
    return ([row for model in ("MLP", "GCN", "FAGCN") for row in batched_speedup(model, *graph, sizes, epochs=20)]
            + [row for members in (1, 32) for row in batched_profile("GCN", *graph, members=members)] + replay_speedup())


def replay_speedup() -> list[dict[str, Any]]:
    """The standard profile's first budget-study search, replayed from the committed records with the sampler
    asking again and from its recorded asks (``search.STUDIES``); none while it is not recorded."""
    params = pages.resolve(CHAPTER, "standard")
    cells, trials = budget.cells(params), max(params["budgets"])
    if not cells:
        return []
    seconds, found = {}, {}
    for recorded_asks in (False, True):
        start = time.perf_counter()
        found[recorded_asks] = replay(params, cells[0], trials, train=False, show=False, recorded_asks=recorded_asks)
        seconds[recorded_asks] = time.perf_counter() - start
    _, distinct, _, asked = found[True]
    if len(distinct) < trials:
        return []
    if found[False][3] != asked:
        raise RuntimeError("the recorded asks differ from the sampler's: the transcript no longer replays this search")
    dataset, kind, model, fold = cells[0]
    return [{"run": f"replaying a search: {dataset} {kind} {model} fold {fold}, {trials} distinct settings, {len(asked):,} asks",
             "s, the sampler asks again": seconds[False], "s, its recorded asks": seconds[True],
             "speedup": seconds[False] / seconds[True]}]
