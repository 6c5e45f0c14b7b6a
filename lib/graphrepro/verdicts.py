"""The words verdicts are given in, claims as objects, and the rules that decide both from numbers. Members are
strings, so a record, a table and a test read them as the words the book prints; nothing else spells them."""

from __future__ import annotations

import functools
import math
import re
import statistics
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from scipy import stats


class Verdict(StrEnum):
    """A claim's verdict."""

    HOLDS = "holds"
    DOES_NOT_HOLD = "does not hold"
    NOT_DECIDED = "not decided"
    NOT_RUN = "not run"
    UNAVAILABLE = "unavailable"


class Cell(StrEnum):
    """A paper-vs-ours cell's verdict (``judge_cell``). A cell outside the tolerance reads 'differs by +x.x', one
    the records cannot place reads 'not decided (why)'."""

    REPRODUCED = "reproduced"
    DIFFERS = "differs"
    NOT_DECIDED = "not decided"
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
    undecided: str = ""  # why the records cannot decide it though every number is there ("inside the noise")


@dataclass(frozen=True)
class Decision:
    """A claim with its verdict and the evidence for it."""

    claim: Claim
    verdict: Verdict
    evidence: str
    reason: str = ""  # why it is not decided: the budget it had, or the noise

    @property
    def words(self) -> str:
        """The verdict as the book prints it: 'not decided' says why."""
        return f"{self.verdict} ({self.reason})" if self.verdict is Verdict.NOT_DECIDED and self.reason else str(self.verdict)

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
        """The claim's verdict, decided once however many tables show it (``decision``)."""
        return self.decision

    @functools.cached_property
    def decision(self) -> Decision:
        """The claim's verdict: unavailable, not run (a number is missing), not decided (short of the paper's
        budget, with the way it leans, or inside the noise), or holds / does not hold."""
        if self.unavailable:
            return Decision(self, Verdict.UNAVAILABLE, self.unavailable)
        found = self.decide()
        if found.undecided:  # every number is there, and they do not decide it
            short = self.budget is not None and self.budget.short
            return Decision(self, Verdict.NOT_DECIDED, found.text, str(self.budget) if short else found.undecided)
        verdict = judge_claim(found.holds, self.budget)
        if verdict is Verdict.NOT_DECIDED:
            return Decision(self, verdict, f"{found.text}; at {self.budget.had} {self.budget.unit} it would "
                                           f"{'hold' if found.holds else 'not hold'}", str(self.budget))
        return Decision(self, verdict, found.text)


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


LEVEL = 0.95  # the confidence of every interval a verdict is decided on


@dataclass(frozen=True)
class Estimate:
    """A mean over runs (seeds or folds) with its sample standard deviation and the number of runs; a paper's
    number with its ± and, where it says, its runs (0: not said)."""

    mean: float
    sd: float = math.nan
    n: int = 0


def difference_interval(ours: Estimate, paper: Estimate, level: float = LEVEL) -> tuple[float, float]:
    """The ``level`` confidence interval of ours - paper (Welch's t): ours' standard error from its runs, the
    paper's from its ± over its runs (as many as ours where it does not say; none when it gives no ±).
    (nan, nan) with fewer than two runs of ours, whose spread is then unknown."""
    if ours.n < 2 or math.isnan(ours.sd):
        return math.nan, math.nan
    paper_n = paper.n or ours.n
    v_ours, v_paper = ours.sd**2 / ours.n, (0.0 if math.isnan(paper.sd) else paper.sd**2 / paper_n)
    gap, se = ours.mean - paper.mean, math.sqrt(v_ours + v_paper)
    if se == 0:
        return gap, gap
    df = (v_ours + v_paper) ** 2 / (v_ours**2 / (ours.n - 1) + (v_paper**2 / (paper_n - 1) if v_paper and paper_n > 1 else 0.0))
    half = float(stats.t.ppf((1 + level) / 2, df)) * se
    return gap - half, gap + half


