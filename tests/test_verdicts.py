"""The verdict rules: a cell against its paper number within a tolerance, a claim against its budget."""

from __future__ import annotations

import math

import pandas as pd

from graphrepro import report
from graphrepro.verdicts import Cell, Claim, cell_is_judged, claim_is_decided, judge_cell, judge_claim


def test_a_cell_is_reproduced_within_the_tolerance_and_differs_by_its_signed_gap_outside_it():
    assert judge_cell(80.0, 81.0, 1.0) == Cell.REPRODUCED == "reproduced"  # |gap| = tolerance still counts
    assert judge_cell(78.5, 81.0, 1.0) == "differs by -2.5"
    assert judge_cell(math.nan, 81.0, 1.0) == Cell.NOT_RUN and judge_cell(math.nan, 81.0, 1.0, runs=3) == Cell.DIVERGED
    assert judge_cell(80.0, math.nan, 1.0) == Cell.NO_PAPER_NUMBER
    assert [cell_is_judged(w) for w in ("reproduced", "differs by -2.5", "not run", "unavailable")] == [True, True, False, False]


def test_a_claim_below_its_papers_budget_is_not_decided_whichever_way_it_leans():
    assert judge_claim(True) == Claim.HOLDS and judge_claim(False) == Claim.DOES_NOT_HOLD and judge_claim(None) == Claim.NOT_RUN
    assert judge_claim(False, (8, 500)) == judge_claim(True, (8, 500)) == "not decided (8 of 500 epochs)"
    assert judge_claim(False, (500, 500)) == "does not hold"
    assert [claim_is_decided(w) for w in ("holds", "does not hold", "not decided (8 of 500 epochs)", "not run")] == [
        True, True, False, False]
    row = report.claim_row("ch", "c", False, "x 1.0", budget=(8, 500))
    assert row["verdict"].startswith("not decided") and row["evidence"] == "x 1.0; at 8 epochs it would not hold"


def test_the_chapter_summary_counts_only_judged_cells_and_decided_claims():
    cells = pd.DataFrame({"chapter": ["a"] * 3, "verdict": [judge_cell(1, 1, 0), judge_cell(1, 3, 0), Cell.UNAVAILABLE]})
    claims = pd.DataFrame([report.claim_row("a", "x", True, ""), report.claim_row("a", "y", True, "", budget=(1, 2))])
    row = report.chapter_summary(cells, claims).loc["a"]
    assert (row["paper numbers reproduced"], row["claims that hold"], row["overall"]) == ("1 of 2", "1 of 1", "partly")
    assert row["not run, unavailable or not decided"] == "2"
