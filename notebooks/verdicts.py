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
# Every claim the book tests, with the verdict computed from the run store (nothing is trained on this
# page). A verdict reads *holds* when our records support the claim within the tolerance its chapter
# states, *does not hold* when they contradict it, and *not run* when the records are missing. The
# chapter pages show the numbers behind each row.

# %% tags=["parameters"]
profile = "standard"

# %% [markdown]
# **Parameters of this run.** Each chapter's verdicts use the parameters its page was executed with, so
# this page agrees with the chapters beside it; a chapter not executed yet is read under this page's
# profile.

# %% tags=["hide-input"]
from IPython.display import display

from graphrepro import chapters, report
from graphrepro.claims import all_verdicts, executed_with, parameters_used

report.set_style()
chapters.resolve("verdicts", profile)
used = executed_with(profile)
for slug, params in used.items():
    if not report.is_published(slug, params):
        display(report.profile_banner(slug, params, what=f"The {slug} rows come from its page, executed"))
parameters_used(used)

# %% tags=["hide-input"]
all_verdicts(used).set_index(["chapter", "claim"])
