"""verify: re-running a recorded run reproduces its metrics; a tampered record is caught."""

from __future__ import annotations

import json
import subprocess

import pytest

from graphrepro import environment, pages, paths, store
from graphrepro.__main__ import main
from graphrepro.data import DataUnavailable
from graphrepro.experiments import hgcn
from graphrepro.grid import run_grid
from graphrepro.metrics import METRICS
from graphrepro.verify import candidate_records, check, sample_records

CHAPTER = "hgcn-mlp-bug"


@pytest.fixture
def one_record(isolated_store):
    config = hgcn.make_config("disease_lp", "lp", "MLP", 3, "original", normalize_feats=False, max_epochs=20, dropout=0.2)
    try:
        run_grid(CHAPTER, hgcn.EXPERIMENT.name, [config, {**config, "seed": 4}], device="cpu")
    except DataUnavailable as err:
        pytest.skip(str(err))
    paths = sorted((isolated_store / CHAPTER).glob("*.json"))
    assert len(paths) == 2 and store.read_record(paths[0])["members"] == [3, 4]
    return paths[0]


def test_rerun_matches_exactly(one_record):
    result = check(store.read_record(one_record))
    assert result["ok"] and result["mode"] == "exact" and result["largest difference"] == 0
    assert result["metric"].startswith(("val_", "test_")) and result["problem"] == ""


def test_a_check_of_named_records_is_kept_for_the_reproducibility_page(one_record, isolated_store):
    """`verify KEY` keeps its result in results/verify.json (a --local sample does not); Reproducibility counts it."""
    from graphrepro import provenance

    key = store.read_record(one_record)["key"]
    assert main(["verify", "--local", "--sample", "1", "--chapter", CHAPTER]) == 0
    assert provenance.verify_result()[1].empty and not (isolated_store / "verify.json").exists()
    assert main(["verify", key]) == 0
    report = json.loads((isolated_store / "verify.json").read_text())
    assert [(c["chapter"], c["key"], c["ok"], c["mode"]) for c in report["checks"]] == [(CHAPTER, key, True, "exact")]
    assert report["commit"] and report["cpu"] == environment.cpu()
    where, table = provenance.verify_result()
    assert report["date"] in where and table.loc[CHAPTER].to_dict() == {"re-trained": 1, "identical": 1, "within tolerance": 0, "differ": 0}


@pytest.mark.slow
def test_tampered_record_fails_naming_metric_values_and_digest(one_record, capsys):
    record = json.loads(one_record.read_text())
    recorded = record["metrics"]["test_roc"]
    record["metrics"]["test_roc"] += 0.001
    one_record.write_text(json.dumps(record))
    result = check(store.read_record(one_record))
    assert not result["ok"] and "edited by hand" in result["problem"]
    assert f"test_roc: recorded {recorded + 0.001}, re-run {recorded}, difference 0.001" in result["problem"]
    assert main(["verify", "--local", "--sample", "2", "--chapter", CHAPTER]) == 1
    assert "1 of 2 re-runs match" in capsys.readouterr().out
    assert main(["verify", record["key"]]) == 1  # a named record


@pytest.mark.slow
def test_thread_count_in_the_record_cannot_loosen_the_check(one_record):
    """The issue's reproduction: a metric moved by 0.005 and ``threads`` set to 2 (digest even re-forged)."""
    record = json.loads(one_record.read_text())
    record["metrics"]["test_roc"] += 0.005
    record["threads"] = 2
    assert "edited by hand" in check(record)["problem"]
    record["digest"] = store.record_digest(record)
    result = check(record)  # re-run on the record's 2 threads, same packages: exact is expected
    assert result["mode"] == "exact" and not result["ok"] and "test_roc: recorded" in result["problem"]


@pytest.mark.slow
def test_other_environment_uses_the_stated_tolerance(one_record):
    record = json.loads(one_record.read_text())
    record["packages"]["torch"] = "0.0.0"
    record["metrics"]["test_roc"] += 0.005
    record["digest"] = store.record_digest(record)  # as written by a run on that torch
    result = check(record)
    assert result["mode"].startswith("within each metric's tolerance (torch 0.0.0 recorded, ") and result["ok"]
    assert METRICS["roc"].tolerance == 0.01  # the spec's tolerance decided it
    assert check(record, tolerance=0.01)["ok"] and not check(record, tolerance=0.001)["ok"]
    record["metrics"]["test_roc"] += 0.01  # now 0.015 off: beyond the spec's tolerance
    record["digest"] = store.record_digest(record)
    assert "test_roc: recorded" in check(record)["problem"] and "best epoch" not in check(record)["problem"]
    best = record["metrics"]["best_epoch"]
    record["metrics"]["best_epoch"] = best + 7  # as a run that stopped elsewhere would read
    record["digest"] = store.record_digest(record)
    assert f"its best epoch moved ({best + 7} recorded, {best} re-run)" in check(record)["problem"]


