"""The paper-profile estimate: which experiment a config belongs to, its planned epochs, and the probes."""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
import pytest
import torch

from graphrepro import bench, pages
from graphrepro.experiments import hgb, kg, linkpred
from graphrepro.models import batched


@pytest.mark.parametrize("page", pages.chapter_pages(), ids=lambda p: p.slug)
def test_every_config_of_a_profile_belongs_to_one_experiment_of_its_chapter(page):
    configs, _ = pages.chapter_module(page.slug, "configs").chapter_records(pages.resolve(page.slug, "smoke"))
    assert configs
    for config in configs:
        experiment = bench.experiment_of(config, pages.experiments(page.slug))
        assert experiment.make_config(**config) == config
        assert experiment.planned_epochs(config)[1] > 0


def test_a_config_no_experiment_makes_is_refused():
    config = {**linkpred.make_config("cora", "GCN", 0), "not_a_field": 1}
    with pytest.raises(ValueError, match="no experiment"):
        bench.experiment_of(config, (linkpred.EXPERIMENT, hgb.EXPERIMENT))


def test_planned_epochs_read_the_config_or_the_published_configuration():
    assert hgb.EXPERIMENT.planned_epochs(hgb.make_config("IMDB", "GAT", 0)) == ("max_epochs", hgb.DEFAULTS["max_epochs"])
    assert kg.EXPERIMENT.planned_epochs(kg.make_config("nations", "TransE", 0, epochs=7)) == ("epochs", 7)
    published = kg.make_config("nations", "TransE", 0)
    assert published["epochs"] is None
    assert kg.EXPERIMENT.planned_epochs(published) == ("epochs", kg.pipeline_arguments(published)["training_kwargs"]["num_epochs"])


def test_estimate_probes_until_its_budget_and_accounts_for_every_run():
    table = bench.profile_estimate("mrr-variants", "smoke", device="cpu", probe_epochs=1, budget_s=0.0)
    configs, _ = pages.chapter_module("mrr-variants", "configs").chapter_records(pages.resolve("mrr-variants", "smoke"))
    assert table.runs.sum() == len(configs)
    probed = table[table.status == "probed"]
    assert len(probed) == 1  # a zero budget is spent after the first probe; every later group says so
    assert (table.status.iloc[1:] == "not probed: time budget spent").all()
    row = probed.iloc[0]
    assert row["s per epoch"] > 0 and row["s per run besides epochs"] >= 0
    assert row["hours (upper bound)"] == pytest.approx(
        (row["s per run besides epochs"] + row["s per epoch"] * row["epochs per run"]) * row["runs"] / 3600)


def test_the_profile_of_a_batch_names_its_costliest_operators_in_order():
    g = torch.Generator().manual_seed(0)
    x = (torch.rand(30, 8, generator=g) < 0.3).float()
    graph = batched.make_graph(x, torch.randint(0, 30, (2, 90), generator=g))
    y, perm = torch.randint(0, 3, (30,), generator=g), torch.randperm(30, generator=g)
    split = {"train": perm[:15], "valid": perm[15:22], "test": perm[22:]}
    rows = bench.batched_profile("GCN", graph, y, split, members=3, epochs=2, top=5)
    assert 0 < len(rows) <= 5
    shares = [r["share of time"] for r in rows]
    assert shares == sorted(shares, reverse=True) and 0 < sum(shares) <= 1 + 1e-9
    assert all(r["operator"] and r["ms per member-epoch"] >= 0 for r in rows)


def test_the_whole_book_benchmark_does_not_build_while_records_are_missing(monkeypatch):
    """Building the book without every committed standard record would train for hours: the benchmark says so."""
    monkeypatch.setattr(bench, "unrecorded_standard_runs", lambda: {"hgcn-mlp-bug": 0, "han-vs-gat": 3})
    assert bench.whole_book(("book",)) == {
        "make book": "skipped: runs without committed records would train first (han-vs-gat 3)"}


def test_unrecorded_runs_count_the_standard_keys_without_a_committed_record(monkeypatch):
    slug = "hgcn-mlp-bug"
    keys = pages.chapter_module(slug, "configs").chapter_keys(pages.resolve(slug, "standard"))
    monkeypatch.setattr(bench.store, "committed_keys", lambda s: set(list(keys)[:5]) if s == slug else None)
    missing = bench.unrecorded_standard_runs()
    assert missing[slug] == len(keys) - 5 and set(missing) == {p.slug for p in pages.chapter_pages()}


