"""A chapter added the way the guide says (its own files and one manifest line) is picked up by
``list``, ``run``, ``verify``, the Verdicts page and the book, with nothing else edited."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap

import nbformat
import pytest

from graphrepro import paths

CHAPTER_FILES = {  # a package by concern, as every chapter of the book is laid out
    "__init__.py": '''
        """A throwaway chapter: a fake experiment whose validation accuracy is a function of the seed."""
        from graphrepro.pages import Page, Param, same

        EXPERIMENTS = ("toy_chapter.paper",)
        PAGE = Page("toy-chapter", {notebook!r}, "A throwaway chapter", (
            Param("seeds", int, "seeds", {{"smoke": 2, "standard": 3, "paper": 3}}, minimum=1, maximum=10),
            Param("tolerance", float, "points", same(1.0), minimum=0, maximum=100),
        ), module="toy_chapter")
    ''',
    "paper.py": '''
        from graphrepro.experiments import Experiment

        CHAPTER = "toy-chapter"

        def _train(data, configs, device):
            return [{{"val_acc": 0.5 + c["seed"] / 100, "test_acc": 0.6 + c["seed"] / 100}} for c in configs]

        EXPERIMENT = Experiment("toy-exp", 1, dict, lambda c: 0, lambda c: None, _train, stacks=False,
                                metrics=("acc",), selection=lambda c: "acc")
    ''',
    "configs.py": '''
        from graphrepro import catalog, store
        from graphrepro.grid import run_grid
        from toy_chapter.paper import CHAPTER, EXPERIMENT

        def configs(params):
            return [{{"model": "toy", "seed": s}} for s in range(params["seeds"])]

        def run(params):
            return run_grid(CHAPTER, EXPERIMENT.name, configs(params), "cpu", desc="toy")

        def chapter_keys(params):
            return {{store.config_key(EXPERIMENT.name, EXPERIMENT.version, c) for c in configs(params)}}

        def chapter_records(params):
            runs = catalog.load(CHAPTER)
            return configs(params), runs[runs.key.isin(chapter_keys(params))] if len(runs) else runs

        def recorded_runs(params):
            return chapter_records(params)[1]

        def training_plan(params):
            return [("toy seeds", lambda: run(params))]
    ''',
    "tables.py": '''
        import functools

        from graphrepro import cells

        class Tables(cells.Tables):
            @functools.cached_property
            def score(self):
                return 100 * self.runs.test_acc.mean() if len(self.runs) else float("nan")
    ''',
    "claims.py": '''
        from graphrepro import report
        from graphrepro.verdicts import Headline, compare
        from toy_chapter.paper import CHAPTER

        HEADLINE = "toy score"
        HEADLINE_CLAIM = Headline("A toy model learns the toy task", "toy-above-55")

        def claims(t):
            return [compare("toy-above-55", "the toy model scores above 55%", [t.score, len(t.runs)],
                            lambda mean, seeds: mean > 55, "toy {{:.1f}} over {{:.0f}} seeds")]

        def paper_cells(t):
            return []

        def headline(t):
            return report.headline_row(CHAPTER, "a toy slip", "verdicts", {{}})
    ''',
    "benchmarks.py": '''
        def bench(seeds):
            return []
    ''',
}

NOTEBOOK = '''# %% [markdown]
# # A throwaway chapter

# %% tags=["parameters"]
profile = "standard"
seeds = None
tolerance = None

# %%
from graphrepro import pages, report
from toy_chapter import claims, configs, tables

params = pages.notebook_params("toy-chapter", globals())
runs = configs.run(params)

# %% [markdown]
# (toy-chapter-verdicts)=
# ## Verdicts

# %%
report.verdict_table("toy-chapter", claims.claims(tables.Tables(params, runs)))
'''

MANIFEST = '''
from graphrepro.manifest import BOOK_PAGES
CHAPTERS = ("toy_chapter",)
'''


@pytest.fixture
def toy_book(tmp_path):
    code = tmp_path / "code"
    code.mkdir()
    notebook = code / "toy.py"
    notebook.write_text(NOTEBOOK)
    package = code / "toy_chapter"
    package.mkdir()
    for name, text in CHAPTER_FILES.items():
        (package / name).write_text(textwrap.dedent(text.format(notebook=str(notebook))))
    (code / "toy_manifest.py").write_text(MANIFEST)
    root = tmp_path / "book_root"
    root.mkdir()
    shutil.copy(paths.REPO_ROOT / "_config.yml", root / "_config.yml")
    shutil.copytree(paths.REPO_ROOT / "book", root / "book", ignore=shutil.ignore_patterns("executed"))
    env = {**os.environ, "PYTHONPATH": f"{code}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
           "GRAPHREPRO_MANIFEST": "toy_manifest", "GRAPHREPRO_RESULTS": str(tmp_path / "results"),
           "GRAPHREPRO_EXECUTED": str(root / "book" / "executed"), "GRAPHREPRO_PROGRESS": "0"}
    return {"root": root, "env": env, "results": tmp_path / "results"}


def _cli(env, *args):
    done = subprocess.run([sys.executable, "-m", "graphrepro", *args], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.mark.integration
def test_a_new_chapter_needs_only_its_files_and_a_manifest_line(toy_book):
    env, root = toy_book["env"], toy_book["root"]
    listing = _cli(env, "list")
    assert "toy-chapter" in listing and "A throwaway chapter" in listing and "hgcn-mlp-bug" not in listing
    assert "toy-chapter: toy seeds ..." in _cli(env, "train", "toy-chapter", "--profile", "smoke", "-p", "seeds", "1")
    assert len(list((toy_book["results"] / "toy-chapter").glob("*.json"))) == 1
    _cli(env, "run", "toy-chapter", "--profile", "smoke")
    records = sorted((toy_book["results"] / "toy-chapter").glob("*.json"))
    assert len(records) == 2  # smoke: two seeds, one of them trained by `train` already
    assert "1 of 1 re-runs match" in _cli(env, "verify", "--local", "--chapter", "toy-chapter", "--sample", "1")
    _cli(env, "run", "verdicts", "--profile", "smoke")
    verdicts = nbformat.read(root / "book" / "executed" / "verdicts.ipynb", as_version=4)
    shown = "".join(str(o.get("data", {})) for c in verdicts.cells for o in c.get("outputs", []))
    assert "the toy model scores above 55%" in shown and "toy 60.5 over 2 seeds" in shown and "toy-chapter-toy-above-55" in shown
    assert "A toy model learns the toy task" in shown  # its headline claim, on the index too
    _cli(env, "run", "reproducibility", "--profile", "smoke")
    _cli(env, "run", "synthesis", "--profile", "smoke")
    _cli(env, "run", "cost", "--profile", "smoke")
    (root / "_vendor").symlink_to(__import__("graphrepro.build").build.ensure_mathjax().parent)
    build = "from pathlib import Path; from graphrepro import build; build.build_book(Path(%r))" % str(root)
    done = subprocess.run([sys.executable, "-c", build], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "book/executed/toy-chapter" in (root / "_toc.yml").read_text()  # written from the manifest
    page = (root / "_build" / "html" / "book" / "executed" / "toy-chapter.html").read_text()
    assert "A throwaway chapter" in page and "the toy model scores above 55%" in page
