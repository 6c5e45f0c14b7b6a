"""The cost page's tables and figures, from hand-made records in a temporary store (nothing trained)."""

from __future__ import annotations

import math

import nbformat
import pytest

from graphrepro import cost, environment, report, runner, store
from graphrepro.experiments import linkpred

CHAPTER = "mrr-variants"


def record(seed: int, wall_s: float, epochs: int, peak: float | None, cpu: str | None, **config) -> dict:
    """A current record of chapter 5's link-prediction experiment, with the given cost facts."""
    made = {**linkpred.make_config("cora", "GCN", seed), **config}
    return {"key": linkpred.EXPERIMENT.key(made), "experiment": linkpred.EXPERIMENT.name,
            "version": linkpred.EXPERIMENT.version, "config": made, "members": [seed], "wall_s": wall_s,
            "metrics": {"epochs_run": epochs, "test_filtered_mrr": 0.5}, "device": "cpu", "threads": 1,
            **({"peak_rss_mb": peak} if peak else {}), **({"cpu": cpu} if cpu else {})}


@pytest.mark.parametrize("given, kind", [("Intel(R) Xeon(R) Processor, AVX512", "Intel Xeon"), ("AMD EPYC, AVX512", "AMD EPYC"),
                                         (None, "not recorded"), ("", "not recorded"), ("Some CPU, AVX2", "Some CPU")])
def test_a_records_cpu_reads_as_its_maker_and_family(given, kind):
    assert environment.cpu_kind(given) == kind


def test_each_record_costs_its_wall_time_per_epoch_and_a_model_row_takes_medians_and_the_largest_peak():
    for r in (record(0, 100.0, 50, 1024.0, "Intel(R) Xeon(R) Processor, AVX512"),
              record(1, 300.0, 100, 3072.0, "Intel(R) Xeon(R) Processor, AVX512"),
              record(2, 40.0, 0, None, None)):
        store.write_record(CHAPTER, r)
    costs = cost.run_costs().sort_values("seconds")
    assert list(costs["seconds"]) == [40.0, 100.0, 300.0]
    assert math.isnan(costs["s per epoch"].iloc[0]) and list(costs["s per epoch"].iloc[1:]) == [2.0, 3.0]
    assert list(costs.cpu) == ["not recorded", "Intel Xeon", "Intel Xeon"] and set(costs.precision) == {"float32"}
    rows = cost.model_costs(costs).set_index("cpu")
    xeon = rows.loc["Intel Xeon"]
    assert (xeon["runs"], xeon["median s per run"], xeon["median s per epoch"], xeon["peak GB"]) == (2, 200.0, 2.5, 3.0)
    assert rows.loc["not recorded", "runs"] == 1 and math.isnan(rows.loc["not recorded", "peak GB"])
    assert cost.gpu_sentence(costs) == "No run of this book has been recorded on a GPU yet."
    for fig in (cost.seconds_per_epoch_figure(costs), cost.peak_memory_figure(costs)):
        assert report.figure_problems(fig) == []


def test_the_figures_say_so_when_nothing_is_recorded():
    costs = cost.run_costs()
    assert costs.empty and list(costs.columns) == list(cost.COST_COLUMNS)
    fig = cost.seconds_per_epoch_figure(costs)
    assert [t.get_text() for t in fig.axes[0].texts] == ["no run recorded yet"]


def test_the_execution_table_reads_each_executed_pages_papermill_record(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.metadata["papermill"] = {"parameters": {"profile": "smoke"}, "end_time": "2026-12-05T07:00:00.123456", "duration": 12.5}
    nbformat.write(nb, tmp_path / f"{CHAPTER}.ipynb")
    assert runner.execution_times(tmp_path) == [{"page": CHAPTER, "profile": "smoke", "ended": "2026-12-05 07:00:00", "seconds": 12.5}]


def test_the_model_table_groups_by_chapter_and_labels_each_cell_for_a_phone():
    store.write_record(CHAPTER, record(0, 100.0, 50, 1024.0, "AMD EPYC, AVX512"))
    html = cost.model_table(cost.run_costs()).data
    assert f'<a href="{CHAPTER}.html">{CHAPTER}</a>' in html and "<th>GCN<span" in html and "AMD EPYC, float32" in html
    assert '<td data-label="s per epoch">2</td>' in html and '<td data-label="peak GB">1</td>' in html
    assert cost.model_table(cost.run_costs().iloc[:0]).data == "<p>no run recorded yet</p>"


def test_what_made_it_cheaper_reads_every_ratio_of_the_kept_bench_tables(isolated_store):
    """`bench --chapter` keeps its table; the Cost page's table has one line per ratio in it, naming the faster
    way, the way it beats, when and where it was measured and the command that measures it again."""
    import pandas as pd

    from graphrepro import bench

    assert "no bench result" in cost.cheaper_table().iloc[0, 0]
    table = pd.DataFrame([
        {"run": "GAT layer, ACM", "s, PyG GATConv": 2.0, "s, sparse product": 0.5, "speedup": 4.0},
        {"run": "GCN tuned", "s, fp32, today's step": 3.0, "s, fp32, fast step": 2.0, "s, bf16, fast step": 1.0,
         "speedup, fp32, fast step": 1.5, "speedup, bf16, fast step": 3.0},
        {"run": "GAT, IMDB, 10 epochs", "s per run, one at a time": 1.0, "s per run, batched": None, "speedup": None},
        {"run": "GPS: memory growth", "MB, attention kept": 900.0}])
    path = bench.save_chapter_bench("han-vs-gat", table, seeds=2)
    assert path.parent == isolated_store / "bench" / "han-vs-gat" and path.name.endswith(".json")
    shown = cost.cheaper_table()
    assert list(shown.what) == ["GAT layer, ACM: sparse product over PyG GATConv",
                                "GCN tuned: fp32, fast step over fp32, today's step", "GCN tuned: bf16, fast step over fp32, today's step"]
    assert list(shown.ratio) == ["4.00×", "1.50×", "3.00×"] and set(shown.index) == {"han-vs-gat"}
    assert set(shown.again) == {"python -m graphrepro bench --chapter han-vs-gat"}
    assert all(m.endswith(f"on {__import__('os').cpu_count()} CPUs") for m in shown.measured)
