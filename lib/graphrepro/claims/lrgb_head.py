"""Chapter 4: Tönshoff, Ritzert, Rosenbluth and Grohe, "Where Did the Gap Go? Reassessing the Long-Range
Graph Benchmark" (TMLR 2024): on Peptides-func, a deeper prediction head closes most of the gap between
message-passing GNNs and GPS that LRGB (Dwivedi et al. 2022) reported."""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.ticker import MaxNLocator
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import shortest_path

from graphrepro import chapters, precision, report, store
from graphrepro.chapters import DEVICE, PRECISION, Page, Param, same
from graphrepro.data import lrgb as lrgb_data
from graphrepro.data.registry import dataset_status
from graphrepro.experiments import lrgb
from graphrepro.grid import run_grid
from graphrepro.models.lrgb import parameter_count
from graphrepro.report import claim_row, fmt, mean_std, verdict

CHAPTER = "lrgb-head"
MODELS = lrgb.MODELS
# the head ablation's stages (the paper's Figure 1, right) and the RWSE ablation: base config and changes
STAGES: dict[str, tuple[str, dict[str, Any]]] = {
    "LRGB, linear head": ("lrgb", {}),
    "LRGB, 2-layer head": ("lrgb", {"head_layers": 2}),
    "tuned": ("tuned", {}),
    "tuned without RWSE": ("tuned", {"rwse": False}),
}
HEAD_STAGES = ("LRGB, linear head", "LRGB, 2-layer head", "tuned")
# GPS (the reference line): Tönshoff et al.'s tuned GPS with its own 2-layer head, and with a linear head
GPS_STAGES: dict[str, dict[str, Any]] = {"tuned": {}, "tuned, linear head": {"head_layers": 1}}
LONG_PAIR = ("GCN", ("LRGB, linear head", "LRGB, 2-layer head"))  # trained longer, to see if the order holds
FIDELITY_SEEDS = 2  # seeds of each precision in the bf16 fidelity check

PAGE = Page(
    CHAPTER,
    "notebooks/04_lrgb_head.py",
    "Where did the gap go? A deeper head on Peptides-func",
    (
        DEVICE,
        PRECISION,
        Param("models", str, "message-passing GNNs of the head ablation", same(list(MODELS)), MODELS, many=True),
        Param("gps", bool, "train GPS (tuned, with its 2-layer head and with a linear head) as the reference line",
              same(True)),
        Param("seeds", int, "training seeds per configuration (seeds 0 .. n-1)", {"smoke": 1, "standard": 2, "paper": 4},
              minimum=1, maximum=20),
        Param("epochs", int, "training epochs of every run (0: each configuration's own, LRGB 500 and tuned 250); "
              "fewer compress the tuned warm-up and cosine schedule to fit", {"smoke": 2, "standard": 8, "paper": 0},
              minimum=0, maximum=1000),
        Param("long_epochs", int, "epochs of the GCN pair trained longer to check the order of the stages (0: none)",
              {"smoke": 3, "standard": 30, "paper": 0}, minimum=0, maximum=1000),
        Param("train_graphs", int, "training graphs used (0: all 10,873)", {"smoke": 128, "standard": 0, "paper": 0},
              minimum=0, maximum=10_873),
        Param("eval_graphs", int, "validation and test graphs used each (0: all 2,331)", {"smoke": 64, "standard": 0, "paper": 0},
              minimum=0, maximum=2_331),
        Param("tolerance", float, "largest |ours - paper| in AP points (AP x 100) that still counts as reproduced, and "
              "the margin of 'improves', 'matches or beats' and 'insensitive'", same(1.0), minimum=0, maximum=100),
    ),
    module=__name__,
)
EXPERIMENTS = (lrgb.EXPERIMENT,)

# Test AP x 100, mean and std over 4 runs. LRGB's original configs: vijaydwivedi75/lrgb README leaderboard;
# tuned: Tönshoff et al. (TMLR 2024), Figure 1 (left) / Table 1. GPS: GraphGPS's own number, re-evaluated by Tönshoff.
PAPER: dict[tuple[str, str], tuple[float, float]] = {
    ("GCN", "LRGB, linear head"): (59.30, 0.23), ("GINE", "LRGB, linear head"): (54.98, 0.79),
    ("GatedGCN", "LRGB, linear head"): (58.64, 0.77),
    ("GCN", "tuned"): (68.60, 0.50), ("GINE", "tuned"): (66.21, 0.67), ("GatedGCN", "tuned"): (67.65, 0.47),
}
PAPER[("GPS", "tuned")] = (65.34, 0.91)
PAPER_GPS_LRGB = (65.35, 0.41)  # GraphGPS's own configuration, as LRGB's leaderboard lists it
# Parameter counts LRGB's paper lists for its original configs, in thousands (its "about 500k" budget)
LRGB_PARAMETERS = {"GCN": 508_000, "GINE": 476_000, "GatedGCN": 509_000}
BUDGET = 500_000
# LRGB paper, Table 1 (Peptides-func): the statistics our build of the dataset is checked against
PAPER_STATS = {"graphs": "15,535", "nodes per graph": "150.94", "edges per graph": "307.30",
               "shortest path (mean ± std)": "20.89 ± 9.79", "diameter (mean ± std)": "56.99 ± 28.72",
               "split (train / val / test)": "10,873 / 2,331 / 2,331", "tasks": "10"}
GPS_NOTE = "GPS: LRGB lists GraphGPS's own configuration at 65.35 ± 0.41"


UNAVAILABLE = "Peptides-func's files are not in the mirror or the cache"


def available() -> bool:
    """Whether Peptides-func's files can be had."""
    return dataset_status("peptides_func")["status"] == "available"


FIRST_FULL = ("GCN", "LRGB, linear head", 0)  # always trains LRGB's 500 epochs: it checks the stopping rule