def test_record_without_digest_is_reported(one_record):
    record = json.loads(one_record.read_text())
    del record["digest"]
    assert "no content digest" in check(record)["problem"]


def test_sample_draws_committed_standard_records_only(monkeypatch):
    """On the repository's own store: every candidate is committed and belongs to the standard profile;
    a local record is left out unless ``--local`` is given."""
    monkeypatch.delenv("GRAPHREPRO_RESULTS")
    committed = store.committed_keys(CHAPTER)
    if not committed:
        pytest.skip("no committed records in this checkout")
    standard = pages.chapter_module(CHAPTER, "configs").chapter_keys(pages.resolve(CHAPTER, "standard"))
    local = {"key": "0000local0000record0", "experiment": hgcn.EXPERIMENT.name, "version": hgcn.EXPERIMENT.version,
             "config": {"seed": 0}, "metrics": {}}
    path = store.write_record(CHAPTER, local)
    try:
        keys = {r["key"] for r in candidate_records(CHAPTER)}
        assert keys and keys <= committed & standard and local["key"] not in keys
        assert local["key"] in {r["key"] for r in candidate_records(CHAPTER, local=True)}
    finally:
        path.unlink()
    listed = subprocess.run(["git", "ls-files", "results"], cwd=paths.REPO_ROOT, capture_output=True, text=True).stdout
    assert local["key"] not in listed


def test_sample_draws_records_from_uncommitted_code_first():
    """Two of six records were made from a dirty tree: a sample of two is exactly them, whatever the seed; a
    sample of three adds one of the others."""
    for i in range(6):
        commit = "abc123+dirty" if i < 2 else "abc123"
        store.write_record(CHAPTER, {"key": f"0000record{i:010d}", "experiment": hgcn.EXPERIMENT.name,
                                     "version": hgcn.EXPERIMENT.version, "config": {"seed": i}, "metrics": {}, "git_commit": commit})
    dirty = {"0000record0000000000", "0000record0000000001"}
    for seed in range(5):
        assert {r["key"] for r in sample_records(2, CHAPTER, seed=seed, local=True)} == dirty
        three = [r["key"] for r in sample_records(3, CHAPTER, seed=seed, local=True)]
        assert set(three[:2]) == dirty and three[2] not in dirty


def test_sample_leaves_out_runs_that_took_longer_than_asked(capsys):
    """A two-hour run (chapter 4's kind) is never drawn under --max-minutes 15; a one-minute run is."""
    for key, seconds in (("0000quick0000record0", 60.0), ("0000slow00000record0", 7200.0)):
        store.write_record(CHAPTER, {"key": key, "experiment": hgcn.EXPERIMENT.name, "version": hgcn.EXPERIMENT.version,
                                     "config": {"seed": 0}, "metrics": {}, "batch_wall_s": seconds})
    assert {r["key"] for r in sample_records(5, CHAPTER, local=True)} == {"0000quick0000record0", "0000slow00000record0"}
    assert [r["key"] for r in sample_records(5, CHAPTER, local=True, max_minutes=15)] == ["0000quick0000record0"]
    assert sample_records(5, CHAPTER, local=True, max_minutes=0.5) == []
    assert main(["verify", "--chapter", CHAPTER, "--local", "--max-minutes", "0"]) == 2
    assert "--max-minutes must be positive" in capsys.readouterr().err


