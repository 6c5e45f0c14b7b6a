"""What a page says about how it was made: the profile banner, the verdicts' parameters, book --no-execute."""

from __future__ import annotations

import math

import nbformat
import pandas as pd

from graphrepro import build, pages, report, runner, sources
from graphrepro.__main__ import main
from graphrepro.collate import executed_with, parameters_used
from graphrepro.verdicts import Claim, Evidence

SLUG = "hgcn-mlp-bug"


def _executed(folder, slug, **parameters):
    folder.mkdir(parents=True, exist_ok=True)
    nb = nbformat.v4.new_notebook()
    nb.metadata["papermill"] = {"parameters": parameters}
    nbformat.write(nb, folder / f"{slug}.ipynb")


def test_banner_only_when_not_the_published_numbers():
    standard = pages.resolve(SLUG, "standard")
    assert report.is_published(SLUG, standard)
    assert "graphrepro-banner" not in report.profile_banner(SLUG, standard).data
    assert "<strong>standard</strong> profile" in report.profile_banner(SLUG, standard).data
    smoke = report.profile_banner(SLUG, pages.resolve(SLUG, "smoke")).data
    assert "graphrepro-banner" in smoke and "<strong>smoke</strong>" in smoke and "seeds = 1" in smoke
    tweaked = pages.resolve(SLUG, "standard", seeds=10)
    assert not report.is_published(SLUG, tweaked)
    assert "seeds = 10 where the standard profile differs" in report.profile_banner(SLUG, tweaked).data


