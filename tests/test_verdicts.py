"""The verdict rules: a cell against its paper number (a confidence interval of the difference against a
tolerance), a claim against its budget."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from graphrepro import report
from graphrepro.verdicts import (
    Budget,
    Cell,
    Claim,
    Estimate,
    Evidence,
    Headline,
    Verdict,
    cell_is_judged,
    decisions,
    difference_interval,
    judge_cell,
    judge_claim,
    judge_metrics,
)


def claim(id: str, holds: bool | None, budget: Budget | None = None, unavailable: str = "") -> Claim:
    """A claim whose rule finds ``holds``, with 'x 1.0' as its evidence."""
    return Claim(id, f"claim {id}", lambda: Evidence(holds, "x 1.0"), budget, unavailable)


def test_the_difference_interval_is_welchs_t_over_ours_and_the_papers_runs():
    # five runs of ours, sd 1; the paper's ± 1 over 5 runs: se = sqrt(1/5 + 1/5), df = 8 (equal variances)
    low, high = difference_interval(Estimate(80.0, 1.0, 5), Estimate(81.0, 1.0, 5))
    half = 2.306004 * math.sqrt(0.4)  # t(0.975, 8), from a table
    assert (low, high) == pytest.approx((-1.0 - half, -1.0 + half), abs=1e-5)
    # no ± in the paper: ours alone, df = n - 1 = 4, t = 2.776445
    assert difference_interval(Estimate(80.0, 1.0, 5), Estimate(81.0)) == pytest.approx((-1 - 2.776445 / math.sqrt(5), -1 + 2.776445 / math.sqrt(5)), abs=1e-5)
    # the paper's runs unsaid: as many as ours
    assert difference_interval(Estimate(80.0, 1.0, 5), Estimate(81.0, 1.0)) == difference_interval(Estimate(80.0, 1.0, 5), Estimate(81.0, 1.0, 5))
    assert all(math.isnan(v) for v in difference_interval(Estimate(80.0, 0.0, 1), Estimate(81.0, 1.0, 5)))  # one run: no spread


def test_a_cell_is_reproduced_inside_the_tolerance_differs_outside_it_and_else_is_not_decided():
    tight, paper = Estimate(80.5, 0.2, 10), Estimate(81.0, 0.2, 10)
    assert judge_cell(tight, paper, 1.0) == Cell.REPRODUCED == "reproduced"  # interval about -0.5 ± 0.19
    assert judge_cell(Estimate(78.0, 0.2, 10), paper, 1.0) == "differs by -3.0"
    assert judge_cell(Estimate(83.5, 0.2, 10), paper, 1.0) == "differs by +2.5"
    # the same means with a wide spread: the interval straddles the tolerance
    assert judge_cell(Estimate(80.5, 3.0, 3), paper, 1.0) == "not decided (inside the noise)"
    assert judge_cell(Estimate(78.0, 3.0, 3), paper, 1.0) == "not decided (inside the noise)"
    assert judge_cell(Estimate(80.5, 0.0, 1), paper, 1.0) == "not decided (one run)"
    assert judge_cell(tight, paper, 1.0, budget=Budget(8, 250)) == "not decided (8 of 250 epochs)"
    assert judge_cell(tight, paper, 1.0, budget=Budget(250, 250)) == Cell.REPRODUCED
    assert judge_cell(Estimate(math.nan), paper, 1.0) == Cell.NOT_RUN and judge_cell(Estimate(math.nan), paper, 1.0, runs=3) == Cell.DIVERGED
    assert judge_cell(tight, Estimate(math.nan), 1.0) == Cell.NO_PAPER_NUMBER
    assert [cell_is_judged(w) for w in ("reproduced", "differs by -2.5", "not decided (one run)", "not run", "unavailable")] == [
        True, True, False, False, False]


def test_a_cell_with_two_metrics_is_reproduced_only_when_both_are_and_names_the_one_that_differs():
    assert judge_metrics({"Macro-F1": "reproduced", "Micro-F1": "reproduced"}) == "reproduced"
    assert judge_metrics({"Macro-F1": "differs by -3.2", "Micro-F1": "reproduced"}) == "differs by -3.2 (Macro-F1)"
    assert judge_metrics({"Macro-F1": "not decided (inside the noise)", "Micro-F1": "reproduced"}) == (
        "not decided (inside the noise) (Macro-F1)")
    assert judge_metrics({"Macro-F1": "not decided (inside the noise)", "Micro-F1": "differs by +2.1"}) == "differs by +2.1 (Micro-F1)"
    assert judge_metrics({"Macro-F1": "not decided (one run)", "Micro-F1": "not decided (one run)"}) == "not decided (one run)"
    assert judge_metrics({"Macro-F1": "not run", "Micro-F1": "not run"}) == "not run"


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
    exact = Estimate(1.0, 0.0, 3)
    verdicts = [judge_cell(exact, Estimate(1.0), 0), judge_cell(exact, Estimate(3.0), 0), Cell.UNAVAILABLE,
                judge_cell(Estimate(1.0, 0.0, 1), Estimate(1.0), 0)]
    cells = pd.DataFrame({"chapter": ["a"] * 4, "verdict": verdicts})
    claims = pd.DataFrame(report.claim_rows("a", [claim("x", True), claim("y", True, Budget(1, 2)), claim("z", None, unavailable="gone")]))
    row = report.chapter_summary(cells, claims).loc["a"]
    assert (row["paper numbers reproduced"], row["claims that hold"], row["overall"]) == ("1 of 2", "1 of 1", "partly")
    assert row["not decided / no number"] == "2 / 2"  # one cell and one claim; one of each without a number
    only_open = report.chapter_summary(cells.iloc[3:], claims.iloc[1:2]).loc["a"]
    assert only_open["overall"] == "not decided"


def test_a_chapters_verdict_table_anchors_each_claim_where_the_verdicts_page_links():
    html = report.verdict_table("ch", [claim("x", True), claim("y", False, Budget(8, 500))]).data
    assert '<tr id="ch-x">' in html and "verdict-reproduced" in html and "not decided (8 of 500 epochs)" in html
    links = report.claims_table(pd.DataFrame(report.claim_rows("ch", [claim("x", True)]))).data
    assert 'href="ch.html#ch-x"' in links


def test_a_chapter_opens_with_its_claims_counted_each_linked_to_its_row_and_the_headline_cell():
    from graphrepro import pages

    said = [claim("x", True), claim("y", False), claim("z", True, Budget(8, 500)), claim("w", None, unavailable="gone")]
    cells = [{"cell": "T1, A", "paper": "90.0 ± 1.0", "ours": "89.5 ± 0.5", "verdict": Cell.REPRODUCED},
             {"cell": "T1, B", "paper": "80.0 ± 1.0", "ours": "70.0 ± 0.5", "verdict": "differs by -10.0"}]
    slug = "hgcn-mlp-bug"
    html = report.answer_box(slug, pages.resolve(slug, "standard"), said, cells, "T1, B").data
    assert "4 claims, 1 hold, 1 do not hold, 1 not decided, 1 unavailable</p>" in html
    assert [f'href="#{slug}-{i}"' in html for i in "xyzw"] == [True] * 4  # the anchors verdict_table gives the rows
    assert "not decided (8 of 500 epochs)" in html and "verdict-undecided" in html
    assert "<strong>T1, B</strong>: paper 80.0\u00a0±\u00a01.0, ours 70.0\u00a0±\u00a00.5" in html
    assert "not reproduced (differs by -10.0)" in html and "T1, A" not in html
    smoke = report.answer_box(slug, pages.resolve(slug, "smoke"), said, cells, "T9, not run here").data
    assert "graphrepro-headline" not in smoke and "(under the smoke profile: not the published numbers)</p>" in smoke


def test_the_parameters_of_a_run_are_a_plain_two_column_table_collapsed_under_their_title():
    html = report.parameters_table({"profile": "smoke", "seeds": 2, "models": ["GCN", "GAT"]}).data
    assert html.startswith('<details class="graphrepro-parameters"><summary>Parameters of this run</summary>')
    assert "<th>parameter</th><th>value</th>" in html and "<tr><th>models</th><td data-label=\"value\">GCN, GAT</td></tr>" in html


@pytest.mark.parametrize("verdicts, expected", [
    (["holds", "holds", "unavailable"], ("holds", "holds")),
    (["holds", "does not hold", "not decided"], ("does not hold", "does not hold")),
    (["holds", "not decided", "not run"], ("not decided", "words of b")),
    (["holds", "not run", "holds"], ("not run", "words of b")),
    (["unavailable", "unavailable", "unavailable"], ("unavailable", "unavailable")),
])
def test_a_headline_claim_is_decided_by_its_claims_together(verdicts, expected):
    said = [(f"{name}-gat-vs-han", Verdict(v), v if v in ("holds", "does not hold", "unavailable") else f"words of {name}")
            for name, v in zip("abc", verdicts)] + [("x-other", Verdict.DOES_NOT_HOLD, "does not hold")]
    assert Headline("GAT matches HAN", "-gat-vs-han").judge(said) == (Verdict(expected[0]), expected[1])


def test_the_headline_claims_table_links_each_chapters_answer_from_where_it_is_shown():
    rows = pd.DataFrame([{"chapter": "ch", "claim": "GAT matches HAN", "verdict": Verdict.NOT_DECIDED,
                          "words": "not decided (8 of 250 epochs)", "cell": "T3, GAT", "paper": "93.8 ± 0.3",
                          "ours": "92.9 ± 0.5", "where": report.anchor("ch", "answer")}])
    html = report.headline_claims_table(rows).data
    assert 'href="ch.html#ch-answer">GAT matches HAN</a>' in html and "verdict-undecided" in html
    assert "T3, GAT: 93.8\u00a0±\u00a00.3" in html and "not decided (8 of 250 epochs)" in html
    assert 'href="executed/ch.html#ch-answer"' in report.headline_claims_table(rows, folder="executed/").data


def test_the_verdicts_page_labels_paper_and_ours_for_a_phones_cards():
    cells = pd.DataFrame([{"chapter": "ch", "cell": "T1, A", "paper": "90.0 ± 1.0", "ours": "89.5 ± 0.5", "runs": 3,
                           "tolerance": 1.0, "verdict": Cell.REPRODUCED, "where": "ch-paper-vs-ours"}])
    html = report.cells_table(cells).data
    assert '<td data-label="paper">90.0\u00a0±\u00a01.0</td>' in html and '<td data-label="ours">89.5\u00a0±\u00a00.5' in html


def test_a_plain_table_has_no_index_header_row_a_dash_for_nothing_and_labels_for_a_phone():
    frame = pd.DataFrame({"runs": [3, 0], "hours": [1.5, math.nan]}, index=pd.Index(["a", "b"], name="chapter"))
    html = report.plain_table(frame).data
    assert "<thead><tr><th>chapter</th><th>runs</th><th>hours</th></tr></thead>" in html
    assert '<tr><th>b</th><td data-label="runs">0</td><td data-label="hours">–</td></tr>' in html


def test_an_effect_is_decided_on_the_interval_of_its_paired_differences():
    """Each outcome of the rule for effects: inside the bounds holds, wholly outside does not, across a bound is
    not decided (inside the noise), one pair is not decided (one run), none is not run."""
    from scipy import stats as scipy_stats

    from graphrepro.verdicts import interval_evidence, paired_interval, paired_words

    mean, low, high = paired_interval([1.0, 2.0, 3.0])
    assert mean == 2.0 and (low, high) == pytest.approx(scipy_stats.t.interval(0.95, 2, loc=2.0, scale=1.0 / 3**0.5))
    assert paired_interval([4.0])[0] == 4.0 and math.isnan(paired_interval([4.0])[1])
    assert paired_words([1.0, 2.0, 3.0])[2] == f"+2.0 [{low:+.1f}, {high:+.1f}] over 3 seeds" == "+2.0 [-0.5, +4.5] over 3 seeds"
    assert paired_words([-0.04])[2] == "+0.0 on one seed" and paired_words([])[2] == "not recorded yet"
    outcome = lambda low, high, runs=3: (lambda e: (e.holds, e.undecided))(interval_evidence(low, high, -1.0, 1.0, "", runs))  # noqa: E731
    assert outcome(-0.5, 0.5) == (True, "")
    assert outcome(1.5, 3.0) == (False, "") and outcome(-3.0, -1.5) == (False, "")
    assert outcome(0.5, 1.5) == (None, "inside the noise")
    assert outcome(math.nan, math.nan, 1) == (None, "one run") and outcome(math.nan, math.nan, 0) == (None, "")
    noisy = Claim("noisy", "an effect", lambda: interval_evidence(0.5, 1.5, -1.0, 1.0, "+1.0 [+0.5, +1.5]"))
    judged = noisy.judge()
    assert judged.verdict is Verdict.NOT_DECIDED and judged.words == "not decided (inside the noise)"
    short = Claim("short", "an effect", noisy.decide, Budget(8, 250))
    assert short.judge().words == "not decided (8 of 250 epochs)"  # the budget is the first reason


def test_effects_taken_together_hold_only_when_each_does():
    """``every``: one effect that fails decides against, one not run leaves all unrun, one in the noise leaves
    the rest undecided; ``effect_evidence`` puts the interval in words before its detail."""
    from graphrepro.verdicts import effect_evidence, every

    holds, fails = effect_evidence("A − B", [3.0, 3.0], 2.0), effect_evidence("A − C", [1.0, 1.0], 2.0)
    noisy, unrun = effect_evidence("A − D", [0.0, 6.0], 2.0, detail="A 9.0 vs D 6.0"), effect_evidence("A − E", [], 2.0)
    assert (holds.holds, fails.holds, noisy.undecided, unrun.holds) == (True, False, "inside the noise", None)
    assert noisy.text == "A − D +3.0 [-35.1, +41.1] over 2 seeds; A 9.0 vs D 6.0"
    assert every([holds, holds]).holds is True and every([holds, fails, noisy]).holds is False
    assert every([holds, noisy]).undecided == "inside the noise"
    assert (every([fails, unrun]).holds, every([fails, unrun]).undecided) == (None, "")
    assert every([holds, fails]).text == "A − B +3.0 [+3.0, +3.0] over 2 seeds; A − C +1.0 [+1.0, +1.0] over 2 seeds"
    assert effect_evidence("A − B", [1.0, 2.0, 3.0], 0.0, unit="fold").text.endswith("over 3 folds")


def test_paired_differences_take_the_seeds_both_cells_have_in_seed_order():
    from graphrepro.verdicts import paired

    a, b = {2: 5.0, 0: 3.0, 1: 4.0}, {0: 1.0, 2: 1.5, 3: 9.0}  # seed 1 only in a, seed 3 only in b
    assert paired(a, b) == [2.0, 3.5]
    diverged = pd.Series([3.0, math.nan, 6.0], index=[0, 1, 2])  # a diverged seed has no number to pair
    assert paired(diverged, pd.Series([1.0, 1.0, 1.0], index=[2, 1, 0])) == [2.0, 5.0] and paired({}, a) == []


def test_a_verdicts_row_of_an_unavailable_cell_gives_its_reason_from_the_why_column():
    long = pd.DataFrame([{"paper": "90.0 ± 1.0", "ours": "–", "verdict": "unavailable", "seeds": 0, "why": "no file"},
                         {"paper": "80.0 ± 1.0", "ours": "80.1 ± 0.5", "verdict": "reproduced", "seeds": 5}])
    rows = report.cell_rows("toy", long, lambda r: f"cell {r.paper}", 2.0, "section")
    assert [(r["ours"], r["verdict"]) for r in rows] == [("–", "unavailable: no file"), ("80.1 ± 0.5", "reproduced")]
