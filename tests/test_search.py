"""Model selection: the grid, the choice of the best setting on validation, and chapter 1's use of it."""

import math

import pandas as pd
import pytest

from graphrepro import catalog, pages, progress, search, store
from graphrepro.chapters.hgcn_mlp_bug import configs, paper, tuning
from graphrepro.experiments import hgcn


def test_grid_is_the_product_in_listed_order():
    settings = search.grid({"a": [1, 2], "b": ["x", "y", "z"]})
    assert len(settings) == 6
    assert settings[0] == {"a": 1, "b": "x"} and settings[1] == {"a": 1, "b": "y"} and settings[-1] == {"a": 2, "b": "z"}


@pytest.mark.parametrize(
    "scores, index",
    [([0.1, 0.7, 0.3], 1), ([0.5, 0.9, 0.9], 1), ([math.nan, 0.2, 0.1], 1), ([math.nan, math.nan], None), ([0.4], 0)],
)
def test_best_takes_the_highest_earliest_finite_score(scores, index):
    assert search.best(scores) == index


def _fake_records(configs, val, test):
    """Records as the store returns them, with given validation and test scores."""
    rows = []
    for config, v, t in zip(configs, val, test):
        rows.append({**config, "key": tuning.key(config), "val_roc": v, "val_ap": v, "test_roc": t, "test_ap": t})
    return pd.DataFrame(rows)


def test_chapter_one_selects_on_validation_never_test():
    params = pages.resolve("hgcn-mlp-bug", "smoke", tasks=["disease_lp/lp"])
    base = hgcn.make_config("disease_lp", "lp", "MLP", 0, "debugged", max_epochs=params["max_epochs"], normalize_feats=False)
    trials = tuning.trial_configs([base], params)
    assert [t["dropout"] for t in trials] == [0.0, 0.5]
    assert trials[0] == base  # the README settings are a trial: their seed-0 run is shared
    assert tuning.chosen(base, params, _fake_records(trials[:1], [0.9], [0.1])) is None  # search incomplete
    records = _fake_records(trials, [0.6, 0.8], [0.99, 0.5])  # the better test score must not matter
    assert tuning.chosen(base, params, records)["dropout"] == 0.5
    tuned = tuning.tuned_configs([base], params, records)
    assert [c["seed"] for c in tuned] == list(range(params["seeds"])) and all(c["dropout"] == 0.5 for c in tuned)
    untuned = tuning.untuned_configs([base], params, _fake_records(trials[:1], [0.9], [0.1]))  # its seeds wait for the choice
    assert untuned == tuning.seed_configs(base, {}, params) and tuning.untuned_configs([base], params, records) == []
    failed = _fake_records(trials, [math.nan, math.nan], [0.5, 0.5])  # every trial diverged
    setting, how = tuning.selection(base, params, failed)
    assert setting["dropout"] == base["dropout"] and how.startswith("every trial diverged")


def test_hyperbolic_cells_also_search_the_curvature():
    params = pages.resolve("hgcn-mlp-bug", "standard")
    euclidean, hyperbolic = tuning.space("GCN", params), tuning.space("HGCN", params)
    assert len(hyperbolic) == 2 * len(euclidean) == 2 * 2 * 2
    assert {s["c"] for s in hyperbolic} == {1.0, None} and all("c" not in s for s in euclidean)
    assert tuning.label(hyperbolic[-1]) == "2 layers, relu, dropout 0.5, wd 0.001, c trainable"
    paper = pages.resolve("hgcn-mlp-bug", "paper")
    assert len(tuning.space("MLP", paper)) == 2 * 2 * 3 * 3 and len(tuning.space("HNN", paper)) == 72


def test_table1_configs_grow_with_the_recorded_search():
    params = pages.resolve("hgcn-mlp-bug", "smoke", tasks=["disease_lp/lp"])
    empty = configs.table1_configs(params, pd.DataFrame())
    cells = configs.table1_bases(params)
    assert len(cells) == len(paper.ROWS)
    assert len(empty) == 10 * 2 + 2 * 4  # every trial; README seeds and tuned seeds coincide with trials (1 seed)
    more = pages.resolve("hgcn-mlp-bug", "smoke", tasks=["disease_lp/lp"], seeds=3)
    planned = configs.table1_configs(more, pd.DataFrame())
    assert len(planned) == 28 + 12 * 2  # + seeds 1 and 2 of each cell's README settings; nothing tuned yet