def config(params: dict[str, Any], model: str, stage: str, seed: int, epochs: int | None = None) -> dict[str, Any]:
    """One run: the stage's base configuration of ``model`` (GPS: its ``GPS_STAGES``), its changes, and the
    profile's reductions. At the papers' epochs, ``FIRST_FULL`` trains in fp32 with today's step; every other
    run takes ``paper_setting``'s precision and step, and one of an LRGB configuration stops by the stated rule
    (``lrgb.STOP_AT_MIN_LR``) once ``stopping_check`` says the rule applies."""
    base, changes = ("tuned", GPS_STAGES[stage]) if model == lrgb.GPS else STAGES[stage]
    epochs = params["epochs"] if epochs is None else epochs
    fields: dict[str, Any] = {**changes, "train_graphs": params["train_graphs"], "eval_graphs": params["eval_graphs"],
                              "precision": params["precision"]}
    if not epochs and (model, stage, seed) == FIRST_FULL:
        fields["precision"] = precision.FLOAT32
    elif not epochs:
        fields.update(paper_setting(params))
        if base == "lrgb" and (stopping_check(params) or {}).get("applies"):
            fields["stop_at_min_lr"] = lrgb.STOP_AT_MIN_LR
    if epochs:
        fields["epochs"] = epochs
        if base == "tuned":  # the same shape in fewer epochs: warm-up 2% of training, stepped every batch
            full = lrgb.BASES["tuned"]
            fields.update(warmup_epochs=full["warmup_epochs"] * epochs / full["epochs"], schedule_per_batch=True)
    return lrgb.make_config(model, base, seed, **fields)


def paper_setting(params: dict[str, Any]) -> dict[str, str]:
    """The precision and step of the papers'-budget runs after ``FIRST_FULL``: bf16 where the fidelity check
    passed, fp32 with the fast step where it failed, and the profile's precision until it is decided."""
    passed = bf16_passes(params)
    if passed is None:
        return {"precision": params["precision"]}
    return {"precision": precision.BFLOAT16} if passed else {"precision": precision.FLOAT32, "step": "fast"}


def paper_setting_note(params: dict[str, Any]) -> str:
    """``paper_setting`` in words, for the page."""
    passed = bf16_passes(params)
    if passed is None:
        return f"in {params['precision']}, the profile's precision, because the check is not yet decided"
    return "in bf16, because the check passed" if passed else "in fp32 with the fast step, because the check failed"


def bf16_passes(params: dict[str, Any]) -> bool | None:
    """The fidelity check's outcome from the records (``fidelity_table``): True when every stage is within, False
    when one is not, None until every run of it is recorded. A profile that trains no longer pair (``paper``)
    reads the standard profile's check."""
    long_epochs = params["long_epochs"] or chapters.resolve(CHAPTER, "standard")["long_epochs"]
    return _bf16_passes(json.dumps({**params, "long_epochs": long_epochs}, sort_keys=True), _store_stamp())


def _store_stamp() -> tuple[str, int]:
    """The chapter's store and when it last changed (a record added or removed), for caches of what records decide."""
    folder = store.record_path(CHAPTER, "x").parent
    return str(folder), folder.stat().st_mtime_ns if folder.exists() else 0


@functools.lru_cache(maxsize=8)
def _bf16_passes(check: str, stamp: tuple[str, int]) -> bool | None:
    """``bf16_passes`` for one set of parameters (JSON) and one state of the store."""
    params = json.loads(check)
    within = fidelity_table(fidelity_runs(params), params).get("within", pd.Series(dtype=str))
    if not len(within) or not within.isin(["yes", "no"]).all():
        return None
    return bool((within == "yes").all())


def stopping_check(params: dict[str, Any]) -> dict[str, Any] | None:
    """The stopping rule checked on ``FIRST_FULL``'s record at 500 epochs: its best validation epoch, the first
    epoch at the minimum rate (None if never), and whether the rule applies (the best came first); None until
    that run is recorded."""
    model, stage, seed = FIRST_FULL
    path = store.record_path(CHAPTER, key(config({**params, "epochs": 0}, model, stage, seed)))
    return _check_rule(str(path), path.stat().st_mtime_ns) if path.exists() else None


def stopping_note(params: dict[str, Any]) -> str:
    """``stopping_check`` in words, for the page."""
    check, rule = stopping_check(params), (f"once their rate is at {lrgb.PLATEAU['min_lr']:g} and validation AP has not "
                                           f"improved for {lrgb.STOP_AT_MIN_LR} epochs")
    if check is None:
        return ("is not yet checked: the first GCN run of LRGB's configuration at 500 epochs (linear head, seed 0) is not "
                "recorded, so every LRGB-configuration run trains all 500 epochs")
    best, first = check["best epoch"] + 1, check["first epoch at the minimum rate"]
    reached = "never reached the minimum rate" if first is None else f"reached the minimum rate at epoch {first + 1}"
    if check["applies"]:
        return (f"applies: that run's best validation epoch was {best}, and it {reached}; the other LRGB-configuration "
                f"runs stop {rule}, and each record keeps the epochs it ran")
    return f"does not apply: that run's best validation epoch was {best}, and it {reached}; every LRGB run trains all 500 epochs"


@functools.lru_cache(maxsize=4)
def _check_rule(path: str, mtime_ns: int) -> dict[str, Any]:
    """``stopping_check`` on one record file as it is at ``mtime_ns`` (read once per process, not per config)."""
    curve = store.load_artefact(CHAPTER, store.read_record(Path(path)), "curve")
    best = int(np.argmax(curve["val_ap"]))
    at_min = np.flatnonzero(curve["lr"] <= lrgb.PLATEAU["min_lr"] * (1 + 1e-6))
    first_min = int(at_min[0]) if len(at_min) else None
    return {"best epoch": best, "first epoch at the minimum rate": first_min,
            "applies": first_min is not None and best < first_min}