def test_verdicts_use_the_parameters_each_chapter_ran_with(tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHREPRO_EXECUTED", str(tmp_path))
    assert executed_with("standard")[SLUG] == pages.resolve(SLUG, "standard")  # not executed: the page's profile
    _executed(tmp_path, SLUG, profile="smoke", seeds=2)
    used = executed_with("standard")
    assert used[SLUG] == pages.resolve(SLUG, "smoke", seeds=2)
    table = parameters_used(used)
    assert table.loc[SLUG, "profile"] == "smoke" and table.loc[SLUG, "other parameters"] == "seeds = 2"


class _NoRecords:
    """A chapter module whose three runs are not recorded (of no experiment that may not fit a machine)."""

    EXPERIMENTS: tuple[str, ...] = ()

    @staticmethod
    def chapter_records(params):
        return [{}, {}, {}], pd.DataFrame()


def test_book_without_execution_executes_only_missing_pages(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("GRAPHREPRO_EXECUTED", str(tmp_path))
    _executed(tmp_path, SLUG, profile="smoke")
    executed: list[tuple[str, str]] = []

    def fake_execute(slug, profile="standard", *args, workers=None, **kwargs):
        executed.append((slug, profile))
        _executed(tmp_path, slug, profile=profile)
        return tmp_path / f"{slug}.ipynb"

    monkeypatch.setattr(runner, "execute", fake_execute)
    monkeypatch.setattr(pages, "chapter_module", lambda slug, part=None: _NoRecords)
    monkeypatch.setattr(build, "build_book", lambda: tmp_path / "index.html")
    monkeypatch.setattr(sources, "refuse_uncommitted", lambda what: None)  # whether this checkout is clean is beside the point
    assert main(["book", "--no-execute"]) == 0
    out = capsys.readouterr().out
    assert executed == [(p.slug, "standard") for p in pages.pages() if p.slug != SLUG]
    assert "verdicts has not been executed yet: executing it (standard)" in out
    assert "han-vs-gat: 3 of 3 runs are not recorded yet and train first" in out
    assert f"note: {SLUG} shows the smoke profile" in out
    executed.clear()
    assert main(["book"]) == 0  # make book: every page again, under standard
    assert executed == [(p.slug, "standard") for p in pages.pages()]
    assert "note:" not in capsys.readouterr().out


def test_tables_show_whole_cells():
    report.set_style()
    long_text = "README settings (2 layers, relu, dropout 0, wd 0, c 1) " * 3
    html = pd.DataFrame({"setting": [long_text]})._repr_html_()
    assert long_text.strip() in html and "..." not in html


def test_the_verdicts_page_words_follow_the_rows():
    """A chapter is reproduced when every judged number and claim is, partly when some are, not reproduced when
    none is, not run when none is judged; unavailable cells and claims without records are counted apart."""
    def cell(chapter, verdict):
        return dict(zip(report.CELL_COLUMNS, (chapter, "c", "1.0 ± 0.0", "1.0 ± 0.0", 3, 2.0, verdict, f"{chapter}-x")))

    cells = pd.DataFrame([cell("a", "reproduced"), cell("a", "differs by +3.0"), cell("a", "unavailable: gone"),
                          cell("b", "reproduced"), cell("c", "differs by -4.0"), cell("d", "not run")])
    def claim(chapter, holds):
        return report.claim_rows(chapter, [Claim("w", "a claim", lambda: Evidence(holds, ""))])[0]

    claims = pd.DataFrame([claim("a", True), claim("b", True), claim("c", False), claim("d", None)])
    summary = report.chapter_summary(cells, claims)
    assert summary.overall.to_dict() == {"a": "partly", "b": "reproduced", "c": "not reproduced", "d": "not run"}
    assert summary.loc["a", "paper numbers reproduced"] == "1 of 2" and summary.loc["a", "not decided / no number"] == "0 / 1"
    table = report.cells_table(cells).data
    assert 'href="a.html#a-x"' in table and "not reproduced (differs by +3.0)" in table and "within ±2" in table
    assert 'href="d.html#d-w"' in report.claims_table(claims).data


def test_a_synthesis_line_keeps_the_largest_move_and_says_when_nothing_is_recorded():
    line = report.headline_row("a", "a slip", "s", {"x": (2.0, "x moved"), "y": (-5.0, "y moved"), "z": (float("nan"), "z")})
    assert line == {"chapter": "a", "failure": "a slip", "measured": "y moved", "points": -5.0, "where": "a-s"}
    empty = report.headline_row("a", "a slip", "s", {})
    assert empty["measured"] == "not run yet" and empty["points"] != empty["points"]
    table = report.headlines_table(pd.DataFrame([line, empty])).data
    assert 'href="a.html#a-s"' in table and "-5.0" in table and "–" in table


def test_a_figure_without_axis_labels_or_legend_is_refused():
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    ax.plot([0, 1], [1, 2], label="a")
    ax.plot([0, 1], [2, 3], label="b")
    assert report.figure_problems(fig) == ["axes 0: the x axis has no label", "axes 0: the y axis has no label",
                                           "axes 0: 2 labelled series and no legend"]
    ax.set(xlabel="epoch", ylabel="test AP")
    ax.legend()
    assert report.figure_problems(fig) == []
    plt.close(fig)
    bars, ax = plt.subplots()
    ax.barh(["a buggy baseline", "a single split"], [3.0, 1.0])
    ax.set_xlabel("points")
    assert report.figure_problems(bars) == []  # text categories label the other axis
    plt.close(bars)
    try:
        fig, ax = plt.subplots()
        ax.plot([0, 1], [0, 1])
        report.glue_figure("unreadable", fig)
    except ValueError as error:
        assert "figure 'unreadable' is hard to read: axes 0: the x axis has no label" in str(error)
    else:
        raise AssertionError("an unlabelled figure was glued")


def test_axes_that_share_an_axis_need_its_label_once():
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, sharey=True)
    for ax in axes:
        ax.plot([0, 1], [0, 1])
        ax.set_xlabel("epoch")
    assert report.figure_problems(fig) == ["axes 0: the y axis has no label", "axes 1: the y axis has no label"]
    axes[0].set_ylabel("test AP")
    assert report.figure_problems(fig) == []
    plt.close(fig)


def test_a_missing_number_is_shown_as_a_dash_and_the_others_unchanged():
    table = pd.DataFrame({"raw": [1.64, 34.98], "+ both": [0.09, math.nan]}, index=["cora", "paper"])
    shown = report.dashed(table)
    assert shown.loc["paper", "+ both"] == "–" and shown.loc["cora", "+ both"] == 0.09
    assert "NaN" not in shown.to_html() and "34.98" in shown.to_html()
    assert table.loc["paper", "+ both"] != table.loc["paper", "+ both"]  # the table itself keeps its NaN