def test_bench_recorded_reads_the_records_and_trains_nothing(capsys):
    """An empty store: the chapter's standard runs counted, none recorded, the page not executed."""
    from graphrepro.__main__ import main

    assert main(["bench", "--recorded", "--chapter", "hgcn-mlp-bug"]) == 0
    out = capsys.readouterr().out
    total = len(pages.chapter_module("hgcn-mlp-bug", "configs").chapter_records(pages.resolve("hgcn-mlp-bug", "standard"))[0])
    assert f"runs in the profile: {total}" in out and "runs recorded: 0" in out
    assert f"page execution: skipped: {total} runs are not recorded yet" in out and "seconds per training run" not in out


def _record(experiment, config, wall_s):
    return {"key": experiment.key(config), "experiment": experiment.name, "version": experiment.version,
            "config": config, "metrics": {}, "wall_s": wall_s}


def test_the_estimate_from_records_scales_each_kinds_seconds_per_epoch_to_the_profiles_runs():
    """HAN on DBLP: three standard records at 100, 200 and 400 s give a median of 200 s per run of its planned
    epochs; the paper's runs of that kind cost that per epoch, and the setting they differ in is named."""
    slug = "han-vs-gat"
    han = [c for c in pages.chapter_module(slug, "configs").chapter_records(pages.resolve(slug, "standard"))[0] if c["model"] == "HAN" and c["dataset"] == "DBLP"]
    for config, wall in zip(han, (100.0, 200.0, 400.0)):
        bench.store.write_record(slug, _record(hgb.EXPERIMENT, config, wall))
    table = bench.recorded_estimate(slug, "paper").set_index(["dataset", "model"])
    row = table.loc[("DBLP", "HAN")]
    per_epoch = 200.0 / hgb.EXPERIMENT.planned_epochs(han[0])[1]
    paper = [c for c in pages.chapter_module(slug, "configs").chapter_records(pages.resolve(slug, "paper"))[0] if c["model"] == "HAN" and c["dataset"] == "DBLP"]
    assert row["records"] == 3 and row["s per planned epoch"] == pytest.approx(per_epoch)
    assert row["hours"] == pytest.approx(per_epoch * sum(hgb.EXPERIMENT.planned_epochs(c)[1] for c in paper) / 3600)
    assert row["hours left"] == row["hours"]  # no paper run of the kind is recorded
    bench.store.write_record(slug, _record(hgb.EXPERIMENT, paper[0], 50.0))  # one is, now: it prices the rest
    after = bench.recorded_estimate(slug, "paper").set_index(["dataset", "model"]).loc[("DBLP", "HAN")]
    own = 50.0 / hgb.EXPERIMENT.planned_epochs(paper[0])[1]
    assert after["from"] == "paper" and after["s per planned epoch"] == pytest.approx(own)
    assert after["hours left"] == pytest.approx(own * sum(hgb.EXPERIMENT.planned_epochs(c)[1] for c in paper[1:]) / 3600)
    assert row["status"].startswith("settings differ: ") and "metapath_edge_limit" in row["status"]
    assert table.drop(index=[("DBLP", "HAN")]).status.eq("no standard record of this kind").all()


def test_optional_settings_split_a_kind_only_where_some_of_its_runs_carry_them(monkeypatch):
    """GMNN's EM loops on some GCN runs make them a kind of their own; RotatE on FB15k-237, recorded with fewer
    negatives than the paper's runs draw, stays one kind whose difference is named."""
    slug = "mrr-variants"
    fewer, resolve = {"kgs": ["fb15k237"], "negatives_cap": 32, "large_kg_epochs": 20, "large_kg_models": ["RotatE"]}, pages.resolve
    monkeypatch.setattr(pages.chapter_module(slug, "configs"), "fast_passes", lambda params, model=None: True)  # the large graphs are planned
    monkeypatch.setattr(pages, "resolve", lambda s, p, **kw: resolve(s, p, **({**fewer, **kw} if p == "standard" else kw)))
    capped = [c for c in pages.chapter_module(slug, "configs").chapter_records(pages.resolve(slug, "standard"))[0]
              if c.get("model") == "RotatE"]
    assert capped and all("negatives" in c for c in capped)
    bench.store.write_record(slug, _record(kg.EXPERIMENT, capped[0], 3600.0))
    row = bench.recorded_estimate(slug, "paper").set_index(["dataset", "model"]).loc[("fb15k237", "RotatE")]
    assert row["with"] == "–" and row["records"] == 1
    assert row["status"] == "settings differ: negatives 32 here, None in paper"
    monkeypatch.setattr(pages, "resolve", resolve)
    gmnn = bench.recorded_estimate("gmnn-fair-eval", "standard")
    gcn = gmnn[(gmnn.model == "GCN") & (gmnn.dataset == "cora")]
    assert sorted(gcn["with"]) == ["gmnn_epochs, gmnn_loops, gmnn_p_features, gmnn_tau", "gmnn_epochs, gmnn_loops, gmnn_tau", "–"]
    assert gcn.status.str.endswith("no standard record of this kind").all()