def _drill_config(slug: str, monkeypatch) -> tuple[str, dict]:
    """A cheap run of each chapter's experiment (chapter 4 on small random molecules in Peptides-func's format)."""
    from graphrepro.experiments import fair_eval, hgb, linkpred, lrgb

    if slug == "lrgb-head":
        from fixtures import random_molecules

        graphs = random_molecules(24)
        monkeypatch.setattr(lrgb.lrgb_data, "load_peptides_func",
                            lambda progress=False: {"train": graphs[:16], "val": graphs[16:20], "test": graphs[20:]})
        return lrgb.EXPERIMENT.name, lrgb.make_config("GCN", "lrgb", 0, epochs=2, batch_size=8)
    return {
        "hgcn-mlp-bug": lambda: (hgcn.EXPERIMENT.name, hgcn.make_config("disease_lp", "lp", "MLP", 0, "debugged",
                                                                         normalize_feats=False, max_epochs=5)),
        "han-vs-gat": lambda: (hgb.EXPERIMENT.name, hgb.make_config("IMDB", "GCN", 0, max_epochs=2, hidden=4, heads=2)),
        "gmnn-fair-eval": lambda: (fair_eval.EXPERIMENT.name, fair_eval.make_config("cora", 0, "sparse_balanced", "MLP", 0,
                                                                                    max_epochs=5, patience=3)),
        "mrr-variants": lambda: (linkpred.EXPERIMENT.name, linkpred.make_config("cora", "GCN", 0, max_epochs=2)),
    }[slug]()


@pytest.mark.parametrize("slug", [p.slug for p in pages.chapter_pages()])
@pytest.mark.slow
def test_a_hand_edited_record_of_each_chapter_is_flagged(slug, isolated_store, monkeypatch, capsys):
    """Each chapter's experiment: its record re-runs exactly; edited by hand, ``verify --digests`` flags it
    without re-training and ``verify`` flags it with the re-run's difference; an intact store passes."""
    name, config = _drill_config(slug, monkeypatch)
    try:
        run_grid(slug, name, [config], device="cpu")
    except DataUnavailable as err:
        pytest.skip(str(err))
    (path,) = (isolated_store / slug).glob("*.json")
    assert check(store.read_record(path))["ok"]
    assert main(["verify", "--digests", "--chapter", slug]) == 0
    record = json.loads(path.read_text())
    metric = next(k for k, v in sorted(record["metrics"].items()) if k.startswith("test_") and isinstance(v, float))
    record["metrics"][metric] = round(record["metrics"][metric] + 0.25, 6)
    path.write_text(json.dumps(record))
    capsys.readouterr()
    assert main(["verify", "--digests", "--chapter", slug]) == 1
    out = capsys.readouterr().out
    assert record["key"] in out and "edited by hand" in out and "1 records read; 1 problems" in out
    result = check(store.read_record(path))
    assert not result["ok"] and "edited by hand" in result["problem"] and f"{metric}: recorded" in result["problem"]


def test_a_record_of_another_or_unknown_cpu_is_checked_within_tolerance(one_record):
    """Float results can move in the last bits from one CPU to another: exact only on the recorded CPU."""
    record = json.loads(one_record.read_text())
    assert record["cpu"] == environment.cpu()
    record["cpu"] = "Some Other CPU, AVX2"
    record["digest"] = store.record_digest(record)
    result = check(record)
    assert result["mode"] == f"within each metric's tolerance (recorded on Some Other CPU, AVX2, re-run on {environment.cpu()})"
    del record["cpu"]
    record["digest"] = store.record_digest(record)
    assert check(record)["mode"] == "within each metric's tolerance (its CPU was not recorded)"


def test_verify_retrains_the_recorded_batch_of_settings(monkeypatch):
    """Chapter 3's searches train different settings as one batch: verify re-trains that same batch, and says
    so when it cannot (a partner's record is gone, or an older record does not name its partners)."""
    from graphrepro.experiments import fair_eval

    slow, fast = (fair_eval.make_config("cora", 0, "sparse_balanced", "GCN", 0, lr=lr, max_epochs=15) for lr in (1e-3, 5e-2))
    try:
        run_grid("gmnn-fair-eval", fair_eval.EXPERIMENT.name, [slow, fast], device="cpu")
    except DataUnavailable as err:
        pytest.skip(str(err))
    path = store.record_path("gmnn-fair-eval", fair_eval.EXPERIMENT.key(slow))
    record = store.read_record(path)
    assert record["batch"] == [fair_eval.EXPERIMENT.key(slow), fair_eval.EXPERIMENT.key(fast)] and record["members"] == [0]
    result = check(record)
    assert result["ok"] and result["mode"] == "exact" and result["largest difference"] == 0
    old_style = {k: v for k, v in record.items() if k != "batch"}
    old_style["digest"] = store.record_digest(old_style)
    assert check(old_style)["mode"] == "within each metric's tolerance (trained beside 1 other setting(s) the record does not name)"
    store.record_path("gmnn-fair-eval", fair_eval.EXPERIMENT.key(fast)).unlink()
    assert f"batch partner(s) {fair_eval.EXPERIMENT.key(fast)} not in the store" in check(record)["mode"]


