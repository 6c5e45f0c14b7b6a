# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Verdicts
#
# Every number the papers report that the book re-runs, beside ours, and every claim the book tests,
# each with the verdict computed from the run store (nothing is trained on this page). Each row links to
# the chapter table that computed it.
#
# (verdicts-rule)=
# ## The rule
#
# One rule decides every paper number in the book (`graphrepro.verdicts.judge_cell`). Take the difference
# ours − paper and its 95% confidence interval by Welch's t: our standard error from our runs (seeds or
# folds), the paper's from its ± over the runs it reports (as many as ours where it does not say).
#
# * *reproduced*: the whole interval lies within ± the chapter's tolerance (in points unless it says
#   otherwise);
# * *not reproduced* (differs by the gap of the means): the whole interval lies outside it;
# * *not decided*: anything else, with the reason: *inside the noise* (the interval straddles the
#   tolerance), *one run* (no spread to measure), or the budget when our runs are shorter than the paper's
#   ("8 of 250 epochs");
# * *unavailable* says why the data cannot be had here; *not run* means the records are missing.
#
# A cell with two metrics (Macro- and Micro-F1) is reproduced only when both are. A claim *holds* when our
# records support it and *does not hold* when they contradict it; it is *not decided* while our runs are
# shorter than the paper's (the row gives the epochs they had and which way they lean). A claim about an
# effect (one model matches or beats another, a gain, the paper's lead) is decided the same way on the 95%
# interval of the paired differences over seeds or folds (`graphrepro.verdicts.effect_evidence`): it holds
# when the interval lies within the claim's bounds, does not hold when it lies wholly outside them, and is not
# decided otherwise (*inside the noise*, *one run*). A claim about several effects at once (on every dataset,
# below both baselines) holds only when each of its intervals does (`graphrepro.verdicts.every`). A trend
# across datasets (chapter 5's MRR against graph size) has no seeds to pair; it is decided at the same 5% by an
# exact permutation test that hands the datasets' sizes to the datasets in every order.

# %% tags=["parameters"]
profile = "standard"

# %% [markdown]
# **Parameters of this run.** Each chapter's verdicts use the parameters its page was executed with, so
# this page agrees with the chapters beside it; a chapter not executed yet is read under this page's
# profile.

# %% tags=["hide-input"]

from graphrepro import report
from myst_nb import glue

from graphrepro.collate import all_findings, chapters_as_executed, headline_claims, parameters_used

report.set_style()
used = chapters_as_executed("verdicts", profile)
parameters_used(used)

# %% tags=["hide-input"]
cells, claims = all_findings(used)

# %% [markdown]
# ## Each paper's headline claim
#
# One row per chapter: the paper's headline sentence, decided by the chapter's claims that test it (it
# does not hold when any of them does not, holds when all that can be had hold, and is otherwise not
# decided at this budget), beside the chapter's headline number.

# %% tags=["hide-input"]
headlines = headline_claims(cells, claims)
glue("index_headline_claims", report.headline_claims_table(headlines, folder="executed/"), display=False)
report.headline_claims_table(headlines)

# %% [markdown]
# ## By chapter
#
# A chapter is *reproduced* when every decided paper number and claim reproduces, *partly* when some do,
# *not reproduced* when none does, and *not decided* when nothing is decided yet; the not-decided ones are
# counted apart, and *no number* counts those not run or unavailable.

# %% tags=["hide-input"]
report.chapter_summary(cells, claims)

# %% [markdown]
# ## The papers' numbers

# %% tags=["hide-input"]
report.cells_table(cells)

# %% [markdown]
# ## The claims

# %% tags=["hide-input"]
report.claims_table(claims)