def test_a_kind_that_only_runs_faster_is_estimated_from_the_slower_kinds_records(monkeypatch):
    """The paper's fast-path twin of Nations TransE (``kg.FAST_FIELDS``, the experiment's ``speed_fields``) has no
    record of its own kind: its estimate reads the plain runs' records as an upper bound and names the setting;
    a kind that differs in work (GMNN's EM loops, above) still says it has no record."""
    slug = "mrr-variants"
    config = next(c for c in pages.chapter_module(slug, "configs").kg_configs(pages.resolve(slug, "standard", kgs=["nations"]))
                  if c["model"] == "TransE")
    record = _record(kg.EXPERIMENT, config, 100.0 * kg.EXPERIMENT.planned_epochs(config)[1])
    bench.store.write_record(slug, {**record, "metrics": {"test_mrr": 0.4}})  # the fast path's check reads it
    table = bench.recorded_estimate(slug, "paper").set_index(["dataset", "model", "with"])
    plain, fast = table.loc[("nations", "TransE", "ce_targets")], table.loc[("nations", "TransE", "ce_targets, denormals, scorer")]
    assert table.loc[("nations", "TransE", "–"), "status"] == "no standard record of this kind"  # pykeen 1.11's targets: not faster
    assert plain["status"] == "as recorded" and plain["s per planned epoch"] == pytest.approx(100.0)
    assert fast["records"] == 1 and fast["s per planned epoch"] == pytest.approx(100.0)
    assert fast["status"] == "settings differ: denormals None here, flush in paper; scorer None here, fused in paper"
    assert set(kg.EXPERIMENT.speed_fields) == {"denormals", "scorer"}


