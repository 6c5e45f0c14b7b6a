"""mrr-variants: tables built from the records."""

from __future__ import annotations

import enum
import itertools
import math
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import rankdata

from graphrepro import cells, store
from graphrepro.chapters.mrr_variants.configs import fast_passes, fast_twins, kg_configs
from graphrepro.chapters.mrr_variants.paper import (
    CHAPTER,
    EXAMPLE_PAPER,
    EXAMPLE_SCORES,
    EXAMPLE_TRUE,
    KG_GROUPS,
    KG_LABELS,
    KG_METRICS,
    KG_SHORT,
    PAPER_KG_MRR,
    PAPER_PCQM,
    PAPER_SHIFT_ROW,
    QUALITY_TOLERANCE,
    VARIANT_LABELS,
)
from graphrepro.experiments import kg, linkpred
from graphrepro.metrics import ranking
from graphrepro.report import fmt, mean_std
from graphrepro.underway import words as underway_words

PER_HUNDRED = ("mrr", "hits_at_k", "amri", "amrr", "ahk")  # shown × 100 everywhere on the page; ranks, AMR and z-scores as they are
SCALE = "×100"


def worked_example() -> pd.DataFrame:
    """The note's example computed by the library: MRR of the two true tails, each variant, beside the note's numbers."""
    names = list(EXAMPLE_SCORES)
    scores = np.array([list(EXAMPLE_SCORES.values())] * len(EXAMPLE_TRUE))
    target = np.array([names.index(t) for t in EXAMPLE_TRUE])
    others = np.array([[n in EXAMPLE_TRUE and n != t for n in names] for t in EXAMPLE_TRUE])
    itself = np.array([[n == "the head itself" for n in names]] * len(EXAMPLE_TRUE))
    rows = []
    for variant, exclude in (("raw", None), ("filtered", others), ("extended", others | itself)):
        ranks = ranking.ranks_from_scores(scores, target, exclude)["realistic"]
        rows.append({"variant": VARIANT_LABELS[variant], "candidates removed": {"raw": "none", "filtered": "the other true tail",
                     "extended": "the other true tail and the head itself"}[variant],
                     "ranks of t1, t2": ", ".join(f"{r:g}" for r in ranks), f"MRR {SCALE} (ours)": round(100 * ranking.mrr(ranks), 1),
                     f"MRR {SCALE} (note)": 100 * EXAMPLE_PAPER[variant]})
    return pd.DataFrame(rows).set_index("variant")


def _ranks(runs: pd.DataFrame) -> list[tuple[dict[str, Any], dict[str, np.ndarray]]]:
    """(config, per-query ranks) of every run in ``runs``, read from its checksum-verified artefact."""
    wanted = set(runs.key) if len(runs) else set()
    return [(r["config"], store.load_artefact(CHAPTER, r, "ranks")) for r in store.records(CHAPTER)
            if r["key"] in wanted and "ranks" in r.get("artefacts", {})]


def lrgb_aggregate(values: np.ndarray, graph_of_query: np.ndarray, batch_of_graph: np.ndarray, pairs_of_batch: np.ndarray) -> float:
    """LRGB's aggregation: the mean per graph, the mean of those per batch, and the batches weighted by
    their number of labelled pairs (not a mean over queries)."""
    graphs = np.unique(graph_of_query)
    per_graph = np.array([values[graph_of_query == g].mean() for g in graphs])
    batches = batch_of_graph[graphs]
    per_batch = np.array([per_graph[batches == b].mean() for b in np.unique(batches)])
    weights = pairs_of_batch[np.unique(batches)]
    return float((per_batch * weights).sum() / weights.sum())


def _in_order(frame: pd.DataFrame) -> pd.DataFrame:
    """Rows by graph and encoder in the experiment's order."""
    graph = frame.graph.map({g: i for i, g in enumerate(linkpred.DATASETS)})
    encoder = frame.encoder.map({m: i for i, m in enumerate(linkpred.MODELS)})
    return frame.assign(_g=graph, _e=encoder).sort_values(["_g", "_e", "seed"]).drop(columns=["_g", "_e"])