def reduction_note(params: dict[str, Any]) -> str:
    """The profile's reductions in words, stated beside every table of ours."""
    parts = []
    if params["epochs"]:
        parts.append(f"{params['epochs']} epochs instead of 500 (LRGB) / 250 (tuned), the tuned warm-up and cosine "
                     "schedule compressed to them")
    if params["train_graphs"] or params["eval_graphs"]:
        parts.append(f"the first {params['train_graphs'] or 10_873} training and {params['eval_graphs'] or 2_331} "
                     "validation/test graphs")
    parts.append(f"{params['seeds']} seed(s) instead of 4")
    return "; ".join(parts)


def main_configs(params: dict[str, Any]) -> list[dict[str, Any]]:
    """Every model at every stage, every seed; GPS with and without its deeper head."""
    gnns = [config(params, m, s, seed) for m in params["models"] for s in STAGES for seed in range(params["seeds"])]
    return gnns + gps_configs(params)


def gps_configs(params: dict[str, Any]) -> list[dict[str, Any]]:
    """GPS at each of its stages, every seed (none when the profile leaves GPS out)."""
    return [config(params, lrgb.GPS, s, seed) for s in GPS_STAGES for seed in range(params["seeds"])] if params["gps"] else []


def long_configs(params: dict[str, Any]) -> list[dict[str, Any]]:
    """The GCN pair trained for ``long_epochs`` (seed 0)."""
    model, stages = LONG_PAIR
    if not params["long_epochs"] or model not in params["models"]:
        return []
    return [config(params, model, s, 0, epochs=params["long_epochs"]) for s in stages]


def paper_epochs(model: str, stage: str) -> int:
    """The epochs the papers trained a stage for (LRGB's configurations 500, the tuned ones 250)."""
    base = "tuned" if model == lrgb.GPS else STAGES[stage][0]
    return lrgb.BASES[base]["epochs"]


def full_params(params: dict[str, Any]) -> dict[str, Any]:
    """``params`` at the papers' epochs (the same graphs and seeds)."""
    return {**params, "epochs": 0}


def full_configs(params: dict[str, Any]) -> list[dict[str, Any]]:
    """The head ablation's and tuned GPS's runs at the papers' epochs, when the profile trains fewer: read where
    recorded, never trained by the page (`train lrgb-head --profile paper` trains them)."""
    if not params["epochs"]:
        return []
    full = full_params(params)
    cells = [(m, s) for m in params["models"] for s in HEAD_STAGES] + ([(lrgb.GPS, "tuned")] if params["gps"] else [])
    return [config(full, m, s, seed) for m, s in cells for seed in range(params["seeds"])]


def key(config: dict[str, Any]) -> str:
    """The store key of a chapter 4 run."""
    return lrgb.EXPERIMENT.key(config)


def chapter_configs(params: dict[str, Any]) -> list[dict[str, Any]]:
    """Every run the chapter shows."""
    return (main_configs(params) + long_configs(params)) if available() else []


def chapter_keys(params: dict[str, Any]) -> set[str]:
    """Store keys of every run the chapter shows under ``params``."""
    return {key(c) for c in chapter_configs(params)}


def chapter_records(params: dict[str, Any]) -> tuple[list[dict[str, Any]], pd.DataFrame]:
    """Every run the chapter shows and the store's records of them (nothing is trained), each ``wall_s`` at
    least its curve's seconds: records written before resumed runs counted their earlier processes hold
    only the last process's time, while the curve holds every epoch's."""
    configs, keys = chapter_configs(params), chapter_keys(params)
    recs = [r for r in store.records(CHAPTER) if r["key"] in keys and store.is_current(r)]
    runs = store.to_frame(recs)
    if not len(runs):
        return configs, runs
    return configs, runs.assign(wall_s=np.maximum(runs.wall_s, [_curve_seconds(r) for r in recs]))


def _curve_seconds(record: dict[str, Any]) -> float:
    """Training and evaluation seconds summed over a run's learning curve (0 when it has none)."""
    curve = store.load_artefact(CHAPTER, record, "curve") if "curve" in record.get("artefacts", {}) else {}
    return float(np.sum(curve.get("train_s", 0.0)) + np.sum(curve.get("eval_s", 0.0)))


def run(params: dict[str, Any], part: str) -> pd.DataFrame:
    """Train what a part of the chapter lacks (``main`` or ``long``) and return its records."""
    configs = {"main": main_configs, "long": long_configs}[part](params) if available() else []
    desc = {"main": "Peptides-func head ablation", "long": "GCN pair, trained longer"}[part]
    return run_grid(CHAPTER, lrgb.EXPERIMENT.name, configs, params["device"], desc=desc) if configs else pd.DataFrame()


def _subset(runs: pd.DataFrame, configs: list[dict[str, Any]]) -> pd.DataFrame:
    return store.runs_with_keys(runs, map(key, configs))


def _cell(runs: pd.DataFrame, params: dict[str, Any], model: str, stage: str) -> tuple[float, float, int]:
    cell = _subset(runs, [config(params, model, stage, s) for s in range(params["seeds"])])
    return mean_std(cell["test_ap"] if "test_ap" in cell else pd.Series(dtype=float))


# --- the dataset -------------------------------------------------------------------------------------------

