"""Chapter 5: which MRR? Raw, filtered and extended-filtered MRR (Tönshoff et al.: LRGB's PCQM-Contact
paper defined filtered MRR while its code computed raw MRR), tie handling, and the adjusted and z-scored
rank metrics of Hoyt et al. 2022 ("A Unified Framework for Rank-based Evaluation Metrics for Link
Prediction in Knowledge Graphs"). Every metric here is computed by ``graphrepro.metrics.ranking`` from
per-query ranks kept with each run."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from scipy.stats import spearmanr

from graphrepro import chapters, report, store
from graphrepro.chapters import DEVICE, PRECISION, Page, Param, same
from graphrepro.data import kg as kg_data
from graphrepro.data.registry import dataset_status
from graphrepro.experiments import Experiment, kg, linkpred
from graphrepro.grid import run_grid
from graphrepro.metrics import ranking
from graphrepro.report import claim_row, fmt, mean_std

CHAPTER = "mrr-variants"
LARGE_KGS = ("wn18rr", "fb15k237")
KG_LABELS = {"nations": "Nations", "kinships": "Kinships", "umls": "UMLS", "wn18rr": "WN18RR", "fb15k237": "FB15k-237"}
VARIANT_LABELS = {"raw": "raw", "filtered": "filtered", "extended": "extended-filtered"}

PAGE = Page(
    CHAPTER,
    "notebooks/05_mrr_variants.py",
    "Which MRR? Filtering, ties and adjusted rank metrics",
    (
        DEVICE,
        dataclasses.replace(PRECISION, help=PRECISION.help + " (the GNN link-prediction runs; pykeen's knowledge-graph "
                            "runs stay float32, since its pipeline trains and ranks in one call)"),
        Param("graphs", str, "graphs for within-graph link prediction", same(list(linkpred.DATASETS)), linkpred.DATASETS, many=True),
        Param("encoders", str, "encoders with a dot-product decoder", same(list(linkpred.MODELS)), linkpred.MODELS, many=True),
        Param("seeds", int, "seeds per encoder and graph", {"smoke": 1, "standard": 5, "paper": 5}, minimum=1, maximum=50),
        Param("lp_epochs", int, "epoch cap of the link-prediction runs (early stopping on validation filtered MRR)",
              {"smoke": 3, "standard": 300, "paper": 300}, minimum=1, maximum=10_000),
        Param("kgs", str, "knowledge graphs", {"smoke": ["nations"], "standard": ["nations", "kinships", "umls", "wn18rr"],
              "paper": list(kg.DATASETS)}, kg.DATASETS, many=True),
        Param("kg_models", str, "knowledge-graph embedding models", same(list(kg.MODELS)), kg.MODELS, many=True),
        Param("kg_seeds", int, "seeds per knowledge graph and model", {"smoke": 1, "standard": 3, "paper": 3}, minimum=1, maximum=20),
        Param("kg_epochs", int, "training epochs on Nations, Kinships and UMLS", {"smoke": 2, "standard": 100, "paper": 100},
              minimum=1, maximum=10_000),
        Param("tucker_epochs", int, "TuckER's training epochs on Nations, Kinships and UMLS (0: kg_epochs); it costs "
              "10-40 times the others' epoch", {"smoke": 0, "standard": 20, "paper": 0}, minimum=0, maximum=10_000),
        Param("large_kg_epochs", int, "training epochs on WN18RR and FB15k-237 (0: the published configuration's own)",
              {"smoke": 1, "standard": 20, "paper": 0}, minimum=0, maximum=10_000),
        Param("negatives_cap", int, "most negatives per positive triple on WN18RR and FB15k-237 (0: the published "
              "configuration's own; RotatE's 1,024 cost about 55 min per WN18RR epoch here)",
              {"smoke": 32, "standard": 32, "paper": 0}, minimum=0, maximum=100_000),
        Param("tucker_on_large", bool, "train TuckER on WN18RR and FB15k-237 (about 1,000 s per WN18RR epoch here)",
              {"smoke": False, "standard": False, "paper": True}),
        Param("tolerance", float, "largest |difference| in MRR points (x 100) counted as 'no change' in a verdict",
              same(1.0), minimum=0, maximum=100),
    ),
    module=__name__,
)
EXPERIMENTS = (linkpred.EXPERIMENT, kg.EXPERIMENT)

# Tönshoff et al., PCQM-Contact test MRR of tuned GPS (mean ± std over 4 runs)
PAPER_PCQM = {"raw": (0.3498, 0.0005), "extended": (0.4703, 0.0014)}
PAPER_SHIFT_ROW = "PCQM-Contact, GPS (paper)"  # the paper's row of ``shift_table``
# The worked example of the reading note on Tönshoff et al.: scores of one head's candidates, its true tails
EXAMPLE_SCORES = {"the head itself": 0.95, "t1": 0.90, "t2": 0.80, "x1": 0.60, "x2": 0.40}
EXAMPLE_TRUE = ("t1", "t2")
EXAMPLE_PAPER = {"raw": 0.417, "filtered": 0.5, "extended": 1.0}
# How popular code bases break ties (read in their code, versions as installed here or as cited)
TIE_CONVENTIONS = [
    {"code": "pykeen 1.11.1 (RankBasedEvaluator)", "ranks": "optimistic, realistic and pessimistic; reports realistic by default"},
    {"code": "OGB 1.3.6 (linkproppred Evaluator._eval_mrr)", "ranks": "realistic: half of (#greater + #greater-or-equal) + 1"},
    {"code": "LRGB / GraphGPS (inductive_edge head, _eval_mrr)", "ranks": "torch.argsort of [positive, negatives]: ties fall where the unstable sort puts them"},
    {"code": "PyG 2.8 (torch_geometric.metrics.LinkPredMRR)", "ranks": "position in the model's top-k list: ties in the order top-k returns them"},
]


# --- the worked example ----------------------------------------------------------------------------------

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
                     "ranks of t1, t2": ", ".join(f"{r:g}" for r in ranks), "MRR (ours)": round(ranking.mrr(ranks), 3),
                     "MRR (note)": EXAMPLE_PAPER[variant]})
    return pd.DataFrame(rows).set_index("variant")


# --- runs ------------------------------------------------------------------------------------------------

def lp_configs(params: dict[str, Any]) -> list[dict[str, Any]]:
    """Every encoder on every graph, every seed."""
    return [linkpred.make_config(g, m, s, max_epochs=params["lp_epochs"], precision=params["precision"]) for g in params["graphs"] for m in params["encoders"]
            for s in range(params["seeds"])]


def kg_configs(params: dict[str, Any]) -> list[dict[str, Any]]:
    """Every model on every knowledge graph that can be had (TuckER on the large ones only when asked, and with
    its own epoch budget on the small ones), every seed."""
    out = []
    for dataset in params["kgs"]:
        if dataset in LARGE_KGS and dataset_status(dataset)["status"] != "available":
            continue
        for model in params["kg_models"]:
            if dataset in LARGE_KGS and model == "TuckER" and not params["tucker_on_large"]:
                continue
            if dataset in LARGE_KGS:
                epochs = params["large_kg_epochs"] or None
            else:
                epochs = (model == "TuckER" and params["tucker_epochs"]) or params["kg_epochs"]
            base = kg.make_config(dataset, model, 0, epochs=epochs)
            cap = params["negatives_cap"] if dataset in LARGE_KGS else 0
            fewer = {"negatives": cap} if cap and kg.own_negatives(base) > cap else {}
            out += [kg.make_config(dataset, model, s, epochs=epochs, **fewer) for s in range(params["kg_seeds"])]
    return out


def negatives_note(params: dict[str, Any]) -> str:
    """Which cells train with fewer negatives than their configuration's own, as text for the protocol."""
    cells = {(c["dataset"], c["model"]): (c["negatives"], kg.own_negatives(c)) for c in kg_configs(params) if "negatives" in c}
    return "; ".join(f"{m} on {KG_LABELS[d]} draws {n:,} instead of {own:,}" for (d, m), (n, own) in cells.items()) or "none"