def test_the_reproducibility_page_lists_each_cpu_apart():
    from graphrepro.provenance import run_environments

    for key, cpu in (("0000cpu1000record000", "CPU one, AVX2"), ("0000cpu2000record000", None)):
        record = {"key": key, "experiment": hgcn.EXPERIMENT.name, "version": hgcn.EXPERIMENT.version, "config": {"seed": 0},
                  "metrics": {}, "device": "cpu", "hardware": "x86_64, 1 torch threads", "packages": {"torch": "2.13.0"}}
        store.write_record(CHAPTER, record | ({"cpu": cpu} if cpu else {}))
    table = run_environments()
    assert sorted(table.cpu) == ["CPU one, AVX2", "not recorded"] and list(table.runs) == [1, 1]
    assert list(table.torch) == ["2.13.0", "2.13.0"] and list(table.commits) == [1, 1]


def test_the_reproducibility_page_names_folders_without_the_build_machines_paths(tmp_path):
    from pathlib import Path

    from graphrepro.provenance import shown

    assert shown(paths.REPO_ROOT.parent / "shared" / "data") == "../shared/data"
    assert shown(paths.REPO_ROOT / "_build" / "cache") == "_build/cache"
    assert shown(Path.home() / ".cache" / "graphrepro") == "~/.cache/graphrepro"
    assert shown(Path("/srv/somewhere/deep/data")) == "…/deep/data"


@pytest.mark.slow
def test_records_from_uncommitted_code_are_replaced_by_matching_reruns_and_the_others_kept(one_record, monkeypatch, capsys):
    """Two records of one batch, both marked as made from uncommitted code; one also moved by 0.01. From committed
    code, the first is re-trained and replaced, the second stays with its reason; a rerun has nothing left to do."""
    from graphrepro import provenance, sources, verify

    first, second = sorted(one_record.parent.glob("*.json"))
    for path, moved in ((first, 0.0), (second, 0.01)):
        record = json.loads(path.read_text())
        record["git_commit"], record["metrics"]["test_roc"] = "0" * 40 + "+dirty", record["metrics"]["test_roc"] + moved
        store.write_record(CHAPTER, {k: v for k, v in record.items() if k != "digest"})
    monkeypatch.setattr(sources, "refuse_uncommitted", lambda what: None)  # stands for a clean checkout
    monkeypatch.setattr(environment, "git_commit", lambda: "1" * 40)
    before = store.read_record(first)
    assert main(["verify", "--uncommitted", "--chapter", CHAPTER]) == 1
    out = capsys.readouterr().out
    assert "1 of 2 records re-trained from committed code match and were replaced; 1 kept" in out
    started = out.index(f"{CHAPTER} {before['key']} {verify.run_label(before['config'])}: re-training (its record took")
    assert started < out.index(f"{before['key']} {verify.run_label(before['config'])}: replaced")  # said before it trains
    replaced, kept = store.read_record(first), store.read_record(second)
    assert replaced["git_commit"] == "1" * 40 and replaced["metrics"] == before["metrics"]
    assert kept["git_commit"].endswith("+dirty")
    reasons = verify.uncommitted_reasons()
    assert list(reasons) == [kept["key"]] and "test_roc" in reasons[kept["key"]] and "1111111111" in reasons[kept["key"]]
    listed = provenance.uncommitted_records().loc[CHAPTER]  # what the Reproducibility page shows
    assert listed["records"] == 1 and listed["why it stays"].startswith("re-trained: its re-run differs beyond tolerance")
    assert main(["verify", "--uncommitted", "--chapter", CHAPTER]) == 0
    assert "0 of 0 records" in capsys.readouterr().out


