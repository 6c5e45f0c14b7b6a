"""lrgb-head: tables built from the records."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import shortest_path

from graphrepro import bench, cells, precision, store
from graphrepro.chapters.lrgb_head.configs import config, plan, table_cells
from graphrepro.chapters.lrgb_head.benchmarks import BF16, FAST, ONEDNN, TODAY
from graphrepro.chapters.lrgb_head.checks import fidelity_check
from graphrepro.chapters.lrgb_head.paper import (
    BUDGET,
    CHAPTER,
    FIDELITY_SEEDS,
    HEAD_STAGES,
    LRGB_PARAMETERS,
    PAPER,
    PAPER_RUNS,
    PAPER_STATS,
    STAGES,
    UNAVAILABLE,
)
from graphrepro.chapters.lrgb_head.stages import available, paper_epochs, stage_of
from graphrepro.data import lrgb as lrgb_data
from graphrepro.data.registry import DATASETS, resolve
from graphrepro.environment import cpu_kind
from graphrepro.experiments import lrgb
from graphrepro.models.lrgb import parameter_count
from graphrepro.report import fmt, fmt_runs
from graphrepro.underway import words as underway_words
from graphrepro.verdicts import Budget, Cell, Estimate, judge_cell


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


def parameter_table(params: dict[str, Any]) -> pd.DataFrame:
    """Parameters of every model at every stage, checked: LRGB's originals against the counts LRGB lists,
    the tuned ones against the 500k budget (a failed check raises)."""
    rows = []
    for model, stage in table_cells(params):
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


def main_table(runs: pd.DataFrame, params: dict[str, Any], part: str = "main", planned: pd.DataFrame | None = None) -> pd.DataFrame:
    """Paper and ours (test AP x 100 at the best validation epoch) per model and stage, with a verdict (long
    form), at the profile's epochs (``part`` main) or the papers' (``full``); ``planned`` is ``configs.plan``."""
    planned = plan(params) if planned is None else planned
    found = cells.stats(planned[planned.part == part], runs, ["model", "stage"], "test_ap")
    rows = []
    for model, stage in table_cells(params):
        pm, ps = PAPER.get((model, stage), (math.nan, math.nan))
        mean, std, n, recorded = found.loc[(model, stage)] if (model, stage) in found.index else (math.nan, 0.0, 0, 0)
        at = params["epochs"] if part == "main" else 0  # 0: the papers' epochs
        budget = Budget(at, paper_epochs(model, stage)) if at else None
        verdict = judge_cell(Estimate(mean, std, int(n)), Estimate(pm, ps, PAPER_RUNS), params["tolerance"], recorded, budget)
        rows.append({"model": model, "stage": stage, "paper": fmt(pm, ps),
                     "ours": f"unavailable: {UNAVAILABLE}" if not available() else fmt(mean, std),
                     "verdict": Cell.UNAVAILABLE if not available() else verdict, "why": "" if available() else UNAVAILABLE,
                     "seeds": int(n), "paper_mean": pm, "mean": mean, "std": std})
    return pd.DataFrame(rows)


class Tables(cells.Tables, plan=plan):
    """The tables the claims, findings, headline and Verdicts page read, over one frame of records."""

    main = cells.table("Paper and ours per model and stage, at the profile's epochs",
                       lambda t: main_table(t.runs, t.params, "main", t.plan))
    full = cells.table("Paper and ours at the papers' epochs", lambda t: main_table(t.runs, t.params, "full", t.plan))
    order = cells.table("The stages' order over the last epochs", lambda t: order_table(curves(t.runs), t.params))


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
    for model, stage in table_cells(params):
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


def full_hours(runs: pd.DataFrame) -> float:
    """Wall-clock hours the given records took to train and evaluate, summed (each run on one worker, resumed
    sessions included; 0 for none)."""
    return float(runs.wall_s.sum()) / 3600 if "wall_s" in runs else 0.0


def hours_note(runs: pd.DataFrame) -> str:
    """``full_hours`` of the given records in words, with the devices they ran on: '38.6 hours (2 run(s) on cpu)'."""
    if not len(runs):
        return "none recorded yet"
    return f"{full_hours(runs):.1f} hours ({len(runs)} run(s) on {', '.join(sorted(runs.device.dropna().unique()))})"


def stage_means(table: pd.DataFrame) -> pd.Series:
    """``main_table``'s mean test AP per (model, stage); read with ``stage_mean``."""
    return table.set_index(["model", "stage"])["mean"]