def variant_frame(runs: pd.DataFrame) -> pd.DataFrame:
    """Per link-prediction run and variant: MRR as LRGB aggregates it and as the plain mean over queries
    (realistic ranks), and the MRR of optimistic, pessimistic and argsort ranks."""
    rows = []
    for config, r in _ranks(runs[runs.experiment == linkpred.EXPERIMENT.name] if len(runs) else runs):
        one_graph = np.zeros(len(r["source"]), dtype=int)
        for variant in linkpred.VARIANTS:
            reciprocal = 1.0 / r[f"{variant}_realistic"]
            rows.append({"graph": config["dataset"], "encoder": config["model"], "seed": config["seed"], "variant": variant,
                         "MRR, LRGB's aggregation": lrgb_aggregate(reciprocal, one_graph, np.zeros(1, dtype=int), np.ones(1)),
                         "MRR, per-query mean": ranking.mrr(r[f"{variant}_realistic"]),
                         **{f"MRR, {rule}": ranking.mrr(r[f"{variant}_{rule}"]) for rule in ("optimistic", "pessimistic", "argsort")}})
    return _in_order(pd.DataFrame(rows)) if rows else pd.DataFrame(rows)


def variant_table(frame: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """MRR (x 100, mean ± std over seeds) per graph and encoder under each variant, and the model order per variant."""
    if not len(frame):
        return pd.DataFrame()
    rows = []
    for (graph, encoder), part in frame.groupby(["graph", "encoder"], sort=False):
        row = {"graph": graph, "encoder": encoder}
        for variant in linkpred.VARIANTS:
            row[VARIANT_LABELS[variant]] = fmt(*mean_std(part[part.variant == variant]["MRR, per-query mean"])[:2])
        rows.append(row)
    return pd.DataFrame(rows).set_index(["graph", "encoder"]).rename_axis(columns=f"MRR {SCALE}")


def orders(frame: pd.DataFrame) -> pd.DataFrame:
    """Per graph, the encoders ordered by mean MRR under each variant, and whether the order changes."""
    rows = []
    for graph, part in frame.groupby("graph", sort=False):
        means = part.groupby(["variant", "encoder"])["MRR, per-query mean"].mean()
        order = {v: " > ".join(means[v].sort_values(ascending=False).index) for v in linkpred.VARIANTS if v in means}
        rows.append({"graph": graph, **{VARIANT_LABELS[v]: o for v, o in order.items()},
                     "order changes": "yes" if len(set(order.values())) > 1 else "no"})
    return pd.DataFrame(rows).set_index("graph") if rows else pd.DataFrame()


def shift_table(frame: pd.DataFrame) -> pd.DataFrame:
    """How much filtering and then removing self-loops add to MRR (points x 100), beside PCQM-Contact's."""
    rows = []
    for graph, part in frame.groupby("graph", sort=False):
        means = part.groupby("variant")["MRR, per-query mean"].mean() * 100
        rows.append({"data": graph, "raw": means["raw"], "+ filtering": means["filtered"] - means["raw"],
                     "+ no self-loops": means["extended"] - means["filtered"], "+ both": means["extended"] - means["raw"]})
    rows.append({"data": PAPER_SHIFT_ROW, "raw": 100 * PAPER_PCQM["raw"][0], "+ filtering": math.nan,
                 "+ no self-loops": math.nan, "+ both": 100 * (PAPER_PCQM["extended"][0] - PAPER_PCQM["raw"][0])})
    return pd.DataFrame(rows).set_index("data").round(1).rename_axis(columns=f"MRR {SCALE}")


def shift_gains(frame: pd.DataFrame) -> dict[str, list[float]]:
    """Per graph, what filtering and removing self-loops together add to each run's MRR (points × 100), one
    difference per encoder and seed: the paired differences the shift claim is decided on."""
    if not len(frame):
        return {}
    wide = frame.pivot_table(index=["graph", "encoder", "seed"], columns="variant", values="MRR, per-query mean", sort=False)
    gains = 100 * (wide["extended"] - wide["raw"])
    return {g: list(part.values) for g, part in gains.groupby(level="graph", sort=False)}


def tie_table(candidates: int = 2708, queries: int = 500, levels: tuple[int | None, ...] = (None, 2, 10)) -> pd.DataFrame:
    """MRR of a model whose scores are constant (None) or take only a few distinct values, under each tie rule
    and under an unstable argsort, beside random ranks' expected MRR and the realistic ranks' AMRI (0 is chance),
    all × 100."""
    rng = np.random.default_rng(0)
    rows = []
    for level in levels:
        scores = np.zeros((queries, candidates)) if level is None else rng.integers(0, level, (queries, candidates)).astype(float)
        target = rng.integers(0, candidates, queries)
        r = ranking.ranks_from_scores(scores, target)
        sorted_ranks = linkpred.argsort_ranks(scores, target, None)
        rows.append({"scores": "constant" if level is None else f"{level} values",
                     **{f"MRR, {rule}": ranking.mrr(r[rule]) for rule in ("optimistic", "realistic", "pessimistic")},
                     "MRR, argsort": ranking.mrr(sorted_ranks), "E[MRR], random ranks": ranking.expectation("mrr", r["num_candidates"]),
                     "AMRI, realistic": ranking.metric("amri", r["realistic"], r["num_candidates"])})
    return (100 * pd.DataFrame(rows).set_index("scores").T).round(2).rename_axis(SCALE)  # a column per model: fits a phone


def kg_frame(runs: pd.DataFrame) -> pd.DataFrame:
    """Per knowledge-graph run: every metric from its ranks (both sides, realistic, k = 10), the mean
    number of candidates, and pykeen's own values for the cross-check."""
    rows = []
    kg_runs = runs[runs.experiment == kg.EXPERIMENT.name] if len(runs) else runs
    for config, r in _ranks(kg_runs):
        ranks_ = np.concatenate([r["head_realistic"], r["tail_realistic"]])
        counts = np.concatenate([r["head_candidates"], r["tail_candidates"]])
        record = kg_runs[kg_runs.key == kg.EXPERIMENT.key(config)].iloc[0]
        rows.append({"dataset": config["dataset"], "model": config["model"], "seed": config["seed"], "source": config["source"],
                     "candidates": float(counts.mean()),
                     **{m: ranking.metric(m, ranks_, counts, k=10) for m in KG_METRICS},
                     **{f"pykeen {name}": record[f"pykeen_{name}"] for name in kg.PYKEEN_KEYS}})
    if not rows:
        return pd.DataFrame(rows)
    frame = pd.DataFrame(rows)
    order = frame.dataset.map(kg.DATASETS.index) * len(kg.MODELS) + frame.model.map(kg.MODELS.index)
    return frame.assign(_order=order).sort_values(["_order", "seed"]).drop(columns="_order").reset_index(drop=True)


def pykeen_gaps(frame: pd.DataFrame) -> pd.Series:
    """Largest |ours - pykeen| over every run, per metric, on this page's scale (``PER_HUNDRED`` × 100)."""
    return pd.Series({name: (100 if column in PER_HUNDRED else 1) * float((frame[column] - frame[f"pykeen {name}"]).abs().max())
                      if len(frame) else math.nan for name, column in kg.PYKEEN_METRICS.items()}, name="largest |ours - pykeen|")


def kg_crosscheck(frame: pd.DataFrame) -> pd.DataFrame:
    """``pykeen_gaps`` as the page shows it: per metric, the runs compared and the largest gap to two digits."""
    gaps = pykeen_gaps(frame)
    return pd.DataFrame({"runs": len(frame), gaps.name: [f"{g:.1e}" if g else "0" for g in gaps]}, index=gaps.index.rename("metric"))


def cell_means(frame: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """Mean over seeds of ``columns`` per knowledge graph and model, in the frame's order (empty for no runs)."""
    return frame.groupby(["dataset", "model"], sort=False)[columns].mean() if len(frame) else pd.DataFrame(columns=columns)


def kg_table(frame: pd.DataFrame, group: str) -> pd.DataFrame:
    """Mean over seeds per dataset and model of one group of metrics (``KG_GROUPS``: the base metrics with
    the mean candidates per query, the adjusted ones, the z-scored ones), under short names (``KG_SHORT``)."""
    if not len(frame):
        return pd.DataFrame()
    columns = list(KG_GROUPS[group])
    means = cell_means(frame, columns)
    means[[c for c in columns if c in PER_HUNDRED]] *= 100
    digits = {c: 3 if c == "amr" else 1 for c in columns}  # AMR is a ratio to chance; the rest resolve to a tenth
    names = {c: f"{KG_SHORT[c]} {SCALE}" if c in PER_HUNDRED else KG_SHORT[c] for c in columns}
    return (means.round(digits) + 0.0).rename(columns=names)  # + 0.0: no "-0.0"


class Quality(enum.Enum):
    """Whether a knowledge-graph model counts in the size analysis: trained to the paper's quality or not, and why."""

    COUNTS = "counts"
    UNDER_TRAINED = "under-trained"  # below the paper's MRR on fewer epochs than the configuration's own
    BELOW = "below the paper's"  # below it at the configuration's own budget
    NO_PAPER = "no paper MRR"
    NOT_RUN = "not run yet"


def quality_frame(frame: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """Per knowledge graph and model this profile trains: Hoyt et al.'s MRR, ours (mean and std over seeds, × 100),
    ours as a share of theirs, the epochs trained and its ``Quality`` (the value): a model counts when its MRR is at
    least (1 − ``QUALITY_TOLERANCE``) of the paper's; below that it is under-trained where it trained fewer epochs
    than its configuration's own, else simply below the paper's."""
    rows = []
    for config in kg_configs(params):
        if config["seed"] != 0:
            continue
        cell = (config["dataset"], config["model"])
        ours = frame[(frame.dataset == cell[0]) & (frame.model == cell[1])]["mrr"] if len(frame) else pd.Series(dtype=float)
        mean, std, runs = mean_std(ours)
        paper = 100 * PAPER_KG_MRR[cell] if cell in PAPER_KG_MRR else math.nan
        share, own = mean / paper, kg.own_epochs(config)
        epochs = config["epochs"] or own
        quality = (Quality.NOT_RUN if not runs else Quality.NO_PAPER if math.isnan(paper) else
                   Quality.COUNTS if share >= 1 - QUALITY_TOLERANCE else Quality.UNDER_TRAINED if epochs < own else Quality.BELOW)
        rows.append({"dataset": cell[0], "model": cell[1], "paper": paper, "ours": mean, "sd": std, "runs": runs,
                     "share": share, "epochs": epochs, "quality": quality.value, "key": kg.EXPERIMENT.key(config)})
    return pd.DataFrame(rows, columns=["dataset", "model", "paper", "ours", "sd", "runs", "share", "epochs", "quality", "key"])


def quality_table(quality: pd.DataFrame, underway: dict[str, Any] | None = None) -> pd.DataFrame:
    """``quality_frame`` as the page shows it, narrow enough for a phone: the paper's MRR beside ours (× 100; ± over
    seeds where there are several), our share of it and the verdict (the epochs are the plan's table's); a model
    not run yet says how far its seed-0 run had trained as of ``underway`` (``underway.load``)."""
    def verdict(word: str, key: str) -> str:
        training = underway_words(underway, [key]) if word == Quality.NOT_RUN.value else ""
        return f"{word} ({training})" if training else word

    return pd.DataFrame({"dataset": quality.dataset.map(KG_LABELS), "model": quality.model,
                         "paper": ["–" if math.isnan(p) else f"{p:.1f}" for p in quality.paper],
                         "ours": [fmt(m, s) if n > 1 else "–" if not n else f"{m:.1f}" for m, s, n in zip(quality.ours, quality.sd, quality.runs)],
                         "share": ["–" if math.isnan(x) else f"{x:.0%}" for x in quality.share],
                         "quality": [verdict(q, k) for q, k in zip(quality.quality, quality.key)]}
                        ).set_index(["dataset", "model"]).rename_axis(columns=f"MRR {SCALE}")


def counted(frame: pd.DataFrame, quality: pd.DataFrame) -> pd.DataFrame:
    """The knowledge-graph runs of the models that count (``Quality.COUNTS``): what the size analysis reads."""
    cells = set(zip(quality.dataset, quality.model, quality.quality))
    return frame[[(d, m, Quality.COUNTS.value) in cells for d, m in zip(frame.dataset, frame.model)]] if len(frame) else frame


# the columns of targets_frame and sampler_frame (the page's runs, then the others) and their words in a note
TARGETS = {"multi-hot (1.8)": "pykeen 1.8's targets", "normalised (1.11)": "pykeen 1.11's"}
SAMPLERS = {"pykeen 1.11": "pykeen 1.11's sampler", "March 2022": "the March 2022 tree's"}
FAST = {"pykeen's path": "pykeen's path", "fast path": "the fast path"}


def beside_frame(page: pd.DataFrame, other: pd.DataFrame, columns: dict[str, str]) -> pd.DataFrame:
    """Per knowledge graph and model that ``other`` trained: the paper's MRR, the page's runs' and ``other``'s
    (× 100, mean over seeds, from ``kg_frame`` of each), under the two names of ``columns``."""
    names = ["paper", *columns]
    if not len(other):
        return pd.DataFrame(columns=names)
    theirs, ours = (100 * cell_means(part, ["mrr"])["mrr"] for part in (other, page))
    index = pd.MultiIndex.from_tuples([(KG_LABELS[d], m) for d, m in theirs.index], names=["dataset", "model"])
    values = [[100 * PAPER_KG_MRR.get(cell, math.nan) for cell in theirs.index], ours.reindex(theirs.index).to_numpy(), theirs.to_numpy()]
    return pd.DataFrame(dict(zip(names, values)), index=index)


def targets_frame(frame: pd.DataFrame, twins: pd.DataFrame) -> pd.DataFrame:
    """``beside_frame`` of the runs whose loss changed between pykeen versions (``configs.target_twins``): the true
    entities as pykeen 1.8 passed them (multi-hot, as Hoyt et al. trained: the page's runs) and as 1.11 normalises them."""
    return beside_frame(frame, twins, TARGETS)


def sampler_frame(frame: pd.DataFrame, march: pd.DataFrame) -> pd.DataFrame:
    """``beside_frame`` of the sLCWA runs (``configs.sampler_runs``): negatives as pykeen 1.11 draws them (the page's
    runs) and as pykeen's tree drew them in March 2022 (``kg.HALF_UNCHANGED``)."""
    return beside_frame(frame, march, SAMPLERS)


def fast_frame(frame: pd.DataFrame, fast: pd.DataFrame) -> pd.DataFrame:
    """``beside_frame`` of the fast path's fidelity check (``configs.fast_twins``): the small graphs' runs as above
    and again on the fast path."""
    return beside_frame(frame, fast, FAST)


def borrowed_frame(runs: pd.DataFrame) -> pd.DataFrame:
    """``fast_frame``'s rows for the check's borrowed settings (``configs.borrowed_twins``, records with a ``setting``):
    test MRR (× 100, mean over seeds) on pykeen's path and on the fast path, per small graph, setting and model."""
    if not len(runs):
        return pd.DataFrame(columns=["paper", *FAST])
    path = np.where(runs.denormals.notna(), "fast path", "pykeen's path")
    label = [f"{KG_LABELS[d]}, {KG_LABELS[s]}'s setting" for d, s in zip(runs.dataset, runs.setting)]
    means = (100 * runs.test_mrr).groupby([label, runs.model, path], sort=False).mean().unstack()
    return means.reindex(columns=list(FAST)).assign(paper=math.nan)[["paper", *FAST]].rename_axis(["dataset", "model"])


def fast_check_frame(page: pd.DataFrame, runs: pd.DataFrame) -> pd.DataFrame:
    """The fast path's check from its records (``configs.fast_grid``): ``fast_frame`` of the small graphs' twins, then
    ``borrowed_frame`` of the large graphs' settings they borrow."""
    borrowed = runs.setting.notna() if "setting" in runs else pd.Series(False, index=runs.index)
    parts = [fast_frame(page, kg_frame(runs[~borrowed])), borrowed_frame(runs[borrowed])]
    return pd.concat([p for p in parts if len(p)]) if any(len(p) for p in parts) else parts[0]


def _listed(names: list[str]) -> str:
    """Names in words: "A", "A and B", "A, B and C"."""
    return " and ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)


def fast_note(beside: pd.DataFrame, params: dict[str, Any]) -> str:
    """The fast path's fidelity check in words: its largest MRR difference and what the records decide, model by
    model, for the large graphs."""
    if not params["fast_check"]:
        return "not trained under this profile (`fast_check` is off), so the large graphs would wait for it"
    gaps = (beside["pykeen's path"] - beside["fast path"]).abs().dropna() if len(beside) else pd.Series(dtype=float)
    twins = fast_twins(params)
    decided = {m: fast_passes(params, m) for m in dict.fromkeys(c["model"] for c in twins)}
    if set(decided.values()) == {None}:
        planned = len({(c["dataset"], c.get("setting"), c["model"]) for c in twins})
        return f"not decided yet ({len(gaps)} of {planned} cells have both runs): the large graphs wait for it"
    (dataset, model), gap = gaps.idxmax(), gaps.max()
    largest = (f"the largest difference over {len(gaps)} cells is {gap:.2f} MRR points ({model} on {dataset})" if round(gap, 2)
               else f"all {len(gaps)} cells have the same MRR on both paths to two decimals")
    if len(set(decided.values())) == 1:
        verdict = "within it, so the large graphs take the fast path" if all(decided.values()) else "outside it, so the large graphs take pykeen's path"
    else:
        outcomes = ((True, "within it for {}, whose large-graph runs take the fast path"),
                    (False, "outside it for {}, whose large-graph runs take pykeen's path"),
                    (None, "not decided yet for {}, whose large-graph runs wait for it"))
        verdict = "; ".join(text.format(_listed([m for m, d in decided.items() if d is outcome]))
                            for outcome, text in outcomes if outcome in decided.values())
    return f"{largest}, against a tolerance of {params['tolerance']:g}: {verdict}"


def beside_table(beside: pd.DataFrame) -> pd.DataFrame:
    """``beside_frame`` as the page shows it: one decimal, as the quality table."""
    return beside.map(lambda v: "–" if math.isnan(v) else f"{v:.1f}").rename_axis(columns=f"MRR {SCALE}")


def beside_note(beside: pd.DataFrame, columns: dict[str, str]) -> str:
    """The cell of ``beside_frame`` that the other behaviour moves most, and how far each behaviour's MRR is from the
    paper's (relative, the mean over the cells with a paper MRR), in words (``columns``: its names and words)."""
    page, other = columns
    gaps = (beside[page] - beside[other]).abs().dropna()
    if not len(gaps):
        return "not run yet"
    (dataset, model), row = gaps.idxmax(), beside.loc[gaps.idxmax()]
    text = (f"{model} on {dataset} reaches {row[page]:.1f} with {columns[page]} and {row[other]:.1f} "
            f"with {columns[other]} (the paper: {row['paper']:.1f})")
    cited = beside.dropna()
    if len(cited):
        off = {name: (cited[name] / cited["paper"] - 1).abs().mean() for name in columns}
        scope = f"over the {len(cited)} cells with a paper MRR, MRR is on average" if len(cited) > 1 else "there MRR is"
        text += f"; {scope} {off[page]:.0%} off the paper's with {columns[page]} and {off[other]:.0%} with {columns[other]}"
    return text


def kg_legend() -> pd.DataFrame:
    """What each short metric name stands for, its direction and the value of random ranks."""
    chance = {"amr": "1", "amri": "0", "amrr": "0", "ahk": "0", "z_mr": "0", "z_mrr": "0", "z_hk": "0"}
    return pd.DataFrame([{"name": KG_SHORT[m], "metric": ranking.RANK_METRICS[m].label.replace("Hits@k", "Hits@10"),
                          "better": "higher" if ranking.RANK_METRICS[m].higher_is_better else "lower", "random ranks": chance.get(m, "–")}
                         for m in KG_METRICS]).set_index("name")


RHO, TREND_P = "Spearman ρ with candidates", "p (sizes permuted)"


def size_trend(cells: pd.DataFrame, metric: str) -> tuple[float, float]:
    """Spearman ρ of ``metric`` with the number of candidates over ``cell_means``' (dataset, model) cells, and its exact
    two-sided permutation p: the share of the k! ways to hand the k graphs' sizes to the graphs that give |ρ| at least
    the observed one (cells on one graph share its size, so graphs, not cells, are exchangeable); NaN for fewer than
    three cells or two graphs."""
    sizes = cells.groupby(level="dataset", sort=False)["candidates"].mean() if len(cells) >= 3 else ()
    if len(sizes) < 2:
        return math.nan, math.nan
    graph = cells.index.get_level_values("dataset").map({g: i for i, g in enumerate(sizes.index)}).to_numpy()
    assigned = sizes.to_numpy()[np.array(list(itertools.permutations(range(len(sizes)))))][:, graph]  # identity first
    x = rankdata(assigned, axis=1)
    y = rankdata(cells[metric].to_numpy())
    x, y = x - x.mean(axis=1, keepdims=True), y - y.mean()
    with np.errstate(invalid="ignore", divide="ignore"):  # a metric alike in every cell has no ρ
        rhos = (x @ y) / np.sqrt((x * x).sum(axis=1) * (y @ y))
    if math.isnan(rhos[0]):  # a metric missing somewhere, or alike everywhere
        return math.nan, math.nan
    return float(rhos[0]), float(np.mean(np.abs(rhos) >= abs(rhos[0]) - 1e-9))


def size_correlations(frame: pd.DataFrame) -> pd.DataFrame:
    """``size_trend`` of each metric over the runs' (dataset, model) cells: the size effect Hoyt et al. show (MRR
    falls with size; the adjusted metrics should not), with the chance of a trend as strong by the graphs' sizes alone."""
    cells = cell_means(frame, ["candidates", *KG_METRICS])
    trends = {ranking.RANK_METRICS[m].label.replace("Hits@k", "Hits@10"): size_trend(cells, m) for m in KG_METRICS}
    return pd.DataFrame.from_dict(trends, orient="index", columns=[RHO, TREND_P]).rename_axis("metric")


class Tables(cells.Tables):
    """The tables the claims, findings, headline and Verdicts page read, over one frame of records, each read
    from the runs' rank artefacts once."""

    frame = cells.table("The link-prediction runs under each variant", lambda t: variant_frame(t.runs))
    shift = cells.table("What filtering and self-loop removal add to MRR on our graphs (empty before any run)",
                        lambda t: shift_table(t.frame).drop(index=PAPER_SHIFT_ROW) if len(t.frame) else pd.DataFrame())
    orders = cells.table("The encoders' order per graph and variant", lambda t: orders(t.frame))
    ties = cells.table("MRR of few-valued scores under each tie rule", lambda t: tie_table())
    kgs = cells.table("The knowledge-graph runs' metrics", lambda t: kg_frame(t.runs))
    quality = cells.table("Each knowledge-graph model's MRR against the paper's, and whether it counts",
                          lambda t: quality_frame(t.kgs, t.params))
    correlations = cells.table("Each metric against candidate count, across the models that count",
                               lambda t: size_correlations(counted(t.kgs, t.quality)))