def dataset_stats(arrays: dict[str, np.ndarray]) -> dict[str, Any]:
    """Graph, node and edge counts, shortest-path length and diameter (hop counts, per graph), split and label rates."""
    node_ptr, edge_ptr, ei = arrays["node_ptr"], arrays["edge_ptr"], arrays["edge_index"]
    paths_mean, diameters = [], []
    for i in range(len(node_ptr) - 1):
        n = int(node_ptr[i + 1] - node_ptr[i])
        e = ei[:, edge_ptr[i] : edge_ptr[i + 1]]
        dist = shortest_path(csr_matrix((np.ones(e.shape[1]), (e[0], e[1])), shape=(n, n)), unweighted=True)
        finite = dist[np.isfinite(dist) & (dist > 0)]
        paths_mean.append(finite.mean() if len(finite) else 0.0)
        diameters.append(finite.max() if len(finite) else 0.0)
    y = arrays["y"]
    return {
        "graphs": len(node_ptr) - 1, "nodes per graph": float(np.diff(node_ptr).mean()),
        "edges per graph": float(np.diff(edge_ptr).mean()),
        "shortest path": (float(np.mean(paths_mean)), float(np.std(paths_mean))),
        "diameter": (float(np.mean(diameters)), float(np.std(diameters))),
        "split": tuple(len(arrays[k]) for k in lrgb_data.SPLITS), "tasks": y.shape[1],
        "chance AP": float(y[arrays["test"]].mean(axis=0).mean()),  # AP of uninformative scores = each task's positive rate
        "positive rate per task": y.mean(axis=0),
    }


def peptide_arrays() -> dict[str, np.ndarray]:
    """The processed Peptides-func arrays (checksum-verified files, built once into the cache)."""
    from graphrepro.data.registry import DATASETS, resolve

    csv_spec, split_spec = DATASETS["peptides_func"].files
    return lrgb_data.process(resolve(csv_spec), resolve(split_spec), split_spec, progress=False)


def stats_table(stats: dict[str, Any]) -> pd.DataFrame:
    """Our build's statistics beside the LRGB paper's Table 1."""
    ours = {
        "graphs": f"{stats['graphs']:,}", "nodes per graph": f"{stats['nodes per graph']:.2f}",
        "edges per graph": f"{stats['edges per graph']:.2f}",
        "shortest path (mean ± std)": "{:.2f} ± {:.2f}".format(*stats["shortest path"]),
        "diameter (mean ± std)": "{:.2f} ± {:.2f}".format(*stats["diameter"]),
        "split (train / val / test)": " / ".join(f"{n:,}" for n in stats["split"]), "tasks": str(stats["tasks"]),
    }
    return pd.DataFrame({"LRGB paper": PAPER_STATS, "ours": ours}).rename_axis("Peptides-func")


# --- parameters ------------------------------------------------------------------------------------------

def parameter_table(params: dict[str, Any]) -> pd.DataFrame:
    """Parameters of every model at every stage, checked: LRGB's originals against the counts LRGB lists,
    the tuned ones against the 500k budget (a failed check raises)."""
    rows = []
    for model, stage in _rows(params):
        count = parameter_count(lrgb.build(config(params, model, stage, 0)))
        if stage == "LRGB, linear head" and model != lrgb.GPS:
            check = f"LRGB lists {LRGB_PARAMETERS[model] // 1000}k"
            assert abs(count - LRGB_PARAMETERS[model]) < 1000, f"{model}: {count} parameters, LRGB lists {LRGB_PARAMETERS[model]}"
        elif stage.startswith("tuned"):
            check = f"≤ {BUDGET // 1000}k"
            assert count <= BUDGET, f"{model} {stage}: {count} parameters exceed the {BUDGET:,} budget"
        else:
            check = "LRGB's config plus a hidden head layer (Linear, BatchNorm)"
        rows.append({"model": model, "stage": stage, "parameters": f"{count:,}", "check": check})
    return pd.DataFrame(rows).set_index(["model", "stage"])


# --- results ---------------------------------------------------------------------------------------------

def _rows(params: dict[str, Any]) -> list[tuple[str, str]]:
    """(model, stage) of every cell the chapter shows."""
    gps = [(lrgb.GPS, s) for s in GPS_STAGES] if params["gps"] else []
    return [(m, s) for m in params["models"] for s in STAGES] + gps


def main_table(runs: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """Paper and ours (test AP x 100 at the best validation epoch) per model and stage, with a verdict (long form)."""
    rows = []
    for model, stage in _rows(params):
        pm, ps = PAPER.get((model, stage), (math.nan, math.nan))
        mean, std, n = _cell(runs, params, model, stage)
        rows.append({"model": model, "stage": stage, "paper": fmt(pm, ps),
                     "ours": f"unavailable: {UNAVAILABLE}" if not available() else fmt(mean, std),
                     "verdict": "unavailable" if not available() else verdict(mean, pm, params["tolerance"], n),
                     "seeds": n, "paper_mean": pm, "mean": mean, "std": std})
    return pd.DataFrame(rows)


def _chance_line(ax: plt.Axes, chance: float | None) -> None:
    """Chance-level AP (× 100) as a dotted line, when the dataset gave one."""
    if chance is not None:
        ax.axhline(chance, color="grey", ls=":", label="chance")


def head_figure(long: pd.DataFrame, params: dict[str, Any], chance: float | None = None) -> plt.Figure:
    """Bars per model for the three stages (ours, with seed spread) from zero, the papers' GPS as lines and chance
    AP (× 100) dotted (the paper's Figure 1)."""
    data = long[long.stage.isin(HEAD_STAGES)]
    fig, ax = plt.subplots(figsize=(6.0, 3.6))
    palette = sns.color_palette()
    width = 0.26
    for i, stage in enumerate(HEAD_STAGES):
        part = data[data.stage == stage].set_index("model").reindex(list(params["models"]))
        x = np.arange(len(part)) + (i - 1) * width
        ax.bar(x, part["mean"], width, yerr=part["std"], color=palette[i], label=stage, capsize=3)
        paper = [PAPER.get((m, stage), (math.nan,))[0] for m in part.index]
        ax.scatter(x, paper, marker="_", s=300, color="black", zorder=3, label="paper" if i == 0 else None)
    gps = long[(long.model == lrgb.GPS) & (long.stage == "tuned")]
    if len(gps) and not math.isnan(gps["mean"].iloc[0]):
        ax.axhline(gps["mean"].iloc[0], color=palette[3], label="GPS (ours)")
    ax.axhline(PAPER[(lrgb.GPS, "tuned")][0], color=palette[3], ls="--", label="GPS (paper)")
    ax.set_xticks(np.arange(len(params["models"])), list(params["models"]))
    _chance_line(ax, chance)
    ax.set_ylabel("test AP (× 100)")
    ax.set_ylim(0, 75)
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=4)
    fig.tight_layout()
    return fig