def stage_mean(means: pd.Series, model: str, stage: str) -> float:
    """One model's mean at one stage (NaN when no record has it)."""
    return float(means.get((model, stage), math.nan))


def planned_runs(planned: pd.DataFrame, part: str, model: str, stage: str) -> pd.DataFrame:
    """The rows of ``configs.plan`` for one cell at one part (``main``: the profile's epochs, ``full``: the papers')."""
    return planned[(planned.part == part) & (planned.model == model) & (planned.stage == stage)]


def seed_values(planned: pd.DataFrame, runs: pd.DataFrame, part: str, model: str, stage: str) -> pd.Series:
    """One cell's test AP × 100 per planned seed at one part, indexed by seed (NaN: not recorded, or diverged)."""
    mine = planned_runs(planned, part, model, stage)
    known = runs.drop_duplicates("key").set_index("key")["test_ap"] if "test_ap" in runs else pd.Series(dtype=float)
    return pd.Series(100 * mine.key.map(known).astype(float).to_numpy(), index=mine.seed.to_numpy(), dtype=float)


def _benches() -> list[dict[str, Any]]:
    """This chapter's committed benches, one per CPU kind."""
    return [saved for saved in bench.saved_benches() if saved["chapter"] == CHAPTER]


def _model(row: dict[str, Any]) -> str:
    """The tuned model a step row of the bench times ("GatedGCN tuned, 600 graphs, ..." -> "GatedGCN")."""
    return row["run"].split(" tuned")[0]


def products_table() -> pd.DataFrame:
    """oneDNN's fp32 linear products against torch's in the fast step, per tuned model and CPU kind, from the
    committed benches (``bench --chapter lrgb-head``): seconds of one training pass each, the ratio, and how far
    oneDNN moves the pass's gradient (relative), beside bf16's; a note until a bench has measured it."""
    def sci(x: float | None) -> str:
        return "–" if x is None else f"{x:.1e}"

    rows = [{"model": _model(r), "CPU": cpu_kind(saved["cpu"]), "s, torch's": f"{r[f's, {FAST}']:.2f}",
             "s, oneDNN": f"{r[f's, {ONEDNN}']:.2f}", "ratio": f"{r[f's, {FAST}'] / r[f's, {ONEDNN}']:.2f}×",
             "gradient difference, oneDNN": sci(r[f"gradient difference, {ONEDNN}"]),
             "gradient difference, bf16": sci(r.get(f"gradient difference, {BF16}")),
             "measured": f"{saved['date']}, {saved['threads']} thread(s), load {saved['load_average']:g} on {saved['cpus']} CPUs"}
            for saved in _benches()
            for r in saved["rows"] if r.get(f"s, {ONEDNN}") is not None]
    if not rows:
        return pd.DataFrame({"note": ["not measured yet: python -m graphrepro bench --chapter lrgb-head"]})
    return pd.DataFrame(rows).set_index("model")


def step_table() -> pd.DataFrame:
    """The step's speeds per tuned model and CPU kind, from the committed benches (``bench --chapter lrgb-head``):
    seconds of one training pass over 600 molecules in today's fp32 step, the fastest fp32 step and bf16, bf16's
    speedup over today's beside its target, and where bf16 misses it, the operators that take most of its time
    (share of the pass); a note until a bench has measured it."""
    rows = []
    for saved in _benches():
        where: dict[str, list[str]] = {}
        for r in (r for r in saved["rows"] if r.get("operator")):
            where.setdefault(_model(r), []).append(f"{r['operator'].removeprefix('aten::')} {r['share of time']:.0%}")
        for r in (r for r in saved["rows"] if r.get(f"s, {TODAY}") is not None):
            model, bf16, target = _model(r), r.get(f"speedup, {BF16}"), r.get("bf16 target") or None
            missed = "" if bf16 is None or not target else " (met)" if bf16 >= target else " (missed)"
            rows.append({"model": model, "CPU": cpu_kind(saved["cpu"]), "s, today's fp32": f"{r[f's, {TODAY}']:.2f}",
                         "s, fastest fp32": f"{min(r[f's, {w}'] for w in (FAST, ONEDNN) if r.get(f's, {w}') is not None):.2f}",
                         "s, bf16": "–" if bf16 is None else f"{r[f's, {BF16}']:.2f}",
                         "bf16 speedup": "–" if bf16 is None else f"{bf16:.2f}×", "target": f"{target:g}×{missed}" if target else "–",
                         "where bf16's time goes": ", ".join(where.get(model, [])[:3]) or "–"})
    if not rows:
        return pd.DataFrame({"note": ["not measured yet: python -m graphrepro bench --chapter lrgb-head"]})
    return pd.DataFrame(rows).set_index("model")