def kg_plan(params: dict[str, Any]) -> pd.DataFrame:
    """Per knowledge graph and model: the configuration it follows (pykeen's defaults, or a published one by its
    first author and year, with the dataset it was published for when that differs), that configuration's own
    epochs and the epochs trained under this profile (what is reduced, cell by cell); narrow enough for a phone."""
    rows = []
    for config in kg_configs(params):
        if config["seed"] != 0:
            continue
        label, own = "defaults", None
        if config["source"] != kg.DEFAULTS:
            published = kg.published(config["source"])
            label, own = Path(config["source"]).stem.split("_")[0], published["training_kwargs"]["num_epochs"]
            if published["dataset"] != config["dataset"]:
                label += f" ({published['dataset'].upper()})"
        rows.append({"dataset": KG_LABELS[config["dataset"]], "model": config["model"], "config": label,
                     "own": own or "–", "here": config["epochs"] or own})
    return pd.DataFrame(rows).set_index(["dataset", "model"]) if rows else pd.DataFrame()


def grids(params: dict[str, Any]) -> list[tuple[str, Experiment, list[dict[str, Any]]]]:
    """Every grid the chapter trains, in order, as (description, experiment, configs): the small knowledge
    graphs, the large ones apart (their expected memory, ``kg.peak_mb``, may allow fewer workers: RotatE's
    published WN18RR setting trains one at a time on 24 GB), then link prediction."""
    configs = kg_configs(params)
    out = [("knowledge graphs", kg.EXPERIMENT, [c for c in configs if c["dataset"] not in LARGE_KGS]),
           ("large knowledge graphs", kg.EXPERIMENT, [c for c in configs if c["dataset"] in LARGE_KGS]),
           ("link prediction on graphs", linkpred.EXPERIMENT, lp_configs(params))]
    return [grid for grid in out if grid[2]]