def test_best_follows_the_metric_direction():
    assert search.best([3.0, 1.0, 2.0], higher_is_better=False) == 1
    assert search.best([math.nan, 5.0, 5.0], higher_is_better=False) == 1


def _quadratic_experiment(calls):
    """A cheap experiment whose validation loss is (x - 0.3)^2 and whose 'test' is unrelated."""
    from graphrepro.experiments import Experiment

    def train(data, configs, device):
        calls.extend(c["x"] for c in configs)
        return [{"val_mr": 1 + (c["x"] - 0.3) ** 2, "test_mr": 1 + c["x"]} for c in configs]

    return Experiment("quadratic", 1, dict, lambda c: 0, lambda c: None, train, stacks=False,
                      metrics=("mr",), selection=lambda c: "mr")


def test_ask_tell_study_replays_from_the_store(monkeypatch):
    import optuna


    calls: list[float] = []
    monkeypatch.setattr(catalog, "experiments", lambda: {"quadratic": _quadratic_experiment(calls)})
    space = {"x": optuna.distributions.FloatDistribution(0.0, 1.0)}
    first, records = search.study("ch", "quadratic", {"seed": 0}, space, n_trials=8, sampler_seed=7, device="cpu")
    assert len(calls) == 8 and len(records) == 8 and [t.value for t in first] == records.val_mr.tolist()
    calls.clear()
    again, _ = search.study("ch", "quadratic", {"seed": 0}, space, n_trials=8, sampler_seed=7, device="cpu")
    assert calls == [] and again == first  # replayed: nothing trained
    more, records = search.study("ch", "quadratic", {"seed": 0}, space, n_trials=11, sampler_seed=7, device="cpu")
    assert len(calls) == 3 and len(records) == 11 and more[:8] == first  # a longer study trains only its new trials
    assert min(t.value for t in more) <= min(t.value for t in first)


def test_a_genetic_study_asks_a_whole_generation_and_replays(monkeypatch):
    """NSGA-II hands out a generation before any tell: it trains as one grid call, until the asked settings
    hold ``n_trials`` distinct ones (a repeat is told its record and does not count); a rerun trains nothing;
    a replay that may not train draws no progress bar (a page reading its records shows none)."""
    import optuna

    from graphrepro import grid

    calls: list[float] = []
    grids: list[int] = []
    monkeypatch.setattr(catalog, "experiments", lambda: {"quadratic": _quadratic_experiment(calls)})
    real = grid.run_grid
    monkeypatch.setattr(grid, "run_grid", lambda ch, name, configs, *a, **k: grids.append(len(configs)) or real(ch, name, configs, *a, **k))
    space = {"x": optuna.distributions.CategoricalDistribution([i / 10 for i in range(11)])}
    first, records = search.study("ch", "quadratic", {"seed": 0}, space, n_trials=8, sampler_seed=3, device="cpu", generation=4)
    asked = [t.params["x"] for t in first]
    assert set(grids) == {4} and len(asked) == 4 * len(grids) and len(records) == len(asked)
    assert len(set(asked[:-4])) < 8 <= len(set(asked))  # it stopped at the generation that reached 8 distinct
    assert len(asked) > len(set(asked))  # repeats were asked, and did not count
    assert len(calls) == len(set(asked)) and [t.value for t in first] == records.val_mr.tolist()  # a repeat trains once
    bars: list[str] = []
    real_bar = progress.grid_bar
    monkeypatch.setattr(progress, "grid_bar", lambda desc, *a: bars.append(desc) or real_bar(desc, *a))
    calls.clear()
    again, _ = search.study("ch", "quadratic", {"seed": 0}, space, n_trials=8, sampler_seed=3, device="cpu", generation=4)
    assert calls == [] and again == first and bars == ["study: study"]
    partial, records = search.study("ch", "quadratic", {"seed": 0}, space, n_trials=11, sampler_seed=3, device="cpu",
                                    generation=4, train=False)
    assert calls == [] and len(records) == len(asked) and len(partial) == len(asked) + 4  # up to the first unrecorded generation
    assert partial[:len(asked)] == first and not any(t.told for t in partial[len(asked):])
    assert bars == ["study: study"]  # the replay drew none
    whole, _ = search.study("ch", "quadratic", {"seed": 0}, space, n_trials=50, sampler_seed=3, device="cpu", generation=4)
    assert len({t.params["x"] for t in whole}) == 11  # the grid has 11 settings: 50 asks for all of them, and stops