def judge_cell(ours: Estimate, paper: Estimate, tolerance: float, runs: int = 0, budget: Budget | None = None) -> str:
    """A paper number against ours: 'reproduced' when the confidence interval of ours - paper
    (``difference_interval``) lies within ±``tolerance`` points, 'differs by +x.x' (the gap of the means) when
    it lies wholly outside, else 'not decided' with the reason: inside the noise, one run, or short of the
    paper's ``budget``. ``runs`` tells a missing number (not run) from runs that all diverged."""
    if math.isnan(ours.mean):
        return Cell.DIVERGED if runs else Cell.NOT_RUN
    if math.isnan(paper.mean):
        return Cell.NO_PAPER_NUMBER
    if budget is not None and budget.short:
        return f"{Cell.NOT_DECIDED} ({budget})"
    low, high = difference_interval(ours, paper)
    if math.isnan(low):
        return f"{Cell.NOT_DECIDED} (one run)"
    if -tolerance <= low and high <= tolerance:
        return Cell.REPRODUCED
    if low > tolerance or high < -tolerance:
        return f"{Cell.DIFFERS} by {ours.mean - paper.mean:+.1f}"
    return f"{Cell.NOT_DECIDED} (inside the noise)"


def paired(a: Mapping[Any, float], b: Mapping[Any, float]) -> list[float]:
    """A − B on each seed or fold (a key of both, a dict's or a Series') where both have a number, in key order:
    the paired differences an effect is decided on."""
    differences = (float(a[k]) - float(b[k]) for k in sorted(set(a.keys()) & set(b.keys())))
    return [d for d in differences if not math.isnan(d)]


def paired_interval(differences: list[float], level: float = LEVEL) -> tuple[float, float, float]:
    """The mean of paired differences (A - B, one per seed or fold) and its ``level`` t interval; the interval is
    (nan, nan) with fewer than two differences."""
    n = len(differences)
    mean = sum(differences) / n if n else math.nan
    if n < 2:
        return mean, math.nan, math.nan
    se = statistics.stdev(differences) / math.sqrt(n)
    half = float(stats.t.ppf((1 + level) / 2, n - 1)) * se
    return mean, mean - half, mean + half


def paired_words(differences: list[float], unit: str = "seed") -> tuple[float, float, str]:
    """``paired_interval`` of ``differences`` and the mean with it in words: '+1.2 [-0.3, +2.7] over 3 seeds'."""
    mean, low, high = paired_interval(differences)
    signed = lambda v: f"{round(v, 1) + 0.0:+.1f}"  # noqa: E731  (no "-0.0")
    if len(differences) < 2:
        return low, high, "not recorded yet" if not differences else f"{signed(mean)} on one {unit}"
    return low, high, f"{signed(mean)} [{signed(low)}, {signed(high)}] over {len(differences)} {unit}s"


def effect_evidence(what: str, differences: list[float], lowest: float, highest: float = math.inf, detail: str = "",
                    unit: str = "seed") -> Evidence:
    """A claim that the effect ``what`` (A - B, one difference per seed or fold) lies in [``lowest``, ``highest``],
    decided on its interval (``interval_evidence``) and said in words: 'what +1.2 [-0.3, +2.7] over 3 seeds; detail'."""
    low, high, words = paired_words(differences, unit)
    return interval_evidence(low, high, lowest, highest, f"{what} {words}" + (f"; {detail}" if detail else ""), len(differences))


def every(outcomes: list[Evidence], text: str | None = None) -> Evidence:
    """Several effects that must all lie in their bounds, as one claim said in ``text`` (default: theirs, joined):
    not run while one is not run, does not hold when one does not, not decided (its reason) while one is not
    decided, else holds."""
    text = "; ".join(e.text for e in outcomes) if text is None else text
    if not outcomes or any(e.holds is None and not e.undecided for e in outcomes):
        return Evidence(None, text)
    if any(e.holds is False for e in outcomes):
        return Evidence(False, text)
    if undecided := next((e.undecided for e in outcomes if e.undecided), ""):
        return Evidence(None, text, undecided=undecided)
    return Evidence(True, text)


