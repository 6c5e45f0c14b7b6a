"""The verdict rules: a cell against its paper number within a tolerance, a claim against its budget."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from graphrepro import report
from graphrepro.verdicts import (
    Budget,
    Cell,
    Claim,
    Evidence,
    Verdict,
    cell_is_judged,
    decisions,
    judge_cell,
    judge_claim,
)


def claim(id: str, holds: bool | None, budget: Budget | None = None, unavailable: str = "") -> Claim:
    """A claim whose rule finds ``holds``, with 'x 1.0' as its evidence."""
    return Claim(id, f"claim {id}", lambda: Evidence(holds, "x 1.0"), budget, unavailable)


def test_a_cell_is_reproduced_within_the_tolerance_and_differs_by_its_signed_gap_outside_it():
    assert judge_cell(80.0, 81.0, 1.0) == Cell.REPRODUCED == "reproduced"  # |gap| = tolerance still counts
    assert judge_cell(78.5, 81.0, 1.0) == "differs by -2.5"
    assert judge_cell(math.nan, 81.0, 1.0) == Cell.NOT_RUN and judge_cell(math.nan, 81.0, 1.0, runs=3) == Cell.DIVERGED
    assert judge_cell(80.0, math.nan, 1.0) == Cell.NO_PAPER_NUMBER
    assert [cell_is_judged(w) for w in ("reproduced", "differs by -2.5", "not run", "unavailable")] == [True, True, False, False]


def test_a_claim_below_its_papers_budget_is_not_decided_whichever_way_it_leans():
    assert judge_claim(True) is Verdict.HOLDS and judge_claim(False) is Verdict.DOES_NOT_HOLD and judge_claim(None) is Verdict.NOT_RUN
    assert judge_claim(False, Budget(8, 500)) is judge_claim(True, Budget(8, 500)) is Verdict.NOT_DECIDED
    assert judge_claim(False, Budget(500, 500)) is Verdict.DOES_NOT_HOLD
    short = claim("c", False, Budget(8, 500)).judge()
    assert short.words == "not decided (8 of 500 epochs)" and short.evidence == "x 1.0; at 8 epochs it would not hold"
    assert not short.is_decided and claim("c", True).judge().is_decided
    assert claim("c", None, Budget(8, 500)).judge().verdict is Verdict.NOT_RUN  # a missing number decides nothing


def test_a_claim_whose_data_cannot_be_had_is_unavailable_with_the_reason_and_its_rule_is_not_run():
    def rule() -> Evidence:
        raise AssertionError("an unavailable claim's rule must not run")

    found = Claim("c", "claim c", rule, unavailable="the files are not in the mirror").judge()
    assert (found.verdict, found.words, found.evidence) == (Verdict.UNAVAILABLE, "unavailable", "the files are not in the mirror")


def test_claim_ids_are_unique_and_fit_an_html_anchor():
    assert [d.claim.id for d in decisions([claim("a", True), claim("b-2", False)])] == ["a", "b-2"]
    with pytest.raises(ValueError, match="repeat"):
        decisions([claim("a", True), claim("a", False)])
    with pytest.raises(ValueError, match="anchor"):
        decisions([claim("GCN: head", True)])


def test_the_chapter_summary_counts_only_judged_cells_and_decided_claims():
    cells = pd.DataFrame({"chapter": ["a"] * 3, "verdict": [judge_cell(1, 1, 0), judge_cell(1, 3, 0), Cell.UNAVAILABLE]})
    claims = pd.DataFrame(report.claim_rows("a", [claim("x", True), claim("y", True, Budget(1, 2)), claim("z", None, unavailable="gone")]))
    row = report.chapter_summary(cells, claims).loc["a"]
    assert (row["paper numbers reproduced"], row["claims that hold"], row["overall"]) == ("1 of 2", "1 of 1", "partly")
    assert row["not run, unavailable or not decided"] == "3"


def test_a_chapters_verdict_table_anchors_each_claim_where_the_verdicts_page_links():
    html = report.verdict_table("ch", [claim("x", True), claim("y", False, Budget(8, 500))]).data
    assert '<tr id="ch-x">' in html and "verdict-reproduced" in html and "not decided (8 of 500 epochs)" in html
    links = report.claims_table(pd.DataFrame(report.claim_rows("ch", [claim("x", True)]))).data
    assert 'href="ch.html#ch-x"' in links
