"""The words verdicts are given in, and the rules that decide them from numbers. Members are strings, so a
record, a table and a test read them as the words the book prints; nothing else spells them."""

from __future__ import annotations

import math
from enum import StrEnum


class Claim(StrEnum):
    """A claim's verdict. A claim decided on less than its paper's budget reads 'not decided (n of N epochs)'."""

    HOLDS = "holds"
    DOES_NOT_HOLD = "does not hold"
    NOT_DECIDED = "not decided"
    NOT_RUN = "not run"


class Cell(StrEnum):
    """A paper-vs-ours cell's verdict. A cell outside the tolerance reads 'differs by +x.x'."""

    REPRODUCED = "reproduced"
    DIFFERS = "differs"
    NO_PAPER_NUMBER = "no paper number"
    DIVERGED = "diverged"
    NOT_RUN = "not run"
    UNAVAILABLE = "unavailable"


def judge_cell(ours: float, paper: float, tolerance: float, runs: int = 0) -> str:
    """'reproduced' when |ours - paper| ≤ tolerance (in points), else the signed gap; ``runs`` tells a
    missing number (not run) from runs that all diverged before their first evaluation."""
    if math.isnan(ours):
        return Cell.DIVERGED if runs else Cell.NOT_RUN
    if math.isnan(paper):
        return Cell.NO_PAPER_NUMBER
    gap = ours - paper
    return Cell.REPRODUCED if abs(gap) <= tolerance else f"{Cell.DIFFERS} by {gap:+.1f}"


def cell_is_judged(word: str) -> bool:
    """True for a cell compared with its paper number: reproduced, or differs by some points."""
    return word == Cell.REPRODUCED or word.startswith(Cell.DIFFERS)


def judge_claim(holds: bool | None, budget: tuple[int, int] | None = None) -> str:
    """A claim's verdict from whether our records support it; with ``budget`` (epochs run, the paper's epochs)
    shorter than the paper's, 'not decided' with the budget it had."""
    if holds is None:
        return Claim.NOT_RUN
    if budget is not None and budget[0] < budget[1]:
        return f"{Claim.NOT_DECIDED} ({budget[0]} of {budget[1]} epochs)"
    return Claim.HOLDS if holds else Claim.DOES_NOT_HOLD


def claim_is_decided(word: str) -> bool:
    """True for a claim that holds or does not hold (not one that is not run or not decided)."""
    return word in (Claim.HOLDS, Claim.DOES_NOT_HOLD)