def curves(runs: pd.DataFrame) -> pd.DataFrame:
    """Per-epoch validation and test AP of every run, from its curve artefact (long form)."""
    frames = []
    for record in store.records(CHAPTER):
        if record["key"] not in set(runs.key) or "curve" not in record.get("artefacts", {}):
            continue
        curve = store.load_artefact(CHAPTER, record, "curve")
        c = record["config"]
        frames.append(pd.DataFrame({
            "model": c["model"], "stage": stage_of(c), "seed": c["seed"], "epochs": c["epochs"],
            "epoch": np.arange(1, len(curve["val_ap"]) + 1), "val AP": 100 * curve["val_ap"], "test AP": 100 * curve["test_ap"],
            "train graphs/s": curve["train_graphs_per_s"], "eval graphs/s": curve["eval_graphs_per_s"],
            "train s": curve["train_s"], "eval s": curve["eval_s"]}))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(
        columns=["model", "stage", "seed", "epochs", "epoch", "val AP", "test AP"])


def stage_of(config: dict[str, Any]) -> str:
    """The stage a config belongs to."""
    if config["model"] == lrgb.GPS:
        own = lrgb.TUNED[lrgb.GPS]["head_layers"]
        return next(s for s, changes in GPS_STAGES.items() if changes.get("head_layers", own) == config["head_layers"])
    for stage, (base, changes) in STAGES.items():
        defaults = {"head_layers": lrgb.BASES[base]["head_layers"], "rwse": lrgb.BASES[base]["rwse"]}
        if config["base"] == base and all(config[k] == v for k, v in {**defaults, **changes}.items()):
            return stage
    return "other"


def curve_figure(curve: pd.DataFrame, params: dict[str, Any], chance: float | None = None) -> plt.Figure:
    """Validation AP per epoch: each stage's mean over seeds at the profile's budget, per model; the longer pair
    dashed, the papers' budget dash-dotted, chance AP (× 100) dotted."""
    fig, axes = plt.subplots(1, max(1, len(params["models"])), figsize=(7.2, 2.8), sharey=True, squeeze=False)
    palette = dict(zip(STAGES, sns.color_palette()))
    for ax, model in zip(axes[0], params["models"]):
        part = curve[curve.model == model]
        for (stage, epochs), group in part.groupby(["stage", "epochs"]):
            mean = group.groupby("epoch")["val AP"].mean()
            longer = bool(params["long_epochs"]) and epochs == params["long_epochs"] != params["epochs"]
            papers = bool(params["epochs"]) and epochs > max(params["epochs"], params["long_epochs"])
            ax.plot(mean.index, mean.values, color=palette.get(stage, "grey"), ls="--" if longer else "-." if papers else "-",
                    label=f"{stage}{' (longer)' if longer else ' (papers’ epochs)' if papers else ''}")
        _chance_line(ax, chance)
        ax.set_title(model)
        ax.set_xlabel("epoch")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes[0][0].set_ylabel("validation AP (× 100)")
    handles, labels = axes[0][0].get_legend_handles_labels()
    if handles:
        fig.legend(handles, labels, fontsize=7, loc="lower center", ncol=3, bbox_to_anchor=(0.5, -0.12))
    fig.tight_layout()
    return fig


def order_table(curve: pd.DataFrame, params: dict[str, Any], window: float = 0.2) -> pd.DataFrame:
    """Per model, the order of the stages by mean validation AP at each epoch of the last ``window`` of its
    budget (the papers' epochs where every stage has them, else the profile's): 'settled' when it is the same
    at all of them, 'not decided' when the budget is shorter than the papers'."""
    rows = []
    for model in params["models"]:
        part = curve[curve.model == model] if len(curve) else curve
        planned = max(paper_epochs(model, s) for s in STAGES)
        full = part[part.epochs == planned]
        part = full if len(full) and full.stage.nunique() == part.stage.nunique() else part[part.epochs == (params["epochs"] or planned)]
        if not len(part) or part.stage.nunique() < 2:
            continue
        final = int(part.epoch.max())
        first = max(1, final - max(2, math.ceil(window * final)) + 1)
        orders = [" > ".join(part[part.epoch == e].groupby("stage")["val AP"].mean().sort_values(ascending=False).index)
                  for e in range(first, final + 1)]
        same_order = len(set(orders)) == 1
        word = "yes" if same_order else "no: " + " | ".join(dict.fromkeys(orders))
        if final < planned:
            word = f"not decided ({final} of {planned} epochs); " + ("the same order" if same_order else "the order changes")
        rows.append({"model": model, "epochs": f"{first}–{final}", "order at the last epoch": orders[-1], "settled": word})
    return pd.DataFrame(rows).set_index("model") if rows else pd.DataFrame()


