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
# each with the verdict computed from the run store (nothing is trained on this page). A paper number is
# *reproduced* when our mean lies within the stated tolerance of it (in points unless it says otherwise);
# *not reproduced* says by how much it differs; *unavailable* says why the data cannot be had here; *not
# run* means the records are missing. A claim *holds* when our records support it and *does not hold*
# when they contradict it; it is *not decided* while our runs are shorter than the paper's (the row gives
# the epochs they had and which way they lean). Each row links to the chapter table that computed it.

# %% tags=["parameters"]
profile = "standard"

# %% [markdown]
# **Parameters of this run.** Each chapter's verdicts use the parameters its page was executed with, so
# this page agrees with the chapters beside it; a chapter not executed yet is read under this page's
# profile.

# %% tags=["hide-input"]

from graphrepro import report
from graphrepro.chapters import all_findings, chapters_as_executed, parameters_used

report.set_style()
used = chapters_as_executed("verdicts", profile)
parameters_used(used)

# %% tags=["hide-input"]
cells, claims = all_findings(used)

# %% [markdown]
# ## By chapter
#
# A chapter is *reproduced* when every paper number and claim with records reproduces, *partly* when
# some do, and *not reproduced* when none does.

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