def test_runs_held_back_for_a_check_are_estimated_from_a_kept_bench_and_say_what_they_wait_for(monkeypatch):
    """Chapter 5's large graphs wait for the fast path's check: the paper estimate still lists them, a kind no
    record prices from a kept bench's epoch on its path (times its own epochs), and one no bench timed stays
    unpriced; a kind that needs gigabytes of memory says how many, priced or not (TransE on pykeen's path, where its
    check failed; RotatE's fast path, a matrix product, needs none); a config with fewer negatives than the bench's
    setting is not priced from it."""
    from graphrepro.chapters.mrr_variants import benchmarks, configs

    slug = "mrr-variants"
    monkeypatch.setattr(configs, "is_available", lambda dataset: True)
    monkeypatch.setattr(configs, "fast_passes", lambda params, model=None: False if model == "TransE" else None)
    overrides = {"kgs": ["nations", "wn18rr"], "kg_models": ["ComplEx", "TuckER", "TransE", "RotatE"],
                 "large_kg_models": ["ComplEx", "TuckER", "TransE", "RotatE"]}
    complex_ = kg.make_config("wn18rr", "ComplEx", 0)
    rows = [{"run": "ComplEx on WN18RR, Hoyt et al.'s setting, an epoch", "s, pykeen's path": 1200.0, "s, fast path": 100.0},
            {"run": "RotatE on WN18RR, Hoyt et al.'s setting, an epoch", "s, pykeen's path": 90000.0, "s, fast path": 1100.0}]
    bench.save_chapter_bench(slug, pd.DataFrame(rows), seeds=1)
    table = bench.recorded_estimate(slug, "paper", overrides).set_index(["dataset", "model"])
    row, tucker = table.loc[("wn18rr", "ComplEx")], table.loc[("wn18rr", "TuckER")]
    assert row["from"] == "bench" and row["s per planned epoch"] == pytest.approx(100.0)
    assert row["hours"] == row["hours left"] == pytest.approx(100.0 * kg.own_epochs(complex_) / 3600)
    assert row["status"] == "waits for the fast path's check; an epoch as benched (set-up and evaluation not counted)"
    assert tucker["status"] == "waits for the fast path's check; no standard record of this kind" and pd.isna(tucker["hours"])
    transe = kg.least_mb(kg.make_config("wn18rr", "TransE", 0)) / 2**10
    assert transe > 1 and kg.least_mb(kg.make_config("wn18rr", "RotatE", 0)) / 2**10 > 1  # pykeen's path
    assert table.loc[("wn18rr", "TransE"), "status"] == f"no standard record of this kind; needs at least {transe:.0f} GB of memory"
    assert table.loc[("wn18rr", "RotatE"), "status"] == ("waits for the fast path's check; an epoch as benched (set-up and "
                                                         "evaluation not counted)")
    assert table.loc[("wn18rr", "RotatE"), "s per planned epoch"] == pytest.approx(1100.0)
    assert list(table.columns) == [c for c in bench.ESTIMATE_COLUMNS if c in table.columns]  # whichever row comes first
    assert benchmarks.kept_epoch_seconds(complex_, rows) == pytest.approx(1200.0)  # pykeen's path
    assert benchmarks.kept_epoch_seconds({**complex_, "negatives": 32}, rows) is None
    assert benchmarks.kept_epoch_seconds(kg.make_config("nations", "ComplEx", 0), rows) is None


def test_a_probe_too_large_for_the_machine_trains_its_batches_in_parts():
    """Chapter 5's bench times TransE and RotatE on WN18RR (one batch's difference alone 20 and 40 GB) in parts of
    their 512-query batches small enough that four copies of a part's difference fit half the machine; a batch
    that fits is not split."""
    from graphrepro.chapters.mrr_variants import benchmarks

    transe, rotate = kg.make_config("wn18rr", "TransE", 0), kg.make_config("wn18rr", "RotatE", 0)
    assert benchmarks.probe_sub_batch(transe, 24 * 2**10) == 64  # a part: 20 GB / 8 = 2.5 GB <= 24 GB / 2 / 4; at 128 queries 5 GB
    assert benchmarks.probe_sub_batch(rotate, 24 * 2**10) == 32  # 40 GB / 16 = 2.5 GB
    assert benchmarks.probe_sub_batch(transe, 256 * 2**10) is None  # 20 GB <= 256 GB / 2 / 4
    assert benchmarks.probe_sub_batch(kg.make_config("wn18rr", "ComplEx", 0), 1.0) is None  # scored by a matrix product
    assert benchmarks.probe_sub_batch({**rotate, **kg.fast_fields(rotate)}, 1.0) is None  # so is RotatE's fast path


def test_trials_a_search_will_still_ask_count_once_each_and_stay_left_whatever_is_recorded(monkeypatch):
    """Chapter 3's pending trials are one stand-in listed once per trial: each is a run of its kind in the estimate,
    and left to train even where a record has the stand-in's key (a trial asked already is not a pending one)."""
    from graphrepro.chapters.gmnn_fair_eval import configs, searches
    from graphrepro.experiments import fair_eval

    slug = "gmnn-fair-eval"
    monkeypatch.setattr(searches, "is_available", lambda dataset: True)
    overrides = {"datasets": ["cora"], "kinds": ["sparse_balanced"], "folds": 1, "trials": 10, "budget_study": False}
    params = pages.resolve(slug, "smoke", **overrides)
    cell = ("cora", "sparse_balanced", "GCN", 0)
    standard = searches.search_cell(pages.resolve(slug, "standard"), cell, train=False)[1][0]  # a standard trial prices the kind
    bench.store.write_record(slug, _record(fair_eval.EXPERIMENT, standard, 5.0 * fair_eval.EXPERIMENT.planned_epochs(standard)[1]))
    plain = [c for c in configs.chapter_records(params)[0] + configs.pending(params)["a search's trials not asked yet"]
             + configs.pending(params)["a setting not chosen yet"] if c["model"] == "GCN" and "gmnn_loops" not in c]
    row = bench.recorded_estimate(slug, "smoke", overrides).set_index(["model", "with"]).loc[("GCN", "–")]
    assert row["runs"] == len(plain) and row["from"] == "standard" and row["s per planned epoch"] == pytest.approx(5.0)
    assert row["hours"] == row["hours left"] == pytest.approx(5.0 * params["max_epochs"] * len(plain) / 3600)
    assert row["status"] == "waits for a search's trials not asked yet; waits for a setting not chosen yet; as recorded"
    stand_in = searches.stand_in(params, cell)
    bench.store.write_record(slug, _record(fair_eval.EXPERIMENT, stand_in, 5.0 * params["max_epochs"]))
    again = bench.recorded_estimate(slug, "smoke", overrides).set_index(["model", "with"]).loc[("GCN", "–")]
    assert again["from"] == "smoke" and again["hours left"] == pytest.approx(row["hours left"])


