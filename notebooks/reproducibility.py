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
# # Reproducibility
#
# What the numbers in this book were computed with: the package versions and hardware recorded with
# every run, the commits the runs came from, and the checksum of every data file. Any run can be
# repeated with `python -m graphrepro verify --sample N`, which re-trains randomly chosen records on
# the CPU and compares their metrics (exactly, when the packages, device and thread count match the
# record; otherwise within 0.01).

# %% tags=["parameters"]
profile = "standard"

# %% [markdown]
# **Parameters of this run**

# %% tags=["remove-input"]
from graphrepro import chapters, provenance, report

chapters.resolve("reproducibility", profile)
report.parameters_table({"profile": profile})

# %% [markdown]
# ## This build

# %% tags=["remove-input"]
provenance.build_environment()

# %% [markdown]
# ## The recorded runs
#
# One row per distinct environment that produced records: chapter, device and hardware, package
# versions, and the git commit of the code.

# %% tags=["remove-input"]
provenance.run_environments()

# %% [markdown]
# ## Data files
#
# Every file the registry knows, its pinned checksum and where this build found it.

# %% tags=["remove-input"]
provenance.data_files()