def throughput_table(curve: pd.DataFrame, params: dict[str, Any], runs: pd.DataFrame | None = None) -> pd.DataFrame:
    """Graphs per second in training and in evaluation per model and stage (median over epochs and runs), and
    at these speeds a full epoch (10,873 training, 4,662 evaluated graphs) and the `paper` profile's CPU
    time on this machine (the configuration's epochs, 4 seeds); with ``runs``, the largest peak memory their
    records give (the training process's peak so far: an upper bound for the run)."""
    if not len(curve) or "train s" not in curve:
        return pd.DataFrame()
    stages = runs.apply(lambda r: stage_of(r.dropna().to_dict()), axis=1) if runs is not None and len(runs) else None
    rows = []
    for model, stage in _rows(params):
        group = curve[(curve.model == model) & (curve.stage == stage)]
        if not len(group):
            continue
        base = "tuned" if model == lrgb.GPS else STAGES[stage][0]
        train, evaluate = float(group["train graphs/s"].median()), float(group["eval graphs/s"].median())
        training, validation, test = lrgb_data.STATS.split
        epoch_s = training / train + (validation + test) / evaluate
        row = {"model": model, "stage": stage, "train /s": train, "eval /s": evaluate,
               "s / epoch": epoch_s, "paper, CPU-h": epoch_s * lrgb.BASES[base]["epochs"] * 4 / 3600}
        if stages is not None:
            row["peak MB"] = runs[(runs.model == model) & (stages == stage)].peak_rss_mb.max()
        rows.append(row)
    return pd.DataFrame(rows).set_index(["model", "stage"]).round(1)


def stage_means(table: pd.DataFrame) -> pd.Series:
    """``main_table``'s mean test AP per (model, stage); read with ``stage_mean``."""
    return table.set_index(["model", "stage"])["mean"]


def stage_mean(means: pd.Series, model: str, stage: str) -> float:
    """One model's mean at one stage (NaN when no record has it)."""
    return float(means.get((model, stage), math.nan))


def finding_numbers(long: pd.DataFrame, order: pd.DataFrame, params: dict[str, Any]) -> dict[str, str]:
    """The numbers the findings quote, as glue keys and text: from the paper-vs-ours table (``main_table``)
    and the order of the stages (``order_table``) the page shows."""
    means = stage_means(long)

    def gains(better: str, worse: str) -> str:
        pairs = [(m, stage_mean(means, m, better) - stage_mean(means, m, worse)) for m in params["models"]]
        known = [f"{m} {g:+.1f}" for m, g in pairs if not math.isnan(g)]
        return ", ".join(known) or "not run yet"

    tuned = {m: stage_mean(means, m, "tuned") for m in params["models"]}
    tuned = {m: v for m, v in tuned.items() if not math.isnan(v)}
    gps = stage_mean(means, lrgb.GPS, "tuned")
    gps_head = gps - stage_mean(means, lrgb.GPS, "tuned, linear head")
    best = max(tuned, key=tuned.get) if tuned else None
    decided = order.settled[~order.settled.str.startswith("not decided")] if len(order) else pd.Series(dtype=str)
    settled = (f"{int(decided.eq('yes').sum())} of {len(decided)} model(s) trained for the papers' epochs" if len(decided)
               else "no model: every budget so far is shorter than the papers', so the order is not decided")
    return {
        "ch4_head_gains": gains("LRGB, 2-layer head", "LRGB, linear head"),
        "ch4_tuned_gains": gains("tuned", "LRGB, linear head"),
        "ch4_rwse_gains": gains("tuned", "tuned without RWSE"),
        "ch4_tuned_vs_head": gains("tuned", "LRGB, 2-layer head"),
        "ch4_gps_head": "not run yet" if math.isnan(gps_head) else f"{gps_head:+.1f}",
        "ch4_best_vs_gps": (f"{best} {tuned[best]:.1f} against GPS {gps:.1f}" if best and not math.isnan(gps)
                            else "not run yet"),
        "ch4_settled": settled if len(order) else "not run yet",
    }


def recorded_runs(params: dict[str, Any]) -> pd.DataFrame:
    """The records its tables and verdicts read, the papers' budget's included (nothing is trained)."""
    return all_runs(chapter_records(params)[1], full_runs(params))


def all_runs(*frames: pd.DataFrame) -> pd.DataFrame:
    """Records of several reads as one frame, each run once."""
    frames = tuple(f for f in frames if len(f))
    return pd.concat(frames).drop_duplicates("key") if frames else pd.DataFrame()


def _recorded(configs: list[dict[str, Any]]) -> pd.DataFrame:
    """The store's current records of ``configs`` (nothing is trained)."""
    keys = {key(c) for c in configs} if available() else set()
    return store.to_frame([r for r in store.records(CHAPTER) if r["key"] in keys and store.is_current(r)])


def full_runs(params: dict[str, Any]) -> pd.DataFrame:
    """The recorded runs of ``full_configs`` (nothing is trained)."""
    return _recorded(full_configs(params))


def fidelity_configs(params: dict[str, Any]) -> list[dict[str, Any]]:
    """The longer GCN pair in fp32 and in bf16 mixed precision, ``FIDELITY_SEEDS`` seeds each: the check that
    decides whether bf16 may train the papers'-budget runs."""
    model, stages = LONG_PAIR
    if not params["long_epochs"] or model not in params["models"]:
        return []
    return [config({**params, "precision": p}, model, s, seed, epochs=params["long_epochs"])
            for p in precision.CHOICES for s in stages for seed in range(FIDELITY_SEEDS)]


def fidelity_runs(params: dict[str, Any]) -> pd.DataFrame:
    """The recorded runs of ``fidelity_configs`` (nothing is trained)."""
    return _recorded(fidelity_configs(params))