def test_peak_growth_sees_memory_held_during_the_work_and_none_when_there_is_none():
    def hold_200_mb() -> None:
        block = np.ones(200 * 2**20, dtype=np.uint8)  # touched, so resident
        time.sleep(0.05)
        del block

    assert 190 < bench.peak_growth_mb(hold_200_mb) < 260
    assert bench.peak_growth_mb(lambda: time.sleep(0.05)) < 20


def test_compare_seconds_alternates_the_ways_and_gives_each_ones_speedup_over_the_first(monkeypatch):
    """A fake clock that each way advances by its own cost: medians without the warm-up round, ratios to the first."""
    clock, order = [0.0], []
    monkeypatch.setattr(bench.time, "perf_counter", lambda: clock[0])

    def way(name: str, cost: float):
        return name, lambda: (order.append(name), clock.__setitem__(0, clock[0] + cost))

    row = bench.compare_seconds("three ways", way("today", 6.0), way("fast", 3.0), way("bf16", 2.0), repeats=3)
    assert order == ["today", "fast", "bf16"] * 4  # interleaved, the first round a warm-up
    assert row == {"run": "three ways", "s, today": 6.0, "s, fast": 3.0, "s, bf16": 2.0,
                   "speedup, fast": 2.0, "speedup, bf16": 3.0}
    assert bench.compare_seconds("two", way("a", 4.0), way("b", 1.0), repeats=1)["speedup"] == 4.0


def test_hours_left_take_off_the_epochs_a_chapter_4_run_has_checkpointed(monkeypatch):
    """A paper-profile GCN run with 100 of its epochs in this machine's checkpoint has only the rest left."""
    from graphrepro.chapters.lrgb_head import configs, paper
    from graphrepro.experiments import lrgb

    slug = "lrgb-head"
    gcn = [c for c in pages.chapter_module(slug, "configs").chapter_records(pages.resolve(slug, "standard"))[0] if c["model"] == "GCN"]
    bench.store.write_record(slug, _record(lrgb.EXPERIMENT, gcn[0], 800.0))  # 8 epochs: 100 s each
    first = lrgb.EXPERIMENT.key(configs.config(configs.full_params(pages.resolve(slug, "paper")), *paper.FIRST_FULL))
    monkeypatch.setattr(lrgb, "epochs_checkpointed", lambda key: 100 if key == first else 0)
    row = bench.recorded_estimate(slug, "paper").set_index("model").loc["GCN (lrgb)"]
    assert row["s per planned epoch"] == pytest.approx(100.0) and row["from"] == "standard"
    assert row["hours"] - row["hours left"] == pytest.approx(100 * 100.0 / 3600)


