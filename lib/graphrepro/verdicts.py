"""The words verdicts are given in, claims as objects, and the rules that decide both from numbers. Members are
strings, so a record, a table and a test read them as the words the book prints; nothing else spells them."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum


class Verdict(StrEnum):
    """A claim's verdict."""

    HOLDS = "holds"
    DOES_NOT_HOLD = "does not hold"
    NOT_DECIDED = "not decided"
    NOT_RUN = "not run"
    UNAVAILABLE = "unavailable"


class Cell(StrEnum):
    """A paper-vs-ours cell's verdict. A cell outside the tolerance reads 'differs by +x.x'."""

    REPRODUCED = "reproduced"
    DIFFERS = "differs"
    NO_PAPER_NUMBER = "no paper number"
    DIVERGED = "diverged"
    NOT_RUN = "not run"
    UNAVAILABLE = "unavailable"


@dataclass(frozen=True)
class Budget:
    """The training a claim was decided on, beside its paper's."""

    had: int
    paper: int
    unit: str = "epochs"

    @property
    def short(self) -> bool:
        """True when the claim had less than its paper's budget."""
        return self.had < self.paper

    def __str__(self) -> str:
        return f"{self.had} of {self.paper} {self.unit}"


@dataclass(frozen=True)
class Evidence:
    """What a claim's rule found: whether the records support it (None: a number it needs is not recorded),
    and the numbers behind that, in words."""

    holds: bool | None
    text: str


@dataclass(frozen=True)
class Decision:
    """A claim with its verdict and the evidence for it."""

    claim: Claim
    verdict: Verdict
    evidence: str

    @property
    def words(self) -> str:
        """The verdict as the book prints it: 'not decided' says the budget it had."""
        budget = self.claim.budget
        return f"{self.verdict} ({budget})" if self.verdict is Verdict.NOT_DECIDED and budget else str(self.verdict)

    @property
    def is_decided(self) -> bool:
        """True for a claim that holds or does not hold."""
        return self.verdict in (Verdict.HOLDS, Verdict.DOES_NOT_HOLD)


@dataclass(frozen=True)
class Claim:
    """One claim a chapter tests: a stable ``id`` (tests and links use it), the ``statement`` the book prints,
    the ``budget`` its records had (None: the paper's own), the rule that ``decide``s it from the records, and
    why its data cannot be had (``unavailable``, '' when it can)."""

    id: str
    statement: str
    decide: Callable[[], Evidence]
    budget: Budget | None = None
    unavailable: str = ""

    def judge(self) -> Decision:
        """The claim's verdict: unavailable, not run (a number is missing), not decided (short of the paper's
        budget; the evidence says which way it leans), or holds / does not hold."""
        if self.unavailable:
            return Decision(self, Verdict.UNAVAILABLE, self.unavailable)
        found = self.decide()
        verdict = judge_claim(found.holds, self.budget)
        evidence = found.text
        if verdict is Verdict.NOT_DECIDED:
            evidence += f"; at {self.budget.had} {self.budget.unit} it would {'hold' if found.holds else 'not hold'}"
        return Decision(self, verdict, evidence)


def compare(id: str, statement: str, values: list[float], rule: Callable[..., bool], evidence: str, *,
            budget: Budget | None = None, unavailable: str = "") -> Claim:
    """A claim decided by ``rule(*values)`` (not run while a value is NaN), its evidence ``evidence`` formatted
    with the values."""
    def decide() -> Evidence:
        holds = None if any(math.isnan(v) for v in values) else bool(rule(*values))
        return Evidence(holds, evidence.format(*values))

    return Claim(id, statement, decide, budget, unavailable)


def judge_claim(holds: bool | None, budget: Budget | None = None) -> Verdict:
    """A claim's verdict from whether our records support it; short of the paper's ``budget``, not decided."""
    if holds is None:
        return Verdict.NOT_RUN
    if budget is not None and budget.short:
        return Verdict.NOT_DECIDED
    return Verdict.HOLDS if holds else Verdict.DOES_NOT_HOLD


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


def decisions(claims: list[Claim]) -> list[Decision]:
    """Every claim judged, in order; claim ids must be unique and fit an HTML anchor (lower case, digits, '-')."""
    ids = [c.id for c in claims]
    if len(set(ids)) != len(ids):
        raise ValueError(f"claim ids repeat: {sorted({i for i in ids if ids.count(i) > 1})}")
    if bad := [i for i in ids if not re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", i)]:
        raise ValueError(f"claim ids must fit an anchor (lower case, digits and '-'): {bad}")
    return [c.judge() for c in claims]