def _train(params: dict[str, Any], desc: str, experiment: Experiment, configs: list[dict[str, Any]]) -> pd.DataFrame:
    """Train what one grid lacks and return its records."""
    return run_grid(CHAPTER, experiment.name, configs, params["device"], desc=desc)


def run(params: dict[str, Any], part: str) -> pd.DataFrame:
    """Train what a part lacks (``lp`` or ``kg``) and return its records."""
    experiment = kg.EXPERIMENT if part == "kg" else linkpred.EXPERIMENT
    frames = [_train(params, *grid) for grid in grids(params) if grid[1] is experiment]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def chapter_keys(params: dict[str, Any]) -> set[str]:
    """Store keys of every run the chapter shows under ``params``."""
    return {linkpred.EXPERIMENT.key(c) for c in lp_configs(params)} | {kg.EXPERIMENT.key(c) for c in kg_configs(params)}


def chapter_records(params: dict[str, Any]) -> tuple[list[dict[str, Any]], pd.DataFrame]:
    """Every run the chapter shows and the store's records of them (nothing is trained)."""
    runs = store.load(CHAPTER)
    return lp_configs(params) + kg_configs(params), store.runs_with_keys(runs, chapter_keys(params))


def _ranks(runs: pd.DataFrame) -> list[tuple[dict[str, Any], dict[str, np.ndarray]]]:
    """(config, per-query ranks) of every run in ``runs``, read from its checksum-verified artefact."""
    wanted = set(runs.key) if len(runs) else set()
    return [(r["config"], store.load_artefact(CHAPTER, r, "ranks")) for r in store.records(CHAPTER)
            if r["key"] in wanted and "ranks" in r.get("artefacts", {})]


# --- raw, filtered, extended -----------------------------------------------------------------------------

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
    return pd.DataFrame(rows).set_index(["graph", "encoder"])


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
    return pd.DataFrame(rows).set_index("data").round(2)


# --- ties ------------------------------------------------------------------------------------------------

def tie_table(candidates: int = 2708, queries: int = 500, levels: tuple[int | None, ...] = (None, 2, 10)) -> pd.DataFrame:
    """MRR of a model whose scores are constant (None) or take only a few distinct values, under each tie rule
    and under an unstable argsort, beside random ranks' expected MRR and the realistic ranks' AMRI (0 is chance)."""
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
                     "AMRI, realistic": ranking.amri(r["realistic"], r["num_candidates"])})
    return pd.DataFrame(rows).set_index("scores").T.round(4)  # a column per model: fits a phone


# --- the unified framework on knowledge graphs -----------------------------------------------------------

KG_METRICS = ("mr", "mrr", "hits_at_k", "amr", "amri", "amrr", "ahk", "z_mr", "z_mrr", "z_hk")
KG_SHORT = {"candidates": "C", "mr": "MR", "mrr": "MRR", "hits_at_k": "H@10", "amr": "AMR", "amri": "AMRI", "amrr": "AMRR",
            "ahk": "AH@10", "z_mr": "zMR", "z_mrr": "zMRR", "z_hk": "zH@10"}