def test_a_replay_reads_the_recorded_asks_while_the_records_tell_what_they_told(isolated_store, monkeypatch):
    """A study's asks are recorded (``search.STUDIES``): a replay, or a shorter study, reads them without the
    sampler and gives the same trials and records; a damaged transcript, or a record that now tells another
    value, sends the replay back to the sampler, which records its asks again."""
    import optuna

    calls: list[float] = []
    monkeypatch.setattr(catalog, "experiments", lambda: {"quadratic": _quadratic_experiment(calls)})
    space = {"x": optuna.distributions.CategoricalDistribution([i / 10 for i in range(11)])}

    def replay(n_trials=8):
        return search.study("ch", "quadratic", {"seed": 0}, space, n_trials=n_trials, sampler_seed=3, device="cpu", generation=4)

    first, records = replay()
    (path,) = (isolated_store / "ch" / search.STUDIES).glob("*.json")
    sampled: list[int] = []
    real = search._ask_and_tell
    monkeypatch.setattr(search, "_ask_and_tell", lambda *a: sampled.append(1) or real(*a))
    calls.clear()
    again, again_records = replay()
    assert sampled == [] and calls == [] and again == first
    pd.testing.assert_frame_equal(again_records, records)
    short, _ = replay(n_trials=4)
    assert sampled == [] and short == first[:len(short)] and len(short) % 4 == 0
    text = path.read_text()
    path.write_text(text.replace('"told": [', '"told": [1.5, ', 1))  # a hand edit: its digest no longer matches
    assert replay()[0] == first and sampled == [1] and path.read_text() == text  # asked again, recorded again
    record = store.read_record(store.record_path("ch", records.key.iloc[0]))
    store.write_record("ch", {**record, "metrics": {**record["metrics"], "val_mr": record["metrics"]["val_mr"] + 1}})
    moved, _ = replay()
    assert sampled == [1, 1] and moved[0].value == first[0].value + 1 and path.read_text() != text


def test_choices_are_recorded_and_read_back(isolated_store):
    trials = [{"dropout": 0.0}, {"dropout": 0.5}]
    runs = pd.DataFrame([{"key": "k0", "val_roc": 0.7, "val_ap": 0.7}, {"key": "k1", "val_roc": 0.8, "val_ap": 0.9}])
    spec = hgcn.EXPERIMENT.selection_spec({"task": "lp"})
    choice = search.choose(trials, ["k0", "k1"], runs, spec, fallback=trials[0])
    assert choice.setting == {"dropout": 0.5} and choice.scores == pytest.approx((0.7, 0.85))
    assert search.choose(trials, ["k0", "k2"], runs, spec, trials[0]).setting is None  # incomplete
    search.record_choice("ch", hgcn.EXPERIMENT, choice)
    assert search.recorded_choice("ch", hgcn.EXPERIMENT, ("k0", "k1")) == choice
    (path,) = (isolated_store / "ch" / search.CHOICES).glob("*.json")
    before = path.stat().st_mtime_ns
    search.record_choice("ch", hgcn.EXPERIMENT, choice)  # unchanged: not rewritten
    assert path.stat().st_mtime_ns == before
    assert search.recorded_choice("ch", hgcn.EXPERIMENT, ("k0",)) is None


def test_chapter_one_choices_are_recorded_and_agree_with_the_records(monkeypatch):
    """Every recorded choice of the committed standard profile is what its trials' records give."""
    monkeypatch.delenv("GRAPHREPRO_RESULTS")
    params = pages.resolve("hgcn-mlp-bug", "standard")
    planned, runs = configs.chapter_records(params)
    if len(runs) < len(planned):
        pytest.skip("the standard records are not all here")
    bases = [cell[3] for cell in configs.table1_bases(params)]
    for base in bases:
        settings = tuning.space(base["model"], params)
        keys = tuple(tuning.key({**base, **s, "seed": paper.SEARCH_SEED}) for s in settings)
        recorded = search.recorded_choice("hgcn-mlp-bug", hgcn.EXPERIMENT, keys)
        assert recorded is not None, base
        readme = {n: base[n] for n in settings[0]}
        assert recorded == search.choose(settings, list(keys), runs, hgcn.EXPERIMENT.selection_spec(base), readme,
                                         tuning.label)
