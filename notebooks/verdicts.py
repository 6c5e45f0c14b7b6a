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
# **Parameters of this run**

# %% tags=["remove-input"]
from graphrepro import chapters, report
from graphrepro.claims import all_verdicts

chapters.resolve("verdicts", profile)
report.parameters_table({"profile": profile})

# %% tags=["remove-input"]
all_verdicts(profile).set_index(["chapter", "claim"])
