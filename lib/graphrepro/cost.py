"""The cost page: what the recorded runs took (seconds per run and per epoch, peak memory, by CPU kind and
precision), each profile's CPU-hours, and each page's execution time; read from the records and the executed
pages, nothing trained."""

from __future__ import annotations

import math
from html import escape
from typing import Any

import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns
from IPython.display import HTML

from graphrepro import bench, catalog, pages, report, runner, store
from graphrepro.environment import cpu_kind


COST_COLUMNS = ("chapter", "experiment", "dataset", "model", "standard", "seconds", "epochs", "s per epoch", "peak MB",
                "device", "cpu", "precision")


def run_costs() -> pd.DataFrame:
    """One row per current record of every chapter: its chapter, experiment, dataset and model, whether the
    standard profile reads it, its wall seconds (its share of a stacked batch), epochs run, seconds per epoch,
    peak resident memory, device, CPU kind and precision."""
    rows, known = [], catalog.experiments()
    for page in pages.chapter_pages():
        standard = pages.chapter_module(page.slug, "configs").chapter_keys(pages.resolve(page.slug, "standard"))
        for r in store.records(page.slug):
            if not catalog.is_current(r, known) or r.get("wall_s") is None:
                continue
            epochs = int(r["metrics"].get("epochs_run") or 0)
            rows.append({"chapter": page.slug, "experiment": r["experiment"], "dataset": r["config"].get("dataset", "–"),
                         "model": r["config"].get("model", "–"), "standard": r["key"] in standard,
                         "seconds": float(r["wall_s"]), "epochs": epochs,
                         "s per epoch": float(r["wall_s"]) / epochs if epochs else math.nan,
                         "peak MB": r.get("peak_rss_mb") or math.nan, "device": r.get("device", "cpu"),
                         "cpu": cpu_kind(r.get("cpu")), "precision": r["config"].get("precision", "float32")})
    return pd.DataFrame(rows, columns=COST_COLUMNS)


def profile_hours(costs: pd.DataFrame) -> pd.DataFrame:
    """Per chapter: the standard profile's runs and its CPU-hours as recorded, and the paper profile's CPU-hours
    as ``bench.recorded_estimate`` estimates them from those records (a kind of run with no record counts
    nothing, so the estimate is then a lower bound, flagged)."""
    rows = []
    for page in pages.chapter_pages():
        mine = costs[(costs.chapter == page.slug) & costs.standard]
        try:
            estimate = bench.recorded_estimate(page.slug, "paper")
        except ValueError:  # runs that plan no epochs cannot be priced per epoch
            estimate = pd.DataFrame({"status": ["its runs plan no epochs"]})
        unpriced = int(estimate["hours"].isna().sum()) if "hours" in estimate else len(estimate)
        rows.append({"chapter": page.slug, "standard runs": len(mine), "standard CPU-hours": mine.seconds.sum() / 3600,
                     "paper CPU-hours (estimated)": float(estimate["hours"].sum()) if "hours" in estimate else math.nan,
                     "kinds of paper run not priced": unpriced})
    return pd.DataFrame(rows).set_index("chapter")


def model_costs(costs: pd.DataFrame) -> pd.DataFrame:
    """Per chapter, model, CPU kind, precision and device: runs, median seconds per run and per epoch, and the
    largest peak memory in GB, rounded to what they resolve."""
    if costs.empty:
        return pd.DataFrame({"note": ["no run recorded yet"]})
    grouped = costs.groupby(["chapter", "model", "cpu", "precision", "device"], sort=False)
    table = grouped.agg(runs=("seconds", "size"), s_run=("seconds", "median"), s_epoch=("s per epoch", "median"),
                        peak=("peak MB", "max")).reset_index()
    table["peak"] = table["peak"] / 1024
    return table.rename(columns={"s_run": "median s per run", "s_epoch": "median s per epoch", "peak": "peak GB"}).round(
        {"median s per run": 1, "median s per epoch": 2, "peak GB": 2})


def model_table(costs: pd.DataFrame) -> HTML:
    """``model_costs`` as the page shows it: grouped by chapter, one row per model and machine, each cell labelled
    so that on a phone a row reads as a block."""
    table = model_costs(costs)
    if "note" in table:
        return HTML(f"<p>{table.note.iloc[0]}</p>")

    def row(r: pd.Series) -> str:
        machine = ", ".join([r.cpu, r.precision] + ([r.device] if r.device != "cpu" else []))
        cells = {"runs": f"{r.runs:,}", "s per run": f"{r['median s per run']:g}", "s per epoch": f"{r['median s per epoch']:g}",
                 "peak GB": "–" if math.isnan(r["peak GB"]) else f"{r['peak GB']:g}"}
        return (f"<th>{escape(str(r.model))}<span class=\"runs\">{escape(machine)}</span></th>"
                + "".join(f'<td data-label="{name}">{value}</td>' for name, value in cells.items()))

    return report.grouped_table(table, "graphrepro-costs", ["model (CPU, precision)", "runs", "median s per run",
                                                          "median s per epoch", "peak GB"], row)


def execution_table() -> pd.DataFrame:
    """Each executed page: its profile, when its last execution ended and how long it took (papermill's record)."""
    rows = runner.execution_times()
    if not rows:
        return pd.DataFrame({"note": ["no page has been executed in this build"]})
    table = pd.DataFrame(rows).set_index("page")
    table["seconds"] = table["seconds"].astype(float).round(0)
    return table


TIMINGS = ("s, ", "s per run, ", "ms per member-epoch, ")  # the bench columns that time one way of doing the work