def test_a_kinds_own_records_in_the_profile_price_it_before_the_standard_ones(monkeypatch):
    """Chapter 4's GCN runs split by base configuration (LRGB's or the tuned one: another width, another cost).
    Once a papers'-budget run of a kind is recorded, its seconds per epoch price the rest of that kind, not the
    standard profile's short runs; a kind without one keeps the standard records' price."""
    from graphrepro.experiments import lrgb

    slug = "lrgb-head"
    params = pages.resolve(slug, "paper", seeds=2, gps=False)
    for config in pages.chapter_module(slug, "configs").chapter_records(pages.resolve(slug, "standard"))[0]:
        if config["model"] == "GCN":  # 8-epoch runs: 100 s an epoch, LRGB's and tuned alike
            bench.store.write_record(slug, _record(lrgb.EXPERIMENT, config, 100.0 * config["epochs"]))
    table = bench.recorded_estimate(slug, "paper", {"seeds": 2, "gps": False})
    gcn = table[table.model.str.startswith("GCN")].set_index(["model", "with"])
    assert {m for m, _ in gcn.index} == {"GCN (lrgb)", "GCN (tuned)"} and set(gcn["from"]) == {"standard"}
    full = [c for c in pages.chapter_module(slug, "configs").chapter_records(params)[0]  # not the first run: its curve is read
            if c["model"] == "GCN" and c["base"] == "lrgb"][-1]
    bench.store.write_record(slug, _record(lrgb.EXPERIMENT, full, 60.0 * full["epochs"]))
    again = bench.recorded_estimate(slug, "paper", {"seeds": 2, "gps": False})
    again = again[again.model.str.startswith("GCN")].set_index("model")
    mine, tuned = again.loc["GCN (lrgb)"], again.loc["GCN (tuned)"]
    assert mine["from"] == "paper" and mine["records"] == 1 and mine["s per planned epoch"] == pytest.approx(60.0)
    assert mine["hours left"] == pytest.approx(60.0 * full["epochs"] * (mine["runs"] - 1) / 3600)
    assert tuned["from"] == "standard" and tuned["s per planned epoch"] == pytest.approx(100.0)


def test_the_estimate_plans_the_runs_train_is_given_with_its_parameters(capsys):
    """`bench --estimate -p` counts the runs `train -p` trains: chapter 4 with two seeds and no GPS is half the
    paper profile's GNN runs and none of its GPS ones; -p without --estimate and --chapter is refused."""
    from graphrepro.__main__ import main

    full = bench.recorded_estimate("lrgb-head", "paper")
    fewer = bench.recorded_estimate("lrgb-head", "paper", {"seeds": 2, "gps": False})
    assert "GPS (tuned)" in set(full.model) and not fewer.model.str.startswith("GPS").any()
    assert fewer.runs.sum() == full[~full.model.str.startswith("GPS")].runs.sum() // 2 == 24  # 3 models, 4 stages, 2 seeds
    assert main(["bench", "--estimate", "paper", "--from-records", "-p", "seeds", "2"]) == 2
    assert "goes with --estimate and --chapter" in capsys.readouterr().err


def test_every_standard_run_has_a_committed_record(monkeypatch):
    """``make book`` on a fresh clone trains nothing: each chapter's ``standard`` runs are all committed (a change
    that plans a run lands with its record, or on a branch until the record exists)."""
    monkeypatch.delenv("GRAPHREPRO_RESULTS")  # the committed store, not the test's own
    assert bench.unrecorded_standard_runs() == {page.slug: 0 for page in pages.chapter_pages()}


def test_a_chapters_bench_is_kept_once_per_cpu_kind_and_the_cost_page_reads_each(isolated_store, monkeypatch):
    """A bench on another CPU kind sits beside the first; one on the same kind replaces its own; the Cost page's
    ratios name each one's kind."""
    from graphrepro import cost, environment

    def save(cpu: str, seconds: float) -> None:
        monkeypatch.setattr(environment, "cpu", lambda: cpu)
        table = pd.DataFrame([{"run": "a layer", "s, old way": seconds, "s, new way": 1.0, "speedup": seconds}])
        bench.save_chapter_bench("han-vs-gat", table, seeds=1)

    save("Intel(R) Xeon(R) Processor, AVX512", 2.0)
    save("AMD EPYC, AVX512", 3.0)
    save("AMD EPYC, AVX512", 4.0)
    assert sorted(p.name for p in (isolated_store / bench.RESULTS / "han-vs-gat").iterdir()) == ["amd-epyc.json", "intel-xeon.json"]
    assert [(environment.cpu_kind(b["cpu"]), b["rows"][0]["speedup"]) for b in bench.saved_benches()] == [("AMD EPYC", 4.0), ("Intel Xeon", 2.0)]
    ratios = cost.cheaper_table()
    assert [(r.ratio, r.measured.split(", ")[1]) for r in ratios.itertuples()] == [("4.00×", "AMD EPYC"), ("2.00×", "Intel Xeon")]