KG_GROUPS = {"base": ("candidates", "mr", "mrr", "hits_at_k"), "adjusted": ("amr", "amri", "amrr", "ahk"),
             "z-scored": ("z_mr", "z_mrr", "z_hk")}


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


def kg_crosscheck(frame: pd.DataFrame) -> pd.DataFrame:
    """Largest |ours - pykeen| over every run, per metric."""
    ours = {"mrr": "mrr", "mr": "mr", "hits_at_10": "hits_at_k", "amri": "amri", "z_mrr": "z_mrr"}
    return pd.DataFrame([{"metric": name, "runs": len(frame),
                          "largest |ours - pykeen|": float((frame[column] - frame[f"pykeen {name}"]).abs().max()) if len(frame) else math.nan}
                         for name, column in ours.items()]).set_index("metric")


def kg_table(frame: pd.DataFrame, group: str) -> pd.DataFrame:
    """Mean over seeds per dataset and model of one group of metrics (``KG_GROUPS``: the base metrics with
    the mean candidates per query, the adjusted ones, the z-scored ones), under short names (``KG_SHORT``)."""
    if not len(frame):
        return pd.DataFrame()
    columns = list(KG_GROUPS[group])
    return frame.groupby(["dataset", "model"], sort=False)[columns].mean().rename(columns=KG_SHORT).round(3)


