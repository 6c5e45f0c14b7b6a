"""The precision policy across chapters: float32 keeps today's keys, bfloat16 is a run of its own that trains
with fp32 losses and metrics, every chapter takes ``-p precision`` and refuses bf16 where the CPU lacks it."""

from __future__ import annotations

import math

import pytest
import torch

from graphrepro import bench, pages, precision
from graphrepro.experiments import fair_eval, hgb, hgcn, kg, linkpred

TINY = {  # one small run per experiment that takes a precision (the data as test_verify uses it)
    "hgb-gat": (hgb, lambda **p: hgb.make_config("IMDB", "GAT", 0, max_epochs=2, hidden=4, heads=2, **p)),
    "hgb-gcn": (hgb, lambda **p: hgb.make_config("IMDB", "GCN", 0, max_epochs=2, hidden=4, heads=2, **p)),
    "hgcn": (hgcn, lambda **p: hgcn.make_config("disease_lp", "lp", "HGCN", 0, "none", max_epochs=3, **p)),
    "fair-eval": (fair_eval, lambda **p: fair_eval.make_config("cora", 0, "sparse_balanced", "GCN", 0, max_epochs=5,
                                                               patience=3, **p)),
    "linkpred": (linkpred, lambda **p: linkpred.make_config("cora", "GCN", 0, max_epochs=2, **p)),
}


@pytest.mark.parametrize("name", TINY)
@pytest.mark.slow
def test_float32_keeps_todays_key_and_a_bfloat16_run_trains_to_finite_fp32_metrics(name):
    module, make = TINY[name]
    assert make(precision="float32") == make() and "precision" not in make()
    mixed = make(precision="bfloat16")
    assert mixed["precision"] == "bfloat16" and module.EXPERIMENT.key(mixed) != module.EXPERIMENT.key(make())
    with pytest.raises(ValueError, match="unknown precision"):
        make(precision="float16")
    (metrics,) = module.EXPERIMENT.train(module.EXPERIMENT.prepare(mixed), [mixed], torch.device("cpu"))
    scores = [v for k, v in metrics.items() if k.startswith(("val_", "test_")) and isinstance(v, float)]
    assert scores and all(math.isfinite(v) for v in scores)


@pytest.mark.parametrize("slug", [p.slug for p in pages.chapter_pages()])
def test_every_chapter_takes_precision_and_its_trained_configs_carry_it(slug):
    configs, _ = pages.chapter_module(slug, "configs").chapter_records(pages.resolve(slug, "smoke", precision="bfloat16"))
    today, _ = pages.chapter_module(slug, "configs").chapter_records(pages.resolve(slug, "smoke"))
    assert configs and not any("precision" in c for c in today)
    pykeen = [bench.experiment_of(c, pages.experiments(slug)) is kg.EXPERIMENT for c in configs]
    assert all((c.get("precision") == "bfloat16") != by_pykeen for c, by_pykeen in zip(configs, pykeen))  # pykeen's stay fp32
    assert not all(pykeen)


@pytest.mark.parametrize("slug", [p.slug for p in pages.chapter_pages()])
def test_bfloat16_is_refused_before_anything_trains_on_a_cpu_without_it(slug, isolated_store, monkeypatch, capsys):
    from graphrepro.__main__ import main

    monkeypatch.setattr(precision, "cpu_flags", lambda: {"avx2", "avx512f"})
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert main(["train", slug, "--profile", "smoke", "-p", "precision", "bfloat16"]) == 2
    assert "no bfloat16 hardware" in capsys.readouterr().err
    assert not any(p.is_file() for p in isolated_store.rglob("*"))
