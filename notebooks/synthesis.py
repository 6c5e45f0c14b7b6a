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
# # What went wrong, and how to check your own baseline
#
# Each chapter re-ran a published claim about how graph-learning results are evaluated, and each found
# one way an evaluation can go wrong: a baseline with a bug in it, a baseline fed less than it should
# have been, a single data split, a prediction head nobody tuned, and a metric computed differently from
# the one described. This page puts them side by side, each with the chapter's strongest number from the
# run store (nothing is trained here), and ends with a checklist to hold against your own paper.

# %% tags=["parameters"]
profile = "standard"

# %% [markdown]
# **Parameters of this run.** Each chapter's number uses the parameters its page was executed with; a
# chapter not executed yet is read under this page's profile.

# %% tags=["hide-input"]

from graphrepro import report
from graphrepro.collate import all_headlines, chapters_as_executed, parameters_used

report.set_style()
used = chapters_as_executed("synthesis", profile, "row comes")
parameters_used(used)

# %% [markdown]
# ## Five ways an evaluation went wrong
#
# For each failure mode, the comparison in its chapter that moved most when the slip was put right, and
# by how many points (of ROC AUC, Micro-F1, accuracy, average precision or MRR, each × 100). Each row
# links to the table it comes from.

# %% tags=["hide-input"]
headlines = all_headlines(used)
report.glue_figure("synthesis_points", report.headlines_figure(headlines))
report.headlines_table(headlines)

# %% [markdown]
# ```{glue:figure} synthesis_points
# :name: fig-synthesis-points
# :alt: Bars of how many points each chapter's slip moved its headline comparison.
#
# How many points each slip moved the chapter's headline comparison (absolute value).
# ```
#
# ## A checklist for your own baseline
#
# 1. **Run the baseline's code path by itself** (chapter 1). Train the simplest model through exactly
#    the pipeline the proposed model uses and check that it behaves as the simple model should; a
#    projection, a clamp or a normalisation meant for one model can cripple another.
# 2. **Give every baseline the inputs you give your model** (chapter 2). If your model sees all node
#    types, relations and features, so should the baseline; a baseline on a subgraph, or with its
#    features zeroed, measures the preprocessing rather than the architecture.
# 3. **Estimate on many splits, select on validation only** (chapter 3). Report a mean and spread
#    over folds or seeds with the model chosen per split on validation data; one split's number can land
#    anywhere in the range above, and rankings flip between folds.
# 4. **Tune the parts that are not the contribution** (chapter 4). Heads, normalisation, learning-rate
#    schedules and training length can close gaps attributed to the architecture; give the baselines
#    the same budget for them.
# 5. **State the metric exactly, and compute what you state** (chapter 5). Raw or filtered ranks,
#    self-loops in or out, optimistic or realistic ties; and when datasets differ in size, report an
#    adjusted metric beside MRR or Hits@k. Pin the library that trains and scores, to the commit: between
#    releases a loss or a negative sampler can change what the same configuration learns (chapter 5's knowledge
#    graphs, with the losses of pykeen 1.8 and 1.11 and the sampler of its March 2022 tree).
#
# The {doc}`verdicts` page lists every paper number and claim the book re-ran, with its verdict.