def published_beside_ours(frame: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """Cells that follow a configuration published for their own dataset: the MRR its paper reports (as
    pykeen ships it) beside ours (x 100, mean ± std over seeds), with that configuration's epochs and
    negatives per triple and this profile's; context for the budgets, not a claim of this chapter."""
    rows = []
    for config in kg_configs(params):
        source = config["source"]
        paper = kg.published_mrr(source) if source != kg.DEFAULTS else None
        if config["seed"] != 0 or paper is None or kg.published(source)["dataset"] != config["dataset"]:
            continue
        ours = frame[(frame.dataset == config["dataset"]) & (frame.model == config["model"])]["mrr"] if len(frame) else pd.Series(dtype=float)
        mean, std, runs = mean_std(ours)
        epochs, negatives = kg.published(source)["training_kwargs"]["num_epochs"], kg.own_negatives(config)
        rows.append({"dataset": KG_LABELS[config["dataset"]], "model": config["model"],
                     "paper": f"{100 * paper:.1f} ({Path(source).stem.split('_')[0]})", "ours": fmt(mean, std), "runs": runs,
                     "epochs": f"{epochs:,} → {config['epochs'] or epochs:,}",
                     "negatives": f"{negatives:,} → {config.get('negatives', negatives):,}"})
    if not rows:
        return pd.DataFrame({"": ["no knowledge graph of these parameters follows a configuration published for it"]}, index=[""])
    return pd.DataFrame(rows).set_index(["dataset", "model"])


def kg_legend() -> pd.DataFrame:
    """What each short metric name stands for, its direction and the value of random ranks."""
    chance = {"amr": "1", "amri": "0", "amrr": "0", "ahk": "0", "z_mr": "0", "z_mrr": "0", "z_hk": "0"}
    return pd.DataFrame([{"name": KG_SHORT[m], "metric": ranking.RANK_METRICS[m].label.replace("Hits@k", "Hits@10"),
                          "better": "higher" if ranking.RANK_METRICS[m].higher_is_better else "lower", "random ranks": chance.get(m, "–")}
                         for m in KG_METRICS]).set_index("name")


def size_correlations(frame: pd.DataFrame) -> pd.DataFrame:
    """Spearman correlation of each metric with the number of candidates across the (dataset, model) cells:
    the size effect Hoyt et al. show (MRR falls with size; the adjusted metrics should not)."""
    cells = frame.groupby(["dataset", "model"])[["candidates", *KG_METRICS]].mean() if len(frame) else pd.DataFrame()
    rows = []
    for m in KG_METRICS:
        rho = spearmanr(cells["candidates"], cells[m]).statistic if len(cells) > 2 and cells["candidates"].nunique() > 1 else math.nan
        rows.append({"metric": ranking.RANK_METRICS[m].label.replace("Hits@k", "Hits@10"), "Spearman ρ with candidates": rho})
    return pd.DataFrame(rows).set_index("metric").round(3)


def size_figure(frame: pd.DataFrame) -> plt.Figure:
    """MRR and AMRI against the number of candidates, one point per dataset and model (mean over seeds)."""
    fig, axes = plt.subplots(1, 2, figsize=(7.2, 3.0))
    cells = frame.groupby(["dataset", "model"], as_index=False)[["candidates", "mrr", "amri"]].mean() if len(frame) else frame
    for ax, metric in zip(axes, ("mrr", "amri")):
        if len(cells):
            sns.scatterplot(data=cells, x="candidates", y=metric, hue="model", style="dataset", ax=ax, s=60, legend=ax is axes[1])
        ax.set_xscale("log")
        ax.set_xlabel("candidates per query (log scale)")
        ax.set_ylabel(ranking.RANK_METRICS[metric].label)
    if axes[1].get_legend() is not None:
        axes[1].legend(fontsize=7, bbox_to_anchor=(1.02, 1), loc="upper left")
    fig.tight_layout()
    return fig


def finding_numbers(frame: pd.DataFrame, ties: pd.DataFrame, kgs: pd.DataFrame) -> dict[str, str]:
    """The numbers the findings quote, as glue keys and text: from the variant frame, the tie table and the
    knowledge-graph frame the page shows."""
    shift = shift_table(frame).drop(index=PAPER_SHIFT_ROW) if len(frame) else pd.DataFrame()
    changes = orders(frame)["order changes"] if len(frame) else pd.Series(dtype=str)
    reordered = list(changes[changes == "yes"].index)
    rho = size_correlations(kgs)["Spearman ρ with candidates"]
    constant = ties["constant"]
    largest = kg_crosscheck(kgs)["largest |ours - pykeen|"].max() if len(kgs) else math.nan
    return {
        "ch5_shifts": "; ".join(f"{graph} {row['raw']:.1f} raw, {row['+ filtering']:+.1f} for filtering, "
                                f"{row['+ no self-loops']:+.1f} for removing self-loops" for graph, row in shift.iterrows()) or "not run yet",
        "ch5_reordered": (f"{len(reordered)} of {len(changes)}" + (f" ({', '.join(reordered)})" if reordered else "")
                          if len(changes) else "not run yet"),
        "ch5_constant": (f"{constant['MRR, optimistic']:.3f} under optimistic ranks, {constant['MRR, realistic']:.4f} under "
                         f"realistic and {constant['MRR, pessimistic']:.4f} under pessimistic ones"),
        "ch5_rho": ", ".join(f"{name} {rho[ranking.RANK_METRICS[m].label]:+.2f}" for m, name in
                             (("mrr", "MRR"), ("amri", "AMRI"), ("z_mrr", "z-scored MRR")))
                   if rho.notna().any() else "not computable here (it needs knowledge graphs of different sizes)",
        "ch5_crosscheck": "not run yet" if math.isnan(largest) else f"{largest:.1g} over {len(kgs)} runs",
    }


# --- verdicts --------------------------------------------------------------------------------------------

def recorded_runs(params: dict[str, Any]) -> pd.DataFrame:
    """The records its tables and verdicts read (nothing is trained)."""
    return chapter_records(params)[1]


def paper_cells(params: dict[str, Any], runs: pd.DataFrame | None = None) -> list[dict[str, Any]]:
    """The papers' numbers beside ours, for the Verdicts page: the worked example's three MRRs (computed by
    the library, equal to the note's three decimals) and the PCQM-Contact shift, which is not obtainable here."""
    example = worked_example()
    rows = [{"chapter": CHAPTER, "cell": f"worked example, {variant}", "paper": f"{r['MRR (note)']:.3f}",
             "ours": f"{r['MRR (ours)']:.3f}", "runs": 0, "tolerance": 0.0005,
             "verdict": report.REPRODUCED if abs(r["MRR (ours)"] - r["MRR (note)"]) <= 0.0005 else
             f"differs by {r['MRR (ours)'] - r['MRR (note)']:+.3f}", "where": report.anchor(CHAPTER, "worked-example")}
            for variant, r in example.iterrows()]
    raw, extended = PAPER_PCQM["raw"], PAPER_PCQM["extended"]
    return rows + [{"chapter": CHAPTER, "cell": "PCQM-Contact, GPS: raw → extended-filtered MRR",
                    "paper": f"{raw[0]:.4f} → {extended[0]:.4f}", "ours": "–", "runs": 0, "tolerance": params["tolerance"],
                    "verdict": "unavailable: PCQM-Contact is not obtainable here (the chapter measures the shift on its own graphs)",
                    "where": report.anchor(CHAPTER, "raw-filtered")}]


def headline(params: dict[str, Any], runs: pd.DataFrame | None = None) -> dict[str, Any]:
    """The chapter's strongest number for the synthesis: how much raw and extended-filtered MRR differ."""
    runs = recorded_runs(params) if runs is None else runs
    frame = variant_frame(runs)
    shifts = {}
    if len(frame):
        for graph, row in shift_table(frame).drop(index=PAPER_SHIFT_ROW).iterrows():
            shifts[graph] = (row["+ both"], f"{graph}: MRR {row['raw']:.1f} raw, {row['raw'] + row['+ both']:.1f} extended-filtered (× 100)")
    return report.headline_row(CHAPTER, "an inconsistent metric", "raw-filtered", shifts)


def claim_verdicts(profile: str, runs: pd.DataFrame | None = None, params: dict[str, Any] | None = None) -> list[dict[str, str]]:
    """The chapter's claims, decided from the records (nothing is trained here)."""
    params = chapters.resolve(CHAPTER, profile) if params is None else params
    runs = recorded_runs(params) if runs is None else runs
    tol, rows = params["tolerance"], []
    frame = variant_frame(runs)
    if len(frame):
        shift = shift_table(frame).drop(index=PAPER_SHIFT_ROW)
        moved = shift["+ both"]
        rows.append(claim_row(CHAPTER, f"Filtering and removing self-loops raise MRR by more than {tol:g} point(s) on every graph",
                              bool((moved > tol).all()), "; ".join(f"{g} +{v:.1f}" for g, v in moved.items())))
        changes = orders(frame)["order changes"]
        rows.append(claim_row(CHAPTER, "The variant changes the order of the encoders on at least one graph",
                              bool((changes == "yes").any()), f"{int((changes == 'yes').sum())} of {len(changes)} graphs"))
    else:
        rows += [claim_row(CHAPTER, "Filtering and removing self-loops raise MRR on every graph", None, "no records"),
                 claim_row(CHAPTER, "The variant changes the order of the encoders on at least one graph", None, "no records")]
    kgs = kg_frame(runs)
    corr = size_correlations(kgs)
    mrr_rho = corr.loc["mean reciprocal rank", "Spearman ρ with candidates"] if len(corr) else math.nan
    amri_rho = corr.loc["adjusted mean rank index", "Spearman ρ with candidates"] if len(corr) else math.nan
    rows.append(claim_row(CHAPTER, "MRR falls as the number of candidates grows (Spearman ρ < 0 across knowledge graphs and models)",
                          None if math.isnan(mrr_rho) else bool(mrr_rho < 0), f"ρ = {mrr_rho:.2f}"))
    rows.append(claim_row(CHAPTER, "The adjusted mean rank index depends less on size than MRR (|ρ| smaller)",
                          None if math.isnan(mrr_rho + amri_rho) else bool(abs(amri_rho) < abs(mrr_rho)),
                          f"AMRI ρ = {amri_rho:.2f}, MRR ρ = {mrr_rho:.2f}"))
    return rows


def training_plan(params: dict[str, Any]) -> list[tuple[str, Callable[[], Any]]]:
    """Background training: the chapter's grids, in order."""
    return [(grid[0], partial(_train, params, *grid)) for grid in grids(params)]


def bench(seeds: int) -> list[dict[str, Any]]:
    """Seconds to rank a million queries of 100 candidates each and to evaluate every metric on them; then
    RotatE's scores of 8 queries against WN18RR's 40,943 entities (500 complex dimensions, random unit-modulus
    relations), pykeen's interaction against ``kg.rotated_distances``."""
    import time

    import torch
    from pykeen.nn.modules import RotatEInteraction

    from graphrepro.bench import compare_seconds

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
            heads[:, None], relations[:, None], entities[None])), ("kg.rotated_distances", lambda: kg.rotated_distances(heads * relations, entities)),
            repeats=1))
    return rows