def test_records_from_uncommitted_code_are_re_trained_the_quickest_first(monkeypatch):
    """A stop (a session's end) then loses the least: the records go in the order of their batches' training time."""
    from graphrepro import sources, verify

    records = [{"key": key, "git_commit": "0" * 40 + "+dirty", "batch_wall_s": seconds}
               for key, seconds in (("slow", 900.0), ("quick", 5.0), ("middle", 60.0))]
    monkeypatch.setattr(sources, "refuse_uncommitted", lambda what: None)
    monkeypatch.setattr(verify.store, "records", lambda slug, root=None: records)
    monkeypatch.setattr(verify.catalog, "is_current", lambda record, known: True)
    monkeypatch.setattr(verify, "uncommitted_reasons", lambda: {})
    monkeypatch.setattr(verify, "_current", lambda slug, key: next(r for r in records if r["key"] == key))
    monkeypatch.setattr(verify, "retrain", lambda record: ([], set()))  # nothing trains here
    started: list[str] = []
    list(verify.replace_uncommitted(CHAPTER, starting=lambda slug, record: started.append(record["key"])))
    assert started == ["quick", "middle", "slow"]
    started.clear()
    list(verify.replace_uncommitted(CHAPTER, max_minutes=2, starting=lambda slug, record: started.append(record["key"])))
    assert started == ["quick", "middle"]


def test_replacing_records_from_uncommitted_code_refuses_a_dirty_checkout(monkeypatch, capsys):
    from graphrepro import sources

    def dirty(what):
        raise sources.UncommittedCode(f"{what}: lib/graphrepro/grid.py differs from HEAD")

    monkeypatch.setattr(sources, "refuse_uncommitted", dirty)
    assert main(["verify", "--uncommitted"]) == 2
    assert "re-training records from committed code: lib/graphrepro/grid.py differs" in capsys.readouterr().err


@pytest.mark.slow
def test_a_rerun_whose_validation_score_moved_within_tolerance_does_not_replace_its_record(one_record, monkeypatch, capsys):
    """Made on another CPU, a record's re-run may move within tolerance; but the searches choose their next runs
    from validation scores, so a record whose val_* moved at all stays, with that reason."""
    from graphrepro import sources, verify

    record = json.loads(one_record.read_text())
    record["git_commit"], record["cpu"] = "0" * 40 + "+dirty", "another CPU"
    record["metrics"]["val_roc"] += 1e-6  # far inside the tolerance of another CPU
    store.write_record(CHAPTER, {k: v for k, v in record.items() if k != "digest"})
    monkeypatch.setattr(sources, "refuse_uncommitted", lambda what: None)  # stands for a clean checkout
    monkeypatch.setattr(environment, "git_commit", lambda: "1" * 40)
    rows = list(verify.replace_uncommitted(CHAPTER))
    mine = next(r for r in rows if r["key"] == record["key"])
    assert not mine["replaced"] and "val_roc" in mine["problem"] and "searches" in mine["problem"]
    assert store.read_record(one_record)["git_commit"].endswith("+dirty")
    assert "val_roc" in verify.uncommitted_reasons()[record["key"]]


def test_only_the_score_a_search_selects_on_must_stay_identical(monkeypatch):
    """chapter 3 selects on val_acc: a moved val_loss may be replaced, a moved val_acc may not; chapter 1 selects
    on the mean of two scores it does not record, so every validation score must stay."""
    from graphrepro import verify
    from graphrepro.experiments import fair_eval

    ok = {"ok": True, "problem": ""}
    record = {"experiment": fair_eval.EXPERIMENT.name, "config": fair_eval.make_config("cora", 0, "dense", "GCN", 0),
              "metrics": {"val_acc": 0.8, "val_loss": 0.5, "test_acc": 0.7}}
    moved_loss = {"metrics": {"val_acc": 0.8, "val_loss": 0.5 + 1e-9, "test_acc": 0.7}}
    moved_acc = {"metrics": {"val_acc": 0.8 + 1e-9, "val_loss": 0.5, "test_acc": 0.7}}
    assert verify.steering_kept(record, moved_loss, ok) == ok
    assert "val_acc" in verify.steering_kept(record, moved_acc, ok)["problem"]
    link = {"experiment": hgcn.EXPERIMENT.name, "config": hgcn.make_config("disease_lp", "lp", "MLP", 0, "original"),
            "metrics": {"val_roc": 0.9, "val_ap": 0.8}}
    assert "val_ap" in verify.steering_kept(link, {"metrics": {"val_roc": 0.9, "val_ap": 0.8 + 1e-9}}, ok)["problem"]