def cheaper_table() -> pd.DataFrame:
    """What made it cheaper: every ratio in the committed bench tables (``bench --chapter``, kept in
    results/bench/, one per chapter and CPU kind), one line per comparison: the faster way over the first way
    its row times, when and where it was measured, and the command that measures it again."""
    rows = []
    for saved in bench.saved_benches():
        measured = (f"{saved['date']}, {cpu_kind(saved['cpu'])}, {saved['threads']} thread(s); load {saved['load_average']:g} "
                    f"on {saved['cpus']} CPUs")
        for row in saved["rows"]:
            ways = [k.split(", ", 1)[1] for k in row if k.startswith(TIMINGS) and row[k] is not None]
            for key in (k for k in row if k.startswith("speedup") and row[k] is not None):
                faster = key.split(", ", 1)[1] if ", " in key else ways[-1]
                rows.append({"chapter": saved["chapter"], "what": f"{row['run']}: {faster} over {ways[0]}",
                             "ratio": f"{row[key]:.2f}×", "measured": measured,
                             "again": f"python -m graphrepro bench --chapter {saved['chapter']}"})
    if not rows:
        return pd.DataFrame({"note": ["no bench result is committed yet (python -m graphrepro bench --chapter ...)"]})
    return pd.DataFrame(rows).set_index("chapter")


def _label(frame: pd.DataFrame) -> pd.Series:
    """'chapter · model' for a figure's rows."""
    return frame["chapter"] + " · " + frame["model"].astype(str)


def _nothing_yet(what: str) -> plt.Figure:
    """A figure that says it has nothing to show yet (a fresh run store)."""
    fig, ax = plt.subplots(figsize=(6.0, 1.0))
    ax.text(0.5, 0.5, f"no {what} recorded yet", ha="center", va="center")
    ax.set_axis_off()
    return fig


def seconds_per_epoch_figure(costs: pd.DataFrame) -> plt.Figure:
    """Seconds per epoch of each recorded run, one row per chapter and model, on a log scale, coloured by CPU kind."""
    data = costs[costs["s per epoch"] > 0]
    if data.empty:
        return _nothing_yet("run")
    data = data.assign(run=_label(data))
    order = data.groupby("run")["s per epoch"].median().sort_values().index
    fig, ax = plt.subplots(figsize=(6.0, 0.32 * len(order) + 1.2))
    sns.stripplot(data=data, x="s per epoch", y="run", hue="cpu", order=order, ax=ax, size=3, alpha=0.6, jitter=0.25)
    ax.set_xscale("log")
    ax.set(xlabel="seconds per epoch (log scale)", ylabel="")
    sns.move_legend(ax, "upper center", bbox_to_anchor=(0.4, -0.6 / fig.get_figheight()), ncol=3, title="CPU",
                    fontsize="small", frameon=False)
    return fig


def profile_hours_figure(hours: pd.DataFrame) -> plt.Figure:
    """CPU-hours per chapter: the standard profile as recorded beside the paper profile as estimated, log scale."""
    data = hours[["standard CPU-hours", "paper CPU-hours (estimated)"]].rename(
        columns={"standard CPU-hours": "standard (recorded)", "paper CPU-hours (estimated)": "paper (estimated)"})
    data = data.reset_index().melt(id_vars="chapter", var_name="profile", value_name="CPU-hours")
    data = data[data["CPU-hours"] > 0]
    if data.empty:
        return _nothing_yet("CPU-hours")
    fig, ax = plt.subplots(figsize=(6.0, 3.4))
    sns.barplot(data=data, x="CPU-hours", y="chapter", hue="profile", ax=ax)
    ax.set_xscale("log")
    ax.set(xlabel="CPU-hours (log scale)", ylabel="")
    sns.move_legend(ax, "upper center", bbox_to_anchor=(0.4, -0.2), ncol=2, title="profile", fontsize="small", frameon=False)
    return fig


def peak_memory_figure(costs: pd.DataFrame) -> plt.Figure:
    """The largest peak resident memory of any recorded run, per chapter and model, in GB."""
    data = costs.dropna(subset=["peak MB"])
    if data.empty:
        return _nothing_yet("peak memory")
    data = data.assign(run=_label(data), GB=data["peak MB"] / 1024)
    peak = data.groupby("run")["GB"].max().sort_values()
    fig, ax = plt.subplots(figsize=(6.0, 0.32 * len(peak) + 1.2))
    ax.barh(peak.index, peak.to_numpy(), color=sns.color_palette()[0])
    ax.set(xlabel="peak resident memory of a run (GB)", ylabel="")
    return fig


def summary_numbers(costs: pd.DataFrame, hours: pd.DataFrame) -> dict[str, Any]:
    """The numbers the page's prose quotes, as glue keys and text."""
    return {"cost_records": f"{len(costs):,}", "cost_standard_hours": f"{hours['standard CPU-hours'].sum():,.0f}",
            "cost_paper_hours": f"{hours['paper CPU-hours (estimated)'].sum():,.0f}",
            "cost_cpus": ", ".join(sorted(set(costs.cpu) - {"not recorded"})) or "none recorded"}


def gpu_sentence(costs: pd.DataFrame) -> str:
    """What the records say about GPUs: how many runs were recorded on one, or that none was yet."""
    gpu = costs[costs.device != "cpu"]
    if gpu.empty:
        return "No run of this book has been recorded on a GPU yet."
    return f"{len(gpu):,} recorded runs trained on a GPU ({', '.join(sorted(set(gpu.chapter)))})."