def fidelity_table(runs: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """Per stage of the longer GCN pair, test AP × 100 in fp32 and in bf16 (mean ± std over seeds), their
    difference, and whether it is within fp32's seed spread or the tolerance, whichever is larger."""
    model, stages = LONG_PAIR
    rows = []
    for stage in stages if params["long_epochs"] else ():
        cells = {p: mean_std(_subset(runs, [config({**params, "precision": p}, model, stage, seed, epochs=params["long_epochs"])
                                            for seed in range(FIDELITY_SEEDS)]).get("test_ap", pd.Series(dtype=float)))
                 for p in precision.CHOICES}
        (fm, fs, fn), (bm, bs, bn) = cells[precision.FLOAT32], cells[precision.BFLOAT16]
        allowed = max(params["tolerance"], 0.0 if math.isnan(fs) else fs)
        complete = fn == bn == FIDELITY_SEEDS
        rows.append({"stage": stage, "float32": fmt(fm, fs), "bfloat16": fmt(bm, bs),
                     "bf16 − fp32": f"{bm - fm:+.1f}" if complete else "–", "allowed": f"±{allowed:.1f}",
                     "within": ("yes" if abs(bm - fm) <= allowed else "no") if complete
                     else f"not decided ({fn} + {bn} of {2 * FIDELITY_SEEDS} runs)"})
    return pd.DataFrame(rows).set_index("stage") if rows else pd.DataFrame()


def budget_table(runs: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """Per model and stage, test AP × 100 at the profile's epochs and the papers' (``500/250``: LRGB 500,
    tuned 250), the paper's number, and how far the papers'-budget runs have come."""
    full, rows = full_params(params), []
    for model, stage in _rows(params):
        if stage not in HEAD_STAGES and (model, stage) != (lrgb.GPS, "tuned"):
            continue
        planned = [config(full, model, stage, seed) for seed in range(params["seeds"])]
        done = _subset(runs, planned)
        epochs = [int(r.epochs_run) for r in done.itertuples()] if "epochs_run" in done else []
        progress = [lrgb.epochs_checkpointed(key(c)) for c in planned if key(c) not in set(done.get("key", []))]
        status = f"{len(done)}/{len(planned)}" + (f" (stopped at {', '.join(map(str, epochs))})" if epochs else "")
        if any(progress):
            status += f"; training: {', '.join(map(str, progress))} of {paper_epochs(model, stage)} epochs"
        row = {"model": model, "stage": stage,
               f"{params['epochs'] or paper_epochs(model, stage)} epochs": fmt(*_cell(runs, params, model, stage)[:2])}
        row |= {"500/250": fmt(*_cell(runs, full, model, stage)[:2]), "paper": fmt(*PAPER.get((model, stage), (math.nan, math.nan))),
                "recorded": status}
        rows.append(row)
    return pd.DataFrame(rows).set_index(["model", "stage"]).fillna("–") if rows else pd.DataFrame()


def paper_cells(params: dict[str, Any], runs: pd.DataFrame | None = None) -> list[dict[str, Any]]:
    """Every number of the papers' head ablation beside ours, for the Verdicts page (nothing is trained here)."""
    runs = recorded_runs(params) if runs is None else runs
    return report.cell_rows(CHAPTER, main_table(runs, params), lambda r: f"{r.model}, {r.stage} (test AP)",
                            params["tolerance"], "paper-vs-ours")


def headline(params: dict[str, Any], runs: pd.DataFrame | None = None) -> dict[str, Any]:
    """The chapter's strongest number for the synthesis: what a 2-layer prediction head adds to LRGB's linear one."""
    runs = recorded_runs(params) if runs is None else runs
    means = stage_means(main_table(runs, params))
    linear, two = HEAD_STAGES[0], HEAD_STAGES[1]
    gains = {model: (stage_mean(means, model, two) - stage_mean(means, model, linear),
                     f"{model}: test AP {stage_mean(means, model, linear):.1f} with LRGB's linear head, "
                     f"{stage_mean(means, model, two):.1f} with a 2-layer head") for model in params["models"]}
    return report.headline_row(CHAPTER, "an under-tuned head", "paper-vs-ours", gains)


def claim_verdicts(profile: str, runs: pd.DataFrame | None = None, params: dict[str, Any] | None = None) -> list[dict[str, str]]:
    """The chapter's claims, decided from the records (nothing is trained here)."""
    params = chapters.resolve(CHAPTER, profile) if params is None else params
    runs = recorded_runs(params) if runs is None else runs
    tol, rows = params["tolerance"], []
    short, full = stage_means(main_table(runs, params)), stage_means(main_table(runs, full_params(params)))

    def decide(claim: str, cells: list[tuple[str, str]], rule: Callable[..., bool], evidence: str) -> dict[str, str]:
        """The claim from the papers'-budget records where every cell has them, else from the profile's."""
        epochs = max(paper_epochs(m, s) for m, s in cells)
        values = [stage_mean(full, m, s) for m, s in cells]
        budget = (epochs, epochs)
        if any(math.isnan(v) for v in values):
            values, budget = [stage_mean(short, m, s) for m, s in cells], (params["epochs"] or epochs, epochs)
        holds = None if any(math.isnan(v) for v in values) else bool(rule(*values))
        settled = f" ({epochs} epochs)" if budget[0] == epochs else ""
        return claim_row(CHAPTER, claim, holds, evidence.format(*values) + settled, budget)

    gps = (lrgb.GPS, "tuned")
    for model in params["models"]:
        linear, two, tuned = ((model, s) for s in HEAD_STAGES)
        rows.append(decide(f"{model}: the 2-layer head alone improves on LRGB's linear head by more than {tol:g}",
                           [two, linear], lambda a, b: a > b + tol, "{:.1f} vs {:.1f}"))
        rows.append(decide(f"{model}: tuned matches or beats tuned GPS (within {tol:g})",
                           [tuned, gps], lambda a, b: a >= b - tol, "tuned {:.1f} vs GPS {:.1f}"))
    rows.append(decide(f"GPS is insensitive to the head: linear and 2-layer heads within {tol:g}",
                       [gps, (lrgb.GPS, "tuned, linear head")], lambda a, b: abs(a - b) <= tol, "2-layer {:.1f} vs linear {:.1f}"))
    return rows


def training_plan(params: dict[str, Any]) -> list[tuple[str, Callable[[], Any]]]:
    """The chapter's runs for background training: the longer GCN pair first (its curve says whether the
    budget settles the order), its bf16 fidelity check where the CPU has bf16, then each stage across
    models, cheapest first."""
    main = main_configs(params)

    def grid(desc: str, configs: list[dict[str, Any]]) -> tuple[str, Callable[[], Any]]:
        return desc, lambda: run_grid(CHAPTER, lrgb.EXPERIMENT.name, configs, params["device"], desc=desc)

    fidelity = [grid("bf16 fidelity: the longer GCN pair in both precisions", fidelity_configs(params))] if (
        precision.unavailable(precision.BFLOAT16) is None) else []
    return [grid("GCN pair, trained longer", long_configs(params))] + fidelity + [
        grid(stage, [c for c in main if stage_of(c) == stage and c["model"] != lrgb.GPS]) for stage in STAGES] + [
        grid("GPS", gps_configs(params))]


def training_pass(config: dict[str, Any], graphs: list[Any], chunk: int = 16, recompute: bool = True) -> None:
    """One training pass (forward and backward) of ``config``'s model over ``graphs`` in batches of 200, at
    the config's precision and step; GPS's attention on chunks of ``chunk`` graphs, recomputed in the backward
    pass or kept."""
    import torch
    from torch.nn import functional as F
    from torch_geometric.loader import DataLoader

    torch.manual_seed(0)
    model = lrgb.build(config)
    for layer in model.layers if config["model"] == lrgb.GPS else ():
        layer.chunk, layer.recompute = chunk, recompute
    for batch in DataLoader(graphs, batch_size=200):
        with precision.autocast(config.get("precision", precision.FLOAT32), torch.device("cpu")):
            logits = model(batch)
        F.binary_cross_entropy_with_logits(logits.float(), batch.y).backward()


STEP_TARGETS = {"GCN": 3.0, "GatedGCN": 3.0, lrgb.GPS: 2.5}  # issue 30: bf16 against today's fp32 step


def step_rows(graphs: int = 600) -> list[dict[str, Any]]:
    """Seconds of a training pass over ``graphs`` real Peptides-func graphs for each tuned model: today's fp32
    step, the fast step in fp32 and in bf16 mixed precision (where this CPU has bf16), alternated in one
    process, with each one's speedup over today's and the target for bf16's; where bf16 misses it, the top
    operators of its pass over 200 graphs."""
    from graphrepro.bench import compare_seconds, top_operators

    reason = precision.unavailable(precision.BFLOAT16)
    rows = []
    for model in MODELS + (lrgb.GPS,):
        base = lrgb.make_config(model, "tuned", 0, train_graphs=graphs, eval_graphs=8)
        data = lrgb.prepare(base)["train"]
        steps = {"fp32, today's step": base, "fp32, fast step": {**base, "step": "fast"}}
        if reason is None:
            steps["bf16, fast step"] = {**base, "precision": precision.BFLOAT16}
        row = compare_seconds(f"{model} tuned, {graphs} graphs, forward and backward ({precision.cpu_bf16()})",
                              *((name, lambda c=c: training_pass(c, data)) for name, c in steps.items()), repeats=1)
        target = STEP_TARGETS.get(model)
        rows.append({**row, "bf16 target": target or "", **({"bf16": reason} if reason else {})})
        if reason is None and target and row["speedup, bf16, fast step"] < target:  # why the target is missed
            bf16 = steps["bf16, fast step"]
            rows += [{"run": f"{model} tuned, bf16 fast step: where the time goes", "operator": name, "share of time": share}
                     for name, share, _ in top_operators(lambda: training_pass(bf16, data[:200]), top=6)]
    return rows


def bench(seeds: int) -> list[dict[str, Any]]:
    """GPS's attention on one padded batch (PyG's ``GPSConv``) against chunks of similar size, and kept
    against recomputed in the backward pass (seconds, and how far each raises resident memory), one
    training pass over 600 graphs in batches of 200; today's step against the fast one in fp32 and bf16 for
    each tuned model (``step_rows``); then seconds per run of each tuned model, two epochs on 512 graphs."""
    from graphrepro.bench import compare_seconds, peak_growth_mb, seconds_per_run

    gps = lrgb.make_config(lrgb.GPS, "tuned", 0, train_graphs=600, eval_graphs=8)
    graphs = lrgb.prepare(gps)["train"]
    rows = [compare_seconds("GPS, 600 graphs, forward and backward",
                            ("one padded batch (GPSConv)", lambda: training_pass(gps, graphs, chunk=200, recompute=False)),
                            ("chunks of 16 graphs", lambda: training_pass(gps, graphs, recompute=False)), repeats=1),
            compare_seconds("GPS, 600 graphs, chunks of 16", ("attention kept", lambda: training_pass(gps, graphs, recompute=False)),
                            ("recomputed", lambda: training_pass(gps, graphs)), repeats=1),
            {"run": "GPS, 600 graphs, chunks of 16: memory growth",
             **{f"MB, {name}": peak_growth_mb(lambda: training_pass(gps, graphs, recompute=recompute))
                for name, recompute in (("attention kept", False), ("recomputed", True))}}]
    return rows + step_rows() + [seconds_per_run(lrgb.EXPERIMENT, [lrgb.make_config(m, "tuned", s, epochs=2, train_graphs=512, eval_graphs=256)
                                                     for s in range(seeds)], f"{m} tuned, 2 epochs, 512 graphs")
                   for m in MODELS + (lrgb.GPS,)]