def interval_evidence(low: float, high: float, lowest: float, highest: float, text: str, runs: int = 2) -> Evidence:
    """A claim that an effect lies in [``lowest``, ``highest``], decided on its interval over ``runs`` paired runs:
    holds when the interval lies inside, does not hold when it lies wholly outside, else not decided (inside the
    noise); not decided with one run (no spread to put an interval on), not run with none."""
    if math.isnan(low) or math.isnan(high):
        return Evidence(None, text, undecided="one run" if runs == 1 else "")
    if lowest <= low and high <= highest:
        return Evidence(True, text)
    if high < lowest or low > highest:
        return Evidence(False, text)
    return Evidence(None, text, undecided="inside the noise")


def judge_metrics(words: dict[str, str]) -> str:
    """One verdict for a cell judged on several metrics (metric name -> ``judge_cell``'s word): reproduced when
    every metric is; differs when any does, naming those; else not decided, naming why. A cell without a
    number keeps its first metric's word."""
    first = next(iter(words.values()))
    if not all(cell_is_judged(w) or w.startswith(Cell.NOT_DECIDED) for w in words.values()):
        return first
    if all(w == Cell.REPRODUCED for w in words.values()):
        return Cell.REPRODUCED
    differ = {name: w for name, w in words.items() if w.startswith(Cell.DIFFERS)}
    open_ = {name: w for name, w in words.items() if w.startswith(Cell.NOT_DECIDED)}
    named = differ or open_
    if not differ and len(set(open_.values())) == 1 and len(open_) == len(words):
        return next(iter(open_.values()))  # every metric undecided for the same reason
    return "; ".join(f"{w} ({name})" for name, w in named.items())


def tally(words: Iterable[str]) -> dict[str, int]:
    """Of the cells with a number on both sides: how many are reproduced, differ, and are not decided."""
    words = list(words)
    return {"reproduced": sum(w == Cell.REPRODUCED for w in words), "differ": sum(w.startswith(Cell.DIFFERS) for w in words),
            "not decided": sum(w.startswith(Cell.NOT_DECIDED) for w in words)}


def cell_is_judged(word: str) -> bool:
    """True for a cell decided against its paper number: reproduced, or differs by some points."""
    return word == Cell.REPRODUCED or word.startswith(Cell.DIFFERS)


def decisions(claims: list[Claim]) -> list[Decision]:
    """Every claim judged, in order; claim ids must be unique and fit an HTML anchor (lower case, digits, '-')."""
    ids = [c.id for c in claims]
    if len(set(ids)) != len(ids):
        raise ValueError(f"claim ids repeat: {sorted({i for i in ids if ids.count(i) > 1})}")
    if bad := [i for i in ids if not re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", i)]:
        raise ValueError(f"claim ids must fit an anchor (lower case, digits and '-'): {bad}")
    return [c.judge() for c in claims]


@dataclass(frozen=True)
class Headline:
    """A chapter's headline claim: the paper's sentence, decided by those of the chapter's claims whose ids end
    with ``ids_ending`` (one per dataset, say), taken together."""

    statement: str
    ids_ending: str

    def judge(self, claims: list[tuple[str, Verdict, str]]) -> tuple[Verdict, str]:
        """The verdict and its words from the chapter's judged claims (id, verdict, words): does not hold when any
        of its claims does not; holds when all of those that can be had hold; else not decided (with the budget)
        or not run; unavailable when none can be had."""
        had = [(v, words) for id, v, words in claims if id.endswith(self.ids_ending) and v != Verdict.UNAVAILABLE]
        if not had:
            return Verdict.UNAVAILABLE, str(Verdict.UNAVAILABLE)
        for verdict in (Verdict.DOES_NOT_HOLD, Verdict.NOT_DECIDED, Verdict.NOT_RUN):
            if first := next((words for v, words in had if v == verdict), None):
                return verdict, first
        return Verdict.HOLDS, str(Verdict.HOLDS)
