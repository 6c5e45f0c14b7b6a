"""The manifest against _toc.yml and the notebooks; parameter validation before anything runs."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import time

import jupytext
import pytest
import yaml

from graphrepro import build, pages, paths
from graphrepro.__main__ import main


def _parameters_cell(notebook: str) -> dict:
    nb = jupytext.read(paths.REPO_ROOT / notebook)
    cells = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(cells) == 1, f"{notebook} needs exactly one cell tagged 'parameters'"
    tree = ast.parse(cells[0].source)
    return {node.targets[0].id: ast.literal_eval(node.value) for node in tree.body}


def test_toc_lists_every_page_in_order():
    from graphrepro.build import toc_text

    assert (paths.REPO_ROOT / "_toc.yml").read_text() == toc_text()  # committed as the build writes it
    toc = yaml.safe_load(toc_text())
    files = [entry["file"] for part in toc["parts"] for entry in part["chapters"]]
    assert files == [f"book/executed/{p.slug}" for p in pages.pages()] + [build.BIBLIOGRAPHY]


@pytest.mark.parametrize("page", pages.pages(), ids=lambda p: p.slug)
def test_notebook_parameters_match_manifest(page):
    cell = _parameters_cell(page.source)
    assert list(cell) == ["profile", *[p.name for p in page.params]]
    assert cell["profile"] == "standard"
    assert all(v is None for k, v in cell.items() if k != "profile"), "other parameters default to the profile's"


@pytest.mark.parametrize("page", pages.pages(), ids=lambda p: p.slug)
def test_every_profile_resolves(page):
    for profile in pages.PROFILES:
        values = pages.resolve(page.slug, profile)
        assert set(values) == {"profile", *[p.name for p in page.params]}


@pytest.mark.parametrize("page", pages.chapter_pages(), ids=lambda p: p.slug)
def test_a_notebook_resolves_its_parameters_in_one_call(page):
    """Each parameter is named once in the notebook, in its parameters cell; one call reads them all."""
    text = page.source.read_text()
    assert text.count("pages.notebook_params(") == 1 and "pages.resolve(" not in text


@pytest.mark.parametrize("page", pages.chapter_pages(), ids=lambda p: p.slug)
def test_every_parameter_is_named_in_the_parameters_cell(page):
    """papermill passes ``-p NAME`` only to a name its parameters cell has (else it warns, and the value is lost)."""
    cell = page.source.read_text().split('# %% tags=["parameters"]', 1)[1].split("# %%", 1)[0]
    named = {line.split("=", 1)[0].strip() for line in cell.splitlines() if "=" in line}
    assert {"profile", *[p.name for p in page.params]} <= named


def test_notebook_params_reads_the_notebooks_names():
    namespace = {"profile": "smoke", "seeds": 3, "tolerance": None, "pd": object(), "display": print}
    assert pages.notebook_params("hgcn-mlp-bug", namespace) == pages.resolve("hgcn-mlp-bug", "smoke", seeds=3)
    with pytest.raises(pages.ParameterError, match="expects int"):
        pages.notebook_params("hgcn-mlp-bug", {**namespace, "seeds": "3"})
    assert pages.notebook_params("hgcn-mlp-bug", {})["profile"] == "standard"


def test_overrides_are_checked():
    assert pages.resolve("hgcn-mlp-bug", "smoke", seeds=3)["seeds"] == 3
    with pytest.raises(pages.ParameterError, match="expects int"):
        pages.resolve("hgcn-mlp-bug", "smoke", seeds="3")
    with pytest.raises(pages.ParameterError, match=">= 1 and <= 100, got 0"):
        pages.resolve("hgcn-mlp-bug", "smoke", seeds=0)
    with pytest.raises(pages.ParameterError, match="allowed: disease_lp/lp"):
        pages.resolve("hgcn-mlp-bug", "smoke", tasks=["cora/lp"])
    with pytest.raises(pages.ParameterError, match="profiles: smoke, standard, paper"):
        pages.resolve("hgcn-mlp-bug", "fast")


def test_command_line_values_are_parsed():
    page = pages.page("hgcn-mlp-bug")
    assert page.param("seeds").parse("10") == 10
    assert page.param("tasks").parse("airport/lp, airport/nc") == ["airport/lp", "airport/nc"]
    assert page.param("tolerance").parse("1.5") == 1.5
    with pytest.raises(pages.ParameterError, match="expects float"):
        page.param("tolerance").parse("wide")


@pytest.mark.parametrize(
    "argv, message",
    [
        (["run", "no-such-chapter"], "unknown chapter 'no-such-chapter'; chapters: hgcn-mlp-bug"),
        (["run", "hgcn-mlp-bug", "-p", "epochs", "3"], "has no parameter 'epochs'; its parameters: profile, device, precision, seeds"),
        (["run", "hgcn-mlp-bug", "-p", "seeds", "ten"], "parameter 'seeds' expects int, got 'ten'"),
        (["run", "hgcn-mlp-bug", "-p", "device", "tpu"], "allowed: auto, cpu, cuda"),
        (["run", "hgcn-mlp-bug", "--profile", "huge"], "unknown profile 'huge'"),
        (["run", "hgcn-mlp-bug", "-p", "gammas", "0,inf"], "parameter 'gammas' must be finite, >= 0 and <= 1, got inf"),
        (["run", "hgcn-mlp-bug", "-p", "gammas", "0,nan"], "parameter 'gammas' must be finite"),
        (["run", "hgcn-mlp-bug", "-p", "search_dropout", "0,1.5"], "parameter 'search_dropout' must be finite, >= 0 and < 1"),
        (["run", "hgcn-mlp-bug", "-p", "search_dropout", "1"], "got 1.0"),
        (["run", "hgcn-mlp-bug", "-p", "tolerance", "nan"], "parameter 'tolerance' must be finite"),
        (["run", "hgcn-mlp-bug", "-p", "tolerance", "inf"], "parameter 'tolerance' must be finite"),
        (["run", "hgcn-mlp-bug", "-p", "seeds", "100000"], "parameter 'seeds' must be finite, >= 1 and <= 100"),
        (["run", "hgcn-mlp-bug", "-p", "tolerance", "-inf"], "parameter 'tolerance' must be finite, >= 0 and <= 100, got -inf"),
        (["run", "hgcn-mlp-bug", "-p", "tolerance", "-1"], "parameter 'tolerance' must be finite, >= 0 and <= 100, got -1.0"),
        (["train", "hgcn-mlp-bug", "-p", "seeds", "1", "-p", "seeds", "2"], "parameter 'seeds' is given twice ('1' and '2')"),
        (["train", "mrr-variants", "-p", "graphs", "cora,cora"], "parameter 'graphs' lists cora more than once"),
        (["verify", "--sample", "0"], "--sample must be at least 1, got 0"),
        (["verify", "--sample", "-1"], "--sample must be at least 1, got -1"),
        (["verify", "--chapter", "nosuch"], "unknown chapter 'nosuch'"),
        (["verify", "0000000000000000dead"], "no record with key 0000000000000000dead"),
        (["book", "--profile", "huge"], "unknown profile 'huge'"),
        (["run", "hgcn-mlp-bug", "--workers", "0"], "--workers must be at least 1, got 0"),
        (["train", "hgcn-mlp-bug", "--scheduler", "localhost:8786"], "--scheduler must be a Dask scheduler address such as tcp://host:8786"),
        (["train", "hgcn-mlp-bug", "--scheduler", "tcp://127.0.0.1:9"], "cannot reach the Dask scheduler at tcp://127.0.0.1:9"),
        (["train", "verdicts"], "'verdicts' is a page of computed tables, not a chapter with records"),
        (["train", "nosuch"], "unknown chapter 'nosuch'"),
        (["train", "han-vs-gat", "-p", "datasets", "Freebase"], "does not allow 'Freebase'"),
    ],
)
@pytest.mark.slow
def test_bad_input_exits_2_and_writes_nothing(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHREPRO_EXECUTED", str(tmp_path / "executed"))
    assert main(argv) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "executed").exists() and not (tmp_path / "results").exists()


def test_every_numeric_parameter_has_a_finite_range():
    for page in pages.pages():
        for p in page.params:
            if p.type in (int, float) and p.choices is None:
                assert p.minimum is not None and p.maximum is not None, p.name
                for profile in pages.PROFILES:  # the profiles' own values lie inside it
                    p.check(p.profiles[profile])
    with pytest.raises(TypeError, match="needs a finite range"):
        pages.Param("unbounded", float, "no range", pages.same(1.0), minimum=0)


def test_cuda_without_a_gpu_is_refused_up_front(capsys, monkeypatch):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert main(["run", "hgcn-mlp-bug", "-p", "device", "cuda"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no CUDA device" in err
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert pages.resolve("hgcn-mlp-bug", "smoke", device="cuda")["device"] == "cuda"


def test_list_shows_parameters_and_profiles(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    for needle in ("hgcn-mlp-bug", "seeds", "int", ">= 1 and <= 100", "< 1", "max_epochs", "auto, cpu, cuda", "smoke", "paper"):
        assert needle in out


HEAVY = ("torch", "torch_geometric", "pykeen", "scipy", "matplotlib", "papermill")


@pytest.mark.parametrize("argv", [["list"], ["run", "han-vs-gat", "-p", "seeds", "abc"], ["train", "lrgb-head", "-p", "nope", "1"],
                                  ["run", "mrr-variants", "-p", "precision", "bfloat16", "-p", "kg_models", "TransE,TransE"]],
                         ids=["list", "bad-type", "unknown-name", "duplicate"])
def test_the_command_line_answers_without_loading_torch(argv):
    """``list`` and the refusal of a bad value load none of the heavy libraries (checked in a fresh interpreter)."""
    probe = ("import contextlib, io, sys\nfrom graphrepro.__main__ import main\n"
             f"with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):\n"
             f"    status = main({argv!r})\n"
             f"print(status, sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r})))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    status, loaded = done.stdout.strip().split(" ", 1)
    assert int(status) == (0 if argv == ["list"] else 2) and loaded == "[]", done.stdout + done.stderr


@pytest.mark.slow
def test_list_takes_less_time_than_importing_torch():
    """The budget as a ratio on the same machine: the best of three ``list`` runs against the best of three
    ``import torch`` runs, alternating."""
    def seconds(args: list[str]) -> float:
        start = time.perf_counter()
        subprocess.run([sys.executable, *args], capture_output=True, check=True, cwd=paths.REPO_ROOT)
        return time.perf_counter() - start

    listed, torch_import = [], []
    for _ in range(3):
        listed.append(seconds(["-m", "graphrepro", "list"]))
        torch_import.append(seconds(["-c", "import torch"]))
    assert min(listed) < min(torch_import), (listed, torch_import)


@pytest.mark.parametrize("page", pages.chapter_pages(), ids=lambda p: p.slug)
def test_every_chapter_module_offers_what_the_command_line_and_book_call(page):
    package, params = pages.chapter_module(page.slug), pages.resolve(page.slug, "smoke")
    assert package.PAGE.slug == page.slug and pages.experiments(page.slug)
    wanted = {"configs": ("chapter_keys", "chapter_records", "recorded_runs", "training_plan"),
              "tables": ("Tables",), "claims": ("claims", "paper_cells", "headline"), "benchmarks": ("bench",)}
    for part, names in wanted.items():
        module = pages.chapter_module(page.slug, part)
        for name in names:
            assert callable(getattr(module, name, None)), f"{page.slug}.{part} lacks {name}"
    configs = pages.chapter_module(page.slug, "configs")
    planned, _ = configs.chapter_records(params)
    assert len(configs.chapter_keys(params)) == len(planned)  # each run once: the counts a reader sees are runs


def test_every_chapter_cites_its_sources_from_the_bibliography():
    """Each chapter cites with ``{cite:t}``/``{cite:p}``, and every key it cites is in book/references.bib
    (the book build would fail on an unknown one; this says which)."""
    known = set(re.findall(r"^@\w+\{([^,]+),", (paths.REPO_ROOT / "book" / "references.bib").read_text(), re.M))
    for page in pages.chapter_pages():
        cited = {key.strip() for keys in re.findall(r"\{cite:[tp]\}`([^`]+)`", page.source.read_text())
                 for key in keys.split(",")}
        assert cited, f"{page.slug} cites nothing"
        assert cited <= known, f"{page.slug} cites unknown keys {sorted(cited - known)}"


@pytest.mark.parametrize("page", pages.pages(), ids=lambda p: p.slug)
def test_each_parameter_value_survives_the_command_line(page):
    for profile in pages.PROFILES:
        params = pages.resolve(page.slug, profile)
        for p in page.params:
            assert p.parse(p.text(params[p.name])) == params[p.name], (profile, p.name)


def test_the_run_command_names_the_profile_and_only_what_differs_from_it():
    params = pages.resolve("mrr-variants", "smoke")
    assert pages.run_command("mrr-variants", params) == "python -m graphrepro run mrr-variants --profile smoke"
    params = pages.resolve("mrr-variants", "smoke", kgs=["nations", "umls"], tucker_epochs=5, seeds=2)
    command = pages.run_command("mrr-variants", params)
    assert command.endswith("--profile smoke -p seeds 2 -p kgs nations,umls -p tucker_epochs 5")
    # the command line reads it back to the same parameters
    from graphrepro.__main__ import _parser

    parsed = _parser().parse_args(command.split()[3:])
    resolved = pages.resolve("mrr-variants", parsed.profile,
                                **{name: pages.page("mrr-variants").param(name).parse(value) for name, value in parsed.parameter})
    assert resolved == params


def test_run_this_chapter_says_what_a_run_will_train():
    import pandas as pd

    from graphrepro import report

    params = pages.resolve("mrr-variants", "smoke")
    configs = [{}] * 4
    none = report.run_this_chapter("mrr-variants", params, configs, pd.DataFrame()).data
    assert "python -m graphrepro run mrr-variants --profile smoke" in none and "None of its 4 runs" in none
    half = report.run_this_chapter("mrr-variants", params, configs, pd.DataFrame({"wall_s": [1800.0, 5400.0]})).data
    assert "2 of 4 runs are recorded" in half and "about 2.0 hours" in half  # the mean (1 hour) times the 2 missing
    every = report.run_this_chapter("mrr-variants", params, configs[:2], pd.DataFrame({"wall_s": [60.0, 60.0]})).data
    assert "All 2 runs are recorded" in every and "2 minutes" in every


def _bad_values(p: pages.Param) -> list[tuple[str, str]]:
    """Command-line values every parameter must refuse, with the words its refusal must contain."""
    bad = [("maybe" if p.type is bool else "ten", f"parameter {p.name!r} expects")] if p.type is not str else []
    if p.choices is not None:
        outside = "nosuch" if p.type is str else repr(max(p.choices) + 1000)
        bad.append((outside, f"parameter {p.name!r} does not allow"))
    elif p.type in (int, float):
        bad.append((repr(p.maximum + 1), f"parameter {p.name!r} must be finite"))
        if p.type is float:
            bad.append(("nan", f"parameter {p.name!r} must be finite"))
    if p.many:
        first = p.text(p.default[:1]) if p.default else ""
        bad.append((f"{first},nosuch", f"parameter {p.name!r}"))
    return bad


@pytest.mark.parametrize("slug", [p.slug for p in pages.pages()])
def test_every_parameter_of_every_page_refuses_bad_values_before_anything_runs(slug, capsys, tmp_path, monkeypatch):
    """The newcomer's bad inputs, for every page's every parameter: a wrong type, a value outside the range or
    the allowed set, a bad list element, and an unknown name; each exits 2 naming the parameter, nothing written."""
    monkeypatch.setenv("GRAPHREPRO_EXECUTED", str(tmp_path / "executed"))
    page = pages.page(slug)
    cases = [(p.name, value, words) for p in page.params for value, words in _bad_values(p)]
    cases.append(("no_such_parameter", "1", "has no parameter 'no_such_parameter'"))
    assert len(cases) > len(page.params)
    for name, value, words in cases:
        assert main(["run", slug, "-p", name, value]) == 2, (name, value)
        assert words in capsys.readouterr().err, (name, value)
    assert not (tmp_path / "executed").exists() and not (tmp_path / "results").exists()
