"""The paper-profile estimate: which experiment a config belongs to, its planned epochs, and the probes."""

from __future__ import annotations

import pytest

from graphrepro import bench, chapters
from graphrepro.experiments import hgb, kg, linkpred


@pytest.mark.parametrize("page", chapters.chapter_pages(), ids=lambda p: p.slug)
def test_every_config_of_a_profile_belongs_to_one_experiment_of_its_chapter(page):
    module = chapters.chapter_module(page.slug)
    configs, _ = module.chapter_records(chapters.resolve(page.slug, "smoke"))
    assert configs
    for config in configs:
        experiment = bench.experiment_of(config, module.EXPERIMENTS)
        assert experiment.make_config(**config) == config
        assert bench.planned_epochs(config)[1] > 0


def test_a_config_no_experiment_makes_is_refused():
    config = {**linkpred.make_config("cora", "GCN", 0), "not_a_field": 1}
    with pytest.raises(ValueError, match="no experiment"):
        bench.experiment_of(config, (linkpred.EXPERIMENT, hgb.EXPERIMENT))


def test_planned_epochs_read_the_config_or_the_published_configuration():
    assert bench.planned_epochs(hgb.make_config("IMDB", "GAT", 0)) == ("max_epochs", hgb.DEFAULTS["max_epochs"])
    assert bench.planned_epochs(kg.make_config("nations", "TransE", 0, epochs=7)) == ("epochs", 7)
    published = kg.make_config("nations", "TransE", 0)
    assert published["epochs"] is None
    assert bench.planned_epochs(published) == ("epochs", kg.pipeline_arguments(published)["training_kwargs"]["num_epochs"])


def test_estimate_probes_until_its_budget_and_accounts_for_every_run():
    table = bench.profile_estimate("mrr-variants", "smoke", device="cpu", probe_epochs=1, budget_s=0.0)
    configs, _ = chapters.chapter_module("mrr-variants").chapter_records(chapters.resolve("mrr-variants", "smoke"))
    assert table.runs.sum() == len(configs)
    probed = table[table.status == "probed"]
    assert len(probed) == 1  # a zero budget is spent after the first probe; every later group says so
    assert (table.status.iloc[1:] == "not probed: time budget spent").all()
    row = probed.iloc[0]
    assert row["s per epoch"] > 0 and row["s per run besides epochs"] >= 0
    assert row["hours (upper bound)"] == pytest.approx(
        (row["s per run besides epochs"] + row["s per epoch"] * row["epochs per run"]) * row["runs"] / 3600)