def fidelity_table(runs: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    """``fidelity_check`` as a table: per stage, fp32 and bf16 (mean ± std), their difference, the allowed
    difference and whether bf16 is within it."""
    rows = []
    for row in fidelity_check(runs, params):
        (fm, fs, fn), (bm, bs, bn) = row[precision.FLOAT32], row[precision.BFLOAT16]
        decided = row["within"] is not None
        rows.append({"stage": row["stage"], "float32": fmt(fm, fs), "bfloat16": fmt(bm, bs),
                     "bf16 − fp32": f"{bm - fm:+.1f}" if decided else "–", "allowed": f"±{row['allowed']:.1f}",
                     "within": ("yes" if row["within"] else "no") if decided
                     else f"not decided ({fn} + {bn} of {2 * FIDELITY_SEEDS} runs)"})
    return pd.DataFrame(rows).set_index("stage") if rows else pd.DataFrame()


def budget_table(runs: pd.DataFrame, params: dict[str, Any], underway: dict[str, Any] | None = None) -> pd.DataFrame:
    """Per model and stage, test AP × 100 at the profile's epochs, at ``long_epochs`` (the GCN pair, over the
    fidelity check's seeds in the profile's precision) and at the papers' (``500/250``: LRGB 500, tuned 250), the
    paper's number, how many of the papers'-budget runs are recorded, with the epoch at which any stopped
    early, and how far any unrecorded one had trained as of ``underway`` (``underway.load``), and the hours the
    recorded ones took (``full_hours``)."""
    planned = plan(params)
    longer = planned[(planned.part == "fidelity") & (planned.precision == params["precision"])]
    short, middle, long = (cells.stats(part, runs, ["model", "stage"], "test_ap")
                           for part in (planned[planned.part == "main"], longer, planned[planned.part == "full"]))
    full = cells.recorded(planned[planned.part == "full"], runs)
    rows = []
    for model, stage in table_cells(params):
        if stage not in HEAD_STAGES and (model, stage) != (lrgb.GPS, "tuned"):
            continue
        mine = planned_runs(planned, "full", model, stage)
        done = full[(full.model == model) & (full.stage == stage)]
        stops = [int(e) for e in done.epochs_run if e < paper_epochs(model, stage)] if "epochs_run" in done else []
        status = f"{len(done)}/{len(mine)}" + (f" (stopped at {', '.join(map(str, stops))})" if stops else "")
        training = underway_words(underway, mine.key[~mine.key.isin(done.key)])
        status += f"; {training}" if training else ""
        row = {"model": model, "stage": stage,
               f"{params['epochs'] or paper_epochs(model, stage)} epochs": fmt_runs(*short.loc[(model, stage), ["mean", "std", "n"]]),
               **({f"{params['long_epochs']} epochs": fmt_runs(*middle.loc[(model, stage), ["mean", "std", "n"]])
                   if (model, stage) in middle.index else "–"} if len(longer) else {}),
               "500/250": fmt_runs(*long.loc[(model, stage), ["mean", "std", "n"]]),
               "paper": fmt(*PAPER.get((model, stage), (math.nan, math.nan))), "recorded": status,
               "hours": f"{hours:.1f}" if (hours := full_hours(done)) else "–"}
        rows.append(row)
    return pd.DataFrame(rows).set_index(["model", "stage"]).fillna("–") if rows else pd.DataFrame()